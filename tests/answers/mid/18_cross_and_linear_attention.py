"""Known-wrong and alternative answers for notebooks/mid/18_cross_and_linear_attention.ipynb."""

_TF = '''def teacher_forcing_loss(decoder, memory, memory_pad, tgt, bos_id, eos_id, pad_id):
    B, T = tgt.shape
    lengths = (tgt != pad_id).sum(dim=1)
    shifted = torch.cat([tgt.new_full((B, 1), bos_id), tgt], dim=1)
    dec_tgt = torch.cat([tgt, tgt.new_full((B, 1), pad_id)], dim=1).scatter(1, lengths[:, None], eos_id)
BODY
'''

_LIN = '''def linear_attention(q, k, v, causal=False):
    fq, fk = FEAT(q), FEAT(k)
    if causal:
        S = torch.einsum("...ld,...le->...lde", fk, v).cumsum(dim=-3)
        z = fk.cumsum(dim=-2)
        SHIFT
        num = torch.einsum("...ld,...lde->...le", fq, S)
        den = (fq * z).sum(-1, keepdim=True)
    else:
        S = torch.einsum("...ld,...le->...de", fk, v)
        num = fq @ S
        den = fq @ fk.sum(dim=-2).unsqueeze(-1)
    return NORM
'''

_ALIBI_OK = '''def alibi_slopes(n_heads):
    h = torch.arange(1, n_heads + 1, dtype=torch.float32)
    return 2.0 ** (-8.0 * h / n_heads)
'''

_ALIBI_BIAS_OK = '''
def alibi_bias(n_heads, L, device=None):
    pos = torch.arange(L, device=device)
    dist = (pos[:, None] - pos[None, :]).float()
    bias = -alibi_slopes(n_heads).to(device)[:, None, None] * dist
    return bias.masked_fill(dist < 0, float("-inf"))
'''

_NTK_OK = '''
def ntk_scaled_base(base, head_dim, scale):
    return float(base * scale ** (head_dim / (head_dim - 2)))
'''

_GAT = '''class GATLayer(nn.Module):
    def __init__(self, d_in, d_out, negative_slope=0.2):
        super().__init__()
        self.W = nn.Linear(d_in, d_out, bias=False)
        self.a = nn.Parameter(0.1 * torch.randn(2 * d_out))
        self.negative_slope = negative_slope

    def forward(self, h, adj):
        z = self.W(h)
        d = z.shape[-1]
        e = F.leaky_relu((z @ self.a[:d])[:, None] + (z @ self.a[d:])[None, :], self.negative_slope)
BODY
'''

