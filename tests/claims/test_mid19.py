"""Claims mid/19_vision_transformer_and_conv_variants makes about PyTorch, as code (cells by their 0-based index in the notebook)."""

from __future__ import annotations

import pytest
import torch
import torch.nn as nn
import torch.nn.functional as F


def _n(module):
    return sum(p.numel() for p in module.parameters())


def test_mid19_conv_parameter_counts():
    """[26] Conv2d(64, 128, 3) has 73856 parameters; the depthwise-separable pair 8960."""
    assert _n(nn.Conv2d(64, 128, 3)) == 73856
    assert _n(nn.Conv2d(64, 64, 3, groups=64)) + _n(nn.Conv2d(64, 128, 1)) == 8960


def test_mid19_groups_one_depthwise_has_c_in_times_more_weights():
    """[27] follow-up: 64 channels at 3x3 without groups hold 36 928 parameters instead of 640."""
    assert _n(nn.Conv2d(64, 64, 3)) == 36928 and _n(nn.Conv2d(64, 64, 3, groups=64)) == 640


def test_mid19_groups_must_divide_the_channels():
    """[27] follow-up: groups=2 with 3 input channels fails at construction with a ValueError."""
    with pytest.raises(ValueError):
        nn.Conv2d(3, 4, 3, groups=2)


def test_mid19_depthwise_weight_shape_is_c_in_1_k_k():
    """[26] a depthwise conv's weight is (c_in, 1, k, k)."""
    assert tuple(nn.Conv2d(4, 4, 3, groups=4).weight.shape) == (4, 1, 3, 3)


def test_mid19_dwsep_mac_ratio():
    """[27] follow-up answer: the pair costs 1/c_out + 1/k^2 of a standard conv's MACs (about 8.7x fewer)."""
    c, k = 256, 3
    ratio = (c * k * k + c * c) / (c * c * k * k)
    assert abs(ratio - (1 / c + 1 / k ** 2)) < 1e-12 and 8.6 < 1 / ratio < 8.8


def test_mid19_patch_conv_equals_unfold_linear():
    """[6] a conv with kernel_size = stride = p equals F.unfold patches times conv.weight.flatten(1)."""
    conv, x = nn.Conv2d(3, 5, 2, stride=2), torch.randn(2, 3, 4, 6)
    tokens = F.unfold(x, 2, stride=2).transpose(1, 2) @ conv.weight.flatten(1).T + conv.bias
    torch.testing.assert_close(conv(x).flatten(2).transpose(1, 2), tokens, atol=1e-5, rtol=1e-5)


def test_mid19_strided_conv_drops_border_pixels():
    """[6] a strided conv on a size that is not a multiple of p silently drops the border (no error)."""
    assert nn.Conv2d(3, 5, 4, stride=4)(torch.randn(1, 3, 10, 9)).shape[-2:] == (2, 2)


def test_mid19_maxpool_gradient_routes_to_one_position_per_window_even_on_ties():
    """[28] max-pool's gradient goes to one input per window, also when the window ties (all zeros)."""
    x = torch.zeros(1, 1, 2, 2, requires_grad=True)
    F.max_pool2d(x, 2).sum().backward()
    assert x.grad.sum().item() == 1.0 and torch.count_nonzero(x.grad) == 1
