"""Known-wrong and alternative answers for senior/15_serving_and_custom_ops."""

EX1_WRONG_EARLY_BLOCK = '''
def append_token(cache, seq_id, k, v):
    table = cache.block_tables.setdefault(seq_id, [])
    n = cache.lengths.get(seq_id, 0)
    if n + 1 >= len(table) * cache.block_size:
        if not cache.free:
            raise OutOfBlocks("pool exhausted")
        table.append(cache.free.pop())
    cache.k[table[n // cache.block_size], n % cache.block_size] = k
    cache.v[table[n // cache.block_size], n % cache.block_size] = v
    cache.lengths[seq_id] = n + 1


def free_sequence(cache, seq_id):
    cache.free.extend(cache.block_tables.pop(seq_id))
    del cache.lengths[seq_id]
'''

EX1_WRONG_LEAKS_BLOCKS = '''
def append_token(cache, seq_id, k, v):
    table = cache.block_tables.setdefault(seq_id, [])
    n = cache.lengths.get(seq_id, 0)
    if n == len(table) * cache.block_size:
        if not cache.free:
            raise OutOfBlocks("pool exhausted")
        table.append(cache.free.pop())
    cache.k[table[n // cache.block_size], n % cache.block_size] = k
    cache.v[table[n // cache.block_size], n % cache.block_size] = v
    cache.lengths[seq_id] = n + 1


def free_sequence(cache, seq_id):
    del cache.block_tables[seq_id]
    del cache.lengths[seq_id]
'''

EX1_WRONG_NO_OUT_OF_BLOCKS = '''
def append_token(cache, seq_id, k, v):
    table = cache.block_tables.setdefault(seq_id, [])
    n = cache.lengths.get(seq_id, 0)
    if n % cache.block_size == 0:
        table.append(cache.free.pop())
    cache.k[table[-1], n % cache.block_size] = k
    cache.v[table[-1], n % cache.block_size] = v
    cache.lengths[seq_id] = n + 1


def free_sequence(cache, seq_id):
    cache.free.extend(cache.block_tables.pop(seq_id))
    del cache.lengths[seq_id]
'''

EX1_ALT = '''
def append_token(cache, seq_id, k, v):
    n = cache.lengths.get(seq_id, 0)
    owned = cache.block_tables.get(seq_id, [])
    blk, slot = divmod(n, cache.block_size)
    if blk == len(owned):
        if len(cache.free) == 0:
            raise OutOfBlocks("every block is taken")
        owned = owned + [cache.free.pop()]
    cache.block_tables[seq_id] = owned
    cache.k[owned[blk], slot].copy_(k)
    cache.v[owned[blk], slot].copy_(v)
    cache.lengths[seq_id] = n + 1


def free_sequence(cache, seq_id):
    for b in reversed(cache.block_tables[seq_id]):
        cache.free.append(b)
    cache.block_tables.pop(seq_id)
    cache.lengths.pop(seq_id)
'''

EX2_WRONG_TEAMMATE = '''
def gather_kv(cache, seq_id):
    n = len(cache.block_tables[seq_id])
    H, D = cache.k.shape[2:]
    return cache.k[:n].reshape(-1, H, D), cache.v[:n].reshape(-1, H, D)
'''

EX2_WRONG_SORTED_TABLE = '''
def gather_kv(cache, seq_id):
    table = sorted(cache.block_tables[seq_id])
    n = cache.lengths[seq_id]
    H, D = cache.k.shape[2:]
    return cache.k[table].reshape(-1, H, D)[:n], cache.v[table].reshape(-1, H, D)[:n]
'''

EX2_WRONG_NO_TRIM = '''
def gather_kv(cache, seq_id):
    table = cache.block_tables[seq_id]
    H, D = cache.k.shape[2:]
    return cache.k[table].reshape(-1, H, D), cache.v[table].reshape(-1, H, D)
'''

EX2_ALT = '''
def gather_kv(cache, seq_id):
    left = cache.lengths[seq_id]
    ks, vs = [], []
    for b in cache.block_tables[seq_id]:
        take = min(left, cache.block_size)
        ks.append(cache.k[b, :take])
        vs.append(cache.v[b, :take])
        left -= take
    return torch.cat(ks, dim=0), torch.cat(vs, dim=0)
'''

EX3_WRONG_FLOOR = '''
def kv_memory(lengths, block_size, max_len, bytes_per_token):
    blocks = sum(n // block_size for n in lengths)
    return blocks * block_size * bytes_per_token, len(lengths) * max_len * bytes_per_token
'''

EX3_WRONG_LONGEST = '''
def kv_memory(lengths, block_size, max_len, bytes_per_token):
    blocks = sum(-(-n // block_size) for n in lengths)
    return blocks * block_size * bytes_per_token, len(lengths) * max(lengths) * bytes_per_token
'''

EX3_ALT = '''
def kv_memory(lengths, block_size, max_len, bytes_per_token):
    lens = np.asarray(list(lengths), dtype=np.int64)
    paged = int(np.ceil(lens / block_size).sum()) * block_size * bytes_per_token
    return paged, int(lens.size) * max_len * bytes_per_token
'''

