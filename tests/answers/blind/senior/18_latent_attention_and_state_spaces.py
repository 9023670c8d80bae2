"""Blind set for notebooks/senior/18_latent_attention_and_state_spaces.ipynb, written from release/ alone
(issue 33)."""

_MLA_IS_CAUSAL = '''
class LatentKVAttention(nn.Module):
    def __init__(self, d_model: int, n_heads: int, d_latent: int):
        super().__init__()
        self.h, self.dh = n_heads, d_model // n_heads
        self.q_proj = nn.Linear(d_model, d_model, bias=False)
        self.kv_down = nn.Linear(d_model, d_latent, bias=False)
        self.k_up = nn.Linear(d_latent, d_model, bias=False)
        self.v_up = nn.Linear(d_latent, d_model, bias=False)
        self.out_proj = nn.Linear(d_model, d_model, bias=False)

    def forward(self, x, cache=None):
        B, T, d = x.shape
        c = self.kv_down(x)
        if cache is not None:
            c = torch.cat([cache, c], dim=1)
        S = c.shape[1]
        q = self.q_proj(x).view(B, T, self.h, self.dh).transpose(1, 2)
        k = self.k_up(c).view(B, S, self.h, self.dh).transpose(1, 2)
        v = self.v_up(c).view(B, S, self.h, self.dh).transpose(1, 2)
        y = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        return self.out_proj(y.transpose(1, 2).reshape(B, T, d)), c


def kv_cache_bytes(kind: str, n_heads: int, head_dim: int, *, n_kv_heads=None, d_latent=None, rope_dim: int = 0,
                   dtype=torch.bfloat16) -> int:
    if kind == "mha":
        return 2 * n_heads * head_dim * dtype.itemsize
    if kind == "gqa":
        return 2 * n_kv_heads * head_dim * dtype.itemsize
    if kind == "mla":
        return (d_latent + rope_dim) * dtype.itemsize
    raise ValueError(f"unknown kind {kind!r}")
'''

_MLA_ALT = '''
class LatentKVAttention(nn.Module):
    def __init__(self, d_model: int, n_heads: int, d_latent: int):
        super().__init__()
        self.n_heads = n_heads
        self.q_proj = nn.Linear(d_model, d_model, bias=False)
        self.kv_down = nn.Linear(d_model, d_latent, bias=False)
        self.k_up = nn.Linear(d_latent, d_model, bias=False)
        self.v_up = nn.Linear(d_latent, d_model, bias=False)
        self.out_proj = nn.Linear(d_model, d_model, bias=False)

    def _split(self, t):  # (B, S, d) -> (B, H, S, d_h), heads as consecutive blocks of the last dim
        B, S, d = t.shape
        return t.reshape(B, S, self.n_heads, d // self.n_heads).permute(0, 2, 1, 3)

    def forward(self, x, cache=None):
        latents = self.kv_down(x)
        if cache is not None:
            latents = torch.cat((cache, latents), dim=-2)
        q, k, v = self._split(self.q_proj(x)), self._split(self.k_up(latents)), self._split(self.v_up(latents))
        T, S = q.shape[-2], k.shape[-2]
        scores = torch.matmul(q, k.transpose(-1, -2)) / math.sqrt(q.shape[-1])
        rows = torch.arange(S - T, S, device=x.device).unsqueeze(1)  # absolute positions of the queries
        cols = torch.arange(S, device=x.device).unsqueeze(0)
        scores = scores.masked_fill(cols > rows, float("-inf"))
        out = torch.matmul(torch.softmax(scores, dim=-1), v)
        B, H, _, dh = out.shape
        return self.out_proj(out.permute(0, 2, 1, 3).reshape(B, T, H * dh)), latents


def kv_cache_bytes(kind: str, n_heads: int, head_dim: int, *, n_kv_heads=None, d_latent=None, rope_dim: int = 0,
                   dtype=torch.bfloat16) -> int:
    size = torch.empty((), dtype=dtype).element_size()
    numbers = {"mha": lambda: 2 * n_heads * head_dim,
               "gqa": lambda: 2 * n_kv_heads * head_dim,
               "mla": lambda: d_latent + rope_dim}
    if kind not in numbers:
        raise ValueError(f"kind must be one of {sorted(numbers)}, got {kind!r}")
    return int(numbers[kind]() * size)
'''

