"""Claims senior/16_rl_for_llms makes about the KL estimators and the clip, as code."""

from __future__ import annotations

import torch


def _policy_grads(estimator):
    torch.manual_seed(0)
    theta = torch.randn(5, dtype=torch.float64, requires_grad=True)
    ref = torch.log_softmax(torch.randn(5, dtype=torch.float64), 0)
    logp = torch.log_softmax(theta, 0)
    pi = logp.exp().detach()
    # exact expectation over a ~ pi of the gradient of the per-token loss term
    per_token = estimator(logp, ref)
    expected = torch.autograd.grad((pi * per_token).sum(), theta)[0]
    return theta, ref, expected


def test_senior16_k1_in_loss_has_zero_mean_gradient():
    """[16] follow-up to ex2: k1 = logp - ref_logp as a loss term has zero expected gradient under sampling from pi."""
    _, _, g = _policy_grads(lambda logp, ref: logp - ref)
    assert g.abs().max().item() < 1e-12


def test_senior16_k3_in_loss_gradient_is_forward_kl_gradient():
    """[16] follow-up to ex2: k3 in the loss has expected gradient grad KL(pi_ref || pi), not grad KL(pi || pi_ref)."""
    theta, ref, g = _policy_grads(lambda logp, ref: (ref - logp).exp() - 1 - (ref - logp))
    logp = torch.log_softmax(theta, 0)
    forward_kl = (ref.exp() * (ref - logp)).sum()
    reverse_kl = (logp.exp() * (logp - ref)).sum()
    g_fwd = torch.autograd.grad(forward_kl, theta, retain_graph=True)[0]
    g_rev = torch.autograd.grad(reverse_kl, theta)[0]
    torch.testing.assert_close(g, g_fwd)
    assert (g - g_rev).abs().max().item() > 1e-3


def test_senior16_clip_with_negative_advantage_is_flat_below_one_minus_eps():
    """[14] with A < 0 the clipped objective min(r A, clip(r) A) is flat in r below 1 - eps_low."""
    r = torch.tensor([0.5, 0.7, 0.79], dtype=torch.float64, requires_grad=True)
    a, eps_low, eps_high = -1.0, 0.2, 0.28
    obj = torch.minimum(r * a, r.clamp(1 - eps_low, 1 + eps_high) * a)
    (g,) = torch.autograd.grad(obj.sum(), r)
    assert torch.equal(g, torch.zeros(3, dtype=torch.float64))
