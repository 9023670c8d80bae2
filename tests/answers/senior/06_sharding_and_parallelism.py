"""Known-wrong and alternative answers for senior/06_sharding_and_parallelism."""

_EX1_STAGE2_PARAMS = '''def zero_bytes_per_rank(n_params, world_size, stage, param_bytes=2, grad_bytes=2, optim_bytes=12):
    # confuses the stages: shards parameters already at stage 2
    p = n_params * param_bytes / (world_size if stage >= 2 else 1)
    g = n_params * grad_bytes / (world_size if stage >= 2 else 1)
    o = n_params * optim_bytes / (world_size if stage >= 1 else 1)
    return p + g + o
'''

_EX1_STAGE1_GRADS = '''def zero_bytes_per_rank(n_params, world_size, stage, param_bytes=2, grad_bytes=2, optim_bytes=12):
    # shards gradients already at stage 1
    p = n_params * param_bytes / (world_size if stage >= 3 else 1)
    g = n_params * grad_bytes / (world_size if stage >= 1 else 1)
    o = n_params * optim_bytes / (world_size if stage >= 1 else 1)
    return p + g + o
'''

_EX1_ALT = '''def zero_bytes_per_rank(n_params, world_size, stage, param_bytes=2, grad_bytes=2, optim_bytes=12):
    sharded = {0: (), 1: ("optim",), 2: ("optim", "grad"), 3: ("optim", "grad", "param")}[stage]
    total = 0.0
    for name, nbytes in (("param", param_bytes), ("grad", grad_bytes), ("optim", optim_bytes)):
        total += n_params * nbytes / world_size if name in sharded else n_params * nbytes
    return total
'''

_EX2_NO_GATHER = '''def zero1_init(params, rank, world_size):
    n = sum(p.numel() for p in params)
    per = -(-n // world_size)
    dev = params[0].device
    return {"m": torch.zeros(per, device=dev), "v": torch.zeros(per, device=dev), "t": 0, "n": n, "per": per}


@torch.no_grad()
def zero1_step(params, state, lr, rank, world_size):
    # updates its own slice in place but never all-gathers the other ranks' slices
    b1, b2, eps = 0.9, 0.999, 1e-8
    n, per = state["n"], state["per"]
    lo, hi = rank * per, min((rank + 1) * per, n)
    flat_g = torch.cat([p.grad.reshape(-1) for p in params])
    flat_p = torch.cat([p.reshape(-1) for p in params])
    g = flat_g[lo:hi]
    state["t"] += 1
    t = state["t"]
    m, v = state["m"][: hi - lo], state["v"][: hi - lo]
    m.mul_(b1).add_(g, alpha=1 - b1)
    v.mul_(b2).addcmul_(g, g, value=1 - b2)
    flat_p[lo:hi] -= lr * (m / (1 - b1 ** t)) / ((v / (1 - b2 ** t)).sqrt() + eps)
    offset = 0
    for q in params:
        q.copy_(flat_p[offset:offset + q.numel()].view_as(q))
        offset += q.numel()
'''

_EX2_FULL_STATE = '''def zero1_init(params, rank, world_size):
    # not sharded at all: every rank keeps Adam's state for every parameter
    return {"opt": torch.optim.Adam(params, lr=0.05)}


def zero1_step(params, state, lr, rank, world_size):
    for group in state["opt"].param_groups:
        group["lr"] = lr
    state["opt"].step()
'''

_EX2_ALT = '''def zero1_init(params, rank, world_size):
    # an ordinary torch.optim.Adam that only ever sees this rank's slice (fp32 master copy of the slice)
    n = sum(p.numel() for p in params)
    bounds = [0]
    for piece in torch.arange(n).tensor_split(world_size):
        bounds.append(bounds[-1] + piece.numel())
    lo, hi = bounds[rank], bounds[rank + 1]
    with torch.no_grad():
        master = torch.cat([p.detach().reshape(-1) for p in params])[lo:hi].clone()
    master.requires_grad_(True)
    return {"master": master, "opt": torch.optim.Adam([master], lr=0.05), "bounds": bounds}


def zero1_step(params, state, lr, rank, world_size):
    bounds = state["bounds"]
    lo, hi = bounds[rank], bounds[rank + 1]
    master, opt = state["master"], state["opt"]
    for group in opt.param_groups:
        group["lr"] = lr
    master.grad = torch.cat([p.grad.reshape(-1) for p in params])[lo:hi].clone()
    opt.step()
    width = max(b - a for a, b in zip(bounds[:-1], bounds[1:]))
    with torch.no_grad():
        mine = torch.zeros(width, device=master.device)
        mine[: hi - lo] = master
        pieces = [torch.empty_like(mine) for _ in range(world_size)]
        dist.all_gather(pieces, mine)
        full = torch.cat([pieces[r][: bounds[r + 1] - bounds[r]] for r in range(world_size)])
        offset = 0
        for q in params:
            q.copy_(full[offset:offset + q.numel()].view_as(q))
            offset += q.numel()
'''