_MTP_ROLL = '''
def mtp_loss(hidden, heads, tokens):
    per_head = []
    for i, head in enumerate(heads, start=1):
        logits = head(hidden)
        target = torch.roll(tokens, shifts=-i, dims=1)
        per_head.append(F.cross_entropy(logits.transpose(1, 2), target))
    per_head = torch.stack(per_head)
    return per_head.mean(), per_head
'''

_MTP_ALT = '''
def mtp_loss(hidden, heads, tokens):
    T = tokens.shape[1]
    losses = []
    for i, head in enumerate(heads, start=1):
        logp = F.log_softmax(head(hidden[:, :T - i]), dim=-1)  # (B, T - i, V)
        picked = logp.gather(-1, tokens[:, i:].unsqueeze(-1)).squeeze(-1)
        losses.append(-picked.mean())
    per_head = torch.stack(losses)
    return per_head.sum() / len(losses), per_head
'''

_SCAN_SEQ = '''
def selective_scan_sequential(x, dt, A, B, C):
    Bt, T, D = x.shape
    h = x.new_zeros(Bt, D, A.shape[1])
    ys = []
    for t in range(T):
        h = torch.exp(dt[:, t, :, None] * A) * h + (dt[:, t] * x[:, t])[:, :, None] * B[:, t, None, :]
        ys.append((h * C[:, t, None, :]).sum(-1))
    return torch.stack(ys, dim=1)
'''

_SCAN_LOOP_ONLY = _SCAN_SEQ + '''

def selective_scan_parallel(x, dt, A, B, C):
    return selective_scan_sequential(x, dt, A, B, C)
'''

_SCAN_DOUBLING = _SCAN_SEQ + '''

def selective_scan_parallel(x, dt, A, B, C):
    # h_t = a_t h_(t-1) + u_t is a linear recurrence: combine pairs (a, u) at distances 1, 2, 4, ...
    # (Hillis-Steele), log2(T) steps in all
    a = torch.exp(dt[..., None] * A)  # (Bt, T, D, N)
    u = (dt * x)[..., None] * B[:, :, None, :]
    T, off = x.shape[1], 1
    while off < T:
        u = torch.cat([u[:, :off], u[:, off:] + a[:, off:] * u[:, :-off]], dim=1)
        a = torch.cat([a[:, :off], a[:, off:] * a[:, :-off]], dim=1)
        off *= 2
    return (u * C[:, :, None, :]).sum(-1).to(x.dtype)
'''

_CHUNK_STEPS_DECAY = '''
def chunked_scan(x, dt, A, B, C, chunk: int):
    Bt, T, D = x.shape
    ys = []
    h = x.new_zeros(Bt, D, A.shape[1])
    for start in range(0, T, chunk):
        xs, dts, Bs, Cs = (v[:, start:start + chunk] for v in (x, dt, B, C))
        n = xs.shape[1]
        L = (dts[..., None] * A).cumsum(dim=1)
        u = (dts * xs)[..., None] * Bs[:, :, None, :]
        causal = torch.ones(n, n, dtype=torch.bool, device=x.device).tril()
        seg = (L[:, :, None] - L[:, None]).masked_fill(~causal[:, :, None, None], float("-inf"))
        steps = torch.arange(1, n + 1, device=x.device, dtype=x.dtype)[:, None, None]
        h_all = (seg.exp() * u[:, None]).sum(dim=2) + torch.exp(steps * A) * h[:, None]
        ys.append((h_all * Cs[:, :, None, :]).sum(-1))
        h = h_all[:, -1]
    return torch.cat(ys, dim=1)
'''

