"""Blind set for notebooks/senior/22_scale_arithmetic_and_sharding.ipynb, written from release/ alone (issue 33).

Long because every answer replaces a whole cell: a wrong answer and an alternative per exercise (and a shortcut
where the work is asked by hand).
"""

_FLOPS_HEAD = '''
def gemm_flops(m, n, k):
    """FLOPs of an (m, k) @ (k, n) matrix product."""
    return 2 * m * n * k


def training_flops(n_params, n_tokens):
    """Training FLOPs estimate for n_params parameters and n_tokens tokens (forward + backward)."""
    return 6 * n_params * n_tokens


def mfu(n_params, tokens_per_step, step_time_s, n_devices, peak_flops_per_device):
    """Model FLOPs utilisation of a training step, a fraction."""
    return training_flops(n_params, tokens_per_step) / step_time_s / (n_devices * peak_flops_per_device)
'''

_COUNT_BY_MODULE = _FLOPS_HEAD + '''

def count_params(vocab, d_model, n_layers, d_ff, tied):
    """Exact parameter count of TinyLM(vocab, d_model, n_layers, d_ff, tied), by formula."""
    return sum(p.numel() for p in TinyLM(vocab, d_model, n_layers, d_ff, tied).parameters())
'''

_COUNT_TIED_TWICE = _FLOPS_HEAD + '''

def count_params(vocab, d_model, n_layers, d_ff, tied):
    """Exact parameter count of TinyLM(vocab, d_model, n_layers, d_ff, tied), by formula."""
    d = d_model
    block = 2 * d + (3 * d * d + 3 * d) + (d * d + d) + 2 * d + (d * d_ff + d_ff) + (d_ff * d + d)
    return vocab * d + n_layers * block + 2 * d + vocab * d  # the head's matrix, tied or not
'''

_FLOPS_ALT = '''
def gemm_flops(m, n, k):
    """FLOPs of an (m, k) @ (k, n) matrix product."""
    multiply_adds = m * n * k
    return multiply_adds + multiply_adds


def training_flops(n_params, n_tokens):
    """Training FLOPs estimate for n_params parameters and n_tokens tokens (forward + backward)."""
    forward = 2 * n_params * n_tokens
    backward = 2 * forward  # input gradient and weight gradient
    return forward + backward


def mfu(n_params, tokens_per_step, step_time_s, n_devices, peak_flops_per_device):
    """Model FLOPs utilisation of a training step, a fraction."""
    useful = 6.0 * n_params * tokens_per_step
    available = float(n_devices) * peak_flops_per_device * step_time_s
    return useful / available


def count_params(vocab, d_model, n_layers, d_ff, tied):
    """Exact parameter count of TinyLM(vocab, d_model, n_layers, d_ff, tied), by formula."""
    def linear(a, b, bias=True):
        return a * b + (b if bias else 0)

    def layer_norm(d):
        return 2 * d

    block = (layer_norm(d_model) + linear(d_model, 3 * d_model) + linear(d_model, d_model)
             + layer_norm(d_model) + linear(d_model, d_ff) + linear(d_ff, d_model))
    head = 0 if tied else linear(d_model, vocab, bias=False)
    return vocab * d_model + n_layers * block + layer_norm(d_model) + head
'''

_MOE_ONE_LEG = '''
def moe_params(d_model, d_ff, n_experts, top_k, n_shared):
    """(total, active-per-token) parameters of one MoE layer (router + routed + shared SwiGLU experts)."""
    expert = 3 * d_model * d_ff
    router = d_model * n_experts
    return router + (n_experts + n_shared) * expert, router + (top_k + n_shared) * expert


def all_to_all_bytes(tokens_per_device, d_model, top_k, n_devices, bytes_per_elem):
    """Bytes one device sends in one MoE layer's forward: dispatch + combine, uniform routing."""
    leaving = tokens_per_device * top_k * (n_devices - 1) / n_devices
    return float(leaving * d_model * bytes_per_elem)  # the dispatch only
'''

