"""Known-wrong and alternative answers for senior/21_low_bit_weights_and_prefix_caching."""

from functools import partial

from tests.answers.senior import edited, reference

_ref = partial(reference, "senior/21_low_bit_weights_and_prefix_caching")

EX1_WRONG_GLOBAL_SCALE = edited(_ref("ex1_nf4"), "scales = flat.abs().amax(dim=1)",
                                "scales = flat.abs().amax().expand(flat.shape[0]).clone()")

EX1_WRONG_UNIFORM_INT4 = edited(_ref("ex1_nf4"), "idx = (normed[..., None] - codebook.float()).abs().argmin(dim=-1)",
                                "idx = torch.round((normed + 1) * 7.5).clamp(0, 15)")

EX1_WRONG_INT64_INDICES = edited(_ref("ex1_nf4"), "idx.reshape(-1).to(torch.uint8)", "idx.reshape(-1)")

EX1_ALT = '''
def quantize_blockwise(w, codebook, block=16):
    blocks = w.detach().float().flatten().view(-1, block)
    absmax = blocks.abs().max(dim=1).values
    safe = torch.where(absmax > 0, absmax, torch.ones_like(absmax))
    cb = codebook.float().sort().values
    boundaries = (cb[1:] + cb[:-1]) / 2
    idx = torch.bucketize((blocks / safe.unsqueeze(1)).contiguous(), boundaries)
    return idx.flatten().byte(), absmax


def dequantize_blockwise(idx, scales, codebook, shape):
    per = idx.numel() // scales.numel()
    vals = torch.index_select(codebook.float(), 0, idx.flatten().long())
    return (vals * scales.float().repeat_interleave(per)).view(*shape)
'''

EX1_WRONG_ZERO_GUARD_ON_CPU = edited(EX1_ALT, "torch.ones_like(absmax)", "torch.ones(absmax.shape)")

EX2_WRONG_B_RANDOM = edited(_ref("ex2_qlora"), "torch.zeros(out_features, r, device=weight.device)",
                            "torch.randn(out_features, r, device=weight.device) / math.sqrt(r)")

EX2_WRONG_FROZEN_PARAMETER = edited(edited(_ref("ex2_qlora"), """\
        self.register_buffer("qidx", idx)
        self.register_buffer("scales", scales)
        self.register_buffer("codebook", codebook.detach().float().clone())
        self.shape = (out_features, in_features)
""", """\
        w = dequantize_blockwise(idx, scales, codebook, weight.shape)
        self.base = nn.Parameter(w, requires_grad=False)
"""), """\
        w = dequantize_blockwise(self.qidx, self.scales, self.codebook, self.shape)
        return x @ w.T""", """\
        return x @ self.base.T""")

EX2_WRONG_SCALE_ALPHA = edited(_ref("ex2_qlora"), "self.scaling = alpha / r", "self.scaling = alpha")

EX2_ALT = '''
import torch.nn.functional as F


class QLoRALinear(nn.Module):
    def __init__(self, weight, r, alpha, codebook, block=16):
        super().__init__()
        self.out_features, self.in_features = weight.shape
        q, s = quantize_blockwise(weight.detach(), codebook, block)
        self.register_buffer("weight_q", q, persistent=True)
        self.register_buffer("weight_absmax", s)
        self.register_buffer("nf4_values", codebook.detach().float().clone())
        self.r, self.alpha = r, alpha
        self.lora_B = nn.Parameter(weight.new_zeros(self.out_features, r))
        self.lora_A = nn.Parameter(weight.new_empty(r, self.in_features))
        nn.init.kaiming_uniform_(self.lora_A, a=math.sqrt(5))

    def forward(self, x):
        with torch.no_grad():
            base_w = dequantize_blockwise(self.weight_q, self.weight_absmax, self.nf4_values,
                                          (self.out_features, self.in_features))
        update = F.linear(F.linear(x, self.lora_A), self.lora_B)
        return F.linear(x, base_w) + update * (self.alpha / self.r)
'''

EX3_WRONG_RTN = '''
def gptq_quantize(W, X, scale, damp=0.01):
    return quantize_to_grid(W, scale[:, None])
'''

EX3_WRONG_HESSIAN_NOT_INVERSE = edited(_ref("ex3_gptq"), "torch.linalg.cholesky(torch.linalg.inv(H), upper=True)",
                                       "torch.linalg.cholesky(H, upper=True)")

# the rows of H^-1 itself, not of its Cholesky factor: never downdated as columns are fixed
EX3_WRONG_NO_DOWNDATE = edited(_ref("ex3_gptq"), "U = torch.linalg.cholesky(torch.linalg.inv(H), upper=True)",
                               "U = torch.linalg.inv(H)")

