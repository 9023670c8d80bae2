"""Claims mid/10_autograd_deeper makes about PyTorch, as code (cells as tools/dump_notebook.py numbers them)."""

from __future__ import annotations

import warnings

import pytest
import torch
import torch.nn as nn
import torch.nn.functional as F


def _raises(code):
    scope = {"torch": torch, "x": torch.randn(3, requires_grad=True)}
    try:
        exec(code, scope)
    except RuntimeError:
        return True
    return False


def test_mid10_forward_hook_handle_removes_the_hook():
    """[5] register_forward_hook returns a handle; handle.remove() unregisters it."""
    lin, seen = nn.Linear(2, 2), []
    h = lin.register_forward_hook(lambda m, i, o: seen.append(o))
    lin(torch.randn(1, 2))
    h.remove()
    lin(torch.randn(1, 2))
    assert len(seen) == 1 and not lin._forward_hooks


def test_mid10_full_backward_hook_grad_output_is_dl_doutput():
    """[10] register_full_backward_hook: grad_output[0] is dL/d(output), grad_input[0] dL/d(input)."""
    torch.manual_seed(0)
    lin, got = nn.Linear(3, 5), {}
    lin.register_full_backward_hook(lambda m, gi, go: got.update(gi=gi[0], go=go[0]))
    x = torch.randn(4, 3, requires_grad=True)
    out = lin(x)
    (out * 2).sum().backward()
    assert got["go"].shape == (4, 5) and torch.equal(got["go"], torch.full((4, 5), 2.0))
    torch.testing.assert_close(got["gi"], x.grad)


def test_mid10_full_backward_hook_grad_input_is_none_for_raw_data():
    """[14] for an input that does not require grad, grad_input[0] is None, and PyTorch warns."""
    lin, got = nn.Linear(3, 2), {}
    lin.register_full_backward_hook(lambda m, gi, go: got.update(gi=gi[0]))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        lin(torch.randn(4, 3)).sum().backward()
    assert got["gi"] is None
    assert any("no inputs require gradient" in str(w.message) for w in caught)


def test_mid10_tensor_hook_return_value_replaces_the_gradient():
    """[15] a tensor hook that returns a tensor replaces the gradient; removing its handle stops it."""
    x = torch.ones(2, requires_grad=True)
    h = x.register_hook(lambda g: g.clamp(-0.5, 0.5))
    (3 * x).sum().backward()
    assert torch.equal(x.grad, torch.full((2,), 0.5))
    h.remove()
    x.grad = None
    (3 * x).sum().backward()
    assert torch.equal(x.grad, torch.full((2,), 3.0))


def test_mid10_inplace_on_a_saved_tensor_raises_and_elsewhere_not():
    """[20]/[22] overwriting a saved output (sigmoid, exp, relu) raises; sin and x * 2 did not save it."""
    assert _raises("y = x.sigmoid(); y.mul_(2); y.sum().backward()")
    assert not _raises("y = x * 2; y.add_(1); y.sum().backward()")
    assert not _raises("y = x.sin(); y.mul_(2); y.sum().backward()")
    assert _raises("y = x.exp(); z = y * 3; y.add_(1); z.sum().backward()")
    assert _raises("y = x.relu(); y[0] = 0; (y * y).sum().backward()")


def test_mid10_views_share_the_version_counter():
    """[20]/[22] every in-place op bumps _version, through a view too; creating a view does not."""
    t = torch.zeros(3)
    t.add_(1)
    t[0] = 5
    v = t.view(3)
    assert t._version == 2
    v.mul_(2)
    assert t._version == v._version == 3


def test_mid10_data_bypasses_the_version_counter():
    """[27]/[30] an in-place op through .data raises nothing and silently corrupts the saved output."""
    x = torch.randn(3, requires_grad=True)
    y = x.sigmoid()
    s = y.detach().clone()
    y.data.mul_(2)
    y.sum().backward()
    assert not torch.allclose(x.grad, s * (1 - s))


def test_mid10_grad_without_create_graph_cannot_be_differentiated_again():
    """[35] without create_graph the gradient has no grad_fn and a second autograd.grad raises."""
    x = torch.randn(3, requires_grad=True)
    (g,) = torch.autograd.grad((x ** 3).sum(), x)
    assert g.grad_fn is None
    with pytest.raises(RuntimeError, match="does not require grad"):
        torch.autograd.grad(g.sum(), x)


def test_mid10_double_backward_hvp_matches_autograd_functional():
    """[31] H v = d/dx (grad f . v), one create_graph gradient and a second gradient."""
    torch.manual_seed(0)
    x, v = torch.randn(5, dtype=torch.float64), torch.randn(5, dtype=torch.float64)
    f = lambda z: (z.sin() * z ** 2).sum()  # noqa: E731
    xr = x.clone().requires_grad_(True)
    (g,) = torch.autograd.grad(f(xr), xr, create_graph=True)
    (hv,) = torch.autograd.grad(g, xr, grad_outputs=v)
    torch.testing.assert_close(hv, torch.autograd.functional.hvp(f, x, v)[1])


def test_mid10_second_backward_raises_only_when_something_was_saved_and_freed():
    """[41] second backward: x*x and x*2 raise (x*2 saves the wrapped 2), sum does not; retain/create_graph keep it."""
    assert _raises("y = (x * x).sum(); y.backward(); y.backward()")
    assert _raises("y = (x * 2).sum(); y.backward(); y.backward()")
    assert not _raises("y = x.sum(); y.backward(); y.backward()")
    assert not _raises("y = (x * x).sum(); y.backward(retain_graph=True); y.backward()")
    assert _raises("y = x.exp().sum(); torch.autograd.grad(y, x); y.backward()")
    assert not _raises("y = (x * x).sum(); torch.autograd.grad(y, x, create_graph=True); y.backward()")


def test_mid10_batch_norm_of_gradient_grows_with_sqrt_n():
    """[40] one norm over the whole batch's input gradient is sqrt(N) times the per-sample norm."""
    x = torch.randn(16, 4, requires_grad=True)
    (gx,) = torch.autograd.grad(F.linear(x, torch.ones(1, 4)).sum(), x)
    assert abs(gx.norm().item() - 4 * gx[0].norm().item()) < 1e-5
