"""Claims junior/08_train_eval_behaviour makes about PyTorch, as code (cells as tools/dump_notebook.py numbers them)."""

from __future__ import annotations

import pytest
import torch
import torch.nn as nn


def test_junior08_dropout_scales_survivors():
    """[5] in training nn.Dropout(0.5) zeroes elements and scales the survivors by 2; eval is the identity; eval()
    does not turn off autograd."""
    torch.manual_seed(0)
    drop, x = nn.Dropout(0.5), torch.ones(10_000)
    out = drop(x)
    assert set(out.unique().tolist()) == {0.0, 2.0}
    assert torch.equal(drop.eval()(x), x)
    assert nn.Linear(2, 1).eval()(torch.ones(1, 2)).requires_grad


def test_junior08_train_flag_resets_every_submodule():
    """[15] model.train(flag) sets the flag of every submodule, so it cannot restore a mixed mode."""
    model = nn.Sequential(nn.Linear(2, 2), nn.BatchNorm1d(2))
    model.train()
    model[1].eval()
    model.train(True)
    assert model[1].training


def test_junior08_no_grad_leaves_batchnorm_updating_its_statistics():
    """[19] follow-up: under no_grad but in training mode, BatchNorm still updates its running statistics."""
    bn = nn.BatchNorm1d(3).train()
    with torch.no_grad():
        bn(torch.randn(8, 3) + 5)
    assert not torch.equal(bn.running_mean, torch.zeros(3))


def test_junior08_batchnorm_hand_step():
    """[20]/[24] one training step of BatchNorm1d(3) from (0, 1): running mean = 0.1 * mean, running var =
    0.9 + 0.1 * unbiased var; outputs use the biased variance."""
    x = torch.tensor([[1.0, 2.0, 0.0], [3.0, 2.0, 4.0], [5.0, 2.0, 8.0]])
    bn = nn.BatchNorm1d(3).train()
    out = bn(x)
    torch.testing.assert_close(bn.running_mean, 0.1 * x.mean(0))
    torch.testing.assert_close(bn.running_var, 0.9 + 0.1 * x.var(0, unbiased=True))
    torch.testing.assert_close(out[:, 0], (x[:, 0] - 3) / (x[:, 0].var(unbiased=False) + 1e-5).sqrt(),
                               atol=1e-6, rtol=1e-6)


def test_junior08_running_mean_keeps_0_9_to_the_k_of_its_start():
    """[28] follow-up: after k steps on zero-mean data the initial running variance 1 still weighs 0.9^k."""
    bn = nn.BatchNorm1d(1, affine=False).train()
    with torch.no_grad():
        for _ in range(5):
            bn(torch.tensor([[-1e-3], [1e-3]]))
    assert bn.running_var.item() == pytest.approx(0.9 ** 5, abs=1e-5)


def test_junior08_running_stat_in_graph_breaks_next_backward():
    """[33] follow-up: a running mean updated in place from a tensor that requires grad joins the graph; the next
    step's backward then goes through the freed old graph and raises."""
    running = torch.zeros(3)
    x1 = torch.randn(8, 3, requires_grad=True)
    running.mul_(0.9).add_(0.1 * x1.mean(0))
    assert running.grad_fn is not None
    x2 = torch.randn(8, 3, requires_grad=True)
    running.mul_(0.9).add_(0.1 * x2.mean(0))
    ((x2 - running) ** 2).sum().backward()
    with pytest.raises(RuntimeError, match="backward through the graph a second time"):
        ((x2 - running) ** 2).sum().backward()
