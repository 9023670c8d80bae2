"""Known-wrong and alternative answers for senior/22_scale_arithmetic_and_sharding."""

from tests.answers.senior import edited, reference

NB = "senior/22_scale_arithmetic_and_sharding"


_EX1_FORWARD_ONLY = edited(reference(NB, "ex1_flops"), "return 6 * n_params * n_tokens", "return 2 * n_params * n_tokens")

_EX1_TIED_TWICE = edited(reference(NB, "ex1_flops"), "head = 0 if tied else vocab * d", "head = vocab * d")

_EX1_SHORTCUT_META_MODULE = edited(
    reference(NB, "ex1_flops"), "def count_params(vocab, d_model, n_layers, d_ff, tied):\n",
    "def count_params(vocab, d_model, n_layers, d_ff, tied):\n"
    "    with torch.device(\"meta\"):  # builds the module without allocating it, then counts\n"
    "        return sum(p.numel() for p in TinyLM(vocab, d_model, n_layers, d_ff, tied).parameters())\n")

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

_EX2_NO_COMBINE = edited(reference(NB, "ex2_moe"), "return float(2 * one_leg)", "return float(one_leg)")

_EX2_NO_SHARED_ACTIVE = edited(reference(NB, "ex2_moe"), "active = router + (top_k + n_shared) * expert",
                               "active = top_k * expert")

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

_EX3_BUGGY = edited(reference(NB, "ex3_allreduce_cost"), "steps * (n_bytes / p) * beta", "steps * n_bytes * beta")

_EX3_ONE_PHASE = edited(edited(reference(NB, "ex3_allreduce_cost"),
                               "steps * (n_bytes / p) * beta", "(p - 1) * (n_bytes / p) * beta"),
                        "float(2 * (p - 1) * (alpha", "float((p - 1) * (alpha")

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

_EX4_KEEPS_WEIGHT = edited(edited(reference(NB, "ex4_zero3"),
                                  "ctx.save_for_backward(x, shard)\n"
                                  "            return x @ weight.T + bias  # weight and bias are freed when this returns",
                                  "ctx.save_for_backward(x, shard, weight)\n"
                                  "            return x @ weight.T + bias"),
                           "x, shard = ctx.saved_tensors\n            weight, _ = gather(shard)",
                           "x, shard, weight = ctx.saved_tensors")

_EX4_SUMS = edited(reference(NB, "ex4_zero3"), "grad_shard / world", "grad_shard")

# issue 33: the shortcut lets autograd do the backward through the differentiable all_gather
_EX4_SHORTCUT_AUTOGRAD_GATHER = '''def zero3_linear(x, shard, out_features, in_features):
    from torch.distributed.nn.functional import all_gather

    n_w = out_features * in_features
    full = torch.cat(all_gather(shard))[:n_w + out_features]
    return x @ full[:n_w].view(out_features, in_features).T + full[n_w:]
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

_EX5_NO_RESCALE = edited(reference(NB, "ex5_ring_sim"),
                         "    correction = torch.exp(m - m_new)\n"
                         "    return m_new, l * correction + p.sum(dim=-1, keepdim=True), acc * correction + p @ v",
                         "    return m_new, l + p.sum(dim=-1, keepdim=True), acc + p @ v")

_EX5_NO_SCALE = edited(reference(NB, "ex5_ring_sim"), " / math.sqrt(q.shape[-1])")

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

_EX6_NO_ROTATION = edited(reference(NB, "ex6_ring_dist"), "            k, v = k_next, v_next\n")

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
                  ("tied head counted twice", _EX1_TIED_TWICE),
                  ("shortcut: builds TinyLM on the meta device and counts (blind set)", _EX1_SHORTCUT_META_MODULE)],
    "ex2_moe": [("all-to-all without the combine leg", _EX2_NO_COMBINE),
                ("active parameters without router and shared experts", _EX2_NO_SHARED_ACTIVE)],
    "ex3_allreduce_cost": [("the colleague's ring cost: whole buffer every step", _EX3_BUGGY),
                           ("one phase only", _EX3_ONE_PHASE)],
    "ex4_zero3": [("keeps the gathered weight for backward", _EX4_KEEPS_WEIGHT),
                  ("sums gradients over ranks instead of averaging", _EX4_SUMS),
                  ("shortcut: differentiable all_gather, autograd does the backward", _EX4_SHORTCUT_AUTOGRAD_GATHER)],
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
