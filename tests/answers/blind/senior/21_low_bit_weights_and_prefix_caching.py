"""Blind set for notebooks/senior/21_low_bit_weights_and_prefix_caching.ipynb, written from release/ alone
(issue 33)."""

_NF4_PER_ROW = '''
def quantize_blockwise(w, codebook, block: int = 16):
    rows = w.reshape(w.shape[0], -1)  # one absmax per row of w (per output channel)
    scales = rows.abs().amax(dim=1).float()
    x = rows / scales.clamp_min(1e-12)[:, None]
    idx = (x.reshape(-1)[:, None] - codebook).abs().argmin(dim=-1).to(torch.uint8)
    return idx, scales


def dequantize_blockwise(idx, scales, codebook, shape):
    per = idx.numel() // scales.numel()
    return (codebook[idx.long()].reshape(-1, per) * scales[:, None]).reshape(shape).float()
'''

_NF4_BUCKETIZE = '''
def quantize_blockwise(w, codebook, block: int = 16):
    blocks = w.detach().float().flatten().reshape(-1, block)
    scales = blocks.abs().max(dim=1).values
    safe = torch.where(scales > 0, scales, torch.ones_like(scales))  # a zero block: values are 0 anyway
    normed = blocks / safe.unsqueeze(1)
    cb = codebook.to(device=w.device, dtype=torch.float32)
    midpoints = (cb[1:] + cb[:-1]) / 2  # nearest of a sorted codebook = which gap between midpoints
    idx = torch.bucketize(normed.contiguous(), midpoints).to(torch.uint8)
    return idx.flatten(), scales.to(torch.float32)


def dequantize_blockwise(idx, scales, codebook, shape):
    per_block = idx.numel() // scales.numel()
    values = codebook.to(idx.device, torch.float32).index_select(0, idx.long())
    return (values * scales.to(idx.device).repeat_interleave(per_block)).reshape(shape)
'''

_QLORA_ATTRIBUTES = '''
class QLoRALinear(nn.Module):
    def __init__(self, weight, r: int, alpha: float, codebook, block: int = 16):
        super().__init__()
        self.idx, self.scales = quantize_blockwise(weight, codebook, block)  # plain attributes
        self.codebook = codebook
        self.shape = tuple(weight.shape)
        self.scaling = alpha / r
        out_f, in_f = weight.shape
        self.lora_A = nn.Parameter(torch.randn(r, in_f, device=weight.device) / math.sqrt(in_f))
        self.lora_B = nn.Parameter(torch.zeros(out_f, r, device=weight.device))

    def forward(self, x):
        w = dequantize_blockwise(self.idx, self.scales, self.codebook, self.shape)
        return x @ w.T + self.scaling * (x @ self.lora_A.T) @ self.lora_B.T
'''

_QLORA_ALT = '''
class QLoRALinear(nn.Module):
    def __init__(self, weight, r: int, alpha: float, codebook, block: int = 16):
        super().__init__()
        out_f, in_f = weight.shape
        q, s = quantize_blockwise(weight.detach(), codebook, block)
        self.register_buffer("base_idx", q)
        self.register_buffer("base_scales", s)
        self.register_buffer("base_codebook", codebook.detach().to(weight.device).clone())
        self.out_features, self.in_features, self.r, self.alpha = out_f, in_f, r, alpha
        self.lora_A = nn.Parameter(torch.empty(r, in_f, device=weight.device, dtype=torch.float32))
        nn.init.kaiming_uniform_(self.lora_A, a=math.sqrt(5))
        self.lora_B = nn.Parameter(torch.zeros(out_f, r, device=weight.device, dtype=torch.float32))

    def forward(self, x):
        w = dequantize_blockwise(self.base_idx, self.base_scales, self.base_codebook,
                                 (self.out_features, self.in_features))
        low_rank = torch.einsum("...i,ri,or->...o", x, self.lora_A, self.lora_B)
        return nn.functional.linear(x, w) + (self.alpha / self.r) * low_rank
'''

