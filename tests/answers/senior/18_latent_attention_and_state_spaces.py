"""Classic wrong answers and a different correct approach for senior/18_latent_attention_and_state_spaces."""

from functools import partial

from tests.answers.senior import edited, reference

_ref = partial(reference, "senior/18_latent_attention_and_state_spaces")

EX1_WRONG_TOP_LEFT_CAUSAL = edited(_ref("ex1_mla"), """\
        allowed = torch.ones(T, S, dtype=torch.bool, device=x.device).tril(diagonal=S - T)
        out = F.scaled_dot_product_attention(q, k, v, attn_mask=allowed)""", """\
        out = F.scaled_dot_product_attention(q, k, v, is_causal=True)""")

EX1_WRONG_CACHE_NOT_APPENDED = edited(edited(_ref("ex1_mla"), """\
        c = self.kv_down(x)
        if cache is not None:
            c = torch.cat([cache, c], dim=1)
""", """\
        new = self.kv_down(x)
        c = new if cache is None else torch.cat([cache, new], dim=1)
"""), "reshape(B, T, -1)), c", "reshape(B, T, -1)), new")

EX1_WRONG_LATENT_COUNTED_TWICE = edited(_ref("ex1_mla"), "numbers = d_latent + rope_dim", "numbers = 2 * d_latent + rope_dim")

EX1_ALT = '''
class LatentKVAttention(nn.Module):
    def __init__(self, d_model, n_heads, d_latent):
        super().__init__()
        self.h = n_heads
        self.out_proj = nn.Linear(d_model, d_model, bias=False)
        self.v_up = nn.Linear(d_latent, d_model, bias=False)
        self.k_up = nn.Linear(d_latent, d_model, bias=False)
        self.kv_down = nn.Linear(d_model, d_latent, bias=False)
        self.q_proj = nn.Linear(d_model, d_model, bias=False)

    def forward(self, x, cache=None):
        B, T, d = x.shape
        dh = d // self.h
        latent = self.kv_down(x) if cache is None else torch.cat((cache, self.kv_down(x)), 1)
        S = latent.shape[1]
        q = self.q_proj(x).reshape(B, T, self.h, dh)
        k = self.k_up(latent).reshape(B, S, self.h, dh)
        v = self.v_up(latent).reshape(B, S, self.h, dh)
        scores = torch.einsum("bthe,bshe->bhts", q, k) / dh ** 0.5
        q_pos = torch.arange(S - T, S, device=x.device)[:, None]
        k_pos = torch.arange(S, device=x.device)[None, :]
        scores = scores.masked_fill(k_pos > q_pos, float("-inf"))
        out = torch.einsum("bhts,bshe->bthe", scores.softmax(-1), v).reshape(B, T, d)
        return self.out_proj(out), latent


def kv_cache_bytes(kind, n_heads, head_dim, *, n_kv_heads=None, d_latent=None, rope_dim=0, dtype=torch.bfloat16):
    size = torch.empty((), dtype=dtype).element_size()
    per_kind = {
        "mha": lambda: 2 * n_heads * head_dim,
        "gqa": lambda: 2 * n_kv_heads * head_dim,
        "mla": lambda: d_latent + rope_dim,
    }
    if kind not in per_kind:
        raise ValueError("kind must be mha, gqa or mla")
    return per_kind[kind]() * size
'''

# every head scores all T positions, so the last i targets must come from somewhere
_EX2_FULL_LENGTH = edited(_ref("ex2_mtp"), "head(hidden[:, :T - i])", "head(hidden)")
EX2_WRONG_ROLL = edited(_EX2_FULL_LENGTH, "tokens[:, i:].reshape(-1)", "torch.roll(tokens, shifts=-i, dims=1).reshape(-1)")
EX2_WRONG_PAD_WITH_TOKEN = edited(_EX2_FULL_LENGTH, "tokens[:, i:].reshape(-1)", "F.pad(tokens[:, i:], (0, i), value=0).reshape(-1)")

EX2_WRONG_OFF_BY_ONE = edited(_ref("ex2_mtp"), "enumerate(heads, start=1)", "enumerate(heads)")

EX2_ALT = '''
def mtp_loss(hidden, heads, tokens):
    B, T = tokens.shape
    losses = []
    for i in range(1, len(heads) + 1):
        target = torch.full_like(tokens, -100)
        target[:, :T - i] = tokens[:, i:]
        logits = heads[i - 1](hidden)
        losses.append(F.cross_entropy(logits.transpose(1, 2), target, ignore_index=-100))
    per_head = torch.stack(losses)
    return per_head.sum() / len(heads), per_head
'''

