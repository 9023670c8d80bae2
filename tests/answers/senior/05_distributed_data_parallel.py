"""Known-wrong and alternative answers for senior/05_distributed_data_parallel."""

_EX1_NO_EPOCH = '''from torch.utils.data import DistributedSampler


def epoch_partition(n, world_size, epoch, seed=0):
    parts = []
    for rank in range(world_size):
        sampler = DistributedSampler(range(n), num_replicas=world_size, rank=rank, shuffle=True, seed=seed)
        parts.append(list(sampler))
    return parts
'''

_EX1_SEED_RANK = '''from torch.utils.data import DistributedSampler


def epoch_partition(n, world_size, epoch, seed=0):
    parts = []
    for rank in range(world_size):
        sampler = DistributedSampler(range(n), num_replicas=world_size, rank=rank, shuffle=True, seed=seed + rank)
        sampler.set_epoch(epoch)
        parts.append(list(sampler))
    return parts
'''

_EX1_ALT = '''import math

from torch.utils.data import DistributedSampler


def epoch_partition(n, world_size, epoch, seed=0):
    # the sampler's algorithm by hand: one shared permutation, padded, then strided slices
    g = torch.Generator()
    g.manual_seed(seed + epoch)
    order = torch.randperm(n, generator=g).tolist()
    total = math.ceil(n / world_size) * world_size
    pad = total - n
    while len(order) < total:
        order += order[: total - len(order)]
    return [order[r:total:world_size] for r in range(world_size)]
'''

_EX2_WRONG = '''PER_RANK = 10 // 4
VISITED_TWICE = 0
'''

_EX2_ALT = '''import math
PER_RANK = math.ceil(10 / 4)
VISITED_TWICE = PER_RANK * 4 - 10
'''

_EX3_NO_DDP = '''def ddp_gradients(model, x, y, rank, world_size):
    xs, ys = x.chunk(world_size)[rank], y.chunk(world_size)[rank]
    F.mse_loss(model(xs), ys).backward()
    return {n: p.grad.detach().clone() for n, p in model.named_parameters()}
'''

_EX3_SUM = '''def ddp_gradients(model, x, y, rank, world_size):
    dev = next(model.parameters()).device
    ddp = DDP(model, device_ids=[dev.index] if dev.type == "cuda" else None)
    xs, ys = x.chunk(world_size)[rank], y.chunk(world_size)[rank]
    F.mse_loss(ddp(xs), ys, reduction="sum").backward()
    return {n: p.grad.detach().clone() for n, p in model.named_parameters()}
'''

_EX3_ALT = '''def ddp_gradients(model, x, y, rank, world_size):
    # what DDP does, by hand: local backward on a strided shard, then average every gradient
    xs, ys = x[rank::world_size], y[rank::world_size]
    F.mse_loss(model(xs), ys).backward()
    out = {}
    for n, p in model.named_parameters():
        g = p.grad.detach().clone()
        dist.all_reduce(g)
        out[n] = g / world_size
    return out
'''

_EX4_NO_NOSYNC = '''def accumulate_no_sync(ddp_model, micro_batches):
    k = len(micro_batches)
    for x, y in micro_batches:
        (F.mse_loss(ddp_model(x), y) / k).backward()
'''

_EX4_NO_SCALE = '''def accumulate_no_sync(ddp_model, micro_batches):
    for x, y in micro_batches[:-1]:
        with ddp_model.no_sync():
            F.mse_loss(ddp_model(x), y).backward()
    x, y = micro_batches[-1]
    F.mse_loss(ddp_model(x), y).backward()
'''

_EX4_ALT = '''def accumulate_no_sync(ddp_model, micro_batches):
    import contextlib  # shipped to the workers on its own: import inside the function
    n_total = sum(x.shape[0] for x, _ in micro_batches)
    for i, (x, y) in enumerate(micro_batches):
        last = i == len(micro_batches) - 1
        ctx = contextlib.nullcontext() if last else ddp_model.no_sync()
        with ctx:
            loss = F.mse_loss(ddp_model(x), y, reduction="sum") / n_total
            loss.backward()
'''

_EX5_NO_GATHER = '''def ring_all_reduce(tensor, rank, world_size):
    flat = tensor.detach().reshape(-1).clone()
    chunks = list(flat.tensor_split(world_size))
    right, left = (rank + 1) % world_size, (rank - 1) % world_size
    for step in range(world_size - 1):
        send_i, recv_i = (rank - step) % world_size, (rank - step - 1) % world_size
        buf = torch.empty_like(chunks[recv_i])
        req = dist.isend(chunks[send_i].contiguous(), right)
        dist.recv(buf, left)
        req.wait()
        chunks[recv_i] += buf
    return torch.cat(chunks).reshape(tensor.shape)
'''

