"""Blind set for notebooks/senior/20_triton_kernels.ipynb, written from release/ alone (issue 33)."""

_ADD_KERNEL = '''
@triton.jit
def scaled_add_kernel(x_ptr, y_ptr, out_ptr, n_elements, alpha, BLOCK: tl.constexpr):
    pid = tl.program_id(axis=0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n_elements
    x = tl.load(x_ptr + offs, mask=mask)
    y = tl.load(y_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, alpha * x + y, mask=mask)
'''

_ADD_IN_TORCH = _ADD_KERNEL + '''

def scaled_add(x, y, alpha, block=64):
    return alpha * x + y
'''

_ADD_FLOOR_GRID = _ADD_KERNEL + '''

def scaled_add(x, y, alpha, block=64):
    out = torch.empty_like(x)
    n = x.numel()
    scaled_add_kernel[(n // block,)](x, y, out, n, alpha, BLOCK=block)
    return out
'''

_ADD_ALT = '''
@triton.jit
def scaled_add_kernel(x_ptr, y_ptr, out_ptr, n_elements, alpha, BLOCK: tl.constexpr):
    start = tl.program_id(0) * BLOCK
    idx = start + tl.arange(0, BLOCK)
    inside = idx < n_elements
    x = tl.load(x_ptr + idx, mask=inside, other=0.0)
    y = tl.load(y_ptr + idx, mask=inside, other=0.0)
    tl.store(out_ptr + idx, x * alpha + y, mask=inside)


def scaled_add(x, y, alpha, block=64):
    n = x.shape[0]
    out = torch.empty(n, dtype=x.dtype, device=x.device)
    grid = lambda meta: ((n + meta["BLOCK"] - 1) // meta["BLOCK"],)  # noqa: E731 (Triton's grid idiom)
    scaled_add_kernel[grid](x, y, out, n, float(alpha), BLOCK=block)
    return out
'''

_SOFTMAX_KERNEL = '''
@triton.jit
def softmax_kernel(x_ptr, out_ptr, n_cols, x_row_stride, out_row_stride, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    x = tl.load(x_ptr + row * x_row_stride + cols, mask=mask, other=float("-inf"))
    z = x - tl.max(x, axis=0)
    e = tl.exp(z)
    tl.store(out_ptr + row * out_row_stride + cols, e / tl.sum(e, axis=0), mask=mask)
'''

_SOFTMAX_TORCH = _SOFTMAX_KERNEL + '''

def softmax(x):
    return torch.softmax(x, dim=-1).contiguous()
'''

_SOFTMAX_ZERO_LANES = _SOFTMAX_KERNEL.replace('other=float("-inf")', "other=0.0") + '''

def softmax(x):
    rows, n_cols = x.shape
    out = torch.empty((rows, n_cols), dtype=x.dtype, device=x.device)
    softmax_kernel[(rows,)](x, out, n_cols, x.stride(0), out.stride(0), BLOCK=triton.next_power_of_2(n_cols))
    return out
'''

_SOFTMAX_ALT = '''
@triton.jit
def softmax_kernel(x_ptr, out_ptr, n_cols, x_row_stride, out_row_stride, BLOCK: tl.constexpr):
    r = tl.program_id(axis=0)
    lane = tl.arange(0, BLOCK)
    keep = lane < n_cols
    row = tl.load(x_ptr + r * x_row_stride + lane, mask=keep, other=float("-inf"))
    log2e = 1.4426950408889634
    w = tl.exp2((row - tl.max(row, axis=0)) * log2e)  # exp(x - max) as 2^((x - max) log2 e)
    inv = 1.0 / tl.sum(w, axis=0)
    tl.store(out_ptr + r * out_row_stride + lane, w * inv, mask=keep)


def softmax(x):
    rows, n_cols = x.shape
    block = 1 << max(n_cols - 1, 0).bit_length()  # smallest power of 2 >= n_cols
    out = torch.empty(rows * n_cols, dtype=x.dtype, device=x.device).view(rows, n_cols)
    softmax_kernel[(rows,)](x, out, n_cols, x.stride(0), n_cols, BLOCK=block)
    return out
'''

_BLOCKWISE_LSE_UNSHIFTED = '''
def blockwise_attention(q, k, v, block_n, causal=False):
    scale = q.shape[-1] ** -0.5
    lq, lk = q.shape[-2], k.shape[-2]
    m = torch.full(q.shape[:-1], float("-inf"), dtype=q.dtype, device=q.device)
    l = torch.zeros(q.shape[:-1], dtype=q.dtype, device=q.device)
    acc = torch.zeros(*q.shape[:-1], v.shape[-1], dtype=q.dtype, device=q.device)
    rows = torch.arange(lq, device=q.device)
    for start in range(0, lk, block_n):
        s = (q @ k[..., start:start + block_n, :].transpose(-2, -1)) * scale
        if causal:
            cols = torch.arange(start, min(start + block_n, lk), device=q.device)
            s = s.masked_fill(cols[None, :] > rows[:, None], float("-inf"))
        m_new = torch.maximum(m, s.amax(dim=-1))
        p = torch.exp(s - m_new[..., None])
        rescale = torch.exp(m - m_new)
        l = l * rescale + p.sum(dim=-1)
        acc = acc * rescale[..., None] + p @ v[..., start:start + block_n, :]
        m = m_new
    return acc / l[..., None], torch.log(l)
'''

