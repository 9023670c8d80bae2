"""Claims senior/20_triton_kernels makes about softmax (the Triton kernels themselves are tested by the notebook)."""

from __future__ import annotations

import torch


def test_senior20_float32_exp_overflows_above_about_88():
    """[17] follow-up to ex2: without the row max, exp overflows float32 for logits above about 88."""
    assert torch.isfinite(torch.tensor(88.0).exp()) and torch.isinf(torch.tensor(89.0).exp())


def test_senior20_float16_exp_overflows_above_about_11():
    """[17] follow-up to ex2: in float16 exp already overflows a little above 11."""
    assert torch.isinf(torch.tensor(11.1, dtype=torch.float16).exp())


def test_senior20_softmax_is_shift_invariant():
    """[14] Hint 1 of ex2: subtracting the row max leaves the softmax unchanged and keeps large logits finite."""
    x = torch.tensor([[1e4, 1e4 - 1.0, 0.0]])
    p = torch.softmax(x, -1)
    torch.testing.assert_close(p, torch.softmax(x - x.max(-1, keepdim=True).values, -1))
    assert torch.isfinite(p).all() and torch.isnan((x.exp() / x.exp().sum(-1, keepdim=True))).any()


def test_senior20_online_softmax_rescaling_matches_two_pass():
    """[17] follow-up to ex2: the online max/sum recurrence (one pass) gives the same sum as max then sum."""
    x = torch.randn(1000, dtype=torch.float64) * 5
    m, s = float("-inf"), 0.0
    for blk in x.split(64):
        m_new = max(m, blk.max().item())
        s = s * torch.exp(torch.tensor(m - m_new, dtype=torch.float64)).item() + (blk - m_new).exp().sum().item()
        m = m_new
    assert abs(s - (x - x.max()).exp().sum().item()) < 1e-9
