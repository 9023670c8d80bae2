"""Known-wrong and alternative answers for senior/20_triton_kernels."""

from tests.answers.senior import edited, reference

NB = "senior/20_triton_kernels"

EX1_WRONG_NO_MASK = '''
@triton.jit
def scaled_add_kernel(x_ptr, y_ptr, out_ptr, n_elements, alpha, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offsets)
    y = tl.load(y_ptr + offsets)
    tl.store(out_ptr + offsets, alpha * x + y)


def scaled_add(x, y, alpha, block=64):
    out = torch.empty_like(x)
    scaled_add_kernel[(triton.cdiv(x.numel(), block),)](x, y, out, x.numel(), alpha, BLOCK=block)
    return out
'''

EX1_WRONG_FLOOR_GRID = '''
@triton.jit
def scaled_add_kernel(x_ptr, y_ptr, out_ptr, n_elements, alpha, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n_elements
    x = tl.load(x_ptr + offsets, mask=mask)
    y = tl.load(y_ptr + offsets, mask=mask)
    tl.store(out_ptr + offsets, alpha * x + y, mask=mask)


def scaled_add(x, y, alpha, block=64):
    out = torch.empty_like(x)
    scaled_add_kernel[(max(1, x.numel() // block),)](x, y, out, x.numel(), alpha, BLOCK=block)
    return out
'''

EX1_WRONG_NO_PID = '''
@triton.jit
def scaled_add_kernel(x_ptr, y_ptr, out_ptr, n_elements, alpha, BLOCK: tl.constexpr):
    offsets = tl.arange(0, BLOCK)
    mask = offsets < n_elements
    x = tl.load(x_ptr + offsets, mask=mask)
    y = tl.load(y_ptr + offsets, mask=mask)
    tl.store(out_ptr + offsets, alpha * x + y, mask=mask)


def scaled_add(x, y, alpha, block=64):
    out = torch.empty_like(x)
    scaled_add_kernel[(triton.cdiv(x.numel(), block),)](x, y, out, x.numel(), alpha, BLOCK=block)
    return out
'''

EX1_ALT = '''
@triton.jit
def scaled_add_kernel(x_ptr, y_ptr, out_ptr, n_elements, alpha, BLOCK: tl.constexpr):
    start = tl.program_id(axis=0) * BLOCK
    idx = start + tl.arange(0, BLOCK)
    inside = idx < n_elements
    a = tl.load(x_ptr + idx, mask=inside, other=0.0)
    b = tl.load(y_ptr + idx, mask=inside, other=0.0)
    result = a * alpha
    result += b
    tl.store(out_ptr + idx, result, mask=inside)


def scaled_add(x, y, alpha, block=64):
    n = x.shape[0]
    result = torch.empty(n, dtype=x.dtype, device=x.device)
    grid = lambda meta: (triton.cdiv(n, meta["BLOCK"]),)
    scaled_add_kernel[grid](x, y, result, n, float(alpha), BLOCK=block)
    return result
'''

EX2_WRONG_NO_MAX = '''
@triton.jit
def softmax_kernel(x_ptr, out_ptr, n_cols, x_row_stride, out_row_stride, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    x = tl.load(x_ptr + row * x_row_stride + cols, mask=mask, other=-float("inf"))
    num = tl.exp(x)
    tl.store(out_ptr + row * out_row_stride + cols, num / tl.sum(num, axis=0), mask=mask)


def softmax(x):
    rows, n_cols = x.shape
    out = torch.empty_like(x)
    softmax_kernel[(rows,)](x, out, n_cols, x.stride(0), out.stride(0), BLOCK=triton.next_power_of_2(n_cols))
    return out
'''