EX3_WRONG_EXP_A = edited(edited(_ref("ex3_scan"), "torch.exp(dt[:, t, :, None] * A)", "torch.exp(A)"),
                         "L = (dt[..., None] * A).cumsum(dim=1)", "L = (torch.ones_like(dt)[..., None] * A).cumsum(dim=1)")

EX3_WRONG_UNSTABLE_CUMSUM = edited(_ref("ex3_scan"), """\
    causal = torch.ones(T, T, dtype=torch.bool, device=x.device).tril()
    seg = (L[:, :, None] - L[:, None, :]).masked_fill(~causal[:, :, None, None], float("-inf"))
    h = (seg.exp() * u[:, None]).sum(dim=2)""", """\
    h = torch.exp(L) * torch.cumsum(torch.exp(-L) * u, dim=1)""")

EX3_WRONG_PARALLEL_IS_A_LOOP = edited(_ref("ex3_scan"), """\
    T = x.shape[1]
    L = (dt[..., None] * A).cumsum(dim=1)                      # (Bt, T, D, N)
    u = (dt * x)[..., None] * B[:, :, None, :]                  # (Bt, T, D, N)
    causal = torch.ones(T, T, dtype=torch.bool, device=x.device).tril()
    seg = (L[:, :, None] - L[:, None, :]).masked_fill(~causal[:, :, None, None], float("-inf"))
    h = (seg.exp() * u[:, None]).sum(dim=2)                     # (Bt, T, D, N)
    return (h * C[:, :, None, :]).sum(-1)""", """\
    return selective_scan_sequential(x, dt, A, B, C)""")

EX3_WRONG_MASK_ON_CPU = edited(_ref("ex3_scan"), "torch.ones(T, T, dtype=torch.bool, device=x.device)",
                               "torch.ones(T, T, dtype=torch.bool)")

EX3_ALT = '''
def selective_scan_sequential(x, dt, A, B, C):
    Bt, T, D = x.shape
    state = torch.zeros(Bt, D, A.shape[1], dtype=x.dtype, device=x.device)
    out = []
    for t in range(T):
        decay = torch.exp(torch.einsum("bd,dn->bdn", dt[:, t], A))
        state = decay * state + torch.einsum("bd,bn->bdn", dt[:, t] * x[:, t], B[:, t])
        out.append(torch.einsum("bdn,bn->bd", state, C[:, t]))
    return torch.stack(out, 1)


def selective_scan_parallel(x, dt, A, B, C):
    # log-depth (Hillis-Steele) scan over the pairs (a_t, b_t) of h_t = a_t * h_(t-1) + b_t
    a = torch.exp(torch.einsum("btd,dn->btdn", dt, A))
    b = torch.einsum("btd,btn->btdn", dt * x, B)
    T = x.shape[1]
    shift = 1
    while shift < T:
        a_prev = torch.cat([torch.ones_like(a[:, :shift]), a[:, :-shift]], dim=1)
        b_prev = torch.cat([torch.zeros_like(b[:, :shift]), b[:, :-shift]], dim=1)
        b = a * b_prev + b
        a = a * a_prev
        shift *= 2
    return torch.einsum("btdn,btn->btd", b, C)
'''

# the colleague's two bugs: the state is reset in every chunk, and carried in with exp(step * A), not exp(L)
EX4_WRONG_STATE_STILL_RESET = edited(_ref("ex4_chunked"), "    for start in range(0, T, chunk):\n",
                                     "    for start in range(0, T, chunk):\n        h = x.new_zeros(Bt, D, A.shape[1])\n")


def _decay_by_steps(answer):
    return edited(answer, "        h_all = (seg.exp() * u[:, None]).sum(dim=2) + torch.exp(L) * h[:, None]\n", """\
        steps = torch.arange(1, n + 1, device=x.device, dtype=x.dtype)[:, None, None]
        h_all = (seg.exp() * u[:, None]).sum(dim=2) + torch.exp(steps * A) * h[:, None]
""")


EX4_WRONG_DECAY_STILL_EXP_A = _decay_by_steps(_ref("ex4_chunked"))
EX4_WRONG_AS_GIVEN = _decay_by_steps(EX4_WRONG_STATE_STILL_RESET)

