"""Claims mid/01_training_loop_validation makes about PyTorch, as code (cells as tools/dump_notebook.py numbers them)."""

from __future__ import annotations

import copy
import warnings

import pytest
import torch
import torch.nn as nn


def test_mid01_no_grad_does_not_switch_dropout_off():
    """[10] in train mode nn.Dropout still drops inside torch.no_grad()."""
    torch.manual_seed(0)
    drop = nn.Dropout(0.5).train()
    with torch.no_grad():
        assert (drop(torch.ones(1000)) == 0).any()


def test_mid01_eval_does_not_switch_autograd_off():
    """[10] after model.eval() a layer's output still requires grad."""
    lin = nn.Linear(3, 2).eval()
    assert lin(torch.randn(1, 3)).requires_grad


def test_mid01_batchnorm_updates_running_stats_under_no_grad():
    """[10]/[14] BatchNorm in train mode updates running_mean inside no_grad (buffers are not gradients)."""
    bn = nn.BatchNorm1d(2).train()
    with torch.no_grad():
        bn(torch.randn(8, 2) + 5)
    assert (bn.running_mean != 0).all()


def test_mid01_state_dict_holds_live_tensors():
    """[20]/[26] state_dict() aliases the parameters: a later step changes it, a deepcopy does not."""
    lin = nn.Linear(2, 2)
    live, snap = lin.state_dict(), copy.deepcopy(lin.state_dict())
    with torch.no_grad():
        lin.weight.add_(1.0)
    assert torch.equal(live["weight"], lin.weight) and not torch.equal(snap["weight"], lin.weight)


def test_mid01_zero_grad_after_backward_freezes_every_optimizer():
    """[19]/[40] zero_grad() sets .grad to None by default and optimizers skip it: nothing moves, even with momentum."""
    for cls, kw in ((torch.optim.SGD, {"lr": 0.1, "momentum": 0.9, "weight_decay": 0.1}), (torch.optim.AdamW, {})):
        p = nn.Parameter(torch.ones(2))
        opt = cls([p], **kw)
        p.grad = torch.ones(2)
        opt.step()  # build momentum / moment state
        before = p.detach().clone()
        (3 * p).sum().backward()
        opt.zero_grad()
        opt.step()
        assert p.grad is None and torch.equal(p.detach(), before)


def test_mid01_zeroed_not_none_gradients_still_move_a_momentum_optimizer():
    """[19] with zero_grad(set_to_none=False) momentum keeps moving the weights on stale state."""
    p = nn.Parameter(torch.ones(2))
    opt = torch.optim.SGD([p], lr=0.1, momentum=0.9)
    p.grad = torch.ones(2)
    opt.step()
    before = p.detach().clone()
    opt.zero_grad(set_to_none=False)
    opt.step()
    assert not torch.equal(p.detach(), before)


def test_mid01_scheduler_step_before_optimizer_step_warns():
    """[40] calling scheduler.step() before the first optimizer.step() warns."""
    p = nn.Parameter(torch.ones(1))
    opt = torch.optim.SGD([p], lr=0.1)
    sched = torch.optim.lr_scheduler.StepLR(opt, 1)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        sched.step()
    assert any("optimizer.step()" in str(w.message) for w in caught)


def test_mid01_module_to_keeps_the_parameter_objects():
    """[40] Module.to moves parameter data in place: the optimizer still holds the same Parameter objects."""
    lin = nn.Linear(2, 2)
    ids = [id(p) for p in lin.parameters()]
    lin.to(torch.float64)
    assert [id(p) for p in lin.parameters()] == ids and lin.weight.dtype == torch.float64


def test_mid01_mean_of_batch_means_is_not_the_data_mean():
    """[5] with a smaller last batch, the mean of batch means differs from the mean over samples."""
    x = torch.arange(360.0)
    batches = x.split(128)
    with pytest.raises(AssertionError):
        torch.testing.assert_close(torch.stack([b.mean() for b in batches]).mean(), x.mean())
    torch.testing.assert_close(sum(b.mean() * len(b) for b in batches) / 360, x.mean())
