"""Known-wrong and alternative answers for senior/22_scale_arithmetic_and_sharding."""

from tests.answers.senior import edited

_EX1_REF_TAIL = '''

def count_params(vocab, d_model, n_layers, d_ff, tied):
    d = d_model
    per_block = 4 * d * d + 2 * d * d_ff + 9 * d + d_ff
    return vocab * d * (1 if tied else 2) + n_layers * per_block + 2 * d
'''

_EX1_FORWARD_ONLY = '''def gemm_flops(m, n, k):
    return 2 * m * n * k


def training_flops(n_params, n_tokens):
    # forward only: forgets that the backward costs twice the forward
    return 2 * n_params * n_tokens


def mfu(n_params, tokens_per_step, step_time_s, n_devices, peak_flops_per_device):
    return training_flops(n_params, tokens_per_step) / step_time_s / (n_devices * peak_flops_per_device)
''' + _EX1_REF_TAIL

_EX1_TIED_TWICE = '''def gemm_flops(m, n, k):
    return 2 * m * n * k


def training_flops(n_params, n_tokens):
    return 6 * n_params * n_tokens


def mfu(n_params, tokens_per_step, step_time_s, n_devices, peak_flops_per_device):
    return 6 * n_params * tokens_per_step / step_time_s / (n_devices * peak_flops_per_device)


def count_params(vocab, d_model, n_layers, d_ff, tied):
    # counts the head matrix even when it is the embedding matrix
    d = d_model
    per_block = 4 * d * d + 2 * d * d_ff + 9 * d + d_ff
    return 2 * vocab * d + n_layers * per_block + 2 * d
'''

_EX1_ALT = '''def gemm_flops(m, n, k):
    multiply_adds = m * n * k
    return multiply_adds + multiply_adds


def training_flops(n_params, n_tokens):
    forward = gemm_flops(n_tokens, 1, n_params)  # one multiply-add per parameter per token
    return forward * 3


def mfu(n_params, tokens_per_step, step_time_s, n_devices, peak_flops_per_device):
    tokens_per_second = tokens_per_step / step_time_s
    per_device = tokens_per_second / n_devices * training_flops(n_params, 1)
    return per_device / peak_flops_per_device


def count_params(vocab, d_model, n_layers, d_ff, tied):
    def linear(a, b, bias=True):
        return a * b + (b if bias else 0)

    def layer_norm(d):
        return 2 * d

    block = (layer_norm(d_model) + linear(d_model, 3 * d_model) + linear(d_model, d_model)
             + layer_norm(d_model) + linear(d_model, d_ff) + linear(d_ff, d_model))
    total = vocab * d_model + n_layers * block + layer_norm(d_model)
    if not tied:
        total += linear(d_model, vocab, bias=False)
    return total
'''

_EX2_NO_COMBINE = '''def moe_params(d_model, d_ff, n_experts, top_k, n_shared):
    expert = 3 * d_model * d_ff
    return d_model * n_experts + (n_experts + n_shared) * expert, d_model * n_experts + (top_k + n_shared) * expert


def all_to_all_bytes(tokens_per_device, d_model, top_k, n_devices, bytes_per_elem):
    # counts the dispatch only and forgets that the expert outputs travel back
    return float(tokens_per_device * top_k * (n_devices - 1) / n_devices * d_model * bytes_per_elem)
'''

_EX2_NO_SHARED_ACTIVE = '''def moe_params(d_model, d_ff, n_experts, top_k, n_shared):
    # active parameters leave out the shared experts and the router
    expert = 3 * d_model * d_ff
    return d_model * n_experts + (n_experts + n_shared) * expert, top_k * expert


def all_to_all_bytes(tokens_per_device, d_model, top_k, n_devices, bytes_per_elem):
    return float(2 * tokens_per_device * top_k * (n_devices - 1) / n_devices * d_model * bytes_per_elem)
'''

_EX2_ALT = '''def moe_params(d_model, d_ff, n_experts, top_k, n_shared):
    def swiglu(d, f):
        return d * f + d * f + f * d

    router = n_experts * d_model
    routed = [swiglu(d_model, d_ff) for _ in range(n_experts)]
    shared = [swiglu(d_model, d_ff) for _ in range(n_shared)]
    total = router + sum(routed) + sum(shared)
    active = router + sum(sorted(routed)[:top_k]) + sum(shared)
    return total, active


def all_to_all_bytes(tokens_per_device, d_model, top_k, n_devices, bytes_per_elem):
    copies = tokens_per_device * top_k
    remote_copies = copies - copies / n_devices  # 1/n of the experts live here
    bytes_per_vector = d_model * bytes_per_elem
    dispatch = remote_copies * bytes_per_vector
    combine = dispatch
    return float(dispatch + combine)
'''

