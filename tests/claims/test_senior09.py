"""Claims senior/09_quantization_pruning_distillation makes about PyTorch, as code (cells as tools/dump_notebook.py numbers them)."""

from __future__ import annotations

import warnings

import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.nn.utils.prune as prune


def test_senior09_symmetric_int8_error_is_at_most_half_a_step():
    """[4] q = clamp(round(w / s), -127, 127) with s = max|w| / 127: the reconstruction error is at most s / 2."""
    w = torch.randn(16, 32, generator=torch.Generator().manual_seed(0))
    s = w.abs().amax(dim=1, keepdim=True) / 127
    q = torch.clamp(torch.round(w / s), -127, 127)
    assert bool(((q * s - w).abs() <= s / 2 + 1e-7).all())


def test_senior09_fake_quantize_gradient_is_a_clipped_straight_through():
    """[14] PyTorch's fake quantization passes the gradient unchanged inside the range and zero where it clips."""
    x = torch.linspace(-1.5, 1.5, 31, requires_grad=True)
    torch.fake_quantize_per_tensor_affine(x, 0.1, 0, -7, 7).sum().backward()
    inside = (x.detach() / 0.1).round().abs() <= 7
    assert bool((x.grad[inside] == 1).all()) and bool((x.grad[~inside] == 0).all())


def test_senior09_int8_linear_with_int32_accumulation_matches_float():
    """[13] follow-up: (q_x - z_x) @ q_w^T accumulated in int32, times s_x * s_w, is the float layer up to rounding."""
    g = torch.Generator().manual_seed(0)
    x, w = torch.relu(torch.randn(4, 64, generator=g)) + 0.1, torch.randn(5, 64, generator=g)
    s_x = x.max() / 255
    q_x = torch.clamp(torch.round(x / s_x), 0, 255).to(torch.uint8)
    s_w = w.abs().amax(1, keepdim=True) / 127
    q_w = torch.round(w / s_w).to(torch.int8)
    acc = q_x.int() @ q_w.int().T
    assert acc.dtype == torch.int32 and int(acc.abs().max()) > 2 ** 15  # int16 would have overflowed
    exact = x @ w.T
    assert float((acc * (s_x * s_w.T) - exact).abs().max()) < 0.02 * float(exact.abs().max())


def test_senior09_kl_div_mean_also_divides_by_classes():
    """[33] F.kl_div(reduction="mean") averages over every element, i.e. "batchmean" divided by the class count."""
    g = torch.Generator().manual_seed(0)
    logp, target = F.log_softmax(torch.randn(8, 10, generator=g), -1), F.softmax(torch.randn(8, 10, generator=g), -1)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # PyTorch itself warns that "mean" is not the KL divergence
        mean = F.kl_div(logp, target, reduction="mean")
    torch.testing.assert_close(mean * 10, F.kl_div(logp, target, reduction="batchmean"))


def test_senior09_prune_keeps_a_mask_applied_on_every_forward():
    """[29] torch.nn.utils.prune turns weight into weight_orig * weight_mask, recomputed before every forward."""
    torch.manual_seed(0)
    lin = nn.Linear(6, 4)
    prune.global_unstructured([(lin, "weight")], pruning_method=prune.L1Unstructured, amount=0.5)
    assert {n for n, _ in lin.named_parameters()} == {"weight_orig", "bias"} and hasattr(lin, "weight_mask")
    with torch.no_grad():
        lin.weight_orig.add_(1.0)  # an optimizer step on the original weights
    lin(torch.randn(2, 6))
    assert int((lin.weight == 0).sum()) == 12
