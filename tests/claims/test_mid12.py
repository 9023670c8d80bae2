"""Claims mid/12_llm_building_blocks makes about PyTorch, as code (cells by their 0-based index in the notebook)."""

from __future__ import annotations

import torch
import torch.nn as nn
import torch.nn.functional as F


def test_mid12_rmsnorm_eps_inside_the_square_root():
    """[5] nn.RMSNorm computes x / sqrt(mean(x**2) + eps) * weight: eps inside the root, no mean subtraction."""
    x, norm = 0.2 * torch.randn(4, 16) + 2, nn.RMSNorm(16, eps=0.25)
    torch.testing.assert_close(norm(x), x / torch.sqrt(x.square().mean(-1, keepdim=True) + 0.25))


def test_mid12_rmsnorm_has_one_parameter_of_ones():
    """[5] nn.RMSNorm has one parameter, weight, initialised to ones, and no bias."""
    params = dict(nn.RMSNorm(8).named_parameters())
    assert list(params) == ["weight"] and torch.equal(params["weight"].detach(), torch.ones(8))


def test_mid12_rmsnorm_module_keeps_bfloat16():
    """[5] a bfloat16 nn.RMSNorm on a bfloat16 input returns bfloat16."""
    assert nn.RMSNorm(4).to(torch.bfloat16)(torch.randn(2, 4, dtype=torch.bfloat16)).dtype == torch.bfloat16


def test_mid12_bf16_input_with_fp32_weight_promotes():
    """[5] multiplying a bfloat16 activation by a float32 gain promotes to float32: where the cast sits matters."""
    assert (torch.randn(2, 4, dtype=torch.bfloat16) * torch.ones(4)).dtype == torch.float32


def test_mid12_is_causal_with_one_query_sees_only_the_first_key():
    """[0] is_causal=True with fewer queries than keys aligns the mask top-left: one query sees only key 0."""
    q, k, v = torch.randn(1, 1, 4), torch.randn(1, 5, 4), torch.eye(5)[None]
    out = F.scaled_dot_product_attention(q, k, v, is_causal=True)
    torch.testing.assert_close(out, v[:, :1])


def test_mid12_enable_gqa_equals_repeat_interleave():
    """[36] SDPA's enable_gqa=True equals repeating each KV head for its group of consecutive query heads."""
    q, k, v = torch.randn(2, 8, 5, 4), torch.randn(2, 2, 5, 4), torch.randn(2, 2, 5, 4)
    want = F.scaled_dot_product_attention(q, k.repeat_interleave(4, 1), v.repeat_interleave(4, 1), is_causal=True)
    torch.testing.assert_close(F.scaled_dot_product_attention(q, k, v, is_causal=True, enable_gqa=True), want)


def test_mid12_tensor_repeat_tiles_heads_instead_of_grouping():
    """[35] Tensor.repeat tiles the KV heads (head h reads h % n_kv), unlike repeat_interleave's groups."""
    k = torch.arange(2.0).reshape(1, 2, 1, 1)
    assert k.repeat(1, 4, 1, 1).flatten().tolist() == [0, 1, 0, 1, 0, 1, 0, 1]
    assert k.repeat_interleave(4, 1).flatten().tolist() == [0, 0, 0, 0, 1, 1, 1, 1]


def test_mid12_rotation_by_position_preserves_relative_scores():
    """[31] RoPE scores depend only on the distance: rotating q by m and k by n equals rotating by m - n and 0."""
    def rot(x, pos, theta=0.3):
        c, s = torch.cos(torch.tensor(pos * theta)), torch.sin(torch.tensor(pos * theta))
        return torch.stack([x[0] * c - x[1] * s, x[0] * s + x[1] * c])

    q, k = torch.randn(2, dtype=torch.float64), torch.randn(2, dtype=torch.float64)
    torch.testing.assert_close(rot(q, 7) @ rot(k, 3), rot(q, 4) @ rot(k, 0))
