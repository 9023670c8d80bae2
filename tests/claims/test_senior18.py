"""Claims senior/18_latent_attention_and_state_spaces makes, as code."""

from __future__ import annotations

import torch


def test_senior18_mla_cache_is_576_numbers_per_token():
    """[8] ex1 test: MLA caches a 512 latent plus a 64-wide RoPE key per token and layer, 1152 bytes in bf16."""
    latent, rope = torch.zeros(512, dtype=torch.bfloat16), torch.zeros(64, dtype=torch.bfloat16)
    assert latent.numel() + rope.numel() == 576
    assert latent.nbytes + rope.nbytes == 1152


def test_senior18_rope_is_not_a_fixed_linear_map_of_the_latent():
    """[11] follow-up: a position-dependent rotation between W_uk and the query stops the absorption trick."""
    g = torch.Generator().manual_seed(0)
    q, c, w_uk = torch.randn(4, generator=g), torch.randn(8, generator=g), torch.randn(4, 8, generator=g)

    def rot(x, pos):  # RoPE on pairs of dims
        ang = pos * torch.tensor([1.0, 0.1])
        x2 = x.view(2, 2)
        cos, sin = ang.cos()[:, None], ang.sin()[:, None]
        return torch.cat([x2[:, :1] * cos - x2[:, 1:] * sin, x2[:, :1] * sin + x2[:, 1:] * cos], 1).reshape(-1)

    absorbed = (q @ w_uk) @ c  # score without materialising k
    assert abs(absorbed.item() - q @ (w_uk @ c)) < 1e-4
    assert abs(q @ rot(w_uk @ c, 5.0) - absorbed.item()) > 1e-3


def test_senior18_float16_exp_overflows_above_about_11():
    """[24] follow-up after the scan (old [23]): float16 exp overflows to inf a little above 11."""
    assert torch.isfinite(torch.tensor(11.0, dtype=torch.float16).exp())
    assert torch.isinf(torch.tensor(11.1, dtype=torch.float16).exp())