EX2_WRONG_OTHER_ZERO = '''
@triton.jit
def softmax_kernel(x_ptr, out_ptr, n_cols, x_row_stride, out_row_stride, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    x = tl.load(x_ptr + row * x_row_stride + cols, mask=mask, other=0.0)
    x = x - tl.max(x, axis=0)
    num = tl.exp(x)
    tl.store(out_ptr + row * out_row_stride + cols, num / tl.sum(num, axis=0), mask=mask)


def softmax(x):
    rows, n_cols = x.shape
    out = torch.empty((rows, n_cols), dtype=x.dtype, device=x.device)
    softmax_kernel[(rows,)](x, out, n_cols, x.stride(0), out.stride(0), BLOCK=triton.next_power_of_2(n_cols))
    return out
'''

EX2_WRONG_STRIDE = '''
@triton.jit
def softmax_kernel(x_ptr, out_ptr, n_cols, x_row_stride, out_row_stride, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    x = tl.load(x_ptr + row * x_row_stride + cols, mask=mask, other=-float("inf"))
    x = x - tl.max(x, axis=0)
    num = tl.exp(x)
    tl.store(out_ptr + row * out_row_stride + cols, num / tl.sum(num, axis=0), mask=mask)


def softmax(x):
    rows, n_cols = x.shape
    out = torch.empty((rows, n_cols), dtype=x.dtype, device=x.device)
    softmax_kernel[(rows,)](x, out, n_cols, n_cols, n_cols, BLOCK=triton.next_power_of_2(n_cols))
    return out
'''

# A different correct kernel: it walks the row in chunks of BLOCK (online max and sum, then a second pass that
# normalizes), so it would also work for rows wider than one block.
EX2_ALT = '''
@triton.jit
def softmax_kernel(x_ptr, out_ptr, n_cols, x_row_stride, out_row_stride, BLOCK: tl.constexpr):
    row_in = x_ptr + tl.program_id(0) * x_row_stride
    row_out = out_ptr + tl.program_id(0) * out_row_stride
    run_max = -float("inf")
    run_sum = 0.0
    for start in range(0, n_cols, BLOCK):
        idx = start + tl.arange(0, BLOCK)
        chunk = tl.load(row_in + idx, mask=idx < n_cols, other=-float("inf"))
        new_max = tl.maximum(run_max, tl.max(chunk, axis=0))
        run_sum = run_sum * tl.exp(run_max - new_max) + tl.sum(tl.exp(chunk - new_max), axis=0)
        run_max = new_max
    for start in range(0, n_cols, BLOCK):
        idx = start + tl.arange(0, BLOCK)
        chunk = tl.load(row_in + idx, mask=idx < n_cols, other=-float("inf"))
        tl.store(row_out + idx, tl.exp(chunk - run_max) / run_sum, mask=idx < n_cols)


def softmax(x):
    x = x.contiguous()
    n_rows, n_cols = x.shape
    y = torch.empty_like(x)
    softmax_kernel[(n_rows,)](x, y, n_cols, n_cols, n_cols, BLOCK=triton.next_power_of_2(n_cols))
    return y
'''

EX3_AS_GIVEN = '''
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
        l = l * torch.exp(m - m_new) + p.sum(dim=-1)
        acc = acc + p @ v[..., start:start + block_n, :]
        m = m_new
    return acc / l[..., None], torch.log(l)
'''

EX3_WRONG_LSE_ONLY = '''
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
        alpha = torch.exp(m - m_new)
        p = torch.exp(s - m_new[..., None])
        l = l * alpha + p.sum(dim=-1)
        acc = acc * alpha[..., None] + p @ v[..., start:start + block_n, :]
        m = m_new
    return acc / l[..., None], torch.log(l)
'''

EX3_WRONG_FULL_SCORES = '''
def blockwise_attention(q, k, v, block_n, causal=False):
    s = (q @ k.transpose(-2, -1)) / q.shape[-1] ** 0.5
    if causal:
        s = s.masked_fill(torch.ones_like(s, dtype=torch.bool).triu(1), float("-inf"))
    return torch.softmax(s, dim=-1) @ v, torch.logsumexp(s, dim=-1)
'''

