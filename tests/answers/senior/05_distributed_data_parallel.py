"""Known-wrong and alternative answers for senior/05_distributed_data_parallel."""

from functools import partial

from tests.answers.senior import edited, reference

_ref = partial(reference, "senior/05_distributed_data_parallel")

_EX1_NO_EPOCH = edited(_ref("ex1_partition"), "        sampler.set_epoch(epoch)\n")
_EX1_SEED_RANK = edited(_ref("ex1_partition"), "seed=seed)", "seed=seed + rank)")

_EX2_WRONG = '''PER_RANK = 10 // 4
VISITED_TWICE = 0
'''

_EX3_NO_DDP = edited(edited(_ref("ex3_ddp"), """    dev = next(model.parameters()).device
    ddp = DDP(model, device_ids=[dev.index] if dev.type == "cuda" else None)
"""), "ddp(x)", "model(x)")
_EX3_SUM = edited(_ref("ex3_ddp"), "F.mse_loss(ddp(x), y)", 'F.mse_loss(ddp(x), y, reduction="sum")')

_EX4_NO_NOSYNC = edited(_ref("ex4_no_sync"), """    for x, y in micro_batches[:-1]:
        with ddp_model.no_sync():
            (F.mse_loss(ddp_model(x), y) / k).backward()
    x, y = micro_batches[-1]
    (F.mse_loss(ddp_model(x), y) / k).backward()""", """    for x, y in micro_batches:
        (F.mse_loss(ddp_model(x), y) / k).backward()""")
# One forward and one backward over the concatenated micro-batches: right gradients and one all-reduce, but it
# needs the memory of the whole batch, which accumulation exists to avoid (review finding S-05.7).
_EX4_CONCAT = '''def accumulate_no_sync(ddp_model, micro_batches):
    x = torch.cat([xb for xb, _ in micro_batches])
    y = torch.cat([yb for _, yb in micro_batches])
    F.mse_loss(ddp_model(x), y).backward()
'''

_EX4_NO_SCALE = edited(edited(edited(_ref("ex4_no_sync"), "    k = len(micro_batches)\n"),
                              "            (F.mse_loss(ddp_model(x), y) / k).backward()",
                              "            F.mse_loss(ddp_model(x), y).backward()"),
                       "\n    (F.mse_loss(ddp_model(x), y) / k).backward()", "\n    F.mse_loss(ddp_model(x), y).backward()")

_EX5_NO_GATHER = edited(_ref("ex5_collectives"), """    # all-gather: pass the finished chunks around the ring
    for step in range(world_size - 1):
        send_i, recv_i = (rank - step + 1) % world_size, (rank - step) % world_size
        buf = torch.empty_like(chunks[recv_i])
        req = dist.isend(chunks[send_i].contiguous(), right)
        dist.recv(buf, left)
        req.wait()
        chunks[recv_i].copy_(buf)
""")
_EX6_NO_BARRIER = edited(_ref("ex5_collectives"), "    dist.barrier()\n")
_EX6_NO_BCAST = edited(_ref("ex5_collectives"), """    t = torch.tensor([local_seed], dtype=torch.int64, device=device)
    dist.broadcast(t, src=0)
    return int(t.item())""", """    return int(local_seed)""")

# The shortcut the statement switches off (issue 33): dist.all_reduce itself.
_EX5_SHORTCUT = _ref("ex5_collectives") + '''


def ring_all_reduce(tensor, rank, world_size):
    out = tensor.detach().clone()
    dist.all_reduce(out)
    return out
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

_EX2_ALT = '''import math
PER_RANK = math.ceil(10 / 4)
VISITED_TWICE = PER_RANK * 4 - 10
'''

_EX3_ALT = '''def ddp_gradients(model, x, y, rank, world_size):
    # what DDP does, by hand: local backward on this rank's shard, then average every gradient
    F.mse_loss(model(x), y).backward()
    out = {}
    for n, p in model.named_parameters():
        g = p.grad.detach().clone()
        dist.all_reduce(g)
        out[n] = g / world_size
    return out
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

WRONG = {
    "ex1_partition": [("forgets set_epoch: every epoch has the same order", _EX1_NO_EPOCH),
                      ("seeds each rank differently: the shards overlap", _EX1_SEED_RANK)],
    "ex2_predict": [("floor division and no padding", _EX2_WRONG)],
    "ex3_ddp": [("no DDP: each rank keeps its local gradient", _EX3_NO_DDP),
                ("sum loss: DDP averages, so the scale is off", _EX3_SUM)],
    "ex4_no_sync": [("no no_sync: all-reduces on every micro-batch", _EX4_NO_NOSYNC),
                    ("forgets the 1/K scaling", _EX4_NO_SCALE),
                    ("one forward over the concatenated micro-batches", _EX4_CONCAT)],
    "ex5_collectives": [("shortcut: calls dist.all_reduce", _EX5_SHORTCUT),
                        ("reduce-scatter without the all-gather", _EX5_NO_GATHER),
                        ("no barrier: rank 1 reads before rank 0 wrote", _EX6_NO_BARRIER),
                        ("no broadcast: ranks keep their own seed", _EX6_NO_BCAST)],
}

ALT = {
    "ex1_partition": _EX1_ALT,
    "ex2_predict": _EX2_ALT,
    "ex3_ddp": _EX3_ALT,
    "ex4_no_sync": _EX4_ALT,
    "ex5_collectives": _EX5_ALT + "\n\n" + _EX6_ALT,
}

# issue 33 (blind set): dist.all_reduce is the same function as torch.distributed.distributed_c10d.all_reduce;
# switching off only the first name left the second one open.
WRONG["ex5_collectives"].append(("shortcut: all_reduce reached through torch.distributed.distributed_c10d",
                                 _ref("ex5_collectives") + '''


def ring_all_reduce(tensor, rank, world_size):
    from torch.distributed import distributed_c10d

    out = tensor.detach().clone()
    distributed_c10d.all_reduce(out)
    return out
'''))