_EX3_BUGGY = '''def ring_allreduce_time(n_bytes, p, alpha, beta):
    # the colleague's version: every step sends the whole buffer
    steps = 2 * (p - 1)
    return float(steps * alpha + steps * n_bytes * beta)


def naive_allreduce_time(n_bytes, p, alpha, beta):
    return float(2 * (p - 1) * (alpha + n_bytes * beta))
'''

_EX3_ONE_PHASE = '''def ring_allreduce_time(n_bytes, p, alpha, beta):
    # counts the reduce-scatter but forgets the all-gather's bandwidth
    return float(2 * (p - 1) * alpha + (p - 1) / p * n_bytes * beta)


def naive_allreduce_time(n_bytes, p, alpha, beta):
    return float((p - 1) * (alpha + n_bytes * beta))
'''

_EX3_ALT = '''def ring_allreduce_time(n_bytes, p, alpha, beta):
    if p == 1:
        return 0.0
    chunk = n_bytes / p
    reduce_scatter = sum(alpha + chunk * beta for _ in range(p - 1))
    all_gather = sum(alpha + chunk * beta for _ in range(p - 1))
    return reduce_scatter + all_gather


def naive_allreduce_time(n_bytes, p, alpha, beta):
    message = alpha + beta * n_bytes
    reduce_phase = message * (p - 1)
    broadcast_phase = message * (p - 1)
    return float(reduce_phase + broadcast_phase)
'''

_EX4_KEEPS_WEIGHT = '''def zero3_linear(x, shard, out_features, in_features):
    # gathers once and lets autograd save the full weight: nothing is freed, no gather in backward
    world = dist.get_world_size()
    n_w = out_features * in_features
    n = n_w + out_features

    class GatheredLinear(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x, shard):
            pieces = [torch.empty_like(shard) for _ in range(world)]
            dist.all_gather(pieces, shard.detach().contiguous())
            full = torch.cat(pieces)[:n]
            weight, bias = full[:n_w].view(out_features, in_features), full[n_w:]
            ctx.save_for_backward(x, weight)
            ctx.numel = shard.numel()
            return x @ weight.T + bias

        @staticmethod
        def backward(ctx, grad_y):
            x, weight = ctx.saved_tensors
            grad_full = torch.zeros(ctx.numel * world)
            grad_full[:n_w] = (grad_y.T @ x).reshape(-1)
            grad_full[n_w:n] = grad_y.sum(0)
            out = torch.empty(ctx.numel)
            dist.reduce_scatter(out, list(grad_full.chunk(world)))
            return grad_y @ weight, out / world

    return GatheredLinear.apply(x, shard)
'''

_EX4_SUMS = '''def zero3_linear(x, shard, out_features, in_features):
    # reduce-scatters the gradient but forgets to average over ranks
    world = dist.get_world_size()
    n_w = out_features * in_features
    n = n_w + out_features

    def gather(s):
        pieces = [torch.empty_like(s) for _ in range(world)]
        dist.all_gather(pieces, s.detach().contiguous())
        full = torch.cat(pieces)[:n]
        return full[:n_w].view(out_features, in_features), full[n_w:]

    class GatheredLinear(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x, shard):
            weight, bias = gather(shard)
            ctx.save_for_backward(x, shard)
            return x @ weight.T + bias

        @staticmethod
        def backward(ctx, grad_y):
            x, shard = ctx.saved_tensors
            weight, _ = gather(shard)
            grad_full = torch.zeros(shard.numel() * world)
            grad_full[:n_w] = (grad_y.T @ x).reshape(-1)
            grad_full[n_w:n] = grad_y.sum(0)
            out = torch.empty_like(shard)
            dist.reduce_scatter(out, list(grad_full.chunk(world)))
            return grad_y @ weight, out

    return GatheredLinear.apply(x, shard)
'''

