"""Claims mid/15_contrastive_and_kl_losses makes about PyTorch, as code (cells by their 0-based index in the notebook)."""

from __future__ import annotations

import math

import pytest
import torch
import torch.nn.functional as F


def test_mid15_random_embeddings_give_log_b():
    """[9] follow-up: with equal logits the InfoNCE loss is log B (1.39 for B = 4)."""
    loss = F.cross_entropy(torch.zeros(4, 4), torch.arange(4))
    assert abs(loss.item() - math.log(4)) < 1e-6 and round(math.log(4096), 1) == 8.3


def test_mid15_clip_clamp_is_on_the_multiplier():
    """[16] clamping exp(logit_scale) at 100 means logit_scale at ln 100, about 4.6052."""
    logit_scale = torch.tensor(7.0)
    assert abs(logit_scale.clamp(max=math.log(100)).exp().item() - 100) < 1e-3
    assert round(math.log(100), 4) == 4.6052


def test_mid15_kl_div_takes_log_probs_as_input():
    """[22] F.kl_div(input, target) computes target * (log target - input): input must be log-probabilities."""
    p, q = torch.softmax(torch.randn(3, 5), -1), torch.softmax(torch.randn(3, 5), -1)
    want = (p * (p.log() - q.log())).sum() / 3
    torch.testing.assert_close(F.kl_div(q.log(), p, reduction="batchmean"), want)


def test_mid15_kl_div_mean_divides_by_every_element():
    """[22] reduction='mean' divides by B * K, 'batchmean' by B."""
    p, q = torch.softmax(torch.randn(3, 5), -1), torch.softmax(torch.randn(3, 5), -1)
    with pytest.warns(UserWarning, match="batchmean"):  # PyTorch itself warns that 'mean' is not the KL
        mean = F.kl_div(q.log(), p, reduction="mean")
    torch.testing.assert_close(mean * 5, F.kl_div(q.log(), p, reduction="batchmean"))


def test_mid15_mask_multiplication_keeps_nan():
    """[30] 0 * NaN is NaN: multiplying by the mask does not remove a NaN at a padded position; indexing does."""
    per_token, mask = torch.tensor([0.5, float("nan")]), torch.tensor([True, False])
    assert torch.isnan((per_token * mask).sum()) and per_token[mask].sum().item() == 0.5


def test_mid15_float16_masked_fill_minus_1e9_overflows():
    """[21] masked_fill with -1e9 on a float16 tensor raises (the largest float16 is 65504)."""
    with pytest.raises(RuntimeError, match="overflow"):
        torch.zeros(2, dtype=torch.float16).masked_fill(torch.tensor([True, False]), -1e9)


def test_mid15_cross_entropy_accepts_probability_targets():
    """[32] F.cross_entropy with probability targets equals -sum p log softmax(logits)."""
    logits, p = torch.randn(4, 3), torch.softmax(torch.randn(4, 3), -1)
    torch.testing.assert_close(F.cross_entropy(logits, p, reduction="none"), -(p * logits.log_softmax(-1)).sum(-1))


def test_mid15_cross_entropy_is_entropy_plus_kl():
    """[32] H(p, q) = H(p) + KL(p || q) per row, with 0 log 0 = 0 (xlogy)."""
    logits = torch.randn(3, 4, dtype=torch.float64)
    p = torch.tensor([[0.0, 1.0, 0.0, 0.0], [0.5, 0.5, 0.0, 0.0], [0.1, 0.2, 0.3, 0.4]], dtype=torch.float64)
    h = -torch.xlogy(p, p).sum(-1)
    kl = F.kl_div(logits.log_softmax(-1), p, reduction="none").sum(-1)
    torch.testing.assert_close(F.cross_entropy(logits, p, reduction="none"), h + kl)
    assert torch.isnan((p * p.log()).sum(-1)[0])


def test_mid15_forward_kl_covers_reverse_kl_seeks_a_mode():
    """[26] follow-up: against a bimodal target, a wide student wins on forward KL and a one-mode student on reverse KL."""
    x = torch.linspace(-6, 6, 601, dtype=torch.float64)

    def normal(mu, s):
        d = torch.exp(-0.5 * ((x - mu) / s) ** 2)
        return d / d.sum()

    p = 0.5 * normal(-2, 0.5) + 0.5 * normal(2, 0.5)
    wide, one_mode = normal(0, 2.1), normal(2, 0.5)

    def kl(a, b):
        return (a * (a.log() - b.log())).sum().item()

    assert kl(p, wide) < kl(p, one_mode)
    assert kl(one_mode, p) < kl(wide, p)


def test_mid15_distillation_gradient_scales_like_one_over_t_squared():
    """[37] the gradient of the softened KL shrinks like 1 / T^2 for large T, which the T^2 factor restores."""
    torch.manual_seed(0)
    t_logits, s0 = torch.randn(8, 10), torch.randn(8, 10)

    def grad_norm(T):
        s = s0.clone().requires_grad_()
        F.kl_div(F.log_softmax(s / T, -1), F.softmax(t_logits / T, -1), reduction="batchmean").backward()
        return s.grad.norm().item()

    assert 80 < grad_norm(10.0) / grad_norm(100.0) < 120
