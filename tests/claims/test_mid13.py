"""Claims mid/13_decoding_strategies makes about PyTorch, as code (cells by their 0-based index in the notebook)."""

from __future__ import annotations

import pytest
import torch


def test_mid13_temperature_after_softmax_is_not_a_distribution():
    """[16] follow-up: probs / T does not sum to 1, unlike softmax(logits / T)."""
    logits = torch.tensor([2.0, 1.0, -1.0])
    assert abs(torch.softmax(logits / 0.5, -1).sum().item() - 1) < 1e-6
    assert abs((torch.softmax(logits, -1) / 0.5).sum().item() - 2) < 1e-6


def test_mid13_minus_inf_logit_gets_zero_probability():
    """[36] a -inf logit gets probability exactly 0 after the softmax."""
    probs = torch.softmax(torch.tensor([1.0, float("-inf"), 0.5]), -1)
    assert probs[1].item() == 0.0


def test_mid13_all_minus_inf_softmax_is_nan_and_multinomial_raises():
    """[33] follow-up: an all -inf row gives NaN probabilities, which torch.multinomial refuses."""
    probs = torch.softmax(torch.full((1, 4), float("-inf")), -1)
    assert torch.isnan(probs).all()
    with pytest.raises(RuntimeError):
        torch.multinomial(probs, 1)


def test_mid13_multinomial_with_a_generator_is_reproducible():
    """[36] torch.multinomial(..., generator=g) gives the same draws for the same seed."""
    probs = torch.softmax(torch.randn(3, 10), -1)
    draws = [torch.multinomial(probs, 5, replacement=True, generator=torch.Generator().manual_seed(7)) for _ in range(2)]
    assert torch.equal(draws[0], draws[1])


def test_mid13_dividing_a_negative_logit_moves_it_up():
    """[28] dividing a negative logit by a penalty > 1 raises it; multiplying lowers it."""
    logit = torch.tensor(-2.0)
    assert logit / 1.3 > logit > logit * 1.3


def test_mid13_indexed_inplace_division_edits_the_callers_tensor():
    """[28] logits[t] /= penalty on the argument changes the caller's tensor; clone() first."""
    caller = torch.tensor([1.0, 2.0, 3.0])
    arg = caller
    arg[1] /= 2
    assert caller[1].item() == 1.0


def test_mid13_unique_removes_repeats():
    """[29] hint: torch.unique gives each repeated id once, so each token is penalised once."""
    assert torch.unique(torch.tensor([4, 1, 4, 4, 2])).tolist() == [1, 2, 4]


def test_mid13_topk_keeps_k_largest():
    """[19] torch.topk(logits, k).values[..., -1:] is the threshold: k values are at least it (without ties)."""
    logits = torch.tensor([[0.1, 3.0, -1.0, 2.0, 0.5]])
    kth = torch.topk(logits, 2).values[..., -1:]
    assert (logits >= kth).sum().item() == 2
