"""Claims junior/13_autoencoders_vaes_and_gans makes about PyTorch, as code (cells as tools/dump_notebook.py
numbers them)."""

from __future__ import annotations

import math

import pytest
import torch
import torch.nn as nn
import torch.nn.functional as F

from torch.distributions import Normal, kl_divergence


def test_junior13_tiny_autoencoder_has_42_parameters():
    """[12] follow-up to ex1: Linear(8, 2) + Linear(2, 8) hold 18 + 24 = 42 parameters (not 34)."""
    ae = nn.Sequential(nn.Linear(8, 2), nn.Linear(2, 8))
    assert sum(p.numel() for p in ae.parameters()) == 42


def test_junior13_mse_loss_default_averages_over_everything():
    """[7] Hint 1: F.mse_loss's default reduction averages over the batch too and gives one number."""
    a, b = torch.randn(5, 8), torch.randn(5, 8)
    loss = F.mse_loss(a, b)
    assert loss.dim() == 0
    torch.testing.assert_close(loss, ((a - b) ** 2).mean(dim=1).mean())


def test_junior13_quantile_interpolates_linearly():
    """[6] torch.quantile's default interpolation is linear between the two nearest ranks."""
    e = torch.tensor([0.0, 1.0, 2.0, 10.0])
    assert torch.quantile(e, 0.9).item() == pytest.approx(2.0 + 0.7 * 8.0)


def test_junior13_normal_sample_has_no_graph_rsample_has_one():
    """[14] Hint 2: Normal(mu, std).sample() is cut off from mu; rsample() is the reparameterised draw."""
    mu, std = torch.zeros(3, requires_grad=True), torch.ones(3)
    assert not Normal(mu, std).sample().requires_grad
    z = Normal(mu, std).rsample()
    z.sum().backward()
    assert torch.equal(mu.grad, torch.ones(3))


def test_junior13_torch_normal_gives_mu_a_zero_gradient():
    """[14] Hint 2: torch.normal(mu, std) draws the right distribution, but the gradient to mu is zero."""
    mu, std = torch.zeros(3, requires_grad=True), torch.ones(3, requires_grad=True)
    torch.normal(mu, std).sum().backward()
    assert torch.equal(mu.grad, torch.zeros(3))


def test_junior13_gaussian_kl_closed_form():
    """[18] KL(N(mu, exp(logvar)) || N(0, 1)) = -0.5 (1 + logvar - mu^2 - exp(logvar)), per latent dim."""
    g = torch.Generator().manual_seed(0)
    mu, logvar = torch.randn(4, 3, generator=g), torch.randn(4, 3, generator=g)
    closed = -0.5 * (1 + logvar - mu ** 2 - logvar.exp())
    ref = kl_divergence(Normal(mu, torch.exp(0.5 * logvar)), Normal(torch.zeros_like(mu), torch.ones_like(mu)))
    torch.testing.assert_close(closed, ref)


def test_junior13_sse_is_gaussian_nll_with_variance_one_half():
    """[18] the summed squared error is the Gaussian NLL for a fixed variance of 1/2, up to an additive constant."""
    g = torch.Generator().manual_seed(1)
    x, mean = torch.randn(6, generator=g, dtype=torch.float64), torch.randn(6, generator=g, dtype=torch.float64)
    nll = -Normal(mean, math.sqrt(0.5)).log_prob(x).sum()
    sse = ((x - mean) ** 2).sum()
    torch.testing.assert_close(nll - sse, torch.tensor(6 * 0.5 * math.log(math.pi), dtype=torch.float64))


def test_junior13_averaging_both_terms_rescales_the_kl():
    """[22] follow-up to ex3: F.mse_loss plus a KL mean over the latent dims equals the ELBO's terms divided by
    D and by L: the KL is rescaled by D / L relative to the reconstruction."""
    g = torch.Generator().manual_seed(2)
    d, latent = 12, 3
    x, xr = torch.rand(5, d, generator=g), torch.rand(5, d, generator=g)
    kl = torch.rand(5, latent, generator=g)
    recon_sum, kl_sum = ((xr - x) ** 2).sum(1).mean(), kl.sum(1).mean()
    averaged = F.mse_loss(xr, x) + kl.mean()
    torch.testing.assert_close(averaged, recon_sum / d + kl_sum / latent)
    torch.testing.assert_close(averaged * d, recon_sum + kl_sum * d / latent)


def test_junior13_balanced_gan_losses():
    """[39] a discriminator that outputs logit 0 everywhere gives d_loss = 2 log 2 and g_loss = log 2."""
    logits = torch.zeros(8, 1)
    d_loss = (F.binary_cross_entropy_with_logits(logits, torch.ones_like(logits))
              + F.binary_cross_entropy_with_logits(logits, torch.zeros_like(logits)))
    g_loss = F.binary_cross_entropy_with_logits(logits, torch.ones_like(logits))
    assert d_loss.item() == pytest.approx(2 * math.log(2)) and g_loss.item() == pytest.approx(math.log(2))
