"""Claims junior/10_classical_models makes about PyTorch (and scikit-learn), as code (cells as
tools/dump_notebook.py numbers them)."""

from __future__ import annotations

import numpy as np
import torch
import torch.nn.functional as F

from sklearn.preprocessing import StandardScaler


def test_junior10_lstsq_takes_a_1d_right_hand_side():
    """[6] torch.linalg.lstsq(A, y) with a 1-D y returns a 1-D solution and recovers a far-off intercept."""
    g = torch.Generator().manual_seed(0)
    x = torch.randn(40, 2, generator=g, dtype=torch.float64)
    y = x @ torch.tensor([1.0, -2.0], dtype=torch.float64) - 12.0
    design = torch.cat([x, torch.ones(40, 1, dtype=torch.float64)], dim=1)
    sol = torch.linalg.lstsq(design, y).solution
    assert sol.shape == (3,)
    torch.testing.assert_close(sol, torch.tensor([1.0, -2.0, -12.0], dtype=torch.float64))


def test_junior10_sigmoid_saturates_and_naive_bce_breaks():
    """[18] in float32 sigmoid(40) is exactly 1.0, so log(1 - p) = -inf and the gradient is nan."""
    z = torch.tensor([40.0], requires_grad=True)
    p = torch.sigmoid(z)
    assert p.item() == 1.0
    loss = -torch.log(1 - p).mean()
    loss.backward()
    assert torch.isinf(loss) and torch.isnan(z.grad).all()


def test_junior10_softplus_form_matches_bce_with_logits():
    """[20]/[21] (1 - y) z + softplus(-z) equals BCE with logits, finite for |z| in the hundreds."""
    z = torch.tensor([-200.0, -3.0, 0.0, 2.0, 150.0])
    y = torch.tensor([1.0, 0.0, 0.3, 1.0, 0.0])
    torch.testing.assert_close(((1 - y) * z + F.softplus(-z)).mean(), F.binary_cross_entropy_with_logits(z, y))


def test_junior10_standard_scaler_uses_population_std_and_scale_1_for_constants():
    """[25]/[28] StandardScaler divides by the population std (correction=0) and maps a constant column to 0."""
    x = np.array([[1.0, 2.0], [3.0, 2.0], [5.0, 2.0]])
    out = StandardScaler().fit(x).transform(x)
    t = torch.tensor(x)
    torch.testing.assert_close(torch.tensor(out[:, 0]), (t[:, 0] - 3) / t[:, 0].std(correction=0))
    assert np.array_equal(out[:, 1], np.zeros(3))


def test_junior10_index_add_and_bincount_give_cluster_means():
    """[40] index_add_ sums the points of each label and bincount counts them (0 for an empty cluster)."""
    x = torch.tensor([[0.0, 0.0], [2.0, 0.0], [10.0, 10.0]])
    labels = torch.tensor([0, 0, 2])
    sums = torch.zeros(3, 2).index_add_(0, labels, x)
    counts = torch.bincount(labels, minlength=3)
    assert counts.tolist() == [2, 0, 1]
    torch.testing.assert_close(sums[0] / counts[0], torch.tensor([1.0, 0.0]))
