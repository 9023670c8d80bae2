"""Claims senior/19_backprop_and_memory_by_hand makes about autograd, as code."""

from __future__ import annotations

import pytest
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.checkpoint import checkpoint


class _Ckpt(torch.autograd.Function):
    """The notebook's reentrant design, minimal: parameters of fn are not inputs."""

    @staticmethod
    def forward(ctx, fn, *inputs):
        ctx.fn = fn
        ctx.save_for_backward(*inputs)
        return fn(*inputs)

    @staticmethod
    def backward(ctx, grad):
        ins = [t.detach().requires_grad_(t.requires_grad) for t in ctx.saved_tensors]
        with torch.enable_grad():
            out = ctx.fn(*ins)
        torch.autograd.backward(out, grad)
        return (None, *(t.grad if t.requires_grad else None for t in ins))


def test_senior19_cross_entropy_all_ignored_is_nan():
    """[9] follow-up to ex1: F.cross_entropy with every target ignored returns nan."""
    assert torch.isnan(F.cross_entropy(torch.randn(3, 4), torch.full((3,), -100)))


def test_senior19_second_backward_raises_without_retain_graph():
    """[23] follow-up to ex3: the saved tensors are freed after backward; a second one raises."""
    x = torch.tensor(2.0, requires_grad=True)
    y = (x * x).exp()
    y.backward()
    with pytest.raises(RuntimeError, match="second time"):
        y.backward()


def test_senior19_retained_second_backward_adds_one_more_copy():
    """[23] follow-up to ex3: with retain_graph=True the second backward adds exactly one more copy to the leaf."""
    x = torch.tensor(0.5, requires_grad=True)
    y = (x + x) * (x + x)
    y.backward(retain_graph=True)
    first = x.grad.item()
    y.backward()
    assert x.grad.item() == 2 * first == 8.0


def test_senior19_inplace_on_leaf_input_in_reentrant_checkpoint_raises():
    """[30] follow-up to ex4: mul_ on a leaf input that requires grad is refused (in the recompute)."""
    x = torch.randn(3, requires_grad=True)
    with pytest.raises(RuntimeError, match="leaf Variable"):
        _Ckpt.apply(lambda h: h.mul_(2) * h, x).sum().backward()


def test_senior19_nonreentrant_checkpoint_catches_inplace_input():
    """[30] follow-up to ex4: use_reentrant=False raises the version-counter error for an in-place op on an input."""
    x = torch.randn(3, requires_grad=True)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        checkpoint(lambda h: h.mul_(2) * h, x * 1.0, use_reentrant=False).sum().backward()


def test_senior19_reentrant_inplace_on_no_grad_input_doubles_gradient_silently():
    """[30] follow-up to ex4: mul_ on an input without grad: the hand-written checkpoint gives a 2x gradient."""
    w = torch.ones(3, requires_grad=True)
    _Ckpt.apply(lambda h, w: (h.mul_(2) * w).sum(), torch.ones(3), w).backward()
    assert w.grad.tolist() == [4.0, 4.0, 4.0]  # a plain run gives 2


def test_senior19_reentrant_checkpoint_without_grad_inputs_has_no_grad_fn():
    """[31] follow-up to ex4: no input requires grad, so the output has no grad_fn (parameters inside get nothing)."""
    lin = nn.Linear(3, 3)
    out = _Ckpt.apply(lambda h: lin(h), torch.randn(2, 3))
    assert out.grad_fn is None
    ok = checkpoint(lambda h: lin(h), torch.randn(2, 3), use_reentrant=False)
    ok.sum().backward()
    assert lin.weight.grad is not None


def test_senior19_to_same_device_returns_self_unless_copy():
    """[33] Hint 2 of ex5: Tensor.to returns the tensor itself when nothing changes; copy=True forces a new one."""
    t = torch.randn(3)
    assert t.to("cpu") is t
    c = t.to("cpu", copy=True)
    assert c is not t and c.untyped_storage().data_ptr() != t.untyped_storage().data_ptr()
