"""Claims mid/08_normalization_layers makes about PyTorch, as code (cells as tools/dump_notebook.py numbers them)."""

from __future__ import annotations

import pytest
import torch
import torch.nn as nn
import torch.nn.functional as F


def test_mid08_batchnorm_running_var_uses_the_unbiased_variance():
    """[5] BatchNorm2d normalizes with the biased variance but feeds the unbiased one into running_var."""
    torch.manual_seed(0)
    bn, x = nn.BatchNorm2d(3), 2 * torch.randn(4, 3, 2, 2) + 1
    out = bn(x)
    n = 4 * 2 * 2
    var_b = x.var(dim=(0, 2, 3), correction=0)
    torch.testing.assert_close(bn.running_var, 0.9 + 0.1 * var_b * n / (n - 1))
    torch.testing.assert_close(bn.running_mean, 0.1 * x.mean(dim=(0, 2, 3)))
    ref = (x - x.mean((0, 2, 3), keepdim=True)) / (var_b.view(1, 3, 1, 1) + 1e-5).sqrt()
    torch.testing.assert_close(out, ref, atol=1e-5, rtol=1e-4)


def test_mid08_batchnorm1d_refuses_one_value_per_channel_in_train_mode():
    """[20] nn.BatchNorm1d(8) in train mode raises on a (1, 8) input; eval mode accepts it."""
    with pytest.raises(ValueError, match="more than 1 value per channel"):
        nn.BatchNorm1d(8).train()(torch.randn(1, 8))
    assert nn.BatchNorm1d(8).eval()(torch.randn(1, 8)).shape == (1, 8)


def test_mid08_only_batchnorm_depends_on_the_batch():
    """[20] in train mode only BatchNorm's output for one example changes with its batch-mates."""
    torch.manual_seed(0)
    xa = torch.randn(5, 4, 3, 3)
    xb = xa.clone()
    xb[1:] = 5 * torch.randn(4, 4, 3, 3) + 3
    for layer, dep in ((nn.BatchNorm2d(4), True), (nn.LayerNorm([4, 3, 3]), False), (nn.GroupNorm(2, 4), False)):
        assert (not torch.allclose(layer(xa)[0], layer(xb)[0], atol=1e-5)) == dep


def test_mid08_groupnorm_groups_consecutive_channels_and_spans_ln_to_in():
    """[15] GroupNorm with G=1 is LayerNorm over (C, H, W), with G=C it is InstanceNorm."""
    torch.manual_seed(0)
    x = torch.randn(2, 6, 3, 3)
    torch.testing.assert_close(F.group_norm(x, 1), F.layer_norm(x, x.shape[1:]), atol=1e-5, rtol=1e-4)
    torch.testing.assert_close(F.group_norm(x, 6), F.instance_norm(x), atol=1e-5, rtol=1e-4)
    torch.testing.assert_close(F.group_norm(x, 3), F.layer_norm(x.reshape(2, 3, -1), (18,)).reshape(x.shape),
                               atol=1e-5, rtol=1e-4)


def test_mid08_groupnorm_with_one_value_per_group_outputs_the_bias():
    """[19] GroupNorm(C, C) on (N, C, 1, 1): every output is the bias (up to rounding)."""
    gn = nn.GroupNorm(4, 4)
    with torch.no_grad():
        gn.bias.copy_(torch.tensor([1.0, -2.0, 0.5, 3.0]))
    torch.manual_seed(0)
    out = gn(torch.randn(3, 4, 1, 1))
    # x - mean is rounding noise, amplified by 1/sqrt(eps) = 316: the bias up to about 1e-5, whatever x is
    torch.testing.assert_close(out, gn.bias.detach().view(1, 4, 1, 1).expand(3, 4, 1, 1), atol=1e-3, rtol=0)


def test_mid08_projection_shortcut_parameter_count():
    """[30] a 1x1 conv (no bias) from 64 to 128 channels plus BatchNorm2d(128) has 64*128 + 2*128 parameters."""
    proj = nn.Sequential(nn.Conv2d(64, 128, 1, bias=False), nn.BatchNorm2d(128))
    assert sum(p.numel() for p in proj.parameters()) == 64 * 128 + 2 * 128


def test_mid08_residual_keeps_the_first_layer_gradient_larger():
    """[30] 30 blocks of Linear + tanh: the first layer's gradient is larger with residual connections."""
    def first_grad(residual):
        torch.manual_seed(0)
        layers = [nn.Linear(32, 32) for _ in range(30)]
        x = torch.randn(4, 32)
        for lin in layers:
            x = x + torch.tanh(lin(x)) if residual else torch.tanh(lin(x))
        x.sum().backward()
        return layers[0].weight.grad.norm().item()
    assert first_grad(True) > first_grad(False)


def test_mid08_rms_norm_drops_the_mean_and_the_bias():
    """[14] follow-up: RMSNorm divides by sqrt(mean(x**2) + eps) times a weight; no bias, half LayerNorm's parameters."""
    torch.manual_seed(0)
    x, w = torch.randn(4, 8) + 3, torch.randn(8)
    ref = x / torch.sqrt(x.pow(2).mean(-1, keepdim=True) + 1e-6) * w
    torch.testing.assert_close(F.rms_norm(x, (8,), w, eps=1e-6), ref)
    assert sum(p.numel() for p in nn.RMSNorm(8).parameters()) == 8
    assert sum(p.numel() for p in nn.LayerNorm(8).parameters()) == 16


def test_mid08_rms_norm_default_eps_is_the_dtype_epsilon():
    """[14] follow-up: nn.RMSNorm's eps defaults to None, meaning torch.finfo(x.dtype).eps."""
    assert nn.RMSNorm(8).eps is None
    x = torch.full((1, 4), 1e-4)
    ref = x / torch.sqrt(x.pow(2).mean(-1, keepdim=True) + torch.finfo(torch.float32).eps)
    torch.testing.assert_close(F.rms_norm(x, (4,)), ref)