_MOE_ALT = '''
def moe_params(d_model, d_ff, n_experts, top_k, n_shared):
    """(total, active-per-token) parameters of one MoE layer (router + routed + shared SwiGLU experts)."""
    gate = up = d_model * d_ff
    down = d_ff * d_model
    per_expert = gate + up + down
    always = d_model * n_experts + n_shared * per_expert  # router and shared experts: every token
    return always + n_experts * per_expert, always + top_k * per_expert


def all_to_all_bytes(tokens_per_device, d_model, top_k, n_devices, bytes_per_elem):
    """Bytes one device sends in one MoE layer's forward: dispatch + combine, uniform routing."""
    vector_bytes = d_model * bytes_per_elem
    remote_share = 1.0 - 1.0 / n_devices
    per_leg = tokens_per_device * top_k * remote_share * vector_bytes
    return 2.0 * per_leg
'''

_ALLREDUCE_NAIVE_ONE_WAY = '''
def ring_allreduce_time(n_bytes, p, alpha, beta):
    """Alpha-beta time of a ring all-reduce of n_bytes over p ranks."""
    steps = 2 * (p - 1)
    return steps * alpha + steps * (n_bytes / p) * beta


def naive_allreduce_time(n_bytes, p, alpha, beta):
    """Alpha-beta time of reduce-to-rank-0 then broadcast, messages serialised on rank 0's link."""
    return (p - 1) * (alpha + n_bytes * beta)  # the reduce; the result "is already there"
'''

_ALLREDUCE_ALT = '''
def ring_allreduce_time(n_bytes, p, alpha, beta):
    """Alpha-beta time of a ring all-reduce of n_bytes over p ranks."""
    if p <= 1:
        return 0.0
    chunk = n_bytes / p
    reduce_scatter = (p - 1) * (alpha + chunk * beta)
    all_gather = (p - 1) * (alpha + chunk * beta)
    return float(reduce_scatter + all_gather)


def naive_allreduce_time(n_bytes, p, alpha, beta):
    """Alpha-beta time of reduce-to-rank-0 then broadcast, messages serialised on rank 0's link."""
    total = 0.0
    for _ in range(p - 1):  # each other rank's buffer into rank 0
        total += alpha + n_bytes * beta
    for _ in range(p - 1):  # the sum back out to each of them
        total += alpha + n_bytes * beta
    return total
'''

_ZERO3_DIFFERENTIABLE = '''
def zero3_linear(x, shard, out_features, in_features):
    """x @ W.T + b with (W, b) all-gathered from every rank's flat shard; gradient reduce-scattered into `shard`."""
    import torch.distributed.nn.functional as dist_nn

    flat = torch.cat(dist_nn.all_gather(shard))
    n = out_features * in_features
    weight = flat[:n].view(out_features, in_features)
    bias = flat[n:n + out_features]
    return x @ weight.T + bias
'''

_ZERO3 = '''
def zero3_linear(x, shard, out_features, in_features):
    """x @ W.T + b with (W, b) all-gathered from every rank's flat shard; gradient reduce-scattered into `shard`."""

    def gather(s):
        parts = [torch.empty_like(s) for _ in range(dist.get_world_size())]
        dist.all_gather(parts, s.detach().contiguous())
        flat = torch.cat(parts)
        n = out_features * in_features
        return flat, flat[:n].view(out_features, in_features), flat[n:n + out_features]

    class Zero3(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x, shard):
            _, weight, bias = gather(shard)
            ctx.save_for_backward(x, shard)
            return x @ weight.T + bias

        @staticmethod
        def backward(ctx, grad_y):
            x, shard = ctx.saved_tensors
            flat, weight, _ = gather(shard)
            n = out_features * in_features
            full = torch.zeros_like(flat)
            full[:n] = (grad_y.T @ x).reshape(-1)
            full[n:n + out_features] = grad_y.sum(0)
            mine = torch.empty_like(shard)
            dist.reduce_scatter(mine, list(full.chunk(dist.get_world_size())))
            return grad_y @ weight, mine / dist.get_world_size()

    return Zero3.apply(x, shard)
'''