EX3_ALT = '''
def gptq_quantize(W, X, scale, damp=0.01):
    work = W.detach().clone()
    d = work.shape[1]
    H = X.T @ X
    H = H + damp * torch.mean(torch.diag(H)) * torch.eye(d, dtype=H.dtype, device=H.device)
    cols = []
    for j in range(d):
        inv_free = torch.linalg.inv(H[j:, j:])
        q = quantize_to_grid(work[:, j], scale)
        cols.append(q)
        if j + 1 < d:
            delta = torch.outer((work[:, j] - q) / inv_free[0, 0], inv_free[0, 1:])
            work[:, j + 1:] = work[:, j + 1:] - delta
    return torch.stack(cols, dim=1)
'''

EX4_WRONG_TAIL_SLOTS = edited(_ref("ex4_radix"), "child.key, child.value = child.key[n:], child.value[n:]",
                              "child.key = child.key[n:]")
EX4_WRONG_MATCH_WHOLE_EDGE = edited(_ref("ex4_radix"), """\
            n = self._common(child.key, tokens, i)
            slots += child.value[:n]
            if n < len(child.key):
                break
            i += n
""", """\
            slots += child.value
            i += len(child.key)
""")
# the colleague's three bugs: whole edges matched, the split tail keeps its old slots and is dropped from the tree
EX4_WRONG_AS_GIVEN = edited(EX4_WRONG_MATCH_WHOLE_EDGE, """\
                child.key, child.value = child.key[n:], child.value[n:]
                mid.children[child.key[0]] = child
""", """\
                child.key = child.key[n:]
""")

EX4_ALT = '''
class RadixCache:
    """Edges stored as tuples of (token, slot) pairs, children keyed by their first token; iterative walks."""

    def __init__(self):
        self.root = {"edge": (), "kids": {}}

    def _walk(self, tokens):
        node, pos, path = self.root, 0, []
        while pos < len(tokens):
            kid = node["kids"].get(tokens[pos])
            if kid is None:
                return node, pos, None, 0, path
            k = 0
            edge = kid["edge"]
            while k < len(edge) and pos + k < len(tokens) and edge[k][0] == tokens[pos + k]:
                k += 1
            path.extend(s for _, s in edge[:k])
            if k < len(edge):
                return node, pos, kid, k, path
            node, pos = kid, pos + k
        return node, pos, None, 0, path

    def match(self, tokens):
        return self._walk(list(tokens))[4]

    def insert(self, tokens, slots):
        tokens, slots = list(tokens), list(slots)
        parent, pos, kid, k, path = self._walk(tokens)
        cached = len(path)
        if kid is not None:
            upper = {"edge": kid["edge"][:k], "kids": {}}
            kid["edge"] = kid["edge"][k:]
            upper["kids"][kid["edge"][0][0]] = kid
            parent["kids"][upper["edge"][0][0]] = upper
            parent = upper
        if cached < len(tokens):
            parent["kids"][tokens[cached]] = {"edge": tuple(zip(tokens[cached:], slots[cached:])), "kids": {}}
        return cached

    def num_nodes(self):
        total, stack = 0, [self.root]
        while stack:
            node = stack.pop()
            total += len(node["kids"])
            stack.extend(node["kids"].values())
        return total
'''

EX5_WRONG_RIGHT_PAD = '''
@torch.no_grad()
def generate_batch(model, prompts, max_new_tokens, eos_id, pad_id):
    dev = next(model.parameters()).device
    seqs = [list(p) for p in prompts]
    B = len(seqs)
    finished = [False] * B
    out = []
    for _ in range(max_new_tokens):
        T = max(len(s) for s in seqs)
        ids = torch.tensor([s + [pad_id] * (T - len(s)) for s in seqs], device=dev)
        mask = torch.tensor([[1] * len(s) + [0] * (T - len(s)) for s in seqs], device=dev)
        pos = torch.arange(T, device=dev).expand(B, T)
        nxt = model(ids, mask, pos)[:, -1].argmax(dim=-1).tolist()
        step = []
        for b in range(B):
            tok = pad_id if finished[b] else nxt[b]
            step.append(tok)
            if not finished[b]:
                seqs[b].append(tok)
            finished[b] = finished[b] or tok == eos_id
        out.append(step)
        if all(finished):
            break
    return torch.tensor(out, device=dev).T
'''

# issue 33: a finished row is fed its own argmax (masked) instead of pad_id; the emitted row is still padded
EX5_WRONG_FEEDS_ARGMAX = edited(_ref("ex5_batch_gen"),
                                "        nxt = torch.where(finished, torch.full_like(nxt, pad_id), nxt)\n        out.append(nxt)\n",
                                "        out.append(torch.where(finished, torch.full_like(nxt, pad_id), nxt))\n")

