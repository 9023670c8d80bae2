"""Claims senior/12_fault_tolerance_and_design makes about PyTorch, as code (cells as tools/dump_notebook.py numbers them)."""

from __future__ import annotations

import math
import os
import tempfile

import pytest
import torch
import torch.nn as nn


class _FailsToPickle:
    def __reduce__(self):
        raise RuntimeError("simulated crash during save")


def test_senior12_torch_save_destroys_the_old_file_when_it_fails_midway():
    """[5] torch.save(obj, path) truncates path before serializing: a failure midway leaves no good checkpoint."""
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "last.pt")
        torch.save({"step": 10}, path)
        with pytest.raises(RuntimeError):
            torch.save({"w": torch.zeros(1000), "boom": _FailsToPickle()}, path)
        with pytest.raises((RuntimeError, EOFError)):  # the zip archive is cut short
            torch.load(path)


def test_senior12_rng_state_is_a_cpu_byte_tensor_that_replays_dropout():
    """[12] torch.get_rng_state() is a CPU uint8 tensor; restoring it replays the same dropout masks."""
    state = torch.get_rng_state()
    assert state.dtype == torch.uint8 and state.device.type == "cpu"
    drop, x = nn.Dropout(0.5), torch.ones(64)
    first = drop(x)
    torch.set_rng_state(state)
    assert torch.equal(drop(x), first)


def test_senior12_young_daly_interval_and_overhead():
    """[15] follow-up: save cost 2 min, MTBF 240 min: interval sqrt(2 C M) about 31 min, about 13% overhead."""
    c, m = 2.0, 240.0
    t = math.sqrt(2 * c * m)
    assert round(t) == 31 and round(100 * (c / t + t / (2 * m))) == 13
