"""Claims mid/07_attention_and_transformer makes about PyTorch, as code (cells as tools/dump_notebook.py numbers them)."""

from __future__ import annotations

import math

import pytest
import torch
import torch.nn as nn
import torch.nn.functional as F


def test_mid07_sdpa_bool_mask_true_means_attend():
    """[5] F.scaled_dot_product_attention's boolean mask: True = may attend (masked keys get no weight)."""
    torch.manual_seed(0)
    q, k, v = torch.randn(1, 2, 4), torch.randn(1, 3, 4), torch.randn(1, 3, 5)
    mask = torch.tensor([[True, False, True], [True, True, False]])
    scores = (q @ k.transpose(-2, -1) / math.sqrt(4)).masked_fill(~mask, float("-inf"))
    torch.testing.assert_close(F.scaled_dot_product_attention(q, k, v, attn_mask=mask), scores.softmax(-1) @ v)


def test_mid07_multiplying_scores_by_zero_still_gives_weight():
    """[9] a score of 0 still gets exp(0) = 1: multiplying by a 0/1 mask does not remove a key."""
    w = (torch.tensor([-3.0, -2.0, 5.0]) * torch.tensor([1.0, 1.0, 0.0])).softmax(-1)
    assert w[2] > 0.5


def test_mid07_multihead_attention_bool_mask_true_means_do_not_attend():
    """[15] nn.MultiheadAttention's boolean key_padding_mask: True = padding (ignored), the opposite of SDPA."""
    torch.manual_seed(0)
    mha = nn.MultiheadAttention(4, 1, batch_first=True)
    x = torch.randn(1, 3, 4)
    kpm = torch.tensor([[False, False, True]])
    _, w = mha(x, x, x, key_padding_mask=kpm)
    assert torch.all(w[..., 2] == 0) and torch.all(w[..., :2] > 0)


def test_mid07_view_after_transpose_raises_reshape_copies():
    """[20] merging heads with view after transpose raises; reshape (or contiguous().view) works."""
    out = torch.randn(2, 4, 5, 3).transpose(1, 2)  # (B, L, H, d), not contiguous
    with pytest.raises(RuntimeError):
        out.view(2, 5, 12)
    assert out.reshape(2, 5, 12).shape == (2, 5, 12)


def test_mid07_mha_parameter_count_does_not_depend_on_heads():
    """[21]/[25] nn.MultiheadAttention(64, h) has 4*64*64 + 4*64 parameters whatever h; 64 % 5 != 0 raises."""
    count = lambda m: sum(p.numel() for p in m.parameters())  # noqa: E731
    assert count(nn.MultiheadAttention(64, 8)) == count(nn.MultiheadAttention(64, 4)) == 4 * 64 * 64 + 4 * 64
    with pytest.raises(AssertionError):
        nn.MultiheadAttention(64, 5)


def test_mid07_attention_is_permutation_equivariant_without_positions():
    """[26] without positional encodings, permuting the tokens permutes self-attention's outputs the same way."""
    torch.manual_seed(0)
    mha = nn.MultiheadAttention(8, 2, batch_first=True)
    x, perm = torch.randn(1, 5, 8), torch.tensor([3, 0, 4, 1, 2])
    out = mha(x, x, x, need_weights=False)[0]
    torch.testing.assert_close(mha(x[:, perm], x[:, perm], x[:, perm], need_weights=False)[0], out[:, perm])


def test_mid07_scaling_keeps_score_variance_near_one():
    """[5] q.k / sqrt(d) has variance about 1 for unit-variance entries, whatever d."""
    torch.manual_seed(0)
    for d in (16, 256):
        q, k = torch.randn(20000, d), torch.randn(20000, d)
        assert 0.9 < ((q * k).sum(-1) / math.sqrt(d)).var().item() < 1.1
