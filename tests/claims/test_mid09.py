"""Claims mid/09_debugging_training makes about PyTorch, as code (cells as tools/dump_notebook.py numbers them)."""

from __future__ import annotations

import warnings

import pytest
import torch
import torch.nn as nn


def test_mid09_forward_hooks_fire_inner_module_first():
    """[10] forward hooks fire when a module finishes: an inner module before its container."""
    order = []
    inner = nn.Linear(2, 2)
    outer = nn.Sequential(inner)
    for name, m in (("outer", outer), ("inner", inner)):
        m.register_forward_hook(lambda mod, i, o, name=name: order.append(name))
    outer(torch.randn(1, 2))
    assert order == ["inner", "outer"]


def test_mid09_isfinite_catches_nan_and_inf():
    """[11] torch.isfinite is False for NaN and for +-Inf."""
    assert torch.isfinite(torch.tensor([1.0, float("nan"), float("inf"), -float("inf")])).tolist() == [
        True, False, False, False]


def test_mid09_where_does_not_stop_the_nan_gradient_of_the_unused_branch():
    """[18] where(x > 0, log(x), 0) is finite forward, NaN backward at x = 0 (0 * inf); anomaly mode names LogBackward0."""
    x = torch.tensor([-1.0, 0.0, 2.0], requires_grad=True)
    y = torch.where(x > 0, torch.log(x), torch.zeros_like(x))
    assert torch.isfinite(y).all()
    y.sum().backward()
    assert torch.isnan(x.grad[1]) and x.grad[0] == 0  # 0 * (1/x) is NaN only at x = 0
    x.grad = None
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(RuntimeError, match="LogBackward0"), torch.autograd.detect_anomaly():
            torch.where(x > 0, torch.log(x), torch.zeros_like(x)).sum().backward()


def test_mid09_masking_the_input_gives_a_zero_gradient():
    """[19] log of where(x > 0, x, 1), selected again, has gradient 1/x where x > 0 and 0 elsewhere."""
    x = torch.tensor([-1.0, 0.0, 2.0], requires_grad=True)
    safe = torch.where(x > 0, x, torch.ones_like(x))
    torch.where(x > 0, torch.log(safe), torch.zeros_like(x)).sum().backward()
    assert x.grad.tolist() == [0.0, 0.0, 0.5]


def test_mid09_epsilon_does_not_fix_the_log_of_a_negative():
    """[22] log(x + 1e-8) is still NaN for negative x."""
    assert torch.isnan(torch.log(torch.tensor(-1.0) + 1e-8))


def test_mid09_sigmoid_stack_shrinks_the_first_layer_gradient_geometrically():
    """[28]/[35] 20 Linear(64, 64) + sigmoid layers with default init: the last/first gradient ratio exceeds 1e12."""
    torch.manual_seed(0)
    layers = []
    for _ in range(20):
        layers += [nn.Linear(64, 64), nn.Sigmoid()]
    m = nn.Sequential(*layers, nn.Linear(64, 1))
    m(torch.randn(64, 64)).pow(2).mean().backward()
    norms = [lin.weight.grad.norm().item() for lin in m if isinstance(lin, nn.Linear)]
    assert norms[-2] / norms[0] > 1e12


def test_mid09_relu_kaiming_stack_keeps_gradients_within_100x():
    """[30]/[31] ReLU + Kaiming init (zero bias) keeps the hidden layers' gradient norms within a factor 100."""
    torch.manual_seed(0)
    layers = []
    for _ in range(20):
        lin = nn.Linear(64, 64)
        nn.init.kaiming_normal_(lin.weight, nonlinearity="relu")
        nn.init.zeros_(lin.bias)
        layers += [lin, nn.ReLU()]
    m = nn.Sequential(*layers, nn.Linear(64, 1))
    m(torch.randn(64, 64)).pow(2).mean().backward()
    norms = [lin.weight.grad.norm().item() for lin in m[:-1] if isinstance(lin, nn.Linear)]
    assert max(norms) / min(norms) < 100


def test_mid09_global_norm_is_the_norm_of_the_per_tensor_norms():
    """[37] the global L2 norm of all gradients is the L2 norm of the per-tensor norms."""
    a, b = torch.tensor([3.0, 4.0]), torch.tensor([12.0])
    assert torch.cat([a, b]).norm() == torch.stack([a.norm(), b.norm()]).norm() == 13.0
