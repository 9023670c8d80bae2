"""Blind set for notebooks/mid/18_cross_and_linear_attention.ipynb, written from release/ alone (issue 33)."""

SHORTCUT = {
    "ex1_cross_attention": ("calls F.scaled_dot_product_attention and zeroes the fully padded rows", '''
def cross_attention(q, k, v, memory_pad_mask):
    empty = memory_pad_mask.all(dim=-1)
    keep = ~memory_pad_mask | empty[:, None]
    out = F.scaled_dot_product_attention(q, k, v, attn_mask=keep[:, None, :])
    return out.masked_fill(empty[:, None, None], 0.0)
'''),
}

WRONG = {
    "ex1_cross_attention": ("masks with -inf and zeroes the NaN rows of the output afterwards (NaN gradients)", '''
def cross_attention(q, k, v, memory_pad_mask):
    scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
    scores = scores.masked_fill(memory_pad_mask[:, None, :], float("-inf"))
    out = scores.softmax(dim=-1) @ v
    return torch.nan_to_num(out, nan=0.0)
'''),
    "ex2_teacher_forcing": ("puts EOS in the last column instead of right after the last real token", '''
def teacher_forcing_loss(decoder, memory, memory_pad, tgt, bos_id, eos_id, pad_id):
    B, T = tgt.shape
    bos = torch.full((B, 1), bos_id, dtype=tgt.dtype, device=tgt.device)
    eos = torch.full((B, 1), eos_id, dtype=tgt.dtype, device=tgt.device)
    dec_in = torch.cat([bos, tgt], dim=1)
    dec_tgt = torch.cat([tgt, eos], dim=1)
    allowed = torch.ones(T + 1, T + 1, dtype=torch.bool, device=tgt.device).tril()
    logits = decoder(dec_in, memory, memory_pad, allowed)
    return F.cross_entropy(logits.flatten(0, 1), dec_tgt.flatten(), ignore_index=pad_id)
'''),
    "ex3_linear_attention": ("causal numerator uses prefix sums but the denominator uses the full sum", '''
def linear_attention(q, k, v, causal=False):
    fq, fk = F.elu(q) + 1, F.elu(k) + 1
    if causal:
        S = torch.einsum("...ld,...le->...lde", fk, v).cumsum(dim=-3)
        num = torch.einsum("...ld,...lde->...le", fq, S)
    else:
        num = fq @ (fk.transpose(-2, -1) @ v)
    den = (fq * fk.sum(dim=-2, keepdim=True)).sum(-1, keepdim=True)
    return num / den
'''),
    "ex4_alibi_ntk": ("counts the heads from 0, so the first slope is 1", '''
def alibi_slopes(n_heads):
    h = torch.arange(0, n_heads, dtype=torch.float32)
    return 2.0 ** (-8.0 * h / n_heads)


def alibi_bias(n_heads, L, device=None):
    pos = torch.arange(L, device=device, dtype=torch.float32)
    dist = pos[:, None] - pos[None, :]
    bias = -alibi_slopes(n_heads).to(device)[:, None, None] * dist
    return bias.masked_fill(dist < 0, float("-inf"))


def ntk_scaled_base(base, head_dim, scale):
    return float(base * scale ** (head_dim / (head_dim - 2)))
'''),
    "ex5_gat": ("forgets the self-loops (a node without incoming edges gets NaN)", '''
class GATLayer(nn.Module):
    def __init__(self, d_in, d_out, negative_slope=0.2):
        super().__init__()
        self.W = nn.Linear(d_in, d_out, bias=False)
        self.a = nn.Parameter(torch.randn(2 * d_out) * 0.1)
        self.negative_slope = negative_slope

    def forward(self, h, adj):
        z = self.W(h)
        d = z.shape[1]
        e = F.leaky_relu((z @ self.a[:d])[:, None] + (z @ self.a[d:])[None, :], self.negative_slope)
        alpha = e.masked_fill(~adj, float("-inf")).softmax(dim=-1)
        return alpha @ z, alpha
'''),
}