_EX4_ALT = '''def zero3_linear(x, shard, out_features, in_features):
    import torch.nn.functional as F

    world, rank = dist.get_world_size(), dist.get_rank()
    per = shard.numel()
    n = out_features * in_features + out_features

    def unshard(s):
        flat = torch.empty(per * world, dtype=s.dtype)
        dist.all_gather_into_tensor(flat, s.detach().contiguous())
        weight, bias = flat[:n].split([out_features * in_features, out_features])
        return weight.reshape(out_features, in_features), bias

    class Zero3(torch.autograd.Function):
        @staticmethod
        def forward(ctx, inp, s):
            ctx.save_for_backward(inp, s)
            weight, bias = unshard(s)
            return F.linear(inp, weight, bias)

        @staticmethod
        def backward(ctx, gy):
            inp, s = ctx.saved_tensors
            weight, _ = unshard(s)
            gw = torch.einsum("bo,bi->oi", gy, inp).flatten()
            gb = gy.sum(dim=0)
            flat = torch.nn.functional.pad(torch.cat([gw, gb]), (0, per * world - n))
            dist.all_reduce(flat)  # sum over ranks, then keep my slice
            return gy @ weight, flat[rank * per:(rank + 1) * per] / world

    return Zero3.apply(x, shard)
'''

_EX5_NO_RESCALE = '''def online_attend(q, k, v, m, l, acc):
    # takes the new max but forgets to rescale what was accumulated against the old one
    scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
    m_new = torch.maximum(m, scores.amax(dim=-1, keepdim=True))
    p = torch.exp(scores - m_new)
    return m_new, l + p.sum(dim=-1, keepdim=True), acc + p @ v


def ring_attention_sim(q_blocks, k_blocks, v_blocks):
    n = len(q_blocks)
    outs = []
    for i, q in enumerate(q_blocks):
        m = torch.full((*q.shape[:-1], 1), float("-inf"), dtype=q.dtype, device=q.device)
        l = torch.zeros_like(m)
        acc = torch.zeros(*q.shape[:-1], v_blocks[0].shape[-1], dtype=q.dtype, device=q.device)
        for s in range(n):
            j = (i - s) % n
            m, l, acc = online_attend(q, k_blocks[j], v_blocks[j], m, l, acc)
        outs.append(acc / l)
    return outs
'''

_EX5_NO_SCALE = '''def online_attend(q, k, v, m, l, acc):
    # forgets the 1/sqrt(d) temperature
    scores = q @ k.transpose(-2, -1)
    m_new = torch.maximum(m, scores.amax(dim=-1, keepdim=True))
    p = torch.exp(scores - m_new)
    c = torch.exp(m - m_new)
    return m_new, l * c + p.sum(dim=-1, keepdim=True), acc * c + p @ v


def ring_attention_sim(q_blocks, k_blocks, v_blocks):
    n = len(q_blocks)
    outs = []
    for i, q in enumerate(q_blocks):
        m = torch.full((*q.shape[:-1], 1), float("-inf"), dtype=q.dtype, device=q.device)
        l = torch.zeros_like(m)
        acc = torch.zeros(*q.shape[:-1], v_blocks[0].shape[-1], dtype=q.dtype, device=q.device)
        for s in range(n):
            j = (i - s) % n
            m, l, acc = online_attend(q, k_blocks[j], v_blocks[j], m, l, acc)
        outs.append(acc / l)
    return outs
'''

_EX5_ALT = '''def online_attend(q, k, v, m, l, acc):
    # merge two partial softmaxes through their log-sum-exp
    scores = torch.einsum("...qd,...kd->...qk", q, k) * q.shape[-1] ** -0.5
    block_max = scores.max(dim=-1, keepdim=True).values
    new_max = torch.where(block_max > m, block_max, m)
    weights = (scores - new_max).exp()
    old_scale = (m - new_max).exp()
    new_l = old_scale * l + weights.sum(-1, keepdim=True)
    new_acc = old_scale * acc + torch.einsum("...qk,...kd->...qd", weights, v)
    return new_max, new_l, new_acc


def ring_attention_sim(q_blocks, k_blocks, v_blocks):
    p = len(q_blocks)
    held = list(zip(k_blocks, v_blocks))  # held[i] is the K/V block rank i holds now
    states = []
    for q in q_blocks:
        m = q.new_full(q.shape[:-1] + (1,), -math.inf)
        states.append((m, torch.zeros_like(m), q.new_zeros(q.shape[:-1] + (v_blocks[0].shape[-1],))))
    for _ in range(p):
        states = [online_attend(q, k, v, *st) for q, (k, v), st in zip(q_blocks, held, states)]
        held = held[-1:] + held[:-1]  # every rank passes its block to rank + 1
    return [acc / l for _, l, acc in states]
'''

