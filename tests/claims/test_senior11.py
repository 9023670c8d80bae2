"""Claims senior/11_memory_efficient_attention makes about PyTorch, as code (cells as tools/dump_notebook.py numbers them)."""

from __future__ import annotations

import math
import warnings

import pytest
import torch
import torch.nn.functional as F
from torch.nn.attention import SDPBackend, sdpa_kernel


def _naive(q, k, v):
    return torch.softmax(q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1]), dim=-1) @ v


def _tiled(q, k, v, block=32):
    m = torch.full(q.shape[:-1] + (1,), float("-inf"))
    total, acc = torch.zeros_like(m), torch.zeros_like(q)
    for s0 in range(0, k.shape[-2], block):
        s = q @ k[..., s0:s0 + block, :].transpose(-2, -1) / math.sqrt(q.shape[-1])
        m_new = torch.maximum(m, s.amax(-1, keepdim=True))
        p, a = torch.exp(s - m_new), torch.exp(m - m_new)
        total, acc, m = total * a + p.sum(-1, keepdim=True), acc * a + p @ v[..., s0:s0 + block, :], m_new
    return acc / total


def _saved(fn, L, biggest=False):
    q, k, v = (torch.randn(1, 1, L, 16, requires_grad=True) for _ in range(3))
    inputs, seen, sizes = {t.data_ptr() for t in (q, k, v)}, set(), []

    def pack(t):
        key = (t.data_ptr(), t.numel())
        if key not in seen and t.data_ptr() not in inputs:
            seen.add(key)
            sizes.append(t.numel())
        return t

    with torch.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
        fn(q, k, v)
    return max(sizes) if biggest else sum(sizes)


def test_senior11_naive_attention_saves_one_score_matrix():
    """[5] the largest tensor naive attention saves for backward is the (L x L) probability matrix."""
    assert _saved(_naive, 128, biggest=True) == 128 * 128


def test_senior11_tiled_autograd_saves_quadratic_memory():
    """[30] follow-up: through autograd the block loop saves about 2.7 L^2 elements (block 32), more than naive attention."""
    for L in (256, 512):
        ratio = _saved(_tiled, L) / L ** 2
        assert 2.5 < ratio < 3.0, ratio
    assert _saved(_tiled, 256) > _saved(_naive, 256)


def test_senior11_tiled_forward_creates_no_square_tensor():
    """[16] without autograd the tiled loop never holds more than L x block scores at once."""
    from torch.overrides import TorchFunctionMode

    class Biggest(TorchFunctionMode):
        top = 0

        def __torch_function__(self, func, types, args=(), kwargs=None):
            out = func(*args, **(kwargs or {}))
            if isinstance(out, torch.Tensor):
                Biggest.top = max(Biggest.top, out.numel())
            return out

    q = torch.randn(1, 1, 256, 16)
    with torch.no_grad(), Biggest():
        out = _tiled(q, q, q, block=32)
    assert Biggest.top <= 256 * 32
    torch.testing.assert_close(out, _naive(q, q, q), atol=1e-5, rtol=1e-4)


def test_senior11_partial_logsumexps_merge_exactly():
    """[25] two partial results merge through logaddexp of their logsumexps, the number FlashAttention stores."""
    x = torch.randn(100) * 5
    torch.testing.assert_close(torch.logaddexp(torch.logsumexp(x[:37], 0), torch.logsumexp(x[37:], 0)),
                               torch.logsumexp(x, 0))


@pytest.mark.skipif(torch.cuda.is_available(), reason="the CPU backend list")
def test_senior11_cpu_runs_math_and_flash_but_not_efficient_or_cudnn():
    """[26] on a CPU build MATH and FLASH_ATTENTION run; EFFICIENT_ATTENTION and CUDNN_ATTENTION raise."""
    q = torch.randn(1, 2, 32, 16)
    runs = {}
    for backend in (SDPBackend.MATH, SDPBackend.FLASH_ATTENTION, SDPBackend.EFFICIENT_ATTENTION,
                    SDPBackend.CUDNN_ATTENTION):
        try:
            with warnings.catch_warnings(), sdpa_kernel(backend):
                warnings.simplefilter("ignore")
                F.scaled_dot_product_attention(q, q, q, is_causal=True)
            runs[backend.name] = True
        except RuntimeError:
            runs[backend.name] = False
    assert runs == {"MATH": True, "FLASH_ATTENTION": True, "EFFICIENT_ATTENTION": False, "CUDNN_ATTENTION": False}