_BLOCKWISE_ALT = '''
def blockwise_attention(q, k, v, block_n, causal=False):
    # keeps the output normalized at every step, and the log-sum-exp so far, merged block by block
    D, lq, lk = q.shape[-1], q.shape[-2], k.shape[-2]
    lse = torch.full(q.shape[:-1], float("-inf"), dtype=q.dtype, device=q.device)
    out = torch.zeros(*q.shape[:-1], v.shape[-1], dtype=q.dtype, device=q.device)
    q_pos = torch.arange(lq, device=q.device).unsqueeze(-1)
    for start in range(0, lk, block_n):
        stop = min(start + block_n, lk)
        s = torch.matmul(q, k[..., start:stop, :].transpose(-1, -2)) / math.sqrt(D)
        if causal:
            k_pos = torch.arange(start, stop, device=q.device).unsqueeze(0)
            s = torch.where(k_pos > q_pos, torch.full_like(s, float("-inf")), s)
        merged = torch.logaddexp(lse, torch.logsumexp(s, dim=-1))
        old_share = torch.exp(lse - merged)
        old_share = torch.where(torch.isnan(old_share), torch.zeros_like(old_share), old_share)
        out = out * old_share.unsqueeze(-1) + torch.exp(s - merged.unsqueeze(-1)) @ v[..., start:stop, :]
        lse = merged
    return out, lse
'''

_FLASH_KERNEL_NO_KEY_MASK = '''
@triton.jit
def flash_fwd_kernel(q_ptr, k_ptr, v_ptr, o_ptr, seq_q, seq_k, scale, D: tl.constexpr, BLOCK_M: tl.constexpr,
                     BLOCK_N: tl.constexpr, CAUSAL: tl.constexpr):
    bh = tl.program_id(0)
    offs_m = tl.program_id(1) * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_d = tl.arange(0, D)
    q_mask = offs_m[:, None] < seq_q
    q = tl.load(q_ptr + (bh * seq_q + offs_m[:, None]) * D + offs_d[None, :], mask=q_mask, other=0.0)
    m_i = tl.full([BLOCK_M], float("-inf"), tl.float32)
    l_i = tl.zeros([BLOCK_M], tl.float32)
    acc = tl.zeros([BLOCK_M, D], tl.float32)
    for start in range(0, seq_k, BLOCK_N):
        offs_n = start + tl.arange(0, BLOCK_N)
        kv_mask = offs_n[:, None] < seq_k
        k = tl.load(k_ptr + (bh * seq_k + offs_n[:, None]) * D + offs_d[None, :], mask=kv_mask, other=0.0)
        v = tl.load(v_ptr + (bh * seq_k + offs_n[:, None]) * D + offs_d[None, :], mask=kv_mask, other=0.0)
        s = tl.dot(q, tl.trans(k)) * scale  # the zero-loaded keys past seq_k keep a score of 0
        if CAUSAL:
            s = tl.where(offs_n[None, :] <= offs_m[:, None], s, float("-inf"))
        m_new = tl.maximum(m_i, tl.max(s, axis=1))
        alpha = tl.exp(m_i - m_new)
        p = tl.exp(s - m_new[:, None])
        l_i = l_i * alpha + tl.sum(p, axis=1)
        acc = acc * alpha[:, None] + tl.dot(p, v)
        m_i = m_new
    tl.store(o_ptr + (bh * seq_q + offs_m[:, None]) * D + offs_d[None, :], acc / l_i[:, None], mask=q_mask)
'''

_FLASH_KERNEL = _FLASH_KERNEL_NO_KEY_MASK.replace(
    '        if CAUSAL:\n            s = tl.where(offs_n[None, :] <= offs_m[:, None], s, float("-inf"))\n',
    '        valid = offs_n[None, :] < seq_k\n'
    '        if CAUSAL:\n            valid = valid & (offs_n[None, :] <= offs_m[:, None])\n'
    '        s = tl.where(valid, s, float("-inf"))\n')

_FLASH_WRAPPER = '''

def flash_attention(q, k, v, causal=False, block_m=16, block_n=16):
    B, H, Lq, D = q.shape
    Lk = k.shape[2]
    q, k, v = q.contiguous(), k.contiguous(), v.contiguous()
    o = torch.empty((B, H, Lq, D), dtype=torch.float32, device=q.device)
    grid = (B * H, triton.cdiv(Lq, block_m))
    flash_fwd_kernel[grid](q, k, v, o, Lq, Lk, 1.0 / math.sqrt(D), D=D, BLOCK_M=block_m, BLOCK_N=block_n,
                           CAUSAL=causal)
    return o
'''