WRONG = {
    "ex1_cross_attention": [
        ("fills padded keys with -inf and nothing else: NaN for an all-padding sample",
         '''def cross_attention(q, k, v, memory_pad_mask):
    scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
    scores = scores.masked_fill(memory_pad_mask[:, None, :], float("-inf"))
    return scores.softmax(dim=-1) @ v
'''),
        ("reads the mask the wrong way round (True = keep)",
         '''def cross_attention(q, k, v, memory_pad_mask):
    keep = memory_pad_mask[:, None, :]
    scores = (q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])).masked_fill(~keep, -1e9)
    return (scores.softmax(dim=-1) * keep) @ v
'''),
        ("zeroes the output of all-padding samples after a -inf softmax (forward fine, v's gradient NaN)",
         '''def cross_attention(q, k, v, memory_pad_mask):
    scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
    w = scores.masked_fill(memory_pad_mask[:, None, :], float("-inf")).softmax(dim=-1)
    return (w @ v).masked_fill(memory_pad_mask.all(dim=-1)[:, None, None], 0.0)
'''),
    ],
    "ex2_teacher_forcing": [
        ("feeds the target itself as the decoder input (the answer leaks)",
         _TF.replace("BODY", '''    allowed = torch.ones(T + 1, T + 1, dtype=torch.bool, device=tgt.device).tril()
    logits = decoder(dec_tgt, memory, memory_pad, allowed)
    return F.cross_entropy(logits.flatten(0, 1), dec_tgt.flatten(), ignore_index=pad_id)''')),
        ("passes the blocked-future mask where the decoder expects an allowed mask",
         _TF.replace("BODY", '''    blocked = torch.ones(T + 1, T + 1, dtype=torch.bool, device=tgt.device).triu(diagonal=1)
    logits = decoder(shifted, memory, memory_pad, blocked)
    return F.cross_entropy(logits.flatten(0, 1), dec_tgt.flatten(), ignore_index=pad_id)''')),
        ("appends EOS after the padding and counts padded targets in the loss",
         '''def teacher_forcing_loss(decoder, memory, memory_pad, tgt, bos_id, eos_id, pad_id):
    B, T = tgt.shape
    dec_in = torch.cat([tgt.new_full((B, 1), bos_id), tgt], dim=1)
    dec_tgt = torch.cat([tgt, tgt.new_full((B, 1), eos_id)], dim=1)
    allowed = torch.ones(T + 1, T + 1, dtype=torch.bool, device=tgt.device).tril()
    logits = decoder(dec_in, memory, memory_pad, allowed)
    return F.cross_entropy(logits.flatten(0, 1), dec_tgt.flatten())
'''),
    ],
    "ex3_linear_attention": [
        ("no normalisation (returns phi(q)^T S)",
         _LIN.replace("FEAT(q)", "F.elu(q) + 1").replace("FEAT(k)", "F.elu(k) + 1")
         .replace("        SHIFT\n", "").replace("NORM", "num")),
        ("exclusive prefix sums: a position does not see its own key",
         _LIN.replace("FEAT(q)", "F.elu(q) + 1").replace("FEAT(k)", "F.elu(k) + 1")
         .replace("SHIFT", "S, z = S - torch.einsum('...ld,...le->...lde', fk, v) + 1e-6, z - fk + 1e-6")
         .replace("NORM", "num / den")),
        ("elu without the + 1 (the feature map can go negative)",
         _LIN.replace("FEAT(q)", "F.elu(q)").replace("FEAT(k)", "F.elu(k)")
         .replace("        SHIFT\n", "").replace("NORM", "num / den")),
    ],
    "ex4_alibi_ntk": [
        ("slopes counted from h = 0 (the first head gets slope 1)",
         '''def alibi_slopes(n_heads):
    h = torch.arange(0, n_heads, dtype=torch.float32)
    return 2.0 ** (-8.0 * h / n_heads)
''' + _ALIBI_BIAS_OK + _NTK_OK),
        ("bias with the wrong sign (rewards distance)",
         _ALIBI_OK + '''
def alibi_bias(n_heads, L, device=None):
    pos = torch.arange(L, device=device)
    dist = (pos[:, None] - pos[None, :]).float()
    bias = alibi_slopes(n_heads).to(device)[:, None, None] * dist
    return bias.masked_fill(dist < 0, float("-inf"))
''' + _NTK_OK),
        ("NTK base scaled by s instead of s ** (d / (d - 2))",
         _ALIBI_OK + _ALIBI_BIAS_OK + '''
def ntk_scaled_base(base, head_dim, scale):
    return float(base * scale)
'''),
    ],
    "ex5_gat": [
        ("softmax over all nodes (adjacency ignored)",
         _GAT.replace("BODY", '''        alpha = e.softmax(dim=-1)
        return alpha @ z, alpha''')),
        ("softmax over outgoing edges (adjacency read transposed)",
         _GAT.replace("BODY", '''        edges = adj.T | torch.eye(adj.shape[0], dtype=torch.bool, device=adj.device)
        alpha = e.masked_fill(~edges, float("-inf")).softmax(dim=-1)
        return alpha @ z, alpha''')),
        ("no self-loops (a node without incoming edges gets NaN)",
         _GAT.replace("BODY", '''        alpha = e.masked_fill(~adj, float("-inf")).softmax(dim=-1)
        return alpha @ z, alpha''')),
    ],
}

