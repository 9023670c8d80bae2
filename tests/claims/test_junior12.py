"""Claims junior/12_activations_and_metrics makes about PyTorch (and scikit-learn), as code (cells as
tools/dump_notebook.py numbers them)."""

from __future__ import annotations

import numpy as np
import pytest
import torch
import torch.nn as nn
import torch.nn.functional as F

from sklearn.metrics import confusion_matrix, f1_score, roc_auc_score


def _grad_at(fn, x):
    x = torch.tensor(x, dtype=torch.float64, requires_grad=True)
    fn(x).sum().backward()
    return x.grad


def test_junior12_gelu_default_is_exact_and_tanh_differs_by_few_1e4():
    """[5] F.gelu is the erf form by default; approximate="tanh" differs from it by a few 1e-4 at most."""
    x = torch.linspace(-6, 6, 2001, dtype=torch.float64)
    exact = 0.5 * x * (1 + torch.erf(x / np.sqrt(2)))
    torch.testing.assert_close(F.gelu(x), exact)
    gap = (F.gelu(x, approximate="tanh") - F.gelu(x)).abs().max().item()
    assert 1e-4 < gap < 5e-4


def test_junior12_kinks_at_zero_take_the_negative_branch():
    """[0] at x = 0 leaky_relu's gradient is the slope, selu's scale * alpha, elu's alpha."""
    assert _grad_at(lambda t: F.leaky_relu(t, 0.2), [0.0]).item() == pytest.approx(0.2)
    assert _grad_at(F.selu, [0.0]).item() == pytest.approx(1.0507009873554805 * 1.6732632423543772, rel=1e-6)
    assert _grad_at(lambda t: F.elu(t, alpha=0.5), [0.0]).item() == pytest.approx(0.5)


def test_junior12_naive_silu_has_nan_gradient():
    """[11] Hint 1: x / (1 + exp(-x)) overflows at x = -100 in float32; the value survives, the gradient is nan."""
    x = torch.tensor([-100.0], requires_grad=True)
    y = x / (1 + torch.exp(-x))
    y.sum().backward()
    assert torch.isfinite(y).all() and torch.isnan(x.grad).all()
    x2 = torch.tensor([-100.0], requires_grad=True)
    F.silu(x2).sum().backward()
    assert torch.isfinite(x2.grad).all()


def test_junior12_where_differentiates_both_branches():
    """[11] Hint 2: torch.where computes both branches; 0 * inf from the unused exp branch gives a nan gradient."""
    x = torch.tensor([100.0], requires_grad=True)
    torch.where(x > 0, x, torch.exp(x * 10) - 1).sum().backward()
    assert torch.isnan(x.grad).all()


def test_junior12_minimum_splits_a_tie_gradient():
    """[11] Hint 2: where both arguments of torch.minimum are equal, each gets half the gradient."""
    x = torch.zeros(1, requires_grad=True)
    torch.minimum(x, torch.zeros(1)).sum().backward()
    assert x.grad.item() == 0.5


def test_junior12_trailing_broadcast_lines_up_with_w():
    """[16] Hint 2: a (C,) slope times an (N, C, H, W) input lines up with W, not C (silently when W == C)."""
    slope, x = torch.tensor([1.0, 2.0, 3.0]), torch.ones(2, 3, 4, 3)
    assert torch.equal((slope * x)[0, 0, 0], slope)
    assert torch.equal((slope.view(1, -1, 1, 1) * x)[0, :, 0, 0], slope)


def test_junior12_prelu_parameter_and_default():
    """[15] nn.PReLU(num_parameters, init) has one parameter `weight` of shape (num_parameters,), default 0.25."""
    m = nn.PReLU(3)
    assert list(m.state_dict()) == ["weight"] and m.weight.shape == (3,)
    assert torch.equal(m.weight.detach(), torch.full((3,), 0.25))


def test_junior12_confusion_matrix_rows_are_the_truth():
    """[22] scikit-learn's confusion_matrix: entry [i, j] counts true class i predicted as j."""
    assert confusion_matrix([0], [1], labels=[0, 1]).tolist() == [[0, 1], [0, 0]]


def test_junior12_bincount_minlength_counts_absent_classes():
    """[23] Hint 1: bincount with minlength gives a count of 0 to values that never occur."""
    assert torch.bincount(torch.tensor([1, 1, 3]), minlength=6).tolist() == [0, 2, 0, 1, 0, 0]


def test_junior12_zero_over_zero_is_nan():
    """[40] Hint 2: 0 / 0 in floating point is nan, which nanmean leaves out."""
    iou = torch.tensor([0.5, 0.0]) / torch.tensor([1.0, 0.0])
    assert torch.isnan(iou[1]) and torch.nanmean(iou).item() == 0.5


def test_junior12_argmax_returns_the_first_maximum():
    """[45] Hint 3: argmax returns the first maximal index, so vote ties go to the smallest label."""
    assert torch.tensor([[0, 2, 1, 2]]).argmax(dim=1).item() == 1


def test_junior12_micro_f1_is_accuracy_for_single_label():
    """[31] follow-up to ex5: micro F1 equals accuracy for single-label classification."""
    rng = np.random.default_rng(0)
    t, p = rng.integers(0, 4, 200), rng.integers(0, 4, 200)
    assert f1_score(t, p, average="micro") == pytest.approx((t == p).mean())


def test_junior12_roc_auc_is_the_ranking_probability():
    """[31] follow-up: ROC-AUC is the probability that a random positive outscores a random negative
    (Mann-Whitney U over the number of pairs)."""
    rng = np.random.default_rng(1)
    y = rng.random(300) < 0.1
    s = rng.normal(size=300) + y
    pos, neg = s[y], s[~y]
    u = (pos[:, None] > neg[None, :]).sum() + 0.5 * (pos[:, None] == neg[None, :]).sum()
    assert roc_auc_score(y, s) == pytest.approx(u / (len(pos) * len(neg)))


def test_junior12_cosine_ignores_length():
    """[44] cosine similarity depends on the angle only: scaling a vector does not change it."""
    a, b = torch.tensor([[1.0, 2.0]]), torch.tensor([[3.0, 1.0]])
    torch.testing.assert_close(F.cosine_similarity(a, b), F.cosine_similarity(10 * a, b))