_EX5_ALT = '''def ring_all_reduce(tensor, rank, world_size):
    # reduce-scatter + all-gather with the collectives; pad so the chunks are equal
    flat = tensor.detach().reshape(-1)
    n = flat.numel()
    per = -(-n // world_size)
    padded = torch.zeros(per * world_size, dtype=flat.dtype, device=flat.device)
    padded[:n] = flat
    mine = torch.empty(per, dtype=flat.dtype, device=flat.device)
    dist.reduce_scatter(mine, list(padded.chunk(world_size)))
    parts = [torch.empty_like(mine) for _ in range(world_size)]
    dist.all_gather(parts, mine)
    return torch.cat(parts)[:n].reshape(tensor.shape)
'''

_EX6_NO_BCAST = '''def agree_on_seed(local_seed, device):
    return int(local_seed)


def publish_then_read(path, rank, payload):
    if rank == 0:
        torch.save(payload, path)
    dist.barrier()
    return torch.load(path)
'''

_EX6_NO_BARRIER = '''def agree_on_seed(local_seed, device):
    t = torch.tensor([local_seed], dtype=torch.int64, device=device)
    dist.broadcast(t, src=0)
    return int(t.item())


def publish_then_read(path, rank, payload):
    if rank == 0:
        torch.save(payload, path)
    return torch.load(path)
'''

_EX6_ALT = '''def agree_on_seed(local_seed, device):
    box = [local_seed]
    if device.type == "cuda":
        dist.broadcast_object_list(box, src=0, device=device)
    else:
        dist.broadcast_object_list(box, src=0)
    return int(box[0])


def publish_then_read(path, rank, payload):
    if rank == 0:
        torch.save(payload, path)
    # any collective synchronizes: nobody leaves the all-reduce before rank 0 has entered it
    done = torch.ones(1)
    dist.all_reduce(done)
    return torch.load(path)
'''

_EX5_REF_RING = '''def ring_all_reduce(tensor, rank, world_size):
    flat = tensor.detach().reshape(-1).clone()
    chunks = list(flat.tensor_split(world_size))
    right, left = (rank + 1) % world_size, (rank - 1) % world_size
    for step in range(world_size - 1):
        send_i, recv_i = (rank - step) % world_size, (rank - step - 1) % world_size
        buf = torch.empty_like(chunks[recv_i])
        req = dist.isend(chunks[send_i].contiguous(), right)
        dist.recv(buf, left)
        req.wait()
        chunks[recv_i] += buf
    for step in range(world_size - 1):
        send_i, recv_i = (rank - step + 1) % world_size, (rank - step) % world_size
        buf = torch.empty_like(chunks[recv_i])
        req = dist.isend(chunks[send_i].contiguous(), right)
        dist.recv(buf, left)
        req.wait()
        chunks[recv_i].copy_(buf)
    return torch.cat(chunks).reshape(tensor.shape)
'''

_EX6_REF = '''def agree_on_seed(local_seed, device):
    t = torch.tensor([local_seed], dtype=torch.int64, device=device)
    dist.broadcast(t, src=0)
    return int(t.item())


def publish_then_read(path, rank, payload):
    if rank == 0:
        torch.save(payload, path)
    dist.barrier()
    return torch.load(path)
'''

WRONG = {
    "ex1_partition": [("forgets set_epoch: every epoch has the same order", _EX1_NO_EPOCH),
                      ("seeds each rank differently: the shards overlap", _EX1_SEED_RANK)],
    "ex2_predict": [("floor division and no padding", _EX2_WRONG)],
    "ex3_ddp": [("no DDP: each rank keeps its local gradient", _EX3_NO_DDP),
                ("sum loss: DDP averages, so the scale is off", _EX3_SUM)],
    "ex4_no_sync": [("no no_sync: all-reduces on every micro-batch", _EX4_NO_NOSYNC),
                    ("forgets the 1/K scaling", _EX4_NO_SCALE)],
    "ex5_collectives": [("reduce-scatter without the all-gather", _EX5_NO_GATHER + "\n\n" + _EX6_REF),
                        ("no barrier: rank 1 reads before rank 0 wrote", _EX5_REF_RING + "\n\n" + _EX6_NO_BARRIER),
                        ("no broadcast: ranks keep their own seed", _EX5_REF_RING + "\n\n" + _EX6_NO_BCAST)],
}

ALT = {
    "ex1_partition": _EX1_ALT,
    "ex2_predict": _EX2_ALT,
    "ex3_ddp": _EX3_ALT,
    "ex4_no_sync": _EX4_ALT,
    "ex5_collectives": _EX5_ALT + "\n\n" + _EX6_ALT,
}