# A different correct approach: attention within each block on its own, then the blocks merged by their
# log-sum-exp (the way split-K / flash-decoding combines partial results).
EX3_ALT = '''
def blockwise_attention(q, k, v, block_n, causal=False):
    d = q.shape[-1]
    qpos = torch.arange(q.shape[-2], device=q.device)
    out, lse = None, None
    for j0 in range(0, k.shape[-2], block_n):
        kb, vb = k[..., j0:j0 + block_n, :], v[..., j0:j0 + block_n, :]
        s = torch.matmul(q, kb.transpose(-1, -2)) / math.sqrt(d)
        if causal:
            kpos = torch.arange(j0, j0 + kb.shape[-2], device=q.device)
            s = torch.where(kpos[None, :] <= qpos[:, None], s, torch.full_like(s, float("-inf")))
        blk_lse = torch.logsumexp(s, dim=-1)
        blk_out = torch.nan_to_num(torch.exp(s - blk_lse[..., None])) @ vb
        if out is None:
            out, lse = blk_out, blk_lse
            continue
        new_lse = torch.logaddexp(lse, blk_lse)
        w_old = torch.exp(lse - new_lse).nan_to_num()
        w_new = torch.exp(blk_lse - new_lse).nan_to_num()
        out = w_old[..., None] * out + w_new[..., None] * blk_out
        lse = new_lse
    return out, lse
'''

EX4_WRONG_NO_RESCALE = '''
@triton.jit
def flash_fwd_kernel(q_ptr, k_ptr, v_ptr, o_ptr, seq_q, seq_k, scale, D: tl.constexpr, BLOCK_M: tl.constexpr,
                     BLOCK_N: tl.constexpr, CAUSAL: tl.constexpr):
    bh = tl.program_id(0)
    offs_m = tl.program_id(1) * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_d = tl.arange(0, D)
    row_ok = offs_m[:, None] < seq_q
    q = tl.load(q_ptr + (bh * seq_q + offs_m[:, None]) * D + offs_d[None, :], mask=row_ok, other=0.0)
    m_i = tl.full([BLOCK_M], float("-inf"), tl.float32)
    l_i = tl.zeros([BLOCK_M], tl.float32)
    acc = tl.zeros([BLOCK_M, D], tl.float32)
    for start in range(0, seq_k, BLOCK_N):
        offs_n = start + tl.arange(0, BLOCK_N)
        key_ok = offs_n[:, None] < seq_k
        k = tl.load(k_ptr + (bh * seq_k + offs_n[:, None]) * D + offs_d[None, :], mask=key_ok, other=0.0)
        v = tl.load(v_ptr + (bh * seq_k + offs_n[:, None]) * D + offs_d[None, :], mask=key_ok, other=0.0)
        s = tl.dot(q, tl.trans(k)) * scale
        visible = offs_n[None, :] < seq_k
        if CAUSAL:
            visible = visible & (offs_n[None, :] <= offs_m[:, None])
        s = tl.where(visible, s, float("-inf"))
        m_new = tl.maximum(m_i, tl.max(s, axis=1))
        p = tl.exp(s - m_new[:, None])
        l_i = l_i * tl.exp(m_i - m_new) + tl.sum(p, axis=1)
        acc = acc + tl.dot(p, v)
        m_i = m_new
    tl.store(o_ptr + (bh * seq_q + offs_m[:, None]) * D + offs_d[None, :], acc / l_i[:, None], mask=row_ok)


def flash_attention(q, k, v, causal=False, block_m=16, block_n=16):
    b, h, lq, d = q.shape
    q, k, v = q.contiguous(), k.contiguous(), v.contiguous()
    out = torch.empty((b, h, lq, d), dtype=q.dtype, device=q.device)
    grid = (b * h, triton.cdiv(lq, block_m))
    flash_fwd_kernel[grid](q, k, v, out, lq, k.shape[2], d ** -0.5, D=d, BLOCK_M=block_m, BLOCK_N=block_n,
                           CAUSAL=causal)
    return out
'''

