"""Claims junior/02_autograd_basics makes about PyTorch, as code (cells as tools/dump_notebook.py numbers them)."""

from __future__ import annotations

import warnings

import pytest
import torch


def test_junior02_results_require_grad_but_are_not_leaves():
    """[0]/[4] a result of a leaf that requires grad requires grad too, but is not a leaf; d.grad_fn is AddBackward0."""
    a, b = torch.tensor(2.0, requires_grad=True), torch.tensor(3.0)
    c = a * b
    d = c ** 2 + b
    d.backward()
    assert c.requires_grad and not c.is_leaf and a.is_leaf
    assert type(d.grad_fn).__name__ == "AddBackward0"
    assert a.grad.item() == 36.0 and b.grad is None


def test_junior02_non_leaf_grad_is_none_unless_retained():
    """[8] follow-up to ex1: c.grad of a non-leaf is None (with a warning) unless c.retain_grad() was called."""
    a = torch.tensor(2.0, requires_grad=True)
    c = a * 3
    (c ** 2).backward(retain_graph=True)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert c.grad is None
    assert caught
    c2 = a * 3
    c2.retain_grad()
    (c2 ** 2).backward()
    assert c2.grad.item() == 12.0


def _power_until(x):
    y = x
    while y < 10:
        y = y * x
    return y


class _PowerUntil(torch.nn.Module):
    def forward(self, x):
        return _power_until(x)


def test_junior02_jit_trace_replays_the_example_path_and_warns():
    """[18] follow-up to ex3: the legacy jit.trace replays three multiplications (1.5**3) and warns (TracerWarning)."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        traced = torch.jit.trace(_PowerUntil(), torch.tensor(3.0))
    assert any(issubclass(w.category, torch.jit.TracerWarning) for w in caught)
    assert traced(torch.tensor(1.5)).item() == pytest.approx(1.5 ** 3)


def test_junior02_gradients_accumulate():
    """[19]/[21] three backward passes of 4 w^2 at w = 1 leave w.grad = 24; after w.grad = None, 5 w gives 5."""
    w = torch.tensor(1.0, requires_grad=True)
    for _ in range(3):
        (4 * w ** 2).backward()
    assert w.grad.item() == 24.0
    w.grad = None
    (5 * w).backward()
    assert w.grad.item() == 5.0


def test_junior02_zero_grad_between_backward_and_step_freezes_the_model():
    """[31] follow-up to ex5: zero_grad() after backward() and before step() leaves the parameters unchanged."""
    w = torch.nn.Parameter(torch.tensor([1.0]))
    opt = torch.optim.SGD([w], lr=0.1)
    (w ** 2).sum().backward()
    opt.zero_grad()
    opt.step()
    assert w.item() == 1.0


def test_junior02_no_grad_and_detach():
    """[32]/[34] no_grad and detach results do not require grad; detach shares memory; a frozen layer's output
    still requires grad when its input does."""
    w = torch.randn(3, requires_grad=True)
    with torch.no_grad():
        a = w * 2
    assert not a.requires_grad and not (w.detach() * 2).requires_grad
    assert w.detach().untyped_storage().data_ptr() == w.untyped_storage().data_ptr()
    frozen = torch.nn.Linear(3, 1).requires_grad_(False)
    assert frozen(w).requires_grad


def test_junior02_inference_tensor_cannot_be_saved_for_backward():
    """[32]/[40] an inference tensor used later by c * w (which saves it) raises; c + w (saves nothing) works."""
    w = torch.randn(3, requires_grad=True)
    with torch.inference_mode():
        c = w * 2
    assert not c.requires_grad and c.is_inference()
    (c + w).sum().backward()
    with pytest.raises(RuntimeError, match="Inference tensors cannot be saved for backward"):
        (c * w).sum().backward()
    assert not c.clone().is_inference()


def test_junior02_no_grad_does_not_switch_dropout_off():
    """[40] follow-up to ex7: no_grad does not change dropout's behaviour; model.eval() does."""
    drop = torch.nn.Dropout(0.5)
    x = torch.ones(1000)
    with torch.no_grad():
        assert (drop(x) == 0).any()
        drop.eval()
        assert torch.equal(drop(x), x)