_ZERO3_ALT = '''
def zero3_linear(x, shard, out_features, in_features):
    """x @ W.T + b with (W, b) all-gathered from every rank's flat shard; gradient reduce-scattered into `shard`."""
    world, rank = dist.get_world_size(), dist.get_rank()
    n_weight = out_features * in_features

    def unshard(s):  # gathered on demand, dropped by the caller right after use
        pieces = [torch.zeros_like(s) for _ in range(world)]
        dist.all_gather(pieces, s.detach().contiguous())
        w, b, _ = torch.cat(pieces).split([n_weight, out_features, world * s.numel() - n_weight - out_features])
        return w.reshape(out_features, in_features), b

    class ShardedLinear(torch.autograd.Function):
        @staticmethod
        def forward(ctx, inp, s):
            w, b = unshard(s)
            ctx.save_for_backward(inp, s)
            return F.linear(inp, w, b)

        @staticmethod
        def backward(ctx, grad_out):
            inp, s = ctx.saved_tensors
            w, _ = unshard(s)
            grad_flat = torch.cat([(grad_out.T @ inp).flatten(), grad_out.sum(dim=0)])
            padded = torch.zeros(world * s.numel(), dtype=grad_flat.dtype)
            padded[:grad_flat.numel()] = grad_flat
            dist.all_reduce(padded)  # the sum over ranks; keep this rank's slice of the mean
            mine = padded[rank * s.numel():(rank + 1) * s.numel()] / world
            return grad_out @ w, mine.clone()

    return ShardedLinear.apply(x, shard)
'''

_RING_SIM_NO_RESCALE = '''
def online_attend(q, k, v, m, l, acc):
    """Fold one K/V block into the running (max, sum, weighted sum) of every query row."""
    s = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
    m_new = torch.maximum(m, s.amax(dim=-1, keepdim=True))
    p = torch.exp(s - m_new)
    l_new = l * torch.exp(m - m_new) + p.sum(dim=-1, keepdim=True)
    return m_new, l_new, acc + p @ v  # acc keeps its old scale


def ring_attention_sim(q_blocks, k_blocks, v_blocks):
    """P simulated ranks: rank i folds K/V blocks i, i-1, ... (mod P) into its queries; returns P output blocks."""
    P, outs = len(q_blocks), []
    for i, q in enumerate(q_blocks):
        m = torch.full((*q.shape[:-1], 1), float("-inf"), dtype=q.dtype, device=q.device)
        l = torch.zeros_like(m)
        acc = torch.zeros(*q.shape[:-1], v_blocks[0].shape[-1], dtype=q.dtype, device=q.device)
        for s in range(P):
            j = (i - s) % P
            m, l, acc = online_attend(q, k_blocks[j], v_blocks[j], m, l, acc)
        outs.append(acc / l)
    return outs
'''

_RING_SIM_ALT = '''
def online_attend(q, k, v, m, l, acc):
    """Fold one K/V block into the running (max, sum, weighted sum) of every query row."""
    # the block's own state first, then merge two states (as split-K / flash-decoding do)
    s = torch.matmul(q, k.transpose(-1, -2)) * (1.0 / math.sqrt(q.shape[-1]))
    m_blk = s.amax(dim=-1, keepdim=True)
    p = torch.exp(s - m_blk)
    l_blk, acc_blk = p.sum(dim=-1, keepdim=True), torch.matmul(p, v)
    m_new = torch.maximum(m, m_blk)
    old, new = torch.exp(m - m_new), torch.exp(m_blk - m_new)
    return m_new, old * l + new * l_blk, old * acc + new * acc_blk


def ring_attention_sim(q_blocks, k_blocks, v_blocks):
    """P simulated ranks: rank i folds K/V blocks i, i-1, ... (mod P) into its queries; returns P output blocks."""
    P = len(q_blocks)
    held = list(zip(k_blocks, v_blocks))  # rank i starts with its own block
    states = []
    for q, v in zip(q_blocks, v_blocks):
        m = q.new_full((*q.shape[:-1], 1), float("-inf"))
        states.append((m, torch.zeros_like(m), q.new_zeros(*q.shape[:-1], v.shape[-1])))
    for _ in range(P):  # every rank folds what it holds, then the blocks move one rank on
        states = [online_attend(q_blocks[i], held[i][0], held[i][1], *states[i]) for i in range(P)]
        held = [held[(i - 1) % P] for i in range(P)]
    return [acc / l for _, l, acc in states]
'''