EX4_WRONG_SKIPS_AHEAD = '''
def admit(s):
    admitted = []
    for r in list(s.waiting):
        if len(s.running) >= s.max_running:
            break
        need = -(-r.tokens() // s.block_size)
        if need <= s.free_blocks:
            s.waiting.remove(r)
            s.free_blocks -= need
            r.blocks = need
            s.running.append(r)
            admitted.append(r.rid)
    return admitted
'''

EX4_WRONG_FLOOR = '''
def admit(s):
    admitted = []
    while s.waiting and len(s.running) < s.max_running:
        need = s.waiting[0].tokens() // s.block_size
        if need > s.free_blocks:
            break
        r = s.waiting.popleft()
        s.free_blocks -= need
        r.blocks = need
        s.running.append(r)
        admitted.append(r.rid)
    return admitted
'''

EX4_ALT = '''
def admit(s):
    out = []
    while len(s.waiting) > 0:
        if len(s.running) == s.max_running:
            break
        head = s.waiting[0]
        blocks = math.ceil(head.tokens() / s.block_size)
        if s.free_blocks - blocks < 0:
            break
        s.running.append(s.waiting.popleft())
        head.blocks, s.free_blocks = blocks, s.free_blocks - blocks
        out.append(head.rid)
    return out
'''

EX5_WRONG_PREEMPT_OLDEST = '''
def decode_and_retire(s):
    ran = []
    for r in list(s.running):
        if r not in s.running:
            continue
        if r.tokens() == r.blocks * s.block_size:
            while s.free_blocks == 0:
                victim = s.running.pop(0)
                s.free_blocks += victim.blocks
                victim.blocks = 0
                s.waiting.appendleft(victim)
                if victim is r:
                    break
            if r.blocks == 0:
                continue
            s.free_blocks -= 1
            r.blocks += 1
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

EX5_WRONG_RETIRE_KEEPS_BLOCKS = '''
def decode_and_retire(s):
    ran = []
    for r in list(s.running):
        if r not in s.running:
            continue
        if r.tokens() == r.blocks * s.block_size:
            while s.free_blocks == 0:
                victim = s.running.pop()
                s.free_blocks += victim.blocks
                victim.blocks = 0
                s.waiting.appendleft(victim)
                if victim is r:
                    break
            if r.blocks == 0:
                continue
            s.free_blocks -= 1
            r.blocks += 1
        r.generated += 1
        ran.append(r.rid)
    for r in list(s.running):
        if r.generated == r.max_new:
            s.running.remove(r)
            s.finished.append(r)
    return ran
'''

EX5_WRONG_PREEMPT_TO_BACK = '''
def decode_and_retire(s):
    ran = []
    for r in list(s.running):
        if r not in s.running:
            continue
        if r.tokens() == r.blocks * s.block_size:
            while s.free_blocks == 0:
                victim = s.running.pop()
                s.free_blocks += victim.blocks
                victim.blocks = 0
                s.waiting.append(victim)
                if victim is r:
                    break
            if r.blocks == 0:
                continue
            s.free_blocks -= 1
            r.blocks += 1
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

EX5_ALT = '''
def decode_and_retire(s):
    ran, i = [], 0
    while i < len(s.running):
        r = s.running[i]
        if r.prompt_len + r.generated >= r.blocks * s.block_size:
            while s.free_blocks < 1 and any(x is r for x in s.running):
                v = s.running[-1]
                del s.running[-1]
                s.free_blocks, v.blocks = s.free_blocks + v.blocks, 0
                s.waiting.insert(0, v)
            if not any(x is r for x in s.running):
                break  # r was the last one: nobody after it is left to run
            s.free_blocks -= 1
            r.blocks += 1
        r.generated += 1
        ran.append(r.rid)
        i += 1
    keep = []
    for r in s.running:
        if r.generated >= r.max_new:
            s.free_blocks += r.blocks
            r.blocks = 0
            s.finished.append(r)
        else:
            keep.append(r)
    s.running[:] = keep
    return ran
'''

EX6_WRONG_MEAN = '''
def static_batching_steps(requests, batch_size):
    return math.ceil(sum(r.max_new for r in requests) / batch_size)
'''

EX6_WRONG_GLOBAL_MAX = '''
def static_batching_steps(requests, batch_size):
    return math.ceil(len(requests) / batch_size) * max(r.max_new for r in requests)
'''

EX6_ALT = '''
def static_batching_steps(requests, batch_size):
    total, group = 0, []
    for r in requests:
        group.append(r.max_new)
        if len(group) == batch_size:
            total += max(group)
            group = []
    return total + (max(group) if group else 0)
'''

EX7_WRONG_FAKE_SHAPE = '''
def make_softclip(name):
    @torch.library.custom_op(name, mutates_args=())
    def softclip(x: torch.Tensor, t: float) -> torch.Tensor:
        return torch.from_numpy(vendor_softclip(x.detach().cpu().numpy(), t)).to(x.device)

    @softclip.register_fake
    def _(x, t):
        return x.new_empty(x.shape[:-1])

    return softclip
'''