_FLASH_SDPA = _FLASH_KERNEL + '''

def flash_attention(q, k, v, causal=False, block_m=16, block_n=16):
    return F.scaled_dot_product_attention(q, k, v, is_causal=causal).contiguous()
'''

_FLASH_ALT = '''
@triton.jit
def flash_fwd_kernel(q_ptr, k_ptr, v_ptr, o_ptr, seq_q, seq_k, scale, D: tl.constexpr, BLOCK_M: tl.constexpr,
                     BLOCK_N: tl.constexpr, CAUSAL: tl.constexpr):
    pair = tl.program_id(0)
    first = tl.program_id(1) * BLOCK_M
    rows = first + tl.arange(0, BLOCK_M)
    feats = tl.arange(0, D)
    row_ok = rows < seq_q
    q_off = (pair * seq_q + rows)[:, None] * D + feats[None, :]
    q = tl.load(q_ptr + q_off, mask=row_ok[:, None], other=0.0)
    qk_scale = scale * 1.4426950408889634  # work in base 2: exp(x) = 2^(x log2 e)
    m = tl.full([BLOCK_M], float("-inf"), tl.float32)
    l = tl.zeros([BLOCK_M], tl.float32)
    acc = tl.zeros([BLOCK_M, D], tl.float32)
    if CAUSAL:
        end = tl.minimum(seq_k, first + BLOCK_M)  # key blocks wholly above the diagonal are skipped
    else:
        end = seq_k
    j = tl.full([], 0, tl.int32)
    while j < end:
        cols = j + tl.arange(0, BLOCK_N)
        col_ok = cols < seq_k
        kv_off = (pair * seq_k + cols)[:, None] * D + feats[None, :]
        kb = tl.load(k_ptr + kv_off, mask=col_ok[:, None], other=0.0)
        vb = tl.load(v_ptr + kv_off, mask=col_ok[:, None], other=0.0)
        s = tl.dot(q, tl.trans(kb)) * qk_scale
        allowed = col_ok[None, :] & (rows[:, None] >= 0)
        if CAUSAL:
            allowed = allowed & (cols[None, :] <= rows[:, None])
        s = tl.where(allowed, s, float("-inf"))
        m_next = tl.maximum(m, tl.max(s, axis=1))
        shrink = tl.exp2(m - m_next)
        p = tl.exp2(s - m_next[:, None])
        l = l * shrink + tl.sum(p, axis=1)
        acc = acc * shrink[:, None] + tl.dot(p, vb)
        m = m_next
        j += BLOCK_N
    out = acc / l[:, None]
    tl.store(o_ptr + q_off, out, mask=row_ok[:, None])


def flash_attention(q, k, v, causal=False, block_m=16, block_n=16):
    B, H, Lq, D = q.shape
    Lk = k.shape[-2]
    qc = q.reshape(B * H, Lq, D).contiguous()
    kc = k.reshape(B * H, Lk, D).contiguous()
    vc = v.reshape(B * H, Lk, D).contiguous()
    out = torch.empty(B * H, Lq, D, dtype=torch.float32, device=q.device)
    flash_fwd_kernel[(B * H, -(-Lq // block_m))](qc, kc, vc, out, Lq, Lk, D ** -0.5, D=D, BLOCK_M=block_m,
                                                 BLOCK_N=block_n, CAUSAL=bool(causal))
    return out.view(B, H, Lq, D)
'''

SHORTCUT = {
    "ex1_scaled_add": ("computes alpha * x + y in PyTorch instead of launching the kernel", _ADD_IN_TORCH),
    "ex2_softmax": ("the wrapper calls torch.softmax", _SOFTMAX_TORCH),
    "ex4_flash_fwd": ("the wrapper calls F.scaled_dot_product_attention", _FLASH_SDPA),
}

WRONG = {
    "ex1_scaled_add": ("grid of n // block programs (floor division) leaves the tail unwritten", _ADD_FLOOR_GRID),
    "ex2_softmax": ("masked lanes loaded as 0.0, so they count in the max and the sum", _SOFTMAX_ZERO_LANES),
    "ex3_online_softmax": ("rescales acc but still returns log(l) as lse, without adding the running max",
                           _BLOCKWISE_LSE_UNSHIFTED),
    "ex4_flash_fwd": ("keys past seq_k are loaded as zeros and keep a score of 0 instead of -inf",
                      _FLASH_KERNEL_NO_KEY_MASK + _FLASH_WRAPPER),
}

ALT = {
    "ex1_scaled_add": _ADD_ALT,
    "ex2_softmax": _SOFTMAX_ALT,
    "ex3_online_softmax": _BLOCKWISE_ALT,
    "ex4_flash_fwd": _FLASH_ALT,
}