_RING_RANK = '''

def ring_attention_rank(q, k, v):
    """This rank's attention output; K/V blocks rotate around the ring with point-to-point messages."""
    rank, world = dist.get_rank(), dist.get_world_size()
    m = torch.full((*q.shape[:-1], 1), float("-inf"), dtype=q.dtype)
    l = torch.zeros_like(m)
    acc = torch.zeros(*q.shape[:-1], v.shape[-1], dtype=q.dtype)
    k_cur, v_cur = k.contiguous(), v.contiguous()
    for step in range(world):
        reqs, last = [], step == world - 1
        if not last:
            k_next, v_next = torch.empty_like(k_cur), torch.empty_like(v_cur)
            reqs = [dist.isend(k_cur, (rank + 1) % world, tag=0), dist.isend(v_cur, (rank + 1) % world, tag=1),
                    dist.irecv(k_next, (rank - 1) % world, tag=0), dist.irecv(v_next, (rank - 1) % world, tag=1)]
        m, l, acc = online_attend(q, k_cur, v_cur, m, l, acc)
        for r in reqs:
            r.wait()
        if not last:
            k_cur, v_cur = k_next, v_next
    return acc / l
'''

_RING_RANK_SHORT = _RING_RANK.replace("for step in range(world):", "for step in range(world - 1):")

_RING_RANK_ALT = '''
def ring_attention_rank(q, k, v):
    """This rank's attention output; K/V blocks rotate around the ring with point-to-point messages."""
    me, world = dist.get_rank(), dist.get_world_size()
    kv = torch.stack([k, v]).contiguous()  # K and V travel as one message
    m = q.new_full((*q.shape[:-1], 1), float("-inf"))
    l = torch.zeros_like(m)
    acc = q.new_zeros(*q.shape[:-1], v.shape[-1])
    for step in range(world):
        pending = []
        if step + 1 < world:
            incoming = torch.empty_like(kv)
            pending = dist.batch_isend_irecv([dist.P2POp(dist.isend, kv, (me + 1) % world),
                                              dist.P2POp(dist.irecv, incoming, (me - 1) % world)])
        m, l, acc = online_attend(q, kv[0], kv[1], m, l, acc)
        for req in pending:
            req.wait()
        if pending:
            kv = incoming
    return acc / l
'''

SHORTCUT = {
    "ex1_flops": ("count_params builds the TinyLM and sums numel() instead of using a formula", _COUNT_BY_MODULE),
    "ex4_zero3": ("gathers with the differentiable torch.distributed.nn.functional.all_gather and lets autograd "
                  "do the backward", _ZERO3_DIFFERENTIABLE),
}

WRONG = {
    "ex1_flops": ("counts the head's matrix even when it is tied to the embedding", _COUNT_TIED_TWICE),
    "ex2_moe": ("counts the dispatch leg of the all-to-all but not the combine", _MOE_ONE_LEG),
    "ex3_allreduce_cost": ("the naive scheme forgets the broadcast back to the other ranks",
                           _ALLREDUCE_NAIVE_ONE_WAY),
    "ex4_zero3": ("gives the shard the sum over ranks of the gradient instead of the mean",
                  _ZERO3.replace("mine / dist.get_world_size()", "mine")),
    "ex5_ring_sim": ("rescales l but not acc when the running max grows", _RING_SIM_NO_RESCALE),
    "ex6_ring_dist": ("runs W - 1 steps, so the block received last is never folded in", _RING_RANK_SHORT),
}

ALT = {
    "ex1_flops": _FLOPS_ALT,
    "ex2_moe": _MOE_ALT,
    "ex3_allreduce_cost": _ALLREDUCE_ALT,
    "ex4_zero3": _ZERO3_ALT,
    "ex5_ring_sim": _RING_SIM_ALT,
    "ex6_ring_dist": _RING_RANK_ALT,
}