_EX3_BIAS_EVERYWHERE = '''def shard_mlp(fc1, fc2, world_size):
    w1s = fc1.weight.detach().chunk(world_size, dim=0)
    b1s = fc1.bias.detach().chunk(world_size, dim=0)
    w2s = fc2.weight.detach().chunk(world_size, dim=1)
    return [{"w1": w1s[r], "b1": b1s[r], "w2": w2s[r], "b2": fc2.bias.detach()} for r in range(world_size)]


def tp_partial(x, shard):
    return F.gelu(x @ shard["w1"].T + shard["b1"]) @ shard["w2"].T + shard["b2"]
'''

_EX3_WRONG_DIM = '''def shard_mlp(fc1, fc2, world_size):
    # splits fc2 by output features too: each rank computes a different slice of the wrong thing
    w1s = fc1.weight.detach().chunk(world_size, dim=0)
    b1s = fc1.bias.detach().chunk(world_size, dim=0)
    w2s = fc2.weight.detach().chunk(world_size, dim=0)
    b2s = fc2.bias.detach().chunk(world_size, dim=0)
    return [{"w1": w1s[r], "b1": b1s[r], "w2": w2s[r], "b2": b2s[r]} for r in range(world_size)]


def tp_partial(x, shard):
    h = F.gelu(x @ shard["w1"].T + shard["b1"])
    return h @ shard["w2"].T[: h.shape[1]] + shard["b2"]
'''

_EX3_ALT = '''def shard_mlp(fc1, fc2, world_size):
    hidden = fc1.out_features
    per = hidden // world_size
    shards = []
    for r in range(world_size):
        rows = slice(r * per, (r + 1) * per)
        shards.append({"w1": fc1.weight.detach()[rows].clone(), "b1": fc1.bias.detach()[rows].clone(),
                       "w2": fc2.weight.detach()[:, rows].clone(),
                       "b2": fc2.bias.detach() / world_size})  # bias split evenly: still added once in total
    return shards


def tp_partial(x, shard):
    return F.linear(F.gelu(F.linear(x, shard["w1"], shard["b1"])), shard["w2"], shard["b2"])
'''

_EX4_SUM_BACKWARD = '''def tp_forward(x, shard):
    import torch.distributed.nn.functional as dist_nn
    return dist_nn.all_reduce(tp_partial(x, shard))
'''

_EX4_DETACHED = '''def tp_forward(x, shard):
    out = tp_partial(x, shard).detach().clone()
    dist.all_reduce(out)
    return out
'''

_EX4_ALT = '''def tp_forward(x, shard):
    # straight-through trick: forward value is the sum, gradient flows to the local partial unchanged
    local = tp_partial(x, shard)
    total = local.detach().clone()
    dist.all_reduce(total)
    return local + (total - local).detach()
'''

_EX5_SUM_LOSS = '''def gpipe_forward_backward(stages, x, y, n_micro):
    p = len(stages)
    acts, targets = list(x.chunk(n_micro)), list(y.chunk(n_micro))
    schedule = []
    for t in range(n_micro + p - 1):
        tick = []
        for s in range(p):
            i = t - s
            if 0 <= i < n_micro:
                acts[i] = stages[s](acts[i])
                tick.append((s, i))
        schedule.append(tick)
    losses = [F.mse_loss(o, g) for o, g in zip(acts, targets)]
    for loss in losses:
        loss.backward()  # forgets to divide by the number of micro-batches
    return torch.stack([l.detach() for l in losses]).mean().item(), schedule
'''

# Runs each micro-batch through all stages before the next (no pipelining) and writes the GPipe schedule from
# the formula: the values and the returned schedule are right, the order the stages ran in is not (S-06.3).
_EX5_SEQUENTIAL = '''def gpipe_forward_backward(stages, x, y, n_micro):
    p = len(stages)
    total = 0.0
    for xb, yb in zip(x.chunk(n_micro), y.chunk(n_micro)):
        loss = F.mse_loss(nn.Sequential(*stages)(xb), yb) / n_micro
        loss.backward()
        total += loss.item()
    schedule = [[(s, t - s) for s in range(p) if 0 <= t - s < n_micro] for t in range(n_micro + p - 1)]
    return total, schedule
'''

