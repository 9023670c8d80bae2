"""Claims junior/07_devices_and_saving makes about PyTorch, as code (cells as tools/dump_notebook.py numbers them)."""

from __future__ import annotations

import io

import pytest
import torch
import torch.nn as nn


def test_junior07_tensor_to_copies_module_to_moves_in_place():
    """[9] follow-up to ex1: Tensor.to returns a new tensor; Module.to converts in place and returns the module."""
    t = torch.zeros(2)
    assert t.to(torch.float64) is not t and t.dtype == torch.float32
    m = nn.Linear(2, 2)
    assert m.to(torch.float64) is m and m.weight.dtype == torch.float64


def test_junior07_factories_default_to_the_cpu():
    """[11] Hint 1: a factory such as torch.ones puts its result on the CPU unless told a device."""
    assert torch.ones(2).device.type == "cpu"
    assert torch.ones(2, device="meta").device.type == "meta"


def test_junior07_meta_refuses_to_mix_with_cpu():
    """[13] the meta device refuses a CPU mask in masked_fill, as CUDA would."""
    scores = torch.empty(4, 4, device="meta")
    with pytest.raises(RuntimeError, match="device"):
        scores.masked_fill(torch.ones(4, 4, dtype=torch.bool), 0.0)


def test_junior07_buffers_move_and_non_persistent_ones_stay_out_of_the_state_dict():
    """[15] a buffer moves with .to() and is listed in named_buffers(); persistent=False keeps it out of state_dict."""
    m = nn.Module()
    m.register_buffer("mask", torch.ones(2, 2, dtype=torch.bool), persistent=False)
    m.register_buffer("stats", torch.zeros(2))
    assert [n for n, _ in m.named_buffers()] == ["mask", "stats"] and list(m.state_dict()) == ["stats"]
    assert list(m.parameters()) == [] and m.to(torch.float64).stats.dtype == torch.float64


def test_junior07_masked_fill_needs_a_bool_mask():
    """[19] follow-up: masked_fill refuses a float mask (an nn.Parameter of floats)."""
    with pytest.raises(RuntimeError, match="boolean"):
        torch.zeros(2, 2).masked_fill(nn.Parameter(torch.ones(2, 2)), 0.0)


def test_junior07_load_refuses_a_pickled_module_by_default():
    """[20]/[25] torch.load defaults to weights_only=True and refuses a whole pickled module."""
    buf = io.BytesIO()
    torch.save(nn.Linear(2, 2), buf)
    buf.seek(0)
    with pytest.raises(Exception, match="weights_only|Weights only"):
        torch.load(buf)


def test_junior07_strict_false_still_refuses_a_shape_mismatch():
    """[26] load_state_dict(strict=False) tolerates missing and unexpected keys but raises on a shape mismatch."""
    m = nn.Linear(3, 4)
    out = m.load_state_dict({"weight": torch.zeros(4, 3), "extra": torch.zeros(1)}, strict=False)
    assert out.missing_keys == ["bias"] and out.unexpected_keys == ["extra"]
    with pytest.raises(RuntimeError, match="size mismatch"):
        m.load_state_dict({"weight": torch.zeros(5, 3)}, strict=False)


def test_junior07_lstrip_strips_characters_not_a_prefix():
    """[30] follow-up: "module.".lstrip strips characters (eating into a key), removeprefix strips the prefix."""
    assert "module.model.weight".lstrip("module.") == "weight"
    assert "module.model.weight".removeprefix("module.") == "model.weight"
