"""Claims senior/13_kv_cache_and_speculative_decoding makes about PyTorch, as code (cells as tools/dump_notebook.py numbers them)."""

from __future__ import annotations

import torch
import torch.nn.functional as F


def test_senior13_is_causal_anchors_the_mask_top_left():
    """[5] SDPA's is_causal with fewer queries than keys masks as if the queries came first: one new token sees key 0 only."""
    g = torch.Generator().manual_seed(0)
    q, k, v = torch.randn(1, 1, 1, 8, generator=g), torch.randn(1, 1, 6, 8, generator=g), torch.randn(1, 1, 6, 8, generator=g)
    torch.testing.assert_close(F.scaled_dot_product_attention(q, k, v, is_causal=True), v[:, :, :1])
    mask = torch.ones(1, 6, dtype=torch.bool)  # the fix: the new token at position 5 may see every key
    torch.testing.assert_close(F.scaled_dot_product_attention(q, k, v, attn_mask=mask), F.scaled_dot_product_attention(q, k, v))


def test_senior13_kv_cache_of_a_7b_model_is_2_gib_per_4k_sequence():
    """[20] 32 layers x (K and V) x 32 heads x 128 dims x 2 bytes x 4096 tokens = 2 GiB; 8 KV heads shrink it 4x."""
    per = lambda kv_heads: 32 * 2 * kv_heads * 128 * torch.bfloat16.itemsize * 4096  # noqa: E731
    assert per(32) == 2 * 2 ** 30 and per(32) // per(8) == 4


def test_senior13_speculative_rule_outputs_the_target_distribution():
    """[27] q(x) min(1, p/q) + P(reject) normalize(max(0, p - q)) equals p exactly, whatever q is."""
    g = torch.Generator().manual_seed(0)
    p, q = torch.softmax(torch.randn(50, generator=g, dtype=torch.float64), 0), torch.softmax(torch.randn(50, generator=g, dtype=torch.float64), 0)
    accept = torch.minimum(q, p)  # q * min(1, p / q)
    residual = (p - q).clamp_min(0)
    out = accept + (1 - accept.sum()) * residual / residual.sum()
    torch.testing.assert_close(out, p)
    torch.testing.assert_close(accept.sum(), 1 - 0.5 * (p - q).abs().sum())  # acceptance rate = 1 - TV distance
