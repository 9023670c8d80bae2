"""Claims senior/08_optimizers_and_stability makes about PyTorch, as code (cells as tools/dump_notebook.py numbers them)."""

from __future__ import annotations

import math

import torch
import torch.nn as nn


def test_senior08_optimizer_state_is_created_lazily():
    """[5] torch.optim keeps per-parameter state created on the first update; a parameter without grad has none."""
    a, b = nn.Parameter(torch.ones(3)), nn.Parameter(torch.ones(2))
    opt = torch.optim.Adam([a, b], lr=0.1)
    assert len(opt.state_dict()["state"]) == 0
    a.sum().backward()
    opt.step()
    assert len(opt.state_dict()["state"]) == 1 and b.grad is None


def test_senior08_torch_optim_has_no_lion():
    """[5] Lion is not part of torch.optim, so the exercise's optimizer is written from its update rule."""
    assert not hasattr(torch.optim, "Lion")


def test_senior08_linear_lr_starts_at_start_factor():
    """[28] LinearLR's convention: step 0 uses start_factor * lr and the peak comes after total_iters steps."""
    opt = torch.optim.SGD([nn.Parameter(torch.zeros(1))], lr=1.0)
    sched = torch.optim.lr_scheduler.LinearLR(opt, start_factor=0.25, total_iters=3)
    lrs = []
    for _ in range(5):
        lrs.append(opt.param_groups[0]["lr"])
        opt.step()
        sched.step()
    assert [round(x, 6) for x in lrs] == [0.25, 0.5, 0.75, 1.0, 1.0]


def test_senior08_residual_stream_std_grows_with_depth_unless_scaled():
    """[15] x = x + f(x) with variance-preserving branches compounds the std with depth; alpha = 1/sqrt(depth) bounds it."""
    torch.manual_seed(0)
    depth, d = 32, 256
    blocks = [nn.Linear(d, d, bias=False) for _ in range(depth)]
    for blk in blocks:
        nn.init.normal_(blk.weight, std=1 / math.sqrt(d))

    def final_std(alpha):
        x = torch.randn(64, d)
        with torch.no_grad():
            for blk in blocks:
                x = x + alpha * blk(x)
        return x.std().item()

    assert final_std(1.0) > 100 and final_std(1 / math.sqrt(depth)) < 5


def test_senior08_minibatch_gradient_noise_falls_like_one_over_b():
    """[21] with replacement, E||g_B - g||^2 is the per-sample variance over B: 4x the batch, about 1/4 the noise."""
    g = torch.Generator().manual_seed(0)
    per_sample = torch.randn(1000, 10, generator=g) * 2 + 1  # stand-ins for per-sample gradients
    full = per_sample.mean(0)

    def noise(b):
        idx = torch.randint(0, 1000, (4000, b), generator=g)
        return (per_sample[idx].mean(1) - full).pow(2).sum(1).mean().item()

    assert 3.4 < noise(4) / noise(16) < 4.7
