"""Claims mid/05_transfer_learning makes about PyTorch, as code (cells as tools/dump_notebook.py numbers them)."""

from __future__ import annotations

import math
import warnings

import torch
import torch.nn as nn


def test_mid05_eval_freezes_nothing_requires_grad_false_does():
    """[6] eval() leaves parameters trainable; requires_grad=False leaves .grad None and the optimizer skips it."""
    lin = nn.Linear(3, 1).eval()
    assert all(p.requires_grad for p in lin.parameters())
    lin.weight.requires_grad_(False)
    opt = torch.optim.SGD(lin.parameters(), lr=1.0, momentum=0.9)
    w0 = lin.weight.detach().clone()
    lin(torch.randn(4, 3)).sum().backward()
    opt.step()
    assert lin.weight.grad is None and torch.equal(lin.weight, w0) and lin.bias.grad is not None


def test_mid05_frozen_batchnorm_still_updates_running_stats_in_train_mode():
    """[10] requires_grad=False does not stop BatchNorm's running statistics from updating in train mode."""
    bn = nn.BatchNorm1d(2).requires_grad_(False).train()
    bn(torch.randn(8, 2) + 3)
    assert (bn.running_mean != 0).all()


def test_mid05_unfrozen_parameter_missing_from_the_optimizer_never_moves():
    """[15] an optimizer built from requires_grad-filtered parameters never updates a later-unfrozen one."""
    lin = nn.Linear(3, 1)
    lin.weight.requires_grad_(False)
    opt = torch.optim.SGD([p for p in lin.parameters() if p.requires_grad], lr=1.0)
    lin.weight.requires_grad_(True)
    w0 = lin.weight.detach().clone()
    lin(torch.randn(4, 3)).sum().backward()
    opt.step()
    assert lin.weight.grad is not None and torch.equal(lin.weight, w0)


def test_mid05_negative_zero_slice_is_the_whole_sequence():
    """[17] seq[-0:] is the whole sequence, not an empty one."""
    assert [1, 2, 3][-0:] == [1, 2, 3]


def test_mid05_lambdalr_applies_f0_at_construction_and_warns_if_stepped_first():
    """[29] LambdaLR sets lr = base * f(0) when built; scheduler.step() before optimizer.step() warns."""
    p = nn.Parameter(torch.ones(1))
    opt = torch.optim.SGD([p], lr=1.0)
    sched = torch.optim.lr_scheduler.LambdaLR(opt, lambda s: 0.1 * (s + 1))
    assert abs(opt.param_groups[0]["lr"] - 0.1) < 1e-12
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        sched.step()
    assert any("optimizer.step()" in str(w.message) for w in caught)
    assert abs(opt.param_groups[0]["lr"] - 0.2) < 1e-12


def test_mid05_default_linear_init_variance_is_one_third_over_fan_in():
    """[34] nn.Linear's default kaiming_uniform_(a=sqrt(5)) gives Var(w) = 1 / (3 fan_in)."""
    torch.manual_seed(0)
    w = nn.Linear(1024, 1024).weight
    assert abs(w.var().item() * 3 * 1024 - 1.0) < 0.02


def test_mid05_default_init_shrinks_a_deep_relu_stack():
    """[34] 20 Linear(256, 256) + ReLU with default init: the activation std shrinks layer to layer."""
    torch.manual_seed(0)
    x = torch.randn(512, 256)
    first = None
    with torch.no_grad():
        for i in range(20):
            x = torch.relu(nn.Linear(256, 256)(x))
            first = x.std().item() if i == 0 else first
    assert x.std().item() < 0.1 * first


def test_mid05_xavier_on_square_layers_has_variance_one_over_fan_in():
    """[34]/[39] Xavier's Var(w) = 2 / (fan_in + fan_out) is 1 / fan_in for a square layer (ReLU halves it)."""
    torch.manual_seed(0)
    w = nn.init.xavier_normal_(torch.empty(1024, 1024))
    assert abs(w.var().item() * 1024 - 1.0) < 0.02
    assert math.isclose(2 / (1024 + 1024) * 1024 / 2, 0.5)
