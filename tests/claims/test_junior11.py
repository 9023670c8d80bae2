"""Claims junior/11_first_cnn makes about PyTorch, as code (cells as tools/dump_notebook.py numbers them)."""

from __future__ import annotations

import pytest
import torch
import torch.nn as nn


def test_junior11_fourth_valid_conv_on_8x8_raises():
    """[15] follow-up to ex2: 3x3 convs without padding take 8x8 to 6, 4, 2; the fourth conv raises."""
    x = torch.randn(1, 1, 8, 8)
    sizes = []
    for _ in range(3):
        x = nn.Conv2d(1, 1, 3)(x)
        sizes.append(x.shape[-1])
    assert sizes == [6, 4, 2]
    with pytest.raises(RuntimeError, match="Kernel size can't be greater than actual input size"):
        nn.Conv2d(1, 1, 3)(x)


def test_junior11_padding_same_keeps_the_size():
    """[15] padding=1 (or "same") keeps the side for a 3x3 kernel with stride 1."""
    x = torch.randn(1, 1, 8, 8)
    assert nn.Conv2d(1, 1, 3, padding=1)(x).shape == x.shape == nn.Conv2d(1, 1, 3, padding="same")(x).shape


def test_junior11_conv_has_448_parameters_a_linear_50_million():
    """[44] follow-up: Conv2d(3, 16, 3) has 448 parameters; a Linear from 3x32x32 to 16x32x32 about 50 million."""
    assert sum(p.numel() for p in nn.Conv2d(3, 16, 3, padding=1).parameters()) == 448
    assert 3072 * 16384 + 16384 == 50_348_032


def test_junior11_three_3x3_convs_see_7x7():
    """[44] follow-up: three stacked 3x3 stride-1 convolutions have a 7x7 receptive field."""
    stack = nn.Sequential(*[nn.Conv2d(1, 1, 3, bias=False) for _ in range(3)])
    for conv in stack:
        nn.init.ones_(conv.weight)
    x = torch.zeros(1, 1, 15, 15, requires_grad=True)
    out = stack(x)
    out[0, 0, 4, 4].backward()
    rows, cols = x.grad[0, 0].nonzero().unbind(1)
    assert (rows.max() - rows.min() + 1, cols.max() - cols.min() + 1) == (7, 7)


def test_junior11_batch_eval_without_no_grad_records_a_graph():
    """[39] follow-up: without no_grad each batch's output carries a graph; argmax of it does not."""
    model = nn.Linear(4, 3)
    logits = model(torch.randn(2, 4))
    assert logits.grad_fn is not None and logits.argmax(1).grad_fn is None
