"""Claims senior/07_profiling makes about PyTorch, as code (cells as tools/dump_notebook.py numbers them)."""

from __future__ import annotations

import time

import pytest
import torch
from torch.profiler import ProfilerActivity, profile, record_function

NO_ACCELERATOR = not torch.cuda.is_available() and not torch.accelerator.is_available()


@pytest.mark.skipif(not NO_ACCELERATOR, reason="pinning works where an accelerator is present")
def test_senior07_pin_memory_raises_without_an_accelerator():
    """[29] pinning needs an accelerator: on a CPU-only machine Tensor.pin_memory() raises."""
    with pytest.raises(RuntimeError):
        torch.ones(3).pin_memory()


@pytest.mark.skipif(torch.cuda.is_available(), reason="on CUDA synchronize works")
def test_senior07_cuda_synchronize_raises_without_cuda():
    """[23] torch.cuda.synchronize raises on a machine without CUDA, so the CPU timer must not call it."""
    with pytest.raises((RuntimeError, AssertionError)):
        torch.cuda.synchronize()


def test_senior07_record_function_regions_are_counted_per_call():
    """[16] each record_function label appears in key_averages with one count per entry and its CPU total."""
    with profile(activities=[ProfilerActivity.CPU]) as prof:
        for _ in range(3):
            with record_function("data"):
                time.sleep(0.002)
    row = {e.key: e for e in prof.key_averages()}["data"]
    assert row.count == 3 and row.cpu_time_total >= 3 * 2000 * 0.9


def test_senior07_dataloader_next_is_a_child_of_the_data_region():
    """[21] fetching from a DataLoader shows as an event nested under the record_function region around it."""
    loader = iter(torch.utils.data.DataLoader(list(range(8)), batch_size=4))
    with profile(activities=[ProfilerActivity.CPU]) as prof:
        with record_function("data"):
            next(loader)
    nexts = [e for e in prof.events() if "DataLoader" in e.name]
    assert nexts and all(e.cpu_parent is not None and e.cpu_parent.name == "data" for e in nexts)


@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs CUDA")
def test_senior07_elapsed_time_raises_before_the_end_event_completes():
    """[28] elapsed_time raises a RuntimeError while the end event has not completed; it never reports a partial time."""
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    a = torch.randn(8192, 8192, device="cuda")
    torch.cuda.synchronize()
    start.record()
    for _ in range(20):
        a = a @ a / 8192
    end.record()
    if not end.query():  # still running: reading the time must raise
        with pytest.raises(RuntimeError):
            start.elapsed_time(end)
    end.synchronize()
    assert start.elapsed_time(end) > 0