_EX2_ZERO_OPTIMIZER = '''def zero1_init(params, rank, world_size):
    from torch.distributed.optim import ZeroRedundancyOptimizer
    return {"opt": ZeroRedundancyOptimizer(params, optimizer_class=torch.optim.Adam, lr=1e-3)}


def zero1_step(params, state, lr, rank, world_size):
    for group in state["opt"].param_groups:
        group["lr"] = lr
    state["opt"].step()
'''

_EX5_TENSOR_LOSS = '''def gpipe_forward_backward(stages, x, y, n_micro):
    p = len(stages)
    acts, targets = list(x.chunk(n_micro)), list(y.chunk(n_micro))
    schedule = []
    for t in range(n_micro + p - 1):
        tick = []
        for s in range(p):
            i = t - s
            if 0 <= i < n_micro:
                acts[i] = stages[s](acts[i])
                tick.append((s, i))
        schedule.append(tick)
    loss = torch.stack([F.mse_loss(o, g) for o, g in zip(acts, targets)]).mean()
    loss.backward()
    return loss, schedule  # a tensor, not the float the docstring asks for
'''

# Tick by tick like the reference, but the last stage runs first within a tick (as if each stage handed its output
# on at the end of the tick), and the loss is a summed MSE divided by the element count.
_EX5_ALT = '''def gpipe_forward_backward(stages, x, y, n_micro):
    p = len(stages)
    xs, ys = x.chunk(n_micro), y.chunk(n_micro)
    acts = dict(enumerate(xs))
    schedule = []
    for t in range(n_micro + p - 1):
        ran = []
        for s in reversed(range(p)):
            i = t - s
            if 0 <= i < n_micro:
                acts[i] = stages[s](acts[i])
                ran.append((s, i))
        schedule.append(ran)
    n = x.shape[0]
    loss = sum(F.mse_loss(acts[i], ys[i], reduction="sum") for i in range(n_micro)) / (n * y.shape[1])
    loss.backward()
    return loss.item(), schedule
'''

_EX6_RATIO = '''def bubble_fraction(n_stages, n_micro):
    return (n_stages - 1) / n_micro


MIN_MICRO_FOR_10PCT = 30
'''

_EX6_ALT = '''def bubble_fraction(n_stages, n_micro):
    total_ticks = n_micro + n_stages - 1
    return 1 - n_micro / total_ticks


MIN_MICRO_FOR_10PCT = next(m for m in range(1, 10_000) if bubble_fraction(4, m) <= 0.1 + 1e-12)
'''

WRONG = {
    "ex1_zero_memory": [("shards parameters at stage 2", _EX1_STAGE2_PARAMS),
                        ("shards gradients at stage 1", _EX1_STAGE1_GRADS)],
    "ex2_zero1": [("updates its own slice but never all-gathers", _EX2_NO_GATHER),
                  ("keeps the full Adam state on every rank", _EX2_FULL_STATE),
                  ("shortcut: torch.distributed.optim.ZeroRedundancyOptimizer", _EX2_ZERO_OPTIMIZER)],
    "ex3_tp_shards": [("adds the row-parallel bias on every rank", _EX3_BIAS_EVERYWHERE),
                      ("splits fc2 along the wrong dimension", _EX3_WRONG_DIM)],
    "ex4_tp_dist": [("differentiable all-reduce that sums gradients: W times too large", _EX4_SUM_BACKWARD),
                    ("all-reduces a detached tensor: no gradient reaches the shard", _EX4_DETACHED)],
    "ex5_pipeline": [("sums micro-batch losses instead of averaging", _EX5_SUM_LOSS),
                     ("no pipelining: one micro-batch through all stages at a time, the GPipe schedule written from the formula", _EX5_SEQUENTIAL),
                     ("returns the loss as a tensor, not a Python float", _EX5_TENSOR_LOSS)],
    "ex6_bubble": [("idle/busy ratio instead of idle fraction", _EX6_RATIO)],
}

ALT = {
    "ex1_zero_memory": _EX1_ALT,
    "ex2_zero1": _EX2_ALT,
    "ex3_tp_shards": _EX3_ALT,
    "ex4_tp_dist": _EX4_ALT,
    "ex5_pipeline": _EX5_ALT,
    "ex6_bubble": _EX6_ALT,
}
