"""Claims mid/18_cross_and_linear_attention makes about PyTorch, as code (cells by their 0-based index in the notebook)."""

from __future__ import annotations

import pytest
import torch
import torch.nn.functional as F


def test_mid18_query_axis_mask_raises_when_tq_differs_from_tk():
    """[10] follow-up: a (B, Tk, 1) mask does not broadcast against (B, Tq, Tk) scores when 1 < Tq != Tk."""
    pad = torch.zeros(2, 5, 1, dtype=torch.bool)
    with pytest.raises(RuntimeError):
        torch.zeros(2, 3, 5).masked_fill(pad, float("-inf"))


def test_mid18_query_axis_mask_broadcasts_silently_when_tq_is_one():
    """[10] follow-up: with Tq = 1 the (B, Tk, 1) mask broadcasts the scores to (B, Tk, Tk) without an error."""
    pad = torch.zeros(2, 5, 1, dtype=torch.bool)
    assert torch.zeros(2, 1, 5).masked_fill(pad, float("-inf")).shape == (2, 5, 5)


def test_mid18_softmax_of_all_minus_inf_is_nan_and_nan_times_zero_is_nan():
    """[7] hint 2: a softmax over a row of -inf is NaN, and NaN * 0 is still NaN."""
    row = torch.softmax(torch.full((3,), float("-inf")), dim=-1)
    assert torch.isnan(row).all() and torch.isnan(row * 0).all()


def test_mid18_sdpa_bool_mask_true_means_attend():
    """[11] a bool attn_mask of F.scaled_dot_product_attention is True where a query may look at a key."""
    q, k, v = torch.randn(1, 2, 4), torch.randn(1, 3, 4), torch.eye(3)[None]
    allowed = torch.tensor([[True, False, False], [True, True, False]])
    out = F.scaled_dot_product_attention(q, k, v, attn_mask=allowed)
    assert torch.allclose(out[0, 0], torch.tensor([1.0, 0.0, 0.0]))
    assert out[0, 1, 2].item() == 0.0


def test_mid18_sdpa_fully_masked_row_is_nan_or_zero_not_an_average():
    """[9] the reference masks with SDPA; a fully padded row has no valid softmax, which is why ex1 defines it as zeros."""
    q, k, v = torch.randn(1, 1, 4), torch.randn(1, 3, 4), torch.randn(1, 3, 2)
    out = F.scaled_dot_product_attention(q, k, v, attn_mask=torch.zeros(1, 3, dtype=torch.bool))
    assert torch.isnan(out).all() or (out == 0).all()


def test_mid18_elu_plus_one_is_positive():
    """[16] phi(x) = elu(x) + 1 is positive everywhere, so the linear-attention weights are positive."""
    x = torch.linspace(-30, 30, 601, dtype=torch.float64)  # in float32 it rounds to 0 below about -17
    assert (F.elu(x) + 1 > 0).all()


def test_mid18_causal_linear_attention_equals_masked_quadratic_form():
    """[16] causal linear attention with prefix sums equals the row-normalised lower-triangular phi(Q) phi(K)^T V."""
    g = torch.Generator().manual_seed(0)
    q, k, v = (torch.randn(5, 3, generator=g, dtype=torch.float64) for _ in range(3))
    fq, fk = F.elu(q) + 1, F.elu(k) + 1
    S = torch.einsum("ld,le->lde", fk, v).cumsum(0)
    out = torch.einsum("ld,lde->le", fq, S) / (fq * fk.cumsum(0)).sum(-1, keepdim=True)
    A = (fq @ fk.T).tril()
    torch.testing.assert_close(out, (A / A.sum(-1, keepdim=True)) @ v)
