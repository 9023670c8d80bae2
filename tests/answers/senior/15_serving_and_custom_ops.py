"""Known-wrong and alternative answers for senior/15_serving_and_custom_ops."""

from tests.answers.senior import edited, reference

NB = "senior/15_serving_and_custom_ops"

EX1 = reference(NB, "ex1_append")

EX1_WRONG_EARLY_BLOCK = edited(EX1, "if n == len(table)", "if n + 1 >= len(table)")

EX1_WRONG_LEAKS_BLOCKS = edited(EX1, "cache.free.extend(cache.block_tables.pop(seq_id))", "del cache.block_tables[seq_id]")

EX1_WRONG_NO_OUT_OF_BLOCKS = edited(EX1, """
        if not cache.free:
            raise OutOfBlocks(f"no free block for sequence {seq_id!r}")""")

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

EX2 = reference(NB, "ex2_gather")

EX2_WRONG_TEAMMATE = '''
def gather_kv(cache, seq_id):
    n = len(cache.block_tables[seq_id])
    H, D = cache.k.shape[2:]
    return cache.k[:n].reshape(-1, H, D), cache.v[:n].reshape(-1, H, D)
'''

EX2_WRONG_SORTED_TABLE = edited(EX2, "torch.tensor(cache.block_tables[seq_id],", "torch.tensor(sorted(cache.block_tables[seq_id]),")

EX2_WRONG_NO_TRIM = edited(EX2, "reshape(-1, H, D)[:n], cache.v[table].reshape(-1, H, D)[:n]", "reshape(-1, H, D), cache.v[table].reshape(-1, H, D)")

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

EX3 = reference(NB, "ex3_memory")

EX3_WRONG_FLOOR = edited(EX3, "-(-n // block_size)", "n // block_size")

EX3_WRONG_LONGEST = edited(EX3, "len(lengths) * max_len", "len(lengths) * max(lengths)")

EX3_ALT = '''
def kv_memory(lengths, block_size, max_len, bytes_per_token):
    lens = np.asarray(list(lengths), dtype=np.int64)
    paged = int(np.ceil(lens / block_size).sum()) * block_size * bytes_per_token
    return paged, int(lens.size) * max_len * bytes_per_token
'''

EX4 = reference(NB, "ex4_admit")

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

EX4_WRONG_FLOOR = edited(EX4, "-(-r.tokens() // s.block_size)", "r.tokens() // s.block_size")

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

EX5 = reference(NB, "ex5_step")

EX5_WRONG_PREEMPT_OLDEST = edited(EX5, "victim = s.running.pop()", "victim = s.running.pop(0)")

EX5_WRONG_RETIRE_KEEPS_BLOCKS = edited(EX5, """
            s.free_blocks += r.blocks
            r.blocks = 0""")

EX5_WRONG_PREEMPT_TO_BACK = edited(EX5, "s.waiting.appendleft(victim)", "s.waiting.append(victim)")

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

EX7 = reference(NB, "ex7_custom_op")

EX7_WRONG_FAKE_SHAPE = edited(EX7, "return torch.empty_like(x)", "return x.new_empty(x.shape[:-1])")

EX7_WRONG_FAKE_DTYPE = edited(EX7, "torch.empty_like(x)", "torch.empty_like(x, dtype=torch.float32)")

# review F15-5: a kernel that re-implements softclip in PyTorch wraps no vendor code at all
EX7_WRONG_REIMPLEMENTS = edited(EX7, """        out = vendor_softclip(x.detach().cpu().numpy(), t)
        return torch.from_numpy(out).to(x.device)""", """        return t * torch.tanh(x / t)""")

EX7_WRONG_MUTATES_INPUT = edited(EX7, """
        out = vendor_softclip(x.detach().cpu().numpy(), t)
        return torch.from_numpy(out).to(x.device)""", """
        a = x.detach().cpu().numpy()
        a[...] = vendor_softclip(a, t)
        return x.detach().clone()""")

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

EX8 = reference(NB, "ex8_autograd")

EX8_WRONG_SIGN = edited(EX8, "(1 - (y / ctx.t) ** 2)", "((y / ctx.t) ** 2 - 1)")

EX8_WRONG_NO_CHAIN = edited(EX8, "grad_out * (1 - (y / ctx.t) ** 2)", "1 - (y / ctx.t) ** 2")

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
                      ("kernel writes into x without declaring it in mutates_args", EX7_WRONG_MUTATES_INPUT),
                      ("kernel re-implements t * tanh(x / t) in PyTorch, never calls vendor_softclip",
                       EX7_WRONG_REIMPLEMENTS)],
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
