"""Claims senior/22_scale_arithmetic_and_sharding makes, as code."""

from __future__ import annotations

import torch
import torch.nn as nn


def test_senior22_linear_forward_is_2mnk_flops():
    """[5] an (m, k) @ (k, n) product is m * n * k multiply-adds, 2mnk FLOPs (counted by the FLOP counter)."""
    from torch.utils.flop_counter import FlopCounterMode

    a, b = torch.randn(6, 5), torch.randn(5, 7)
    with FlopCounterMode(display=False) as counter:
        a @ b
    assert counter.get_total_flops() == 2 * 6 * 7 * 5


def test_senior22_backward_is_twice_the_forward_for_a_linear_layer():
    """[5] training costs 6ND: the backward of a bias-free linear layer takes twice the forward's FLOPs."""
    from torch.utils.flop_counter import FlopCounterMode

    lin = nn.Linear(16, 32, bias=False)
    x = torch.randn(8, 16, requires_grad=True)
    with FlopCounterMode(display=False) as fwd:
        y = lin(x)
    with FlopCounterMode(display=False) as bwd:
        y.sum().backward()
    assert bwd.get_total_flops() == 2 * fwd.get_total_flops() == 2 * 2 * 8 * 16 * 32


def test_senior22_attention_term_ratio_to_6n():
    """[11] follow-up to ex1: PaLM's 12 L d T term over 6N is about T / (6 d) when N is about 12 L d^2."""
    layers, d = 80, 8192
    n = 12 * layers * d * d
    for t, want in ((2048, 0.04), (131072, 2.7)):
        ratio = 12 * layers * d * t / (6 * n)
        assert abs(ratio - t / (6 * d)) < 1e-9 and abs(ratio - want) < 0.05 * want


def test_senior22_ring_allreduce_moves_2_p_minus_1_over_p_n():
    """[23] every link of a ring all-reduce carries 2(p-1)/p * n numbers (reduce-scatter then all-gather)."""
    n = 1200
    for p in (2, 4, 8):
        per_step = n // p
        assert 2 * (p - 1) * per_step == 2 * (p - 1) / p * n
