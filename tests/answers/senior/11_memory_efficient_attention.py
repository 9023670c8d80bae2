"""Known-wrong and alternative answers for senior/11_memory_efficient_attention."""

EX1_WRONG_LINEAR = '''
def score_matrix_bytes(batch, heads, seq_len, bytes_per_element):
    return batch * heads * seq_len * bytes_per_element


RATIO_WHEN_L_DOUBLES = 2
'''

EX1_WRONG_NO_HEADS = '''
def score_matrix_bytes(batch, heads, seq_len, bytes_per_element):
    return batch * seq_len * seq_len * bytes_per_element


RATIO_WHEN_L_DOUBLES = 4
'''

EX1_ALT = '''
def score_matrix_bytes(batch, heads, seq_len, bytes_per_element):
    elements = torch.Size([batch, heads, seq_len, seq_len]).numel()
    return int(elements * bytes_per_element)


RATIO_WHEN_L_DOUBLES = 2 ** 2
'''

EX2_WRONG_NO_RESCALE = '''
def online_softmax_stats(x, block):
    m = torch.tensor(float("-inf"), device=x.device)
    l = torch.tensor(0.0, device=x.device)
    for start in range(0, x.numel(), block):
        chunk = x[start:start + block]
        m = torch.maximum(m, chunk.max())
        l = l + torch.exp(chunk - m).sum()
    return m, l
'''

EX2_WRONG_NO_MAX = '''
def online_softmax_stats(x, block):
    l = torch.tensor(0.0, device=x.device)
    for start in range(0, x.numel(), block):
        l = l + torch.exp(x[start:start + block]).sum()
    return torch.tensor(0.0, device=x.device), l
'''

EX2_WRONG_WHOLE_X = '''
def online_softmax_stats(x, block):
    m = x.max()                        # one pass over all of x: not a streaming algorithm
    return m, torch.exp(x - m).sum()
'''

EX2_ALT = '''
def online_softmax_stats(x, block):
    lse = torch.tensor(float("-inf"), device=x.device, dtype=x.dtype)
    m = torch.tensor(float("-inf"), device=x.device, dtype=x.dtype)
    for chunk in torch.split(x, block):
        lse = torch.logaddexp(lse, torch.logsumexp(chunk, dim=0))
        m = torch.maximum(m, chunk.max())
    return m, torch.exp(lse - m)
'''

EX3_WRONG_SDPA = '''
def tiled_attention(q, k, v, block_size=32, causal=False):
    return F.scaled_dot_product_attention(q, k, v, is_causal=causal)
'''

# Chunks the queries only: every (block x L) score tensor is a full softmax over all keys, so no running max or
# rescaling is ever needed, and each tensor stays under B * H * L * block elements (review finding S-11.2).
EX3_WRONG_QUERY_CHUNKS = '''
def tiled_attention(q, k, v, block_size=32, causal=False):
    L, D = q.shape[-2], q.shape[-1]
    outs = []
    for qs in range(0, L, block_size):
        s = q[..., qs:qs + block_size, :] @ k.transpose(-2, -1) / math.sqrt(D)
        if causal:
            rows = torch.arange(qs, qs + s.shape[-2], device=q.device)[:, None]
            s = s.masked_fill(torch.arange(k.shape[-2], device=q.device)[None, :] > rows, float("-inf"))
        p = torch.exp(s - s.amax(dim=-1, keepdim=True))
        outs.append((p @ v) / p.sum(dim=-1, keepdim=True))
    return torch.cat(outs, dim=-2)
'''

EX3_WRONG_NO_ACC_RESCALE = '''
def tiled_attention(q, k, v, block_size=32, causal=False):
    L, D = q.shape[-2], q.shape[-1]
    m = torch.full(q.shape[:-1] + (1,), float("-inf"), device=q.device, dtype=q.dtype)
    l = torch.zeros_like(m)
    acc = torch.zeros_like(q)
    q_idx = torch.arange(L, device=q.device).unsqueeze(1)
    for start in range(0, k.shape[-2], block_size):
        k_blk, v_blk = k[..., start:start + block_size, :], v[..., start:start + block_size, :]
        s = (q @ k_blk.transpose(-2, -1)) / math.sqrt(D)
        if causal:
            k_idx = torch.arange(start, start + k_blk.shape[-2], device=q.device).unsqueeze(0)
            s = s.masked_fill(k_idx > q_idx, float("-inf"))
        m_new = torch.maximum(m, s.amax(dim=-1, keepdim=True))
        p = torch.exp(s - m_new)
        l = l * torch.exp(m - m_new) + p.sum(dim=-1, keepdim=True)
        acc = acc + p @ v_blk
        m = m_new
    return acc / l
'''

