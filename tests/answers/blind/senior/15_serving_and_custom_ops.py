"""Blind set for notebooks/senior/15_serving_and_custom_ops.ipynb, written from release/ alone (issue 33)."""

_APPEND_STATE_FIRST = '''
def append_token(cache, seq_id, k, v):
    table = cache.block_tables.setdefault(seq_id, [])
    n = cache.lengths.get(seq_id, 0)
    cache.lengths[seq_id] = n + 1  # counted before we know there is room
    if n == len(table) * cache.block_size:
        if not cache.free:
            raise OutOfBlocks(f"no free block for sequence {seq_id!r}")
        table.append(cache.free.pop())
    block, slot = table[n // cache.block_size], n % cache.block_size
    cache.k[block, slot] = k
    cache.v[block, slot] = v


def free_sequence(cache, seq_id):
    cache.free.extend(cache.block_tables.pop(seq_id))
    cache.lengths.pop(seq_id)
'''

_APPEND_ALT = '''
def append_token(cache, seq_id, k, v):
    table = cache.block_tables.get(seq_id, [])
    n = cache.lengths.get(seq_id, 0)
    which, slot = divmod(n, cache.block_size)
    if which == len(table):  # every owned slot is taken (0 == 0 for a new sequence)
        if len(cache.free) == 0:
            raise OutOfBlocks(f"sequence {seq_id!r} needs a block and the pool is empty")
        table = table + [cache.free.pop()]
    cache.k[table[which], slot].copy_(k)
    cache.v[table[which], slot].copy_(v)
    cache.block_tables[seq_id] = table
    cache.lengths[seq_id] = n + 1


def free_sequence(cache, seq_id):
    del cache.lengths[seq_id]
    cache.free += cache.block_tables.pop(seq_id)[::-1]
'''

_GATHER_WHOLE_BLOCKS = '''
def gather_kv(cache, seq_id):
    table = torch.tensor(cache.block_tables[seq_id], device=cache.k.device)
    H, D = cache.k.shape[2:]
    return cache.k[table].reshape(-1, H, D), cache.v[table].reshape(-1, H, D)
'''

_GATHER_FLAT_INDEX = '''
def gather_kv(cache, seq_id):
    bs = cache.block_size
    n = cache.lengths[seq_id]
    table = torch.tensor(cache.block_tables[seq_id], dtype=torch.long, device=cache.k.device)
    pos = torch.arange(n, device=cache.k.device)
    rows = table[pos // bs] * bs + pos % bs  # each token's row in the pool seen as one long list of slots
    H, D = cache.k.shape[2:]
    return cache.k.reshape(-1, H, D)[rows], cache.v.reshape(-1, H, D)[rows]
'''

_MEMORY_EXACT = '''
def kv_memory(lengths, block_size: int, max_len: int, bytes_per_token: int):
    paged = sum(lengths) * bytes_per_token
    return paged, len(lengths) * max_len * bytes_per_token
'''

_MEMORY_ALT = '''
def kv_memory(lengths, block_size: int, max_len: int, bytes_per_token: int):
    lengths = [int(n) for n in lengths]
    blocks = sum(-(-n // block_size) for n in lengths)  # ceiling division
    return blocks * block_size * bytes_per_token, len(lengths) * max_len * bytes_per_token
'''

_ADMIT_SKIPS = '''
def admit(s):
    admitted, skipped = [], []
    while s.waiting and len(s.running) < s.max_running:
        r = s.waiting.popleft()
        need = math.ceil(r.tokens() / s.block_size)
        if need > s.free_blocks:
            skipped.append(r)  # try the smaller ones behind it
            continue
        r.blocks = need
        s.free_blocks -= need
        s.running.append(r)
        admitted.append(r.rid)
    s.waiting.extendleft(reversed(skipped))
    return admitted
'''

_ADMIT_ALT = '''
def admit(s):
    admitted = []
    while len(s.running) < s.max_running and len(s.waiting) > 0:
        head = s.waiting[0]
        need = -(-head.tokens() // s.block_size)
        if need > s.free_blocks:
            break  # first come, first served
        s.waiting.popleft()
        head.blocks, s.free_blocks = need, s.free_blocks - need
        s.running.append(head)
        admitted.append(head.rid)
    return admitted
'''

_STEP_BACK_OF_QUEUE = '''
def decode_and_retire(s):
    ran = []
    for r in list(s.running):
        if not any(x is r for x in s.running):
            continue  # preempted earlier in this step
        if r.tokens() == r.blocks * s.block_size:
            while s.free_blocks == 0:
                victim = s.running.pop()
                s.free_blocks += victim.blocks
                victim.blocks = 0
                s.waiting.append(victim)  # back of the queue
                if victim is r:
                    break
            if not any(x is r for x in s.running):
                continue
            r.blocks += 1
            s.free_blocks -= 1
        r.generated += 1
        ran.append(r.rid)
    for r in list(s.running):
        if r.generated == r.max_new:
            s.running.remove(r)
            s.free_blocks += r.blocks
            r.blocks = 0
            s.finished.append(r)
    return ran
'''

