"""Claims mid/06_accumulation_and_clipping makes about PyTorch, as code (cells as tools/dump_notebook.py numbers them)."""

from __future__ import annotations

import math

import torch
import torch.nn as nn
import torch.nn.functional as F


def _two_params():
    a, b = nn.Parameter(torch.zeros(2)), nn.Parameter(torch.zeros(1))
    a.grad, b.grad = torch.tensor([3.0, 4.0]), torch.tensor([12.0])
    return a, b


def test_mid06_scaled_micro_batch_losses_add_up_to_the_full_batch_gradient():
    """[6] backward() adds into .grad: k micro-batch losses divided by k give the full-batch gradient."""
    torch.manual_seed(0)
    lin, x, y = nn.Linear(5, 3), torch.randn(8, 5), torch.randint(0, 3, (8,))
    F.cross_entropy(lin(x), y).backward()
    full = lin.weight.grad.clone()
    lin.zero_grad()
    for xc, yc in zip(x.chunk(4), y.chunk(4), strict=True):
        (F.cross_entropy(lin(xc), yc) / 4).backward()
    torch.testing.assert_close(lin.weight.grad, full)


def test_mid06_clip_grad_norm_returns_the_pre_clip_norm_and_scales_in_place():
    """[21] clip_grad_norm_ returns the total norm before clipping and scales every .grad in place by one factor."""
    a, b = _two_params()
    ga = a.grad
    total = torch.nn.utils.clip_grad_norm_((a, b), 6.5)
    assert abs(total.item() - 13.0) < 1e-5 and a.grad is ga
    torch.testing.assert_close(a.grad, torch.tensor([1.5, 2.0]))
    torch.testing.assert_close(b.grad, torch.tensor([6.0]))


def test_mid06_clip_grad_norm_skips_parameters_without_grad():
    """[21] parameters whose .grad is None are skipped (and keep no gradient)."""
    a, _ = _two_params()
    c = nn.Parameter(torch.ones(3))
    assert abs(torch.nn.utils.clip_grad_norm_([a, c], 1.0).item() - 5.0) < 1e-5 and c.grad is None


def test_mid06_clip_grad_value_clamps_elements_and_changes_direction():
    """[26] clip_grad_value_(1.0) on [3, 4], [12] leaves three ones: norm sqrt(3), a new direction."""
    a, b = _two_params()
    torch.nn.utils.clip_grad_value_((a, b), 1.0)
    g = torch.cat([a.grad, b.grad])
    assert torch.equal(g, torch.ones(3)) and abs(g.norm().item() - math.sqrt(3)) < 1e-6


def test_mid06_adam_first_step_moves_each_element_by_lr():
    """[38] Adam's first step is lr * sign(g) (bias correction gives m_hat = g, sqrt(v_hat) = |g|)."""
    p = nn.Parameter(torch.zeros(4))
    p.grad = torch.tensor([0.3, -2.0, 50.0, -0.07])
    torch.optim.Adam([p], lr=0.01).step()
    torch.testing.assert_close(p.detach(), -0.01 * torch.sign(p.grad), atol=1e-6, rtol=0)


def test_mid06_uniform_gradient_scale_barely_changes_adam_but_changes_sgd():
    """[38]/[42] a clip factor applied at every step cancels in Adam's m/sqrt(v); SGD's steps shrink with it."""
    def run(cls, scale):
        g = torch.Generator().manual_seed(0)
        p = nn.Parameter(torch.randn(50, generator=g))
        opt = cls([p], lr=0.01)
        for _ in range(10):
            p.grad = scale * torch.randn(50, generator=g)
            opt.step()
        return p.detach()
    assert (run(torch.optim.Adam, 1.0) - run(torch.optim.Adam, 0.01)).abs().max() < 1e-4
    assert (run(torch.optim.SGD, 1.0) - run(torch.optim.SGD, 0.01)).abs().max() > 1e-4


def test_mid06_uncorrected_adam_steps_are_too_large_early():
    """[35] without bias correction Adam's early steps are too large (3.2x at t=1, 6.5x at t=10), not too small."""
    ratio = [(1 - 0.9 ** t) / math.sqrt(1 - 0.999 ** t) for t in (1, 10, 1000)]
    assert 3.1 < ratio[0] < 3.2 and 6.4 < ratio[1] < 6.6 and 1.2 < ratio[2] < 1.3
    p = nn.Parameter(torch.zeros(1))
    opt = torch.optim.Adam([p], lr=0.01)
    p.grad = torch.ones(1)
    opt.step()
    m, v = opt.state[p]["exp_avg"], opt.state[p]["exp_avg_sq"]  # uncorrected moments after step 1
    assert abs((m / v.sqrt()).item() - 0.1 / math.sqrt(0.001)) < 1e-4


def test_mid06_adam_weight_decay_is_l2_through_the_denominator_unlike_adamw():
    """[37] Adam(weight_decay) adds wd*p to the gradient (normalized away); AdamW subtracts lr*wd*p directly."""
    def one_step(cls):
        p = nn.Parameter(torch.tensor([10.0]))
        p.grad = torch.tensor([1.0])
        cls([p], lr=0.1, weight_decay=0.1).step()
        return p.item()
    assert abs(one_step(torch.optim.Adam) - 9.9) < 1e-4  # (g + wd p) / |g + wd p| = 1: the decay is invisible
    assert abs(one_step(torch.optim.AdamW) - (10.0 * (1 - 0.01) - 0.1)) < 1e-4