# Tiles queries as well as keys (the real FlashAttention loop order) and keeps per-block log-sum-exp.
EX3_ALT = '''
def tiled_attention(q, k, v, block_size=32, causal=False):
    L, D = q.shape[-2], q.shape[-1]
    outs = []
    for qs in range(0, L, block_size):
        q_blk = q[..., qs:qs + block_size, :] / math.sqrt(D)
        rows = torch.arange(qs, qs + q_blk.shape[-2], device=q.device)[:, None]
        lse = torch.full(q_blk.shape[:-1] + (1,), float("-inf"), device=q.device, dtype=q.dtype)
        o = torch.zeros_like(q_blk)
        for ks in range(0, k.shape[-2], block_size):
            if causal and ks > qs + q_blk.shape[-2] - 1:
                break
            s = q_blk @ k[..., ks:ks + block_size, :].transpose(-2, -1)
            if causal:
                cols = torch.arange(ks, ks + s.shape[-1], device=q.device)[None, :]
                s = torch.where(cols <= rows, s, torch.full_like(s, float("-inf")))
            blk_lse = torch.logsumexp(s, dim=-1, keepdim=True)
            blk_o = torch.softmax(s, dim=-1) @ v[..., ks:ks + block_size, :]
            new_lse = torch.logaddexp(lse, blk_lse)
            o = o * torch.exp(lse - new_lse) + blk_o * torch.exp(blk_lse - new_lse)
            lse = new_lse
        outs.append(o)
    return torch.cat(outs, dim=-2)
'''

EX4_WRONG_TEAMMATE = '''
def merge_partials(a, b):
    (m1, l1, o1), (m2, l2, o2) = a, b
    l = l1 + l2
    o = (l1 * o1 + l2 * o2) / l
    return torch.maximum(m1, m2), l, o
'''

EX4_WRONG_FLIPPED = '''
def merge_partials(a, b):
    (m1, l1, o1), (m2, l2, o2) = a, b
    m = torch.maximum(m1, m2)
    w1 = l1 * torch.exp(m - m1)
    w2 = l2 * torch.exp(m - m2)
    return m, w1 + w2, (w1 * o1 + w2 * o2) / (w1 + w2)
'''

EX4_ALT = '''
def merge_partials(a, b):
    (m1, l1, o1), (m2, l2, o2) = a, b
    lse1, lse2 = m1 + torch.log(l1), m2 + torch.log(l2)
    lse = torch.logaddexp(lse1, lse2)
    o = torch.exp(lse1 - lse) * o1 + torch.exp(lse2 - lse) * o2
    m = torch.maximum(m1, m2)
    return m, torch.exp(lse - m), o
'''

EX5_WRONG_ALL = '''
CANDIDATES = [SDPBackend.MATH, SDPBackend.FLASH_ATTENTION, SDPBackend.EFFICIENT_ATTENTION, SDPBackend.CUDNN_ATTENTION]


def runnable_backends(q, k, v, is_causal=False):
    return set(CANDIDATES)
'''

EX5_WRONG_MATH_ONLY = '''
CANDIDATES = [SDPBackend.MATH, SDPBackend.FLASH_ATTENTION, SDPBackend.EFFICIENT_ATTENTION, SDPBackend.CUDNN_ATTENTION]


def runnable_backends(q, k, v, is_causal=False):
    return {SDPBackend.MATH}
'''

EX5_ALT = '''
CANDIDATES = [SDPBackend.MATH, SDPBackend.FLASH_ATTENTION, SDPBackend.EFFICIENT_ATTENTION, SDPBackend.CUDNN_ATTENTION]


def _attempt(backend, q, k, v, is_causal):
    with warnings.catch_warnings(record=True):
        warnings.simplefilter("always")
        try:
            with sdpa_kernel([backend]):
                return F.scaled_dot_product_attention(q, k, v, is_causal=is_causal)
        except RuntimeError:
            return None


def runnable_backends(q, k, v, is_causal=False):
    ref = _attempt(SDPBackend.MATH, q, k, v, is_causal)
    results = {b: _attempt(b, q, k, v, is_causal) for b in CANDIDATES}
    return {b for b, out in results.items() if out is not None and (out.float() - ref.float()).abs().max() <= 1e-3}
'''

WRONG = {
    "ex1_quadratic": [("memory linear in L", EX1_WRONG_LINEAR),
                      ("forgets the per-head matrices", EX1_WRONG_NO_HEADS)],
    "ex2_online_softmax": [("does not rescale the running sum when the max grows", EX2_WRONG_NO_RESCALE),
                           ("no max subtraction: overflows", EX2_WRONG_NO_MAX),
                           ("reduces the whole of x at once instead of streaming blocks", EX2_WRONG_WHOLE_X)],
    "ex3_tiled": [("shortcut: calls F.scaled_dot_product_attention", EX3_WRONG_SDPA),
                  ("tiles the queries only: a full softmax over all keys per query block", EX3_WRONG_QUERY_CHUNKS),
                  ("rescales l but not the accumulator", EX3_WRONG_NO_ACC_RESCALE)],
    "ex4_merge": [("the teammate's merge: ignores the different maxima", EX4_WRONG_TEAMMATE),
                  ("rescale exponent with the wrong sign", EX4_WRONG_FLIPPED)],
    "ex5_backends": [("claims every backend without trying", EX5_WRONG_ALL),
                     ("assumes only MATH runs", EX5_WRONG_MATH_ONLY)],
}

ALT = {
    "ex1_quadratic": EX1_ALT,
    "ex2_online_softmax": EX2_ALT,
    "ex3_tiled": EX3_ALT,
    "ex4_merge": EX4_ALT,
    "ex5_backends": EX5_ALT,
}