ALT = {
    "ex1_cross_attention": '''def cross_attention(q, k, v, memory_pad_mask):
    empty = memory_pad_mask.all(dim=-1)
    pad = memory_pad_mask & ~empty[:, None]
    scores = torch.einsum("bqd,bkd->bqk", q, k) * q.shape[-1] ** -0.5
    scores = scores + torch.zeros_like(pad, dtype=q.dtype).masked_fill(pad, float("-inf"))[:, None, :]
    out = torch.einsum("bqk,bkv->bqv", torch.softmax(scores, dim=-1), v)
    return torch.where(empty[:, None, None], torch.zeros_like(out), out)
''',
    "ex2_teacher_forcing": '''def teacher_forcing_loss(decoder, memory, memory_pad, tgt, bos_id, eos_id, pad_id):
    B, T = tgt.shape
    dec_in = F.pad(tgt, (1, 0), value=bos_id)
    targets = F.pad(tgt, (0, 1), value=pad_id)
    n = (tgt != pad_id).sum(1)
    targets[torch.arange(B, device=tgt.device), n] = eos_id
    allowed = ~torch.triu(torch.ones(T + 1, T + 1, dtype=torch.bool, device=tgt.device), diagonal=1)
    logp = decoder(dec_in, memory, memory_pad, allowed).log_softmax(-1)
    real = targets != pad_id
    nll = -logp.gather(-1, targets.unsqueeze(-1)).squeeze(-1)
    return nll[real].sum() / real.sum()
''',
    "ex3_linear_attention": '''def linear_attention(q, k, v, causal=False):
    phi_q = torch.where(q > 0, q + 1, torch.exp(q))
    phi_k = torch.where(k > 0, k + 1, torch.exp(k))
    if not causal:
        kv = phi_k.transpose(-2, -1) @ v
        return (phi_q @ kv) / (phi_q * phi_k.sum(-2, keepdim=True)).sum(-1, keepdim=True)
    state = q.new_zeros(*q.shape[:-2], q.shape[-1], v.shape[-1])
    norm = q.new_zeros(*q.shape[:-2], q.shape[-1])
    outs = []
    for t in range(q.shape[-2]):
        state = state + phi_k[..., t, :, None] * v[..., t, None, :]
        norm = norm + phi_k[..., t, :]
        num = (phi_q[..., t, :, None] * state).sum(-2)
        outs.append(num / (phi_q[..., t, :] * norm).sum(-1, keepdim=True))
    return torch.stack(outs, dim=-2)
''',
    "ex4_alibi_ntk": '''def alibi_slopes(n_heads):
    start = 2 ** (-8 / n_heads)
    return torch.tensor([start ** (h + 1) for h in range(n_heads)], dtype=torch.float32)


def alibi_bias(n_heads, L, device=None):
    i = torch.arange(L, device=device, dtype=torch.float32).view(L, 1)
    j = torch.arange(L, device=device, dtype=torch.float32).view(1, L)
    rel = (j - i).expand(n_heads, L, L)
    bias = alibi_slopes(n_heads).to(device).view(-1, 1, 1) * rel
    return torch.where(rel > 0, torch.full_like(bias, float("-inf")), bias)


def ntk_scaled_base(base, head_dim, scale):
    return math.exp(math.log(base) + head_dim / (head_dim - 2) * math.log(scale))
''',
    "ex5_gat": '''class GATLayer(nn.Module):
    def __init__(self, d_in, d_out, negative_slope=0.2):
        super().__init__()
        self.a = nn.Parameter(torch.zeros(2 * d_out))
        self.W = nn.Linear(d_in, d_out, bias=False)
        self.slope = negative_slope

    def forward(self, h, adj):
        N = h.shape[0]
        z = self.W(h)
        eye = torch.eye(N, dtype=torch.bool, device=adj.device)
        dst, src = torch.nonzero(adj | eye, as_tuple=True)
        score = F.leaky_relu(torch.cat([z[dst], z[src]], dim=-1) @ self.a, self.slope)
        top = torch.full((N,), float("-inf"), device=z.device, dtype=z.dtype)
        top = top.scatter_reduce(0, dst, score, reduce="amax")
        ex = torch.exp(score - top[dst])
        denom = torch.zeros(N, device=z.device, dtype=z.dtype).index_add(0, dst, ex)
        w = ex / denom[dst]
        out = torch.zeros_like(z).index_add(0, dst, w[:, None] * z[src])
        alpha = torch.zeros(N, N, device=z.device, dtype=z.dtype).index_put((dst, src), w)
        return out, alpha
''',
}

# Ignores the `device` argument: on a CPU-only machine only the meta device shows it.
_CPU_ALIBI = ALT["ex4_alibi_ntk"].replace("device=device, ", "").replace(".to(device)", "")
assert _CPU_ALIBI != ALT["ex4_alibi_ntk"]
WRONG["ex4_alibi_ntk"].append(("alibi_bias ignores its device argument: the bias is always on the CPU", _CPU_ALIBI))

# issue 33: the statement asks for attention by hand; calling the fused library kernel is a shortcut.
WRONG["ex1_cross_attention"].append(("shortcut: calls F.scaled_dot_product_attention", '''
def cross_attention(q, k, v, memory_pad_mask):
    keep = ~memory_pad_mask[:, None, :]
    out = F.scaled_dot_product_attention(q, k, v, attn_mask=keep)
    return torch.where(keep.any(-1, keepdim=True), out, torch.zeros_like(out))
'''))
