"""Claims mid/03_collate_and_sampling makes about PyTorch, as code (cells as tools/dump_notebook.py numbers them)."""

from __future__ import annotations

import warnings

import torch
import torch.nn.functional as F
from torch.nn.utils.rnn import pad_sequence
from torch.utils.data import DataLoader, WeightedRandomSampler


def test_mid03_pad_sequence_defaults_are_time_first_and_zero():
    """[6] pad_sequence gives (L, B) padded with 0 unless batch_first=True and padding_value are passed."""
    seqs = [torch.tensor([5, 6, 7]), torch.tensor([8])]
    assert pad_sequence(seqs).shape == (3, 2) and pad_sequence(seqs)[1, 1] == 0
    out = pad_sequence(seqs, batch_first=True, padding_value=-1)
    assert out.shape == (2, 3) and out[1].tolist() == [8, -1, -1]


def test_mid03_default_collate_fails_on_unequal_lengths():
    """[5] the default collate stacks samples, which fails for sequences of different lengths."""
    loader = DataLoader([torch.ones(3), torch.ones(2)], batch_size=2)
    try:
        next(iter(loader))
    except RuntimeError:
        return
    raise AssertionError("default collate stacked unequal lengths")


def test_mid03_pin_memory_without_accelerator_only_warns():
    """[20]/[21] pin_memory=True without an accelerator warns and still yields batches."""
    if torch.cuda.is_available():
        return
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        batch = next(iter(DataLoader(torch.arange(4.0), batch_size=2, pin_memory=True)))
    assert batch.shape == (2,) and any("pin_memory" in str(w.message) for w in caught)


def test_mid03_weighted_mean_divides_by_weight_sum_so_scaling_cancels():
    """[29] CrossEntropyLoss(weight=w) divides by the sum of the batch's weights: w * 10 changes nothing."""
    torch.manual_seed(0)
    z, t, w = torch.randn(6, 3), torch.tensor([0, 1, 2, 2, 1, 0]), torch.tensor([1.0, 2.0, 5.0])
    torch.testing.assert_close(F.cross_entropy(z, t, weight=w), F.cross_entropy(z, t, weight=10 * w))


def test_mid03_weighted_random_sampler_takes_one_weight_per_sample():
    """[30] WeightedRandomSampler draws indices with probability proportional to per-sample weights."""
    labels = torch.tensor([0] * 90 + [1] * 10)
    counts = torch.bincount(labels)
    sampler = WeightedRandomSampler((1.0 / counts[labels]).double(), 20000, replacement=True,
                                    generator=torch.Generator().manual_seed(0))
    drawn = labels[torch.tensor(list(sampler))]
    assert 0.45 < drawn.float().mean().item() < 0.55


def test_mid03_balanced_weights_give_mean_weight_one():
    """[25] w_c = N / (K * count_c): every class has the same total weight and the per-sample mean is 1."""
    labels = torch.tensor([0] * 6 + [1] * 3 + [2] * 1)
    counts = torch.bincount(labels, minlength=3).float()
    w = len(labels) / (3 * counts)
    torch.testing.assert_close(w * counts, torch.full((3,), len(labels) / 3))
    torch.testing.assert_close(w[labels].mean(), torch.tensor(1.0))