EX4_WRONG_KEYS_NOT_MASKED = EX4_WRONG_NO_RESCALE.replace(
    "        acc = acc + tl.dot(p, v)\n", "        acc = acc * tl.exp(m_i - m_new)[:, None] + tl.dot(p, v)\n").replace(
    "        visible = offs_n[None, :] < seq_k\n", "        visible = offs_n[None, :] >= 0\n")

EX4_WRONG_CAUSAL_IN_BLOCK = EX4_WRONG_NO_RESCALE.replace(
    "        acc = acc + tl.dot(p, v)\n", "        acc = acc * tl.exp(m_i - m_new)[:, None] + tl.dot(p, v)\n").replace(
    "visible & (offs_n[None, :] <= offs_m[:, None])",
    "visible & (tl.arange(0, BLOCK_N)[None, :] <= tl.arange(0, BLOCK_M)[:, None])")

# A different correct kernel: two passes over the keys (the exact row max and sum first, then the normalized
# probabilities times V), with the causal loop stopped at the end of the query block; strides passed explicitly.
EX4_ALT = '''
@triton.jit
def flash_fwd_kernel(q_ptr, k_ptr, v_ptr, o_ptr, seq_q, seq_k, scale, D: tl.constexpr, BLOCK_M: tl.constexpr,
                     BLOCK_N: tl.constexpr, CAUSAL: tl.constexpr):
    pair = tl.program_id(0)
    qi = tl.program_id(1) * BLOCK_M + tl.arange(0, BLOCK_M)
    dd = tl.arange(0, D)
    q_base = q_ptr + pair * seq_q * D
    kv_off = pair * seq_k * D
    qb = tl.load(q_base + qi[:, None] * D + dd[None, :], mask=(qi < seq_q)[:, None], other=0.0)
    qb = qb * scale
    stop = seq_k
    if CAUSAL:
        stop = tl.minimum(seq_k, (tl.program_id(1) + 1) * BLOCK_M)
    row_max = tl.zeros([BLOCK_M], tl.float32) - float("inf")
    row_sum = tl.zeros([BLOCK_M], tl.float32)
    for j in range(0, stop, BLOCK_N):
        kj = j + tl.arange(0, BLOCK_N)
        kb = tl.load(k_ptr + kv_off + kj[:, None] * D + dd[None, :], mask=(kj < seq_k)[:, None], other=0.0)
        sc = tl.dot(qb, tl.trans(kb))
        ok = (kj < seq_k)[None, :]
        if CAUSAL:
            ok = ok & (kj[None, :] <= qi[:, None])
        sc = tl.where(ok, sc, -float("inf"))
        new_max = tl.maximum(row_max, tl.max(sc, 1))
        row_sum = row_sum * tl.exp(row_max - new_max) + tl.sum(tl.exp(sc - new_max[:, None]), 1)
        row_max = new_max
    out = tl.zeros([BLOCK_M, D], tl.float32)
    for j in range(0, stop, BLOCK_N):
        kj = j + tl.arange(0, BLOCK_N)
        kb = tl.load(k_ptr + kv_off + kj[:, None] * D + dd[None, :], mask=(kj < seq_k)[:, None], other=0.0)
        vb = tl.load(v_ptr + kv_off + kj[:, None] * D + dd[None, :], mask=(kj < seq_k)[:, None], other=0.0)
        sc = tl.dot(qb, tl.trans(kb))
        ok = (kj < seq_k)[None, :]
        if CAUSAL:
            ok = ok & (kj[None, :] <= qi[:, None])
        sc = tl.where(ok, sc, -float("inf"))
        probs = tl.exp(sc - row_max[:, None]) / row_sum[:, None]
        out += tl.dot(probs, vb)
    tl.store(o_ptr + pair * seq_q * D + qi[:, None] * D + dd[None, :], out, mask=(qi < seq_q)[:, None])


def flash_attention(q, k, v, causal=False, block_m=16, block_n=16):
    batch, heads, lq, d = q.shape
    lk = k.shape[-2]
    qf = q.reshape(batch * heads, lq, d).contiguous()
    kf = k.reshape(batch * heads, lk, d).contiguous()
    vf = v.reshape(batch * heads, lk, d).contiguous()
    of = torch.empty_like(qf)
    flash_fwd_kernel[(batch * heads, triton.cdiv(lq, block_m))](
        qf, kf, vf, of, lq, lk, 1.0 / math.sqrt(d), D=d, BLOCK_M=block_m, BLOCK_N=block_n, CAUSAL=causal)
    return of.view(batch, heads, lq, d)
'''