EX7_WRONG_FAKE_DTYPE = '''
def make_softclip(name):
    @torch.library.custom_op(name, mutates_args=())
    def softclip(x: torch.Tensor, t: float) -> torch.Tensor:
        return torch.from_numpy(vendor_softclip(x.detach().cpu().numpy(), t)).to(x.device)

    @softclip.register_fake
    def _(x, t):
        return torch.empty_like(x, dtype=torch.float32)

    return softclip
'''

EX7_WRONG_MUTATES_INPUT = '''
def make_softclip(name):
    @torch.library.custom_op(name, mutates_args=())
    def softclip(x: torch.Tensor, t: float) -> torch.Tensor:
        a = x.detach().cpu().numpy()
        a[...] = vendor_softclip(a, t)
        return x.detach().clone()

    @softclip.register_fake
    def _(x, t):
        return torch.empty_like(x)

    return softclip
'''

EX7_ALT = '''
def make_softclip(name):
    def kernel(x: torch.Tensor, t: float) -> torch.Tensor:
        arr = x.detach().to("cpu").numpy().copy()
        return torch.as_tensor(vendor_softclip(arr, t), device=x.device)

    op = torch.library.custom_op(name, kernel, mutates_args=())

    def fake(x, t):
        return x.new_empty(x.shape)

    torch.library.register_fake(name, fake)
    return op
'''

EX8_WRONG_SIGN = '''
def add_softclip_autograd(op):
    def setup_context(ctx, inputs, output):
        ctx.save_for_backward(output)
        ctx.t = inputs[1]

    def backward(ctx, grad_out):
        (y,) = ctx.saved_tensors
        return grad_out * ((y / ctx.t) ** 2 - 1), None

    op.register_autograd(backward, setup_context=setup_context)
'''

EX8_WRONG_NO_CHAIN = '''
def add_softclip_autograd(op):
    def setup_context(ctx, inputs, output):
        ctx.save_for_backward(output)
        ctx.t = inputs[1]

    def backward(ctx, grad_out):
        (y,) = ctx.saved_tensors
        return 1 - (y / ctx.t) ** 2, None

    op.register_autograd(backward, setup_context=setup_context)
'''

EX8_ALT = '''
def add_softclip_autograd(op):
    def save(ctx, inputs, output):
        x, t = inputs
        ctx.save_for_backward(x)
        ctx.t = t

    def grad_fn(ctx, g):
        x = ctx.saved_tensors[0]
        sech2 = 1.0 / torch.cosh(x / ctx.t) ** 2
        return g * sech2, None

    torch.library.register_autograd(op, grad_fn, setup_context=save)
'''

WRONG = {
    "ex1_append": [("takes a new block one token early", EX1_WRONG_EARLY_BLOCK),
                   ("free_sequence never returns the blocks to the free list", EX1_WRONG_LEAKS_BLOCKS),
                   ("pops from an empty free list instead of raising OutOfBlocks", EX1_WRONG_NO_OUT_OF_BLOCKS)],
    "ex2_gather": [("the teammate's version: first n physical blocks, untrimmed", EX2_WRONG_TEAMMATE),
                   ("reads the blocks in physical order, not table order", EX2_WRONG_SORTED_TABLE),
                   ("returns the unused tail of the last block", EX2_WRONG_NO_TRIM)],
    "ex3_memory": [("floor division: the partial last block is not counted", EX3_WRONG_FLOOR),
                   ("preallocates the longest current length, not max_len", EX3_WRONG_LONGEST)],
    "ex4_admit": [("skips ahead of a request that does not fit", EX4_WRONG_SKIPS_AHEAD),
                  ("blocks needed rounded down", EX4_WRONG_FLOOR)],
    "ex5_step": [("preempts the oldest running request", EX5_WRONG_PREEMPT_OLDEST),
                 ("retired requests keep their blocks", EX5_WRONG_RETIRE_KEEPS_BLOCKS),
                 ("a preempted request goes to the back of the queue", EX5_WRONG_PREEMPT_TO_BACK)],
    "ex6_static": [("average length instead of the longest per group", EX6_WRONG_MEAN),
                   ("every group runs as long as the longest request overall", EX6_WRONG_GLOBAL_MAX)],
    "ex7_custom_op": [("fake kernel drops the last dimension", EX7_WRONG_FAKE_SHAPE),
                      ("fake kernel always says float32", EX7_WRONG_FAKE_DTYPE),
                      ("kernel writes into x without declaring it in mutates_args", EX7_WRONG_MUTATES_INPUT)],
    "ex8_autograd": [("backward with the wrong sign", EX8_WRONG_SIGN),
                     ("backward ignores the incoming gradient", EX8_WRONG_NO_CHAIN)],
}

ALT = {
    "ex1_append": EX1_ALT,
    "ex2_gather": EX2_ALT,
    "ex3_memory": EX3_ALT,
    "ex4_admit": EX4_ALT,
    "ex5_step": EX5_ALT,
    "ex6_static": EX6_ALT,
    "ex7_custom_op": EX7_ALT,
    "ex8_autograd": EX8_ALT,
}
