"""Blind set for notebooks/senior/05_distributed_data_parallel.ipynb, written from release/ alone (issue 33)."""

_SEED_AND_FILE = '''

def agree_on_seed(local_seed, device):
    t = torch.tensor([local_seed], dtype=torch.int64, device=device)
    dist.broadcast(t, src=0)
    return int(t.item())


def publish_then_read(path, rank, payload):
    if rank == 0:
        torch.save(payload, path)
    dist.barrier()
    return torch.load(path)
'''

SHORTCUT = {
    "ex5_collectives": ("reaches the switched-off all_reduce through torch.distributed.distributed_c10d", '''
def ring_all_reduce(tensor, rank, world_size):
    from torch.distributed import distributed_c10d

    out = tensor.clone()
    distributed_c10d.all_reduce(out)
    return out
''' + _SEED_AND_FILE),
}

WRONG = {
    "ex1_partition": ("a strided split of a permutation of its own, not DistributedSampler's", '''
import random

from torch.utils.data import DistributedSampler


def epoch_partition(n, world_size, epoch, seed=0):
    order = list(range(n))
    random.Random(seed + epoch).shuffle(order)
    per_rank = -(-n // world_size)
    order += order[:per_rank * world_size - n]
    return [order[r::world_size] for r in range(world_size)]
'''),
    "ex2_predict": ("rounds n / world_size down, as if the tail were dropped", '''
PER_RANK = 2
VISITED_TWICE = 0
'''),
    "ex3_ddp": ("a summed loss: DDP's average is then off by the shard size", '''
def ddp_gradients(model, x, y, rank, world_size):
    dev = next(model.parameters()).device
    ddp = DDP(model, device_ids=[dev.index] if dev.type == "cuda" else None)
    F.mse_loss(ddp(x), y, reduction="sum").backward()
    return {n: p.grad.detach().clone() for n, p in model.named_parameters()}
'''),
    "ex4_no_sync": ("skips the extra all-reduces but does not divide by the number of micro-batches", '''
def accumulate_no_sync(ddp_model, micro_batches):
    for x, y in micro_batches[:-1]:
        with ddp_model.no_sync():
            F.mse_loss(ddp_model(x), y).backward()
    x, y = micro_batches[-1]
    F.mse_loss(ddp_model(x), y).backward()
'''),
    "ex5_collectives": ("sums into the caller's tensor in place and returns it", '''
def ring_all_reduce(tensor, rank, world_size):
    gathered = [torch.empty_like(tensor) for _ in range(world_size)]
    dist.all_gather(gathered, tensor.contiguous())
    for r, t in enumerate(gathered):
        if r != rank:
            tensor += t
    return tensor
''' + _SEED_AND_FILE),
}

ALT = {
    "ex1_partition": '''
from torch.utils.data import DistributedSampler


def epoch_partition(n, world_size, epoch, seed=0):
    parts = []
    for r in range(world_size):
        sampler = DistributedSampler(list(range(n)), num_replicas=world_size, rank=r, shuffle=True, seed=seed)
        sampler.set_epoch(epoch)
        parts.append([int(i) for i in iter(sampler)])
    return parts
''',
    "ex2_predict": '''
_n, _w = 10, 4
PER_RANK = -(-_n // _w)
VISITED_TWICE = PER_RANK * _w - _n
''',
    "ex3_ddp": '''
def ddp_gradients(model, x, y, rank, world_size):
    dev = next(model.parameters()).device
    wrapped = DDP(model) if dev.type != "cuda" else DDP(model, device_ids=[dev.index])
    loss = ((wrapped(x) - y) ** 2).mean()
    loss.backward()
    return {name: p.grad.detach().clone() for name, p in wrapped.module.named_parameters()}
''',
    "ex4_no_sync": '''
def accumulate_no_sync(ddp_model, micro_batches):
    import contextlib

    total = sum(y.numel() for _, y in micro_batches)  # equal-sized: the mean over all of them
    last = len(micro_batches) - 1
    for i, (x, y) in enumerate(micro_batches):
        with ddp_model.no_sync() if i < last else contextlib.nullcontext():
            (F.mse_loss(ddp_model(x), y, reduction="sum") / total).backward()
''',
    "ex5_collectives": '''
def ring_all_reduce(tensor, rank, world_size):
    flat = tensor.detach().clone().reshape(-1)
    chunks = list(torch.tensor_split(flat, world_size))  # views into flat
    right, left = (rank + 1) % world_size, (rank - 1) % world_size

    def shift(send_idx, recv_idx, add):
        buf = torch.empty_like(chunks[recv_idx])
        req = dist.isend(chunks[send_idx].contiguous(), right)
        dist.recv(buf, left)
        req.wait()
        if add:
            chunks[recv_idx].add_(buf)
        else:
            chunks[recv_idx].copy_(buf)

    for s in range(world_size - 1):  # reduce-scatter: rank r ends with the sum of chunk r + 1
        shift((rank - s) % world_size, (rank - s - 1) % world_size, True)
    for s in range(world_size - 1):  # all-gather: pass the finished chunks round
        shift((rank - s + 1) % world_size, (rank - s) % world_size, False)
    return flat.reshape(tensor.shape)


def agree_on_seed(local_seed, device):
    box = [local_seed]
    dist.broadcast_object_list(box, src=0, device=device)
    return int(box[0])


def publish_then_read(path, rank, payload):
    if rank == 0:
        torch.save(payload.clone(), path)
    dist.barrier()
    return torch.load(path, weights_only=True)
''',
}
