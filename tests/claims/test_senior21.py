"""Claims senior/21_low_bit_weights_and_prefix_caching makes, as code."""

from __future__ import annotations

import torch


def test_senior21_constant_nonzero_feature_keeps_gram_invertible():
    """[18] Hint 1 and [23] follow-up to ex3: a constant non-zero feature does not make X^T X singular."""
    x = torch.randn(64, 4, dtype=torch.float64, generator=torch.Generator().manual_seed(0))
    x[:, 2] = 3.0
    assert torch.linalg.matrix_rank(x.T @ x).item() == 4


def test_senior21_dead_or_duplicate_feature_makes_gram_singular():
    """[23] follow-up to ex3: an all-zero feature or a duplicate makes X^T X singular; damping restores it."""
    x = torch.randn(64, 4, dtype=torch.float64, generator=torch.Generator().manual_seed(1))
    dead, dup = x.clone(), x.clone()
    dead[:, 1] = 0.0
    dup[:, 3] = dup[:, 0]
    for z in (dead, dup):
        h = z.T @ z
        assert torch.linalg.matrix_rank(h).item() == 3
        damped = h + 0.01 * h.diagonal().mean() * torch.eye(4, dtype=torch.float64)
        torch.linalg.cholesky(damped)  # no error


def test_senior21_fewer_samples_than_features_is_singular():
    """[23] follow-up to ex3: with n < in, X^T X is always singular."""
    x = torch.randn(3, 5, dtype=torch.float64)
    assert torch.linalg.matrix_rank(x.T @ x).item() == 3
