"""Claims senior/06_sharding_and_parallelism makes about PyTorch, as code (cells as tools/dump_notebook.py numbers them)."""

from __future__ import annotations

import torch
import torch.nn as nn
import torch.nn.functional as F


def test_senior06_column_then_row_parallel_mlp_sums_to_the_full_mlp():
    """[18] fc1 split by output rows and fc2 by input columns: the partial outputs sum to fc2(gelu(fc1(x)))."""
    torch.manual_seed(0)
    fc1, fc2, x = nn.Linear(8, 12), nn.Linear(12, 8), torch.randn(5, 8)
    full = fc2(F.gelu(fc1(x)))
    parts = [F.linear(F.gelu(F.linear(x, w1, b1)), w2)
             for w1, b1, w2 in zip(fc1.weight.chunk(2, 0), fc1.bias.chunk(2), fc2.weight.chunk(2, 1), strict=True)]
    torch.testing.assert_close(sum(parts) + fc2.bias, full)


def test_senior06_gelu_does_not_distribute_over_a_sum():
    """[22] gelu(a) + gelu(b) != gelu(a + b): a row-parallel fc1 needs an all-reduce before the activation."""
    a, b = torch.tensor([0.5, -1.0]), torch.tensor([0.7, 2.0])
    assert not torch.allclose(F.gelu(a) + F.gelu(b), F.gelu(a + b))


def test_senior06_mean_of_microbatch_losses_is_the_full_batch_loss():
    """[30] with equal micro-batches the full-batch mean MSE is the mean of the per-micro-batch MSEs, not their sum."""
    g = torch.Generator().manual_seed(1)
    pred, y = torch.randn(24, 1, generator=g), torch.randn(24, 1, generator=g)
    per = torch.stack([F.mse_loss(p, t) for p, t in zip(pred.chunk(4), y.chunk(4), strict=True)])
    torch.testing.assert_close(per.mean(), F.mse_loss(pred, y))
