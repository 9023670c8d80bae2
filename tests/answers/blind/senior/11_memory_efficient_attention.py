"""Blind set for notebooks/senior/11_memory_efficient_attention.ipynb, written from release/ alone (issue 33)."""

SHORTCUT = {
    "ex2_online_softmax": ("takes max and sum of exp over the whole of x at once", '''
def online_softmax_stats(x: torch.Tensor, block: int):
    m = x.max()
    return m, torch.exp(x - m).sum()
'''),
    "ex3_tiled": ("calls F.scaled_dot_product_attention", '''
def tiled_attention(q, k, v, block_size: int = 32, causal: bool = False):
    return F.scaled_dot_product_attention(q, k, v, is_causal=causal)
'''),
}

WRONG = {
    "ex1_quadratic": ("thinks the score matrix grows linearly with L", '''
def score_matrix_bytes(batch: int, heads: int, seq_len: int, bytes_per_element: int) -> int:
    return batch * heads * seq_len * seq_len * bytes_per_element


RATIO_WHEN_L_DOUBLES = 2
'''),
    "ex2_online_softmax": ("starts the running max at 0 instead of -inf: very negative logits underflow", '''
def online_softmax_stats(x: torch.Tensor, block: int):
    m = torch.zeros((), dtype=x.dtype, device=x.device)
    l = torch.zeros((), dtype=x.dtype, device=x.device)
    for start in range(0, x.numel(), block):
        chunk = x[start:start + block]
        m_new = torch.maximum(m, chunk.max())
        l = l * torch.exp(m - m_new) + torch.exp(chunk - m_new).sum()
        m = m_new
    return m, l
'''),
    "ex3_tiled": ("causal mask compares the query with the key's index inside the block", '''
def tiled_attention(q, k, v, block_size: int = 32, causal: bool = False):
    L, D = q.shape[-2], q.shape[-1]
    m = torch.full(q.shape[:-1] + (1,), float("-inf"), dtype=q.dtype, device=q.device)
    l = torch.zeros_like(m)
    acc = torch.zeros_like(q)
    rows = torch.arange(L, device=q.device).unsqueeze(-1)
    for start in range(0, k.shape[-2], block_size):
        kb, vb = k[..., start:start + block_size, :], v[..., start:start + block_size, :]
        s = q @ kb.transpose(-2, -1) / math.sqrt(D)
        if causal:
            cols = torch.arange(kb.shape[-2], device=q.device)
            s = s.masked_fill(cols > rows, float("-inf"))
        m_new = torch.maximum(m, s.amax(-1, keepdim=True))
        p = torch.exp(s - m_new)
        factor = torch.exp(m - m_new)
        l = l * factor + p.sum(-1, keepdim=True)
        acc = acc * factor + p @ vb
        m = m_new
    return acc / l
'''),
    "ex4_merge": ("rescales with exp(m - m_part): the sign of the exponent is flipped", '''
def merge_partials(a, b):
    (m1, l1, o1), (m2, l2, o2) = a, b
    m = torch.maximum(m1, m2)
    w1, w2 = l1 * torch.exp(m - m1), l2 * torch.exp(m - m2)
    l = w1 + w2
    return m, l, (w1 * o1 + w2 * o2) / l
'''),
    "ex5_backends": ("float equality with MATH instead of atol=1e-3", '''
CANDIDATES = [SDPBackend.MATH, SDPBackend.FLASH_ATTENTION, SDPBackend.EFFICIENT_ATTENTION, SDPBackend.CUDNN_ATTENTION]


def runnable_backends(q, k, v, is_causal: bool = False) -> set:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with sdpa_kernel(SDPBackend.MATH):
            ref = F.scaled_dot_product_attention(q, k, v, is_causal=is_causal)
        ok = set()
        for backend in CANDIDATES:
            try:
                with sdpa_kernel(backend):
                    out = F.scaled_dot_product_attention(q, k, v, is_causal=is_causal)
            except RuntimeError:
                continue
            if torch.equal(out, ref):
                ok.add(backend)
    return ok
'''),
}