_GPTQ_ORIGINAL_COLUMN = '''
def gptq_quantize(W, X, scale, damp: float = 0.01):
    W0 = W.clone()
    Wu = W.clone()
    H = X.T @ X
    H = H + damp * H.diagonal().mean() * torch.eye(H.shape[0], dtype=H.dtype, device=H.device)
    U = torch.linalg.cholesky(torch.linalg.inv(H), upper=True)
    Q = torch.zeros_like(W)
    for j in range(W.shape[1]):
        q = quantize_to_grid(W0[:, j], scale)  # the column as it was, not as the updates left it
        Q[:, j] = q
        e = (Wu[:, j] - q) / U[j, j]
        Wu[:, j + 1:] -= e[:, None] * U[j, j + 1:][None, :]
    return Q
'''

_GPTQ_DOWNDATE = '''
def gptq_quantize(W, X, scale, damp: float = 0.01):
    work = W.detach().to(torch.float64).clone()
    Xd = X.detach().to(torch.float64)
    H = Xd.T @ Xd
    H += damp * H.diagonal().mean() * torch.eye(H.shape[0], dtype=H.dtype, device=H.device)
    Hinv = torch.linalg.inv(H)  # the inverse restricted to the still-free columns, downdated as they go
    s = scale.detach().to(torch.float64)
    Q = torch.empty_like(work)
    for j in range(work.shape[1]):
        q = quantize_to_grid(work[:, j], s)
        Q[:, j] = q
        d = Hinv[0, 0]
        work[:, j:] -= torch.outer((work[:, j] - q) / d, Hinv[0, :])
        Hinv = Hinv[1:, 1:] - torch.outer(Hinv[1:, 0], Hinv[0, 1:]) / d
    return quantize_to_grid(Q, s[:, None]).to(dtype=W.dtype, device=W.device)
'''

_RADIX_WHOLE_EDGE = '''
class RadixCache:
    class Node:
        def __init__(self, key, value):
            self.key, self.value, self.children = key, value, {}

    def __init__(self):
        self.root = self.Node([], [])

    def match(self, tokens):
        node, slots, i = self.root, [], 0
        while i < len(tokens) and tokens[i] in node.children:
            child = node.children[tokens[i]]
            slots += child.value
            i += len(child.key)
            node = child
        return slots

    def insert(self, tokens, slots):
        node, i = self.root, 0
        while i < len(tokens):
            child = node.children.get(tokens[i])
            if child is None:
                node.children[tokens[i]] = self.Node(list(tokens[i:]), list(slots[i:]))
                return i
            n = 0
            while n < len(child.key) and i + n < len(tokens) and child.key[n] == tokens[i + n]:
                n += 1
            if n < len(child.key):
                mid = self.Node(child.key[:n], child.value[:n])
                child.key, child.value = child.key[n:], child.value[n:]
                mid.children[child.key[0]] = child
                node.children[tokens[i]] = mid
                child = mid
            node, i = child, i + n
        return i

    def num_nodes(self):
        def count(node):
            return len(node.children) + sum(count(c) for c in node.children.values())
        return count(self.root)
'''

_RADIX_PREFIX_TABLE = '''
class RadixCache:
    """The same answers from a table of cached prefixes: a compressed tree's nodes end exactly where a prefix
    is an inserted sequence or has two or more continuations, so they can be counted from the table."""

    def __init__(self):
        self._slot = {}  # prefix (tuple) -> slot of its last token
        self._next = {}  # prefix -> set of tokens that follow it
        self._ends = set()  # inserted sequences

    def insert(self, tokens, slots):
        tokens = list(tokens)
        cached = 0
        while cached < len(tokens) and tuple(tokens[:cached + 1]) in self._slot:
            cached += 1
        for i in range(cached, len(tokens)):
            self._slot[tuple(tokens[:i + 1])] = slots[i]
            self._next.setdefault(tuple(tokens[:i]), set()).add(tokens[i])
        if tokens:
            self._ends.add(tuple(tokens))
        return cached

    def match(self, tokens):
        out = []
        for i in range(len(tokens)):
            slot = self._slot.get(tuple(tokens[:i + 1]))
            if slot is None:
                break
            out.append(slot)
        return out

    def num_nodes(self):
        return sum(1 for p in self._slot if p in self._ends or len(self._next.get(p, ())) >= 2)
'''