_CHUNK_ALT = '''
def chunked_scan(x, dt, A, B, C, chunk: int):
    Bt, T, D = x.shape
    h = x.new_zeros(Bt, D, A.shape[1])  # the state carried from chunk to chunk
    ys = []
    for start in range(0, T, chunk):
        dts, xs = dt[:, start:start + chunk], x[:, start:start + chunk]
        Bs, Cs = B[:, start:start + chunk], C[:, start:start + chunk]
        log_a = dts[..., None] * A  # (Bt, n, D, N)
        u = (dts * xs)[..., None] * Bs[:, :, None, :]
        n, off = xs.shape[1], 1
        while off < n:  # in-chunk scan from a zero state, by doubling
            u = torch.cat([u[:, :off], u[:, off:] + torch.exp(log_a[:, off:]) * u[:, :-off]], dim=1)
            log_a = torch.cat([log_a[:, :off], log_a[:, off:] + log_a[:, :-off]], dim=1)
            off *= 2
        h_all = u + torch.exp(log_a) * h[:, None]  # log_a is now the decay since the chunk's start
        ys.append(torch.einsum("btdn,btn->btd", h_all, Cs))
        h = h_all[:, -1]
    return torch.cat(ys, dim=1)
'''

_ROUTERS = '''
def noisy_top_k_gates(x, w_gate, w_noise, k: int, training: bool):
    logits = x @ w_gate
    if training:
        logits = logits + torch.randn_like(logits) * F.softplus(x @ w_noise)
    vals, idx = logits.topk(k, dim=-1)
    return torch.zeros_like(logits).scatter(-1, idx, vals.softmax(-1))


def sigmoid_bias_gates(logits, bias, k: int):
    s = torch.sigmoid(logits)
    idx = (s + bias).topk(k, dim=-1).indices
    chosen = s.gather(-1, idx)
    return torch.zeros_like(s).scatter(-1, idx, chosen / chosen.sum(-1, keepdim=True))


def update_router_bias(bias, gates, rate: float):
    with torch.no_grad():
        load = (gates != 0).sum(0).to(bias.dtype)
        bias += rate * torch.sign(load.mean() - load)
    return bias
'''

_ROUTERS_ALT = '''
def noisy_top_k_gates(x, w_gate, w_noise, k: int, training: bool):
    logits = torch.matmul(x, w_gate)
    if training:
        scale = F.softplus(torch.matmul(x, w_noise))
        logits = logits + scale * torch.randn(logits.shape, dtype=logits.dtype, device=logits.device)
    winners = torch.zeros_like(logits, dtype=torch.bool).scatter(-1, logits.topk(k, dim=-1).indices, True)
    return torch.softmax(logits.masked_fill(~winners, float("-inf")), dim=-1)


def sigmoid_bias_gates(logits, bias, k: int):
    affinity = logits.sigmoid()
    winners = torch.zeros_like(affinity, dtype=torch.bool)
    winners = winners.scatter(-1, torch.topk(affinity + bias, k, dim=-1).indices, True)  # bias only picks
    kept = torch.where(winners, affinity, torch.zeros_like(affinity))
    return kept / kept.sum(dim=-1, keepdim=True)


def update_router_bias(bias, gates, rate: float):
    load = gates.detach().ne(0).to(bias.dtype).sum(dim=0)
    step = torch.sign(load.mean() - load) * rate
    return (bias.detach() + step).clone()
'''

WRONG = {
    "ex1_mla": ("uses is_causal=True with a cache, which anchors the triangle top-left", _MLA_IS_CAUSAL),
    "ex2_mtp": ("torch.roll for the targets: the last i positions wrap round and count", _MTP_ROLL),
    "ex3_scan": ("the 'parallel' scan just calls the Python loop over the T steps", _SCAN_LOOP_ONLY),
    "ex4_chunked": ("carries the state across chunks but decays it by exp(steps * A), ignoring dt",
                    _CHUNK_STEPS_DECAY),
    "ex5_routers": ("update_router_bias nudges the bias in place instead of returning a new one", _ROUTERS),
}

ALT = {
    "ex1_mla": _MLA_ALT,
    "ex2_mtp": _MTP_ALT,
    "ex3_scan": _SCAN_DOUBLING,
    "ex4_chunked": _CHUNK_ALT,
    "ex5_routers": _ROUTERS_ALT,
}