EX5_WRONG_POSITIONS = edited(_ref("ex5_batch_gen"), "pos = (mask.cumsum(dim=1) - 1).clamp(min=0)",
                             "pos = torch.arange(ids.shape[1], device=dev).expand_as(ids)")

EX5_WRONG_NO_EOS_HANDLING = edited(edited(edited(edited(
    _ref("ex5_batch_gen"), "    finished = torch.zeros(B, dtype=torch.bool, device=dev)\n"),
    "        nxt = torch.where(finished, torch.full_like(nxt, pad_id), nxt)\n"),
    "(~finished).long()", "torch.ones_like(nxt)"), """\
        finished |= nxt == eos_id
        if bool(finished.all()):
            break
""")

EX5_ALT = '''
@torch.no_grad()
def generate_batch(model, prompts, max_new_tokens, eos_id, pad_id):
    dev = next(model.parameters()).device
    live = [list(p) for p in prompts]
    gen = [[] for _ in prompts]
    done = [False] * len(prompts)
    steps = 0
    while steps < max_new_tokens and not all(done):
        width = max(len(s) for s in live)
        pads = [width - len(s) for s in live]
        ids = torch.tensor([[pad_id] * k + s for k, s in zip(pads, live)], device=dev)
        keep = torch.tensor([[0] * k + [1] * len(s) for k, s in zip(pads, live)], device=dev)
        pos = torch.stack([torch.cat([torch.zeros(k, dtype=torch.long), torch.arange(len(s))]) for k, s in
                           zip(pads, live)]).to(dev)
        choice = model(ids, keep, pos)[:, -1, :].argmax(dim=-1).tolist()
        for b, tok in enumerate(choice):
            if done[b]:
                gen[b].append(pad_id)
                continue
            gen[b].append(tok)
            live[b].append(tok)
            done[b] = tok == eos_id
        steps += 1
    return torch.tensor(gen, dtype=torch.long, device=dev)
'''

EX2_WRONG_ADAPTERS_ON_CPU = edited(edited(EX2_ALT, "weight.new_zeros(self.out_features, r)", "torch.zeros(self.out_features, r)"),
                                   "weight.new_empty(r, self.in_features)", "torch.empty(r, self.in_features)")


WRONG = {
    "ex1_nf4": [
        ("one absmax scale for the whole tensor", EX1_WRONG_GLOBAL_SCALE),
        ("uniform int4 rounding instead of the nearest codebook value", EX1_WRONG_UNIFORM_INT4),
        ("indices left as int64", EX1_WRONG_INT64_INDICES),
        ("zero-scale guard built on the CPU: breaks on a GPU", EX1_WRONG_ZERO_GUARD_ON_CPU),
    ],
    "ex2_qlora": [
        ("lora_B random as well (initial output is not the base's)", EX2_WRONG_B_RANDOM),
        ("base kept as a frozen float Parameter, not quantised buffers", EX2_WRONG_FROZEN_PARAMETER),
        ("scales the update by alpha instead of alpha / r", EX2_WRONG_SCALE_ALPHA),
        ("adapters created on the CPU whatever the weight's device", EX2_WRONG_ADAPTERS_ON_CPU),
    ],
    "ex3_gptq": [
        ("round to nearest, no error compensation", EX3_WRONG_RTN),
        ("spreads the error with H instead of H^-1", EX3_WRONG_HESSIAN_NOT_INVERSE),
        ("fixed rows of H^-1, never downdated", EX3_WRONG_NO_DOWNDATE),
    ],
    "ex4_radix": [
        ("the broken code as given", EX4_WRONG_AS_GIVEN),
        ("the split keeps the tail's old slots", EX4_WRONG_TAIL_SLOTS),
        ("match takes whole edges (can exceed the query)", EX4_WRONG_MATCH_WHOLE_EDGE),
    ],
    "ex5_batch_gen": [
        ("finished rows fed their own argmax instead of pad_id", EX5_WRONG_FEEDS_ARGMAX),
        ("right padding with positions 0..T-1", EX5_WRONG_RIGHT_PAD),
        ("left padding but positions 0..T-1 for every row", EX5_WRONG_POSITIONS),
        ("no per-row EOS: rows keep generating after EOS", EX5_WRONG_NO_EOS_HANDLING),
    ],
}

ALT = {
    "ex1_nf4": EX1_ALT,
    "ex2_qlora": EX2_ALT,
    "ex3_gptq": EX3_ALT,
    "ex4_radix": EX4_ALT,
    "ex5_batch_gen": EX5_ALT,
}