ALT = {
    "ex1_cross_attention": '''
def cross_attention(q, k, v, memory_pad_mask):
    keep = (~memory_pad_mask).to(q.dtype)[:, None, :]
    scores = torch.einsum("bqd,bkd->bqk", q, k) * q.shape[-1] ** -0.5
    top = scores.masked_fill(keep == 0, torch.finfo(q.dtype).min).amax(dim=-1, keepdim=True).detach()
    w = torch.exp(torch.minimum(scores - top, torch.zeros_like(scores))) * keep
    w = w / w.sum(dim=-1, keepdim=True).clamp_min(torch.finfo(q.dtype).tiny)
    return torch.einsum("bqk,bkv->bqv", w, v)
''',
    "ex2_teacher_forcing": '''
def teacher_forcing_loss(decoder, memory, memory_pad, tgt, bos_id, eos_id, pad_id):
    B, T = tgt.shape
    dec_in = F.pad(tgt, (1, 0), value=bos_id)
    targets = F.pad(tgt, (0, 1), value=pad_id)
    n_real = (tgt != pad_id).sum(dim=1)
    targets = targets.scatter(1, n_real[:, None], eos_id)
    idx = torch.arange(T + 1, device=tgt.device)
    logits = decoder(dec_in, memory, memory_pad, idx[None, :] <= idx[:, None])
    logp = F.log_softmax(logits, dim=-1)
    picked = logp.gather(-1, targets.clamp(min=0).unsqueeze(-1)).squeeze(-1)
    keep = (targets != pad_id).to(picked.dtype)
    return -(picked * keep).sum() / keep.sum()
''',
    "ex3_linear_attention": '''
def linear_attention(q, k, v, causal=False):
    fq, fk = F.elu(q) + 1, F.elu(k) + 1
    if not causal:
        S = fk.transpose(-2, -1) @ v
        z = fk.sum(dim=-2)
        return (fq @ S) / (fq * z.unsqueeze(-2)).sum(dim=-1, keepdim=True)
    S = q.new_zeros(*q.shape[:-2], q.shape[-1], v.shape[-1])
    z = q.new_zeros(*q.shape[:-2], q.shape[-1])
    outs = []
    for i in range(q.shape[-2]):
        S = S + fk[..., i, :, None] * v[..., i, None, :]
        z = z + fk[..., i, :]
        num = (fq[..., i, :, None] * S).sum(dim=-2)
        den = (fq[..., i, :] * z).sum(dim=-1, keepdim=True)
        outs.append(num / den)
    return torch.stack(outs, dim=-2)
''',
    "ex4_alibi_ntk": '''
def alibi_slopes(n_heads):
    ratio = 2.0 ** (-8.0 / n_heads)
    return torch.tensor([ratio ** h for h in range(1, n_heads + 1)], dtype=torch.float32)


def alibi_bias(n_heads, L, device=None):
    idx = torch.arange(L, device=device)
    rel = (idx[None, :] - idx[:, None]).to(torch.float32)
    bias = alibi_slopes(n_heads).to(device).view(-1, 1, 1) * rel
    future = torch.ones(L, L, dtype=torch.bool, device=device).triu(1)
    return bias.masked_fill(future, float("-inf"))


def ntk_scaled_base(base, head_dim, scale):
    return math.exp(math.log(base) + head_dim / (head_dim - 2) * math.log(scale))
''',
    "ex5_gat": '''
class GATLayer(nn.Module):
    def __init__(self, d_in, d_out, negative_slope=0.2):
        super().__init__()
        self.W = nn.Linear(d_in, d_out, bias=False)
        self.a = nn.Parameter(torch.zeros(2 * d_out))
        self.slope = negative_slope

    def forward(self, h, adj):
        N = h.shape[0]
        z = self.W(h)
        d = z.shape[1]
        dst, src = (adj | torch.eye(N, dtype=torch.bool, device=adj.device)).nonzero(as_tuple=True)
        e = F.leaky_relu(z[dst] @ self.a[:d] + z[src] @ self.a[d:], self.slope)
        top = torch.full((N,), float("-inf"), dtype=e.dtype, device=e.device).scatter_reduce(
            0, dst, e, reduce="amax", include_self=True)
        w = torch.exp(e - top[dst])
        denom = torch.zeros(N, dtype=e.dtype, device=e.device).index_add(0, dst, w)
        a = w / denom[dst]
        out = torch.zeros_like(z).index_add(0, dst, a[:, None] * z[src])
        alpha = torch.zeros(N, N, dtype=e.dtype, device=e.device).index_put((dst, src), a)
        return out, alpha
''',
}
