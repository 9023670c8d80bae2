"""Blind set for notebooks/senior/06_sharding_and_parallelism.ipynb, written from release/ alone (issue 33)."""

SHORTCUT = {
    "ex2_zero1": ("wraps torch.optim.Adam in ZeroRedundancyOptimizer", '''
def zero1_init(params, rank, world_size):
    from torch.distributed.optim import ZeroRedundancyOptimizer

    return {"zero": ZeroRedundancyOptimizer(params, optimizer_class=torch.optim.Adam, lr=1e-3)}


@torch.no_grad()
def zero1_step(params, state, lr, rank, world_size):
    for group in state["zero"].param_groups:
        group["lr"] = lr
    state["zero"].step()
'''),
}

WRONG = {
    "ex1_zero_memory": ("floor division: N / W is cut to a whole number", '''
def zero_bytes_per_rank(n_params, world_size, stage, param_bytes=2, grad_bytes=2, optim_bytes=12):
    p = n_params * param_bytes if stage < 3 else n_params * param_bytes // world_size
    g = n_params * grad_bytes if stage < 2 else n_params * grad_bytes // world_size
    o = n_params * optim_bytes if stage < 1 else n_params * optim_bytes // world_size
    return p + g + o
'''),
    "ex2_zero1": ("Adam without bias correction", '''
def zero1_init(params, rank, world_size):
    n = sum(p.numel() for p in params)
    size = math.ceil(n / world_size)
    dev = params[0].device
    return {"m": torch.zeros(size, device=dev), "v": torch.zeros(size, device=dev), "t": 0, "n": n, "size": size}


@torch.no_grad()
def zero1_step(params, state, lr, rank, world_size):
    n, size = state["n"], state["size"]
    pad = size * world_size - n
    flat = F.pad(torch.cat([p.reshape(-1) for p in params]), (0, pad))
    grad = F.pad(torch.cat([p.grad.reshape(-1) for p in params]), (0, pad))
    lo, hi = rank * size, (rank + 1) * size
    state["t"] += 1
    state["m"].mul_(0.9).add_(grad[lo:hi], alpha=0.1)
    state["v"].mul_(0.999).addcmul_(grad[lo:hi], grad[lo:hi], value=0.001)
    mine = flat[lo:hi] - lr * state["m"] / (state["v"].sqrt() + 1e-8)
    parts = [torch.empty_like(mine) for _ in range(world_size)]
    dist.all_gather(parts, mine.contiguous())
    full = torch.cat(parts)[:n]
    offset = 0
    for p in params:
        p.copy_(full[offset:offset + p.numel()].view_as(p))
        offset += p.numel()
'''),
    "ex3_tp_shards": ("every rank keeps fc2's bias, so the sum adds it W times", '''
def shard_mlp(fc1, fc2, world_size):
    w1s, b1s = fc1.weight.detach().chunk(world_size, 0), fc1.bias.detach().chunk(world_size, 0)
    w2s = fc2.weight.detach().chunk(world_size, 1)
    return [{"w1": w1s[r].clone(), "b1": b1s[r].clone(), "w2": w2s[r].clone(), "b2": fc2.bias.detach().clone()}
            for r in range(world_size)]


def tp_partial(x, shard):
    return F.linear(F.gelu(F.linear(x, shard["w1"], shard["b1"])), shard["w2"], shard["b2"])
'''),
    "ex4_tp_dist": ("the library's differentiable all_reduce: its backward all-reduces too, W times the gradient", '''
def tp_forward(x, shard):
    import torch.distributed.nn.functional as dist_fn

    return dist_fn.all_reduce(tp_partial(x, shard))
'''),
    "ex5_pipeline": ("sums the micro-batch losses: every gradient m times too large", '''
def gpipe_forward_backward(stages, x, y, n_micro):
    xs, ys = list(x.chunk(n_micro)), list(y.chunk(n_micro))
    acts, schedule = list(xs), []
    p = len(stages)
    for t in range(n_micro + p - 1):
        tick = []
        for s in range(p):
            if 0 <= t - s < n_micro:
                acts[t - s] = stages[s](acts[t - s])
                tick.append((s, t - s))
        schedule.append(tick)
    total = sum(F.mse_loss(a, b) for a, b in zip(acts, ys))
    total.backward()
    return total.item() / n_micro, schedule
'''),
    "ex6_bubble": ("reads '10% or less' as strictly less than 10%", '''
def bubble_fraction(n_stages, n_micro):
    return (n_stages - 1) / (n_micro + n_stages - 1)


MIN_MICRO_FOR_10PCT = 28
'''),
}