# Shortcuts (issue 33): the wrapper returns the right numbers without launching the learner's kernel exactly once.
EX1_SHORTCUT = edited(reference(NB, "ex1_scaled_add"),
                      "    scaled_add_kernel[(triton.cdiv(n, block),)](x, y, out, n, alpha, BLOCK=block)\n",
                      "    out.copy_(alpha * x + y)\n")
EX2_SHORTCUT = edited(reference(NB, "ex2_softmax"),
                      "    softmax_kernel[(rows,)](x, out, n_cols, x.stride(0), out.stride(0), BLOCK=triton.next_power_of_2(n_cols))\n",
                      "    out.copy_(torch.softmax(x, dim=-1))\n")
EX2_WRONG_LAUNCH_PER_ROW = edited(reference(NB, "ex2_softmax"),
                                  "    softmax_kernel[(rows,)](x, out, n_cols, x.stride(0), out.stride(0), BLOCK=triton.next_power_of_2(n_cols))\n",
                                  "    for r in range(rows):\n"
                                  "        softmax_kernel[(1,)](x[r:], out[r:], n_cols, x.stride(0), out.stride(0), "
                                  "BLOCK=triton.next_power_of_2(n_cols))\n")
EX4_SHORTCUT = edited(reference(NB, "ex4_flash_fwd"),
                      "    flash_fwd_kernel[grid](q, k, v, out, lq, lk, d ** -0.5, D=d, BLOCK_M=block_m, BLOCK_N=block_n, CAUSAL=causal)\n",
                      "    out.copy_(F.scaled_dot_product_attention(q, k, v, is_causal=causal))\n")

WRONG = {
    "ex1_scaled_add": [
        ("no mask: the last program writes past n_elements", EX1_WRONG_NO_MASK),
        ("grid of n // block programs: the tail is never computed", EX1_WRONG_FLOOR_GRID),
        ("offsets without pid * BLOCK: every program does the first block", EX1_WRONG_NO_PID),
        ("shortcut: alpha * x + y in PyTorch, the kernel never launched", EX1_SHORTCUT),
    ],
    "ex2_softmax": [
        ("no row max subtracted: exp overflows on large logits", EX2_WRONG_NO_MAX),
        ("masked lanes loaded as 0 instead of -inf", EX2_WRONG_OTHER_ZERO),
        ("row stride taken to be n_cols", EX2_WRONG_STRIDE),
        ("shortcut: the wrapper returns torch.softmax, the kernel never launched", EX2_SHORTCUT),
        ("one launch per row instead of one launch with one program per row", EX2_WRONG_LAUNCH_PER_ROW),
    ],
    "ex3_online_softmax": [
        ("the broken code as given", EX3_AS_GIVEN),
        ("acc rescaled, but lse still log(l) without the max", EX3_WRONG_LSE_ONLY),
        ("the full score matrix at once, no blocks", EX3_WRONG_FULL_SCORES),
    ],
    "ex4_flash_fwd": [
        ("the accumulator is not rescaled when the max grows", EX4_WRONG_NO_RESCALE),
        ("key columns past seq_k not masked in the scores", EX4_WRONG_KEYS_NOT_MASKED),
        ("causal mask on offsets within the blocks, not positions", EX4_WRONG_CAUSAL_IN_BLOCK),
        ("shortcut: the wrapper returns F.scaled_dot_product_attention", EX4_SHORTCUT),
    ],
}

ALT = {
    "ex1_scaled_add": EX1_ALT,
    "ex2_softmax": EX2_ALT,
    "ex3_online_softmax": EX3_ALT,
    "ex4_flash_fwd": EX4_ALT,
}