EX4_ALT = '''
def chunked_scan(x, dt, A, B, C, chunk):
    Bt, T, D = x.shape
    state = torch.zeros(Bt, D, A.shape[1], dtype=x.dtype, device=x.device)
    pieces = []
    for lo in range(0, T, chunk):
        hi = min(lo + chunk, T)
        outs = []
        for t in range(lo, hi):
            state = torch.exp(dt[:, t].unsqueeze(-1) * A) * state \\
                + (dt[:, t] * x[:, t]).unsqueeze(-1) * B[:, t].unsqueeze(1)
            outs.append(torch.einsum("bdn,bn->bd", state, C[:, t]))
        pieces.append(torch.stack(outs, dim=1))
    return torch.cat(pieces, dim=1)
'''

EX5_WRONG_NOISE_IN_EVAL = edited(_ref("ex5_routers"), "    if training:\n        logits = logits +", "    logits = logits +")

EX5_WRONG_BIAS_IN_GATES = edited(_ref("ex5_routers"), """\
    s = torch.sigmoid(logits)
    idx = (s + bias).topk(k, dim=-1).indices
    chosen = s.gather(-1, idx)
""", """\
    s = torch.sigmoid(logits) + bias
    chosen, idx = s.topk(k, dim=-1)
""")

EX5_WRONG_UPDATE_SIGN = edited(_ref("ex5_routers"), "torch.sign(load.mean() - load)", "torch.sign(load - load.mean())")

EX5_ALT = '''
def noisy_top_k_gates(x, w_gate, w_noise, k, training):
    clean = torch.matmul(x, w_gate)
    if training:
        scale = torch.log1p(torch.exp(torch.matmul(x, w_noise)))
        clean = clean + scale * torch.randn(clean.shape, dtype=clean.dtype, device=clean.device)
    kth = clean.topk(k, dim=1).values[:, k - 1:k]
    return torch.softmax(clean.masked_fill(clean < kth, float("-inf")), dim=1)


def sigmoid_bias_gates(logits, bias, k):
    aff = logits.sigmoid()
    picked = (aff + bias.unsqueeze(0)).topk(k, dim=1).indices
    mask = torch.zeros_like(aff, dtype=torch.bool).scatter(1, picked, True)
    kept = torch.where(mask, aff, torch.zeros_like(aff))
    return kept / kept.sum(dim=1, keepdim=True)


def update_router_bias(bias, gates, rate):
    counts = (gates.detach() > 0).float().sum(0)
    target = counts.sum() / counts.numel()
    step = torch.where(counts < target, torch.ones_like(counts),
                       torch.where(counts > target, -torch.ones_like(counts), torch.zeros_like(counts)))
    return bias.detach().clone() + rate * step.to(bias.dtype)
'''

WRONG = {
    "ex1_mla": [
        ("is_causal=True with a cache: the mask aligns top-left", EX1_WRONG_TOP_LEFT_CAUSAL),
        ("returns only the new latents as the cache", EX1_WRONG_CACHE_NOT_APPENDED),
        ("MLA cache bytes count the latent twice (once for K, once for V)", EX1_WRONG_LATENT_COUNTED_TWICE),
    ],
    "ex2_mtp": [
        ("torch.roll: targets wrap around to the first tokens", EX2_WRONG_ROLL),
        ("targets padded with a real token id (0) and counted", EX2_WRONG_PAD_WITH_TOKEN),
        ("head i predicts token t + i - 1 (off by one)", EX2_WRONG_OFF_BY_ONE),
    ],
    "ex3_scan": [
        ("decay exp(A) instead of exp(dt * A)", EX3_WRONG_EXP_A),
        ("parallel form exp(L) * cumsum(exp(-L) u): overflows on long sequences", EX3_WRONG_UNSTABLE_CUMSUM),
        ("the parallel form is still a loop over time", EX3_WRONG_PARALLEL_IS_A_LOOP),
        ("causal mask built on the CPU: breaks on a GPU", EX3_WRONG_MASK_ON_CPU),
    ],
    "ex4_chunked": [
        ("the broken code as given", EX4_WRONG_AS_GIVEN),
        ("state carried, but still decayed by exp(step * A)", EX4_WRONG_DECAY_STILL_EXP_A),
        ("decay fixed, but the state is still reset in every chunk", EX4_WRONG_STATE_STILL_RESET),
    ],
    "ex5_routers": [
        ("noise also at evaluation", EX5_WRONG_NOISE_IN_EVAL),
        ("the balancing bias leaks into the gate values", EX5_WRONG_BIAS_IN_GATES),
        ("bias update pushes over-loaded experts up", EX5_WRONG_UPDATE_SIGN),
    ],
}

ALT = {
    "ex1_mla": EX1_ALT,
    "ex2_mtp": EX2_ALT,
    "ex3_scan": EX3_ALT,
    "ex4_chunked": EX4_ALT,
    "ex5_routers": EX5_ALT,
}
