"""Claims junior/06_data_loading makes about PyTorch, as code (cells as tools/dump_notebook.py numbers them)."""

from __future__ import annotations

import copy

import numpy as np
import pytest
import torch
import torch.nn as nn

from torch.utils.data import DataLoader, DistributedSampler, TensorDataset, default_collate


def test_junior06_batchnorm1d_refuses_a_batch_of_one():
    """[16] follow-up: BatchNorm1d in training mode raises on a (1, C) batch; a (1, C, H, W) image batch runs."""
    with pytest.raises(ValueError, match="Expected more than 1 value per channel"):
        nn.BatchNorm1d(3).train()(torch.randn(1, 3))
    assert nn.BatchNorm2d(3).train()(torch.randn(1, 3, 4, 4)).shape == (1, 3, 4, 4)


def test_junior06_drop_last_drops_the_short_batch():
    """[16] follow-up: 101 samples in batches of 10 leave a last batch of 1; drop_last=True drops it."""
    ds = TensorDataset(torch.arange(101.0))
    assert [len(b[0]) for b in DataLoader(ds, batch_size=10)][-1] == 1
    assert {len(b[0]) for b in DataLoader(ds, batch_size=10, drop_last=True)} == {10}


def test_junior06_default_collate_refuses_ragged_samples():
    """[16] follow-up: the default collate stacks samples, so sequences of different lengths raise."""
    with pytest.raises(RuntimeError, match="stack expects each tensor to be equal size"):
        default_collate([torch.zeros(3), torch.zeros(5)])
    padded = nn.utils.rnn.pad_sequence([torch.ones(3), torch.ones(5)], batch_first=True, padding_value=0.0)
    assert padded.shape == (2, 5) and padded[0, 3:].eq(0).all()


def test_junior06_distributed_sampler_gives_disjoint_shards():
    """[27] follow-up: DistributedSampler gives each rank a disjoint shard; set_epoch changes the order."""
    ds = TensorDataset(torch.arange(12.0))
    shards = [list(DistributedSampler(ds, num_replicas=3, rank=r, shuffle=True, seed=0)) for r in range(3)]
    assert sorted(sum(shards, [])) == list(range(12))
    s = DistributedSampler(ds, num_replicas=3, rank=0, shuffle=True, seed=0)
    s.set_epoch(0)
    first = list(s)
    s.set_epoch(1)
    assert list(s) != first


def test_junior06_dataset_copies_share_a_stored_generator_state():
    """[32] follow-up: a worker gets a copy of the dataset, and a generator stored on it starts in the same state
    in every copy (what a worker process receives)."""
    class Augmenting:
        def __init__(self):
            self.rng = np.random.default_rng(0)

    base = Augmenting()
    workers = [copy.deepcopy(base) for _ in range(4)]
    draws = [w.rng.random(3).tolist() for w in workers]
    assert all(d == draws[0] for d in draws)


def test_junior06_worker_info_is_none_in_the_main_process():
    """[32] follow-up: get_worker_info() is None outside a worker (worker_init_fn reads it inside one)."""
    assert torch.utils.data.get_worker_info() is None
