"""Claims senior/05_distributed_data_parallel makes about PyTorch, as code (cells as tools/dump_notebook.py numbers them)."""

from __future__ import annotations

import torch
from torch.utils.data import DistributedSampler


def _epoch(n, world, epoch, seed=0, **kw):
    out = []
    for rank in range(world):
        sampler = DistributedSampler(range(n), num_replicas=world, rank=rank, seed=seed, **kw)
        sampler.set_epoch(epoch)
        out.append(list(sampler))
    return out


def test_senior05_sampler_pads_the_tail_by_repeating_indices():
    """[11] 10 samples on 4 ranks without drop_last: 3 indices per rank, 2 dataset indices visited twice."""
    ranks = _epoch(10, 4, 0)
    assert [len(r) for r in ranks] == [3, 3, 3, 3]
    flat = [i for r in ranks for i in r]
    assert sorted(set(flat)) == list(range(10)) and len(flat) - len(set(flat)) == 2


def test_senior05_sampler_drop_last_drops_the_tail():
    """[11] with drop_last=True the ranks get floor(n / W) indices and some samples are never seen."""
    ranks = _epoch(10, 4, 0, drop_last=True)
    assert [len(r) for r in ranks] == [2, 2, 2, 2]


def test_senior05_sampler_shuffle_changes_only_with_set_epoch():
    """[6] the permutation is seeded with seed + epoch: without set_epoch every epoch repeats the same order."""
    sampler = DistributedSampler(range(20), num_replicas=2, rank=0, seed=3)
    first, again = list(sampler), list(sampler)
    assert first == again
    sampler.set_epoch(1)
    assert list(sampler) != first


def test_senior05_ranks_share_one_permutation_and_stride_it():
    """[6] all ranks shuffle with the same seed and rank r takes every W-th index starting at r."""
    g = torch.Generator().manual_seed(5)
    perm = torch.randperm(12, generator=g).tolist()
    assert _epoch(12, 3, 0, seed=5) == [perm[r::3] for r in range(3)]


def test_senior05_tensor_split_gives_near_equal_chunks():
    """[27] torch.tensor_split handles a length that does not divide by W: chunk sizes differ by at most one."""
    assert [c.numel() for c in torch.arange(7).tensor_split(3)] == [3, 2, 2]
    assert [c.numel() for c in torch.arange(7).chunk(3)] == [3, 3, 1]