_EX6_NO_ROTATION = '''def ring_attention_rank(q, k, v):
    # never passes the blocks on: attends to its own keys only
    m = torch.full((*q.shape[:-1], 1), float("-inf"), dtype=q.dtype)
    l = torch.zeros_like(m)
    acc = torch.zeros(*q.shape[:-1], v.shape[-1], dtype=q.dtype)
    m, l, acc = online_attend(q, k, v, m, l, acc)
    return acc / l
'''

_EX6_ALL_GATHER = '''def ring_attention_rank(q, k, v):
    # gathers every block on every rank: the memory ring attention exists to avoid
    world = dist.get_world_size()
    ks = [torch.empty_like(k) for _ in range(world)]
    vs = [torch.empty_like(v) for _ in range(world)]
    dist.all_gather(ks, k.contiguous())
    dist.all_gather(vs, v.contiguous())
    m = torch.full((*q.shape[:-1], 1), float("-inf"), dtype=q.dtype)
    l = torch.zeros_like(m)
    acc = torch.zeros(*q.shape[:-1], v.shape[-1], dtype=q.dtype)
    for kb, vb in zip(ks, vs):
        m, l, acc = online_attend(q, kb, vb, m, l, acc)
    return acc / l
'''

_EX6_ALT = '''def ring_attention_rank(q, k, v):
    rank, world = dist.get_rank(), dist.get_world_size()
    right, left = (rank + 1) % world, (rank - 1) % world
    kv = torch.stack([k, v]).contiguous()  # one message per step
    m = q.new_full((*q.shape[:-1], 1), float("-inf"))
    l, acc = torch.zeros_like(m), q.new_zeros((*q.shape[:-1], v.shape[-1]))
    for step in range(world):
        if step < world - 1:
            incoming = torch.empty_like(kv)
            recv = dist.irecv(incoming, src=left)
            send = dist.isend(kv, dst=right)
        m, l, acc = online_attend(q, kv[0], kv[1], m, l, acc)  # compute while the next block travels
        if step < world - 1:
            recv.wait()
            send.wait()
            kv = incoming
    return acc / l
'''

_EX5_STATE_ON_CPU = edited(edited(_EX5_ALT, "q.new_full(q.shape[:-1] + (1,), -math.inf)",
                                  "torch.full(q.shape[:-1] + (1,), -math.inf, dtype=q.dtype)"),
                           "q.new_zeros(q.shape[:-1] + (v_blocks[0].shape[-1],))",
                           "torch.zeros(q.shape[:-1] + (v_blocks[0].shape[-1],), dtype=q.dtype)")


WRONG = {
    "ex1_flops": [("6ND counted as 2ND (forward only)", _EX1_FORWARD_ONLY),
                  ("tied head counted twice", _EX1_TIED_TWICE)],
    "ex2_moe": [("all-to-all without the combine leg", _EX2_NO_COMBINE),
                ("active parameters without router and shared experts", _EX2_NO_SHARED_ACTIVE)],
    "ex3_allreduce_cost": [("the colleague's ring cost: whole buffer every step", _EX3_BUGGY),
                           ("one phase only", _EX3_ONE_PHASE)],
    "ex4_zero3": [("keeps the gathered weight for backward", _EX4_KEEPS_WEIGHT),
                  ("sums gradients over ranks instead of averaging", _EX4_SUMS)],
    "ex5_ring_sim": [("online softmax without rescaling", _EX5_NO_RESCALE),
                     ("scores without 1/sqrt(d)", _EX5_NO_SCALE),
                     ("running state created on the CPU: breaks on a GPU", _EX5_STATE_ON_CPU)],
    "ex6_ring_dist": [("no rotation: own block only", _EX6_NO_ROTATION),
                      ("all-gathers K/V instead of a ring", _EX6_ALL_GATHER)],
}

ALT = {
    "ex1_flops": _EX1_ALT,
    "ex2_moe": _EX2_ALT,
    "ex3_allreduce_cost": _EX3_ALT,
    "ex4_zero3": _EX4_ALT,
    "ex5_ring_sim": _EX5_ALT,
    "ex6_ring_dist": _EX6_ALT,
}