ALT = {
    "ex1_quadratic": '''
def score_matrix_bytes(batch: int, heads: int, seq_len: int, bytes_per_element: int) -> int:
    return math.prod((batch, heads, seq_len, seq_len)) * bytes_per_element


RATIO_WHEN_L_DOUBLES = score_matrix_bytes(1, 1, 2, 1) // score_matrix_bytes(1, 1, 1, 1)
''',
    "ex2_online_softmax": '''
def online_softmax_stats(x: torch.Tensor, block: int):
    m = torch.tensor(float("-inf"), dtype=x.dtype, device=x.device)
    lse = torch.tensor(float("-inf"), dtype=x.dtype, device=x.device)
    for chunk in x.split(block):
        m = torch.maximum(m, chunk.max())
        lse = torch.logaddexp(lse, torch.logsumexp(chunk, 0))  # running logsumexp, merged block by block
    return m, torch.exp(lse - m)
''',
    "ex3_tiled": '''
def tiled_attention(q, k, v, block_size: int = 32, causal: bool = False):
    """Split-K style: a normalized partial result per key block, merged into the running one."""
    L, D = q.shape[-2], q.shape[-1]
    qs = q / math.sqrt(D)
    m = torch.full(q.shape[:-1] + (1,), float("-inf"), dtype=q.dtype, device=q.device)
    l = torch.zeros_like(m)
    o = torch.zeros_like(q)
    rows = torch.arange(L, device=q.device).unsqueeze(-1)
    for start in range(0, k.shape[-2], block_size):
        kb, vb = k[..., start:start + block_size, :], v[..., start:start + block_size, :]
        s = qs @ kb.transpose(-2, -1)
        if causal:
            cols = torch.arange(start, start + kb.shape[-2], device=q.device)
            s = s.masked_fill(cols > rows, float("-inf"))
        mb = s.amax(-1, keepdim=True)
        mb_safe = torch.where(torch.isfinite(mb), mb, torch.zeros_like(mb))
        p = torch.exp(s - mb_safe)
        lb = p.sum(-1, keepdim=True)
        ob = (p @ vb) / lb.clamp_min(1e-30)
        m_new = torch.maximum(m, mb)
        m_safe = torch.where(torch.isfinite(m_new), m_new, torch.zeros_like(m_new))
        wa, wb = l * torch.exp(m - m_safe), lb * torch.exp(mb - m_safe)
        l = wa + wb
        o = (wa * o + wb * ob) / l.clamp_min(1e-30)
        m = m_new
    return o
''',
    "ex4_merge": '''
def merge_partials(a, b):
    (m1, l1, o1), (m2, l2, o2) = a, b
    lse1, lse2 = m1 + torch.log(l1), m2 + torch.log(l2)
    lse = torch.logaddexp(lse1, lse2)
    o = torch.exp(lse1 - lse) * o1 + torch.exp(lse2 - lse) * o2
    m = torch.maximum(m1, m2)
    return m, torch.exp(lse - m), o
''',
    "ex5_backends": '''
import contextlib
import io

CANDIDATES = [SDPBackend.MATH, SDPBackend.FLASH_ATTENTION, SDPBackend.EFFICIENT_ATTENTION, SDPBackend.CUDNN_ATTENTION]


def runnable_backends(q, k, v, is_causal: bool = False) -> set:
    def attempt(backend):
        try:
            with sdpa_kernel([backend]):
                return F.scaled_dot_product_attention(q, k, v, is_causal=is_causal)
        except RuntimeError:
            return None

    with warnings.catch_warnings(), contextlib.redirect_stderr(io.StringIO()):
        warnings.simplefilter("ignore")
        outs = {b: attempt(b) for b in CANDIDATES}
    ref = outs[SDPBackend.MATH]
    return {b for b, out in outs.items() if out is not None and (out - ref).abs().max().item() <= 1e-3}
''',
}