_GEN_SAME_POSITIONS = '''
@torch.no_grad()
def generate_batch(model, prompts, max_new_tokens, eos_id, pad_id):
    dev = next(model.parameters()).device
    B, L = len(prompts), max(len(p) for p in prompts)
    ids = torch.full((B, L), pad_id, dtype=torch.long, device=dev)
    mask = torch.zeros((B, L), dtype=torch.long, device=dev)
    for b, p in enumerate(prompts):
        ids[b, L - len(p):] = torch.tensor(p, device=dev)
        mask[b, L - len(p):] = 1
    finished = torch.zeros(B, dtype=torch.bool, device=dev)
    outs = []
    for _ in range(max_new_tokens):
        pos = torch.arange(ids.shape[1], device=dev).expand(B, -1)  # the same positions for every row
        nxt = model(ids, mask, pos)[:, -1].argmax(-1)
        nxt = torch.where(finished, torch.full_like(nxt, pad_id), nxt)
        outs.append(nxt)
        ids = torch.cat([ids, nxt[:, None]], dim=1)
        mask = torch.cat([mask, (~finished).long()[:, None]], dim=1)
        finished |= nxt == eos_id
        if bool(finished.all()):
            break
    return torch.stack(outs, dim=1)
'''

_GEN_ALT = '''
@torch.no_grad()
def generate_batch(model, prompts, max_new_tokens, eos_id, pad_id):
    dev = next(model.parameters()).device
    seqs = [list(p) for p in prompts]  # each row's real tokens
    done = [False] * len(prompts)
    produced = [[] for _ in prompts]
    steps = 0
    while steps < max_new_tokens and not all(done):
        width = max(len(s) for s in seqs)
        ids, mask, pos = [], [], []
        for s in seqs:  # left-pad every row from its own list of real tokens
            pad = width - len(s)
            ids.append([pad_id] * pad + s)
            mask.append([0] * pad + [1] * len(s))
            pos.append([0] * pad + list(range(len(s))))
        as_t = [torch.tensor(a, dtype=torch.long, device=dev) for a in (ids, mask, pos)]
        last = model(*as_t)[:, -1].argmax(dim=-1).tolist()
        for b in range(len(seqs)):
            if done[b]:
                produced[b].append(pad_id)
                continue
            produced[b].append(last[b])
            seqs[b].append(last[b])
            done[b] = last[b] == eos_id
        steps += 1
    return torch.tensor(produced, dtype=torch.long, device=dev).reshape(len(prompts), steps)
'''

WRONG = {
    "ex1_nf4": ("one absmax per row of w (per output channel) instead of per block of `block` consecutive weights",
                _NF4_PER_ROW),
    "ex2_qlora": ("keeps the indices, scales and codebook as plain attributes, not registered buffers",
                  _QLORA_ATTRIBUTES),
    "ex3_gptq": ("rounds each column as it was in W, not the column the earlier updates have corrected",
                 _GPTQ_ORIGINAL_COLUMN),
    "ex4_radix": ("fixes the split but match still takes a whole edge when the query leaves it midway",
                  _RADIX_WHOLE_EDGE),
    "ex5_batch_gen": ("left-pads and masks but gives every row positions 0..T-1 (padding included)",
                      _GEN_SAME_POSITIONS),
}

ALT = {
    "ex1_nf4": _NF4_BUCKETIZE,
    "ex2_qlora": _QLORA_ALT,
    "ex3_gptq": _GPTQ_DOWNDATE,
    "ex4_radix": _RADIX_PREFIX_TABLE,
    "ex5_batch_gen": _GEN_ALT,
}
