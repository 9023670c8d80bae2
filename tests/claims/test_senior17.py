"""Claims senior/17_diffusion_and_flow_matching makes, as code (cells as tools/dump_notebook.py numbers them)."""

from __future__ import annotations

import math

import torch

T = 1000


def _schedule():
    betas = torch.linspace(1e-4, 0.02, T, dtype=torch.float64)
    return betas, torch.cumprod(1 - betas, 0)


def test_senior17_linear_schedule_signal_below_0_1_on_last_third():
    """[9] sqrt(ab) < 0.1 on 327 of 1000 steps of the linear schedule, and is still about 0.28 at t = 500."""
    _, ab = _schedule()
    assert int((ab.sqrt() < 0.1).sum()) == 327
    assert abs(ab[500].sqrt().item() - 0.279) < 1e-3


def test_senior17_linspace_float32_rounds_before_conversion():
    """[6] Hint 1 of ex1: a float32 linspace converted to float64 is not the float64 linspace."""
    a = torch.linspace(1e-4, 0.02, T, dtype=torch.float64)
    b = torch.linspace(1e-4, 0.02, T).double()
    assert not torch.equal(a, b)


def test_senior17_index_minus_one_is_last_element():
    """[23] Hint 2 of ex4: indexing the table with -1 returns its last value, not ab_prev = 1."""
    _, ab = _schedule()
    assert ab[-1].item() == ab[T - 1].item() and ab[-1].item() < 1e-4


def test_senior17_posterior_variance_is_zero_at_t0():
    """[21] follow-up to ex3: beta_tilde_0 = (1 - ab_{-1}) / (1 - ab_0) * beta_0 = 0 with ab_{-1} = 1."""
    betas, ab = _schedule()
    ab_prev = torch.cat([torch.ones(1, dtype=torch.float64), ab[:-1]])
    beta_tilde = (1 - ab_prev) / (1 - ab) * betas
    assert beta_tilde[0].item() == 0.0 and beta_tilde[1:].min().item() > 0


def test_senior17_sqrt_abar_bug_overflows_within_a_hundred_steps():
    """[46] and [50]: dividing the DDPM mean by sqrt(ab_t) instead of sqrt(alpha_t) overflows within 100 steps."""
    betas, ab = _schedule()
    c = torch.tensor([1.0, -1.0])
    x = torch.randn(4, 2, generator=torch.Generator().manual_seed(0))  # float32, as a sampler runs
    steps = 0
    for t in reversed(range(T)):
        a = ab[t].item()
        eps = (x - math.sqrt(a) * c) / math.sqrt(1 - a)  # exact noise for data at one point
        x = (x - betas[t].item() / math.sqrt(1 - a) * eps) / math.sqrt(a)
        steps += 1
        if not torch.isfinite(x).all():
            break
    assert steps < 100


def test_senior17_v_prediction_conversions():
    """[27] follow-up: x0 = sqrt(ab) x_t - sqrt(1 - ab) v, eps = sqrt(1 - ab) x_t + sqrt(ab) v, v loss = eps loss / ab."""
    g = torch.Generator().manual_seed(1)
    ab = torch.tensor(0.3, dtype=torch.float64)
    a, s = ab.sqrt(), (1 - ab).sqrt()
    x0, eps = torch.randn(5, generator=g, dtype=torch.float64), torch.randn(5, generator=g, dtype=torch.float64)
    xt, v = a * x0 + s * eps, a * eps - s * x0
    torch.testing.assert_close(a * xt - s * v, x0)
    torch.testing.assert_close(s * xt + a * v, eps)
    eps_hat = eps + 0.1 * torch.randn(5, generator=g, dtype=torch.float64)
    v_hat = (eps_hat - s * xt) / a
    torch.testing.assert_close(((v - v_hat) ** 2).sum(), ((eps - eps_hat) ** 2).sum() / ab)