ALT = {
    "ex1_zero_memory": '''
def zero_bytes_per_rank(n_params, world_size, stage, param_bytes=2, grad_bytes=2, optim_bytes=12):
    terms = [(optim_bytes, 1), (grad_bytes, 2), (param_bytes, 3)]  # (bytes, first stage that shards it)
    return sum(n_params * b / (world_size if stage >= first else 1) for b, first in terms)
''',
    "ex2_zero1": '''
def zero1_init(params, rank, world_size):
    n = sum(p.numel() for p in params)
    size = math.ceil(n / world_size)
    flat = F.pad(torch.cat([p.detach().reshape(-1) for p in params]), (0, size * world_size - n))
    shard = flat[rank * size:(rank + 1) * size].clone()  # held by the optimizer only
    return {"opt": torch.optim.Adam([shard], lr=1e-3), "n": n, "size": size}


@torch.no_grad()
def zero1_step(params, state, lr, rank, world_size):
    opt, n, size = state["opt"], state["n"], state["size"]
    shard = opt.param_groups[0]["params"][0]
    grads = F.pad(torch.cat([p.grad.reshape(-1) for p in params]), (0, size * world_size - n))
    shard.grad = grads[rank * size:(rank + 1) * size].clone()
    opt.param_groups[0]["lr"] = lr
    opt.step()
    shard.grad = None
    gathered = [torch.empty_like(shard) for _ in range(world_size)]
    dist.all_gather(gathered, shard.contiguous())
    full = torch.cat(gathered)[:n]
    for p, piece in zip(params, full.split([p.numel() for p in params])):
        p.copy_(piece.view_as(p))
''',
    "ex3_tp_shards": '''
def shard_mlp(fc1, fc2, world_size):
    hidden = fc1.weight.shape[0]
    size = hidden // world_size
    shards = []
    for r in range(world_size):
        rows = slice(r * size, (r + 1) * size)
        shards.append({"w1": fc1.weight.detach()[rows].clone(), "b1": fc1.bias.detach()[rows].clone(),
                       "w2": fc2.weight.detach()[:, rows].clone(),
                       "b2": fc2.bias.detach().clone() / world_size})  # W shares that add up to one bias
    return shards


def tp_partial(x, shard):
    return F.gelu(x @ shard["w1"].T + shard["b1"]) @ shard["w2"].T + shard["b2"]
''',
    "ex4_tp_dist": '''
def tp_forward(x, shard):
    partial = tp_partial(x, shard)
    total = partial.detach().clone()
    dist.all_reduce(total)
    return partial + (total - partial).detach()  # the value of the sum, the gradient of the identity
''',
    "ex5_pipeline": '''
def gpipe_forward_backward(stages, x, y, n_micro):
    xs, ys = x.chunk(n_micro), y.chunk(n_micro)
    acts = dict(enumerate(xs))
    p = len(stages)
    schedule = []
    for t in range(n_micro + p - 1):
        ran = []
        for s in reversed(range(p)):  # last stage first, as a real pipeline hands activations on
            mb = t - s
            if 0 <= mb < n_micro:
                acts[mb] = stages[s](acts[mb])
                ran.append((s, mb))
        schedule.append(ran)
    loss = 0.0
    for mb in reversed(range(n_micro)):
        part = F.mse_loss(acts[mb], ys[mb]) / n_micro
        part.backward()
        loss += part.item()
    return float(loss), schedule
''',
    "ex6_bubble": '''
import itertools


def bubble_fraction(n_stages, n_micro):
    busy = n_micro / (n_micro + n_stages - 1)
    return 1.0 - busy


MIN_MICRO_FOR_10PCT = next(m for m in itertools.count(1) if bubble_fraction(4, m) <= 0.1 + 1e-12)
''',
}