_STEP_ALT = '''
def decode_and_retire(s):
    def preempt_last():
        victim = s.running.pop()
        s.free_blocks += victim.blocks
        victim.blocks = 0
        s.waiting.appendleft(victim)  # recomputed first on readmission
        return victim

    ran, i = [], 0
    while i < len(s.running):  # preemption only removes from the end, beyond i
        r = s.running[i]
        if r.tokens() == r.blocks * s.block_size:
            victim = None
            while s.free_blocks == 0 and victim is not r:
                victim = preempt_last()
            if victim is r:
                break  # it was the last one: nobody after it is left to run
            r.blocks += 1
            s.free_blocks -= 1
        r.generated += 1
        ran.append(r.rid)
        i += 1
    done = [r for r in s.running if r.generated == r.max_new]
    s.running[:] = [r for r in s.running if r.generated != r.max_new]
    for r in done:
        s.free_blocks += r.blocks
        r.blocks = 0
        s.finished.append(r)
    return ran
'''

_STATIC_SORTED = '''
def static_batching_steps(requests, batch_size: int) -> int:
    lengths = sorted(r.max_new for r in requests)  # group similar lengths together
    return sum(max(lengths[i:i + batch_size]) for i in range(0, len(lengths), batch_size))
'''

_STATIC_ALT = '''
def static_batching_steps(requests, batch_size: int) -> int:
    total, group_max = 0, 0
    for i, r in enumerate(requests):
        group_max = max(group_max, r.max_new)
        if (i + 1) % batch_size == 0 or i == len(requests) - 1:
            total, group_max = total + group_max, 0
    return total
'''

_OP_FAKE_DEFAULT_DTYPE = '''
def make_softclip(name: str):
    @torch.library.custom_op(name, mutates_args=())
    def softclip(x: torch.Tensor, t: float) -> torch.Tensor:
        y = vendor_softclip(x.detach().cpu().numpy(), t)
        return torch.from_numpy(y).to(device=x.device, dtype=x.dtype)

    @softclip.register_fake
    def _(x, t):
        return torch.empty(x.shape, device=x.device)

    return softclip
'''

_OP_ALT = '''
def make_softclip(name: str):
    def kernel(x: torch.Tensor, t: float) -> torch.Tensor:
        host = x.detach().to("cpu", copy=True).numpy()  # a private copy: the vendor may scribble on it
        return torch.as_tensor(vendor_softclip(host, t), device=x.device).to(x.dtype)

    def fake(x, t):
        return x.new_empty(x.shape)

    op = torch.library.custom_op(name, kernel, mutates_args=())
    op.register_fake(fake)
    return op
'''

_GRAD_NO_UPSTREAM = '''
def add_softclip_autograd(op):
    def setup_context(ctx, inputs, output):
        ctx.save_for_backward(output)
        ctx.t = inputs[1]

    def backward(ctx, grad_out):
        (y,) = ctx.saved_tensors
        return 1 - (y / ctx.t) ** 2, None

    op.register_autograd(backward, setup_context=setup_context)
    return op
'''

_GRAD_ALT = '''
def add_softclip_autograd(op):
    def setup_context(ctx, inputs, output):
        x, t = inputs
        ctx.save_for_backward(x)
        ctx.t = float(t)

    def backward(ctx, grad_out):
        (x,) = ctx.saved_tensors
        return grad_out / torch.cosh(x / ctx.t) ** 2, None  # sech^2 = 1 - tanh^2

    op.register_autograd(backward, setup_context=setup_context)
    return op
'''

WRONG = {
    "ex1_append": ("bumps the length before checking for a free block, so a failed append leaves it changed",
                   _APPEND_STATE_FIRST),
    "ex2_gather": ("reads the sequence's own blocks but returns every slot of them, not `lengths` tokens",
                   _GATHER_WHOLE_BLOCKS),
    "ex3_memory": ("counts the paged cache token by token instead of in whole blocks", _MEMORY_EXACT),
    "ex4_admit": ("skips a head request that does not fit and admits smaller ones behind it", _ADMIT_SKIPS),
    "ex5_step": ("puts the preempted request at the back of the queue instead of the front", _STEP_BACK_OF_QUEUE),
    "ex6_static": ("sorts the requests by length before grouping instead of taking them in arrival order",
                   _STATIC_SORTED),
    "ex7_custom_op": ("the fake kernel returns the default dtype instead of x's dtype", _OP_FAKE_DEFAULT_DTYPE),
    "ex8_autograd": ("returns the local derivative without multiplying by the incoming gradient", _GRAD_NO_UPSTREAM),
}

ALT = {
    "ex1_append": _APPEND_ALT,
    "ex2_gather": _GATHER_FLAT_INDEX,
    "ex3_memory": _MEMORY_ALT,
    "ex4_admit": _ADMIT_ALT,
    "ex5_step": _STEP_ALT,
    "ex6_static": _STATIC_ALT,
    "ex7_custom_op": _OP_ALT,
    "ex8_autograd": _GRAD_ALT,
}
