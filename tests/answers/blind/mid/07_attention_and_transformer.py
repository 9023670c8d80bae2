"""Blind set for notebooks/mid/07_attention_and_transformer.ipynb, written from release/ alone (issue 33)."""

# What the statement fixes (signature, submodules), shared by several answers of a cell.
_EX3_MHA_HEAD = '''
class MultiHeadAttention(nn.Module):
    def __init__(self, embed_dim, num_heads):
        super().__init__()
        assert embed_dim % num_heads == 0
        self.h, self.dh = num_heads, embed_dim // num_heads
        self.q_proj, self.k_proj = nn.Linear(embed_dim, embed_dim), nn.Linear(embed_dim, embed_dim)
        self.v_proj, self.out_proj = nn.Linear(embed_dim, embed_dim), nn.Linear(embed_dim, embed_dim)

    def forward(self, x, key_padding_mask=None, causal=False):
        B, L, E = x.shape
        q, k, v = (p(x).view(B, L, self.h, self.dh).transpose(1, 2) for p in (self.q_proj, self.k_proj, self.v_proj))
'''

SHORTCUT = {
    "ex1_sdpa": ("calls F.scaled_dot_product_attention for the output", '''
def attention(q, k, v, mask=None):
    out = F.scaled_dot_product_attention(q, k, v, attn_mask=mask)
    scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
    if mask is not None:
        scores = scores.masked_fill(~mask, float("-inf"))
    return out, scores.softmax(-1)
'''),
    "ex3_mha": ("runs the heads through F.scaled_dot_product_attention", _EX3_MHA_HEAD + '''        allow = torch.ones(B, 1, L, L, dtype=torch.bool, device=x.device)
        if key_padding_mask is not None:
            allow = allow & ~key_padding_mask[:, None, None, :]
        if causal:
            allow = allow & torch.ones(L, L, dtype=torch.bool, device=x.device).tril()
        out = F.scaled_dot_product_attention(q, k, v, attn_mask=allow)
        return self.out_proj(out.transpose(1, 2).reshape(B, L, E))
'''),
}

WRONG = {
    "ex1_sdpa": ("zeroes masked weights after the softmax (rows no longer sum to 1)", '''
def attention(q, k, v, mask=None):
    scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
    weights = torch.softmax(scores, dim=-1)
    if mask is not None:
        weights = weights * mask
    return weights @ v, weights
'''),
    "ex2_masks": ("masks the padded query rows too, not only the padded keys", '''
def build_attention_mask(lengths, L, causal):
    pos = torch.arange(L, device=lengths.device)
    real = pos[None, :] < lengths[:, None]
    mask = real[:, None, :, None] & real[:, None, None, :]
    if causal:
        mask = mask & (pos[None, :] <= pos[:, None])
    return mask
'''),
    "ex3_mha": ("scales the scores by sqrt(E) instead of sqrt(head_dim)", _EX3_MHA_HEAD + '''        scores = q @ k.transpose(-2, -1) / math.sqrt(E)
        if key_padding_mask is not None:
            scores = scores.masked_fill(key_padding_mask[:, None, None, :], float("-inf"))
        if causal:
            scores = scores.masked_fill(torch.ones(L, L, dtype=torch.bool, device=x.device).triu(1), float("-inf"))
        out = scores.softmax(-1) @ v
        return self.out_proj(out.transpose(1, 2).reshape(B, L, E))
'''),
    "ex4_predict": ("forgets the biases", '''
MHA_PARAMS_8_HEADS = 4 * 64 * 64
MHA_PARAMS_4_HEADS = 4 * 64 * 64
'''),
    "ex5_pe": ("uses i instead of 2i in the exponent", '''
def sinusoidal_positional_encoding(max_len, d_model):
    pos = torch.arange(max_len, dtype=torch.float32)[:, None]
    i = torch.arange(d_model // 2, dtype=torch.float32)[None, :]
    angle = pos / 10000 ** (i / d_model)
    pe = torch.zeros(max_len, d_model)
    pe[:, 0::2] = torch.sin(angle)
    pe[:, 1::2] = torch.cos(angle)
    return pe
'''),
    "ex6_layer": ("post-norm: normalizes the sum instead of the sub-block's input", '''
class PreNormEncoderLayer(nn.Module):
    def __init__(self, d_model, n_heads, d_ff, dropout=0.0):
        super().__init__()
        self.norm1, self.norm2 = nn.LayerNorm(d_model), nn.LayerNorm(d_model)
        self.attn = nn.MultiheadAttention(d_model, n_heads, dropout=dropout, batch_first=True)
        self.ff = nn.Sequential(nn.Linear(d_model, d_ff), nn.GELU(), nn.Linear(d_ff, d_model))

    def forward(self, x, key_padding_mask=None):
        x = self.norm1(x + self.attn(x, x, x, key_padding_mask=key_padding_mask, need_weights=False)[0])
        return self.norm2(x + self.ff(x))
'''),
    "ex7_encoder": ("keeps the encoding table as a plain attribute, not a buffer", '''
class TinyEncoder(nn.Module):
    def __init__(self, vocab_size, d_model, n_heads, d_ff, n_layers, max_len):
        super().__init__()
        self.embed = nn.Embedding(vocab_size, d_model)
        self.pe = sinusoidal_positional_encoding(max_len, d_model)
        self.layers = nn.ModuleList([PreNormEncoderLayer(d_model, n_heads, d_ff) for _ in range(n_layers)])
        self.norm = nn.LayerNorm(d_model)

    def forward(self, tokens, key_padding_mask=None):
        x = self.embed(tokens) + self.pe[: tokens.shape[1]].to(tokens.device)
        for layer in self.layers:
            x = layer(x, key_padding_mask=key_padding_mask)
        return self.norm(x)
'''),
    "ex8_tying": ("copies the embedding's values into a second Parameter", '''
class TiedLM(nn.Module):
    def __init__(self, vocab_size, d_model):
        super().__init__()
        self.embed = nn.Embedding(vocab_size, d_model)
        self.mix = nn.Linear(d_model, d_model)
        self.lm_head = nn.Linear(d_model, vocab_size, bias=False)
        self.lm_head.weight = nn.Parameter(self.embed.weight.detach().clone())

    def forward(self, tokens):
        return self.lm_head(torch.tanh(self.mix(self.embed(tokens))))
'''),
}

ALT = {
    "ex1_sdpa": '''
def attention(q, k, v, mask=None):
    scores = torch.einsum("...qd,...kd->...qk", q * q.shape[-1] ** -0.5, k)
    if mask is not None:
        scores = torch.where(mask, scores, torch.full_like(scores, float("-inf")))
    weights = torch.exp(scores - torch.logsumexp(scores, dim=-1, keepdim=True))
    return torch.einsum("...qk,...kv->...qv", weights, v), weights
''',
    "ex2_masks": '''
def build_attention_mask(lengths, L, causal):
    B = lengths.shape[0]
    keys = torch.arange(L, device=lengths.device).expand(B, L) < lengths.view(B, 1)
    mask = keys.view(B, 1, 1, L).expand(B, 1, L, L)
    if causal:
        mask = mask & torch.tril(torch.ones(L, L, dtype=torch.bool, device=lengths.device))
    return mask.contiguous()
''',
    "ex3_mha": '''
class MultiHeadAttention(nn.Module):
    def __init__(self, embed_dim, num_heads):
        super().__init__()
        assert embed_dim % num_heads == 0
        self.num_heads = num_heads
        for name in ("q_proj", "k_proj", "v_proj", "out_proj"):
            setattr(self, name, nn.Linear(embed_dim, embed_dim))

    def forward(self, x, key_padding_mask=None, causal=False):
        B, L, E = x.shape
        H = self.num_heads
        split = lambda t: t.unflatten(-1, (H, E // H)).permute(0, 2, 1, 3)  # noqa: E731
        q, k, v = split(self.q_proj(x)), split(self.k_proj(x)), split(self.v_proj(x))
        bias = torch.zeros(B, 1, L, L, dtype=x.dtype, device=x.device)
        if key_padding_mask is not None:
            bias = bias.masked_fill(key_padding_mask.view(B, 1, 1, L), float("-inf"))
        if causal:
            future = torch.arange(L, device=x.device)[None, :] > torch.arange(L, device=x.device)[:, None]
            bias = bias.masked_fill(future, float("-inf"))
        scores = torch.einsum("bhid,bhjd->bhij", q, k) / math.sqrt(E // H) + bias
        out = torch.einsum("bhij,bhjd->bhid", scores.softmax(-1), v)
        return self.out_proj(out.permute(0, 2, 1, 3).flatten(2))
''',
    "ex4_predict": '''
_E = 64
MHA_PARAMS_8_HEADS = 3 * (_E * _E + _E) + (_E * _E + _E)
MHA_PARAMS_4_HEADS = MHA_PARAMS_8_HEADS
''',
    "ex5_pe": '''
def sinusoidal_positional_encoding(max_len, d_model):
    inv_freq = torch.exp(-math.log(10000.0) * torch.arange(0, d_model, 2, dtype=torch.float64) / d_model)
    angle = torch.outer(torch.arange(max_len, dtype=torch.float64), inv_freq)
    return torch.stack([angle.sin(), angle.cos()], dim=-1).reshape(max_len, d_model).to(torch.float32)
''',
    "ex6_layer": '''
class PreNormEncoderLayer(nn.Module):
    def __init__(self, d_model, n_heads, d_ff, dropout=0.0):
        super().__init__()
        self.norm1 = nn.LayerNorm(d_model)
        self.attn = nn.MultiheadAttention(d_model, n_heads, dropout=dropout, batch_first=True)
        self.norm2 = nn.LayerNorm(d_model)
        self.ff = nn.Sequential(nn.Linear(d_model, d_ff), nn.GELU(), nn.Dropout(dropout),
                                nn.Linear(d_ff, d_model), nn.Dropout(dropout))
        self.drop = nn.Dropout(dropout)

    def _attend(self, h, key_padding_mask):
        out, _ = self.attn(h, h, h, key_padding_mask=key_padding_mask, need_weights=False)
        return self.drop(out)

    def forward(self, x, key_padding_mask=None):
        x = torch.add(x, self._attend(self.norm1(x), key_padding_mask))
        return torch.add(x, self.ff(self.norm2(x)))
''',
    "ex7_encoder": '''
class TinyEncoder(nn.Module):
    def __init__(self, vocab_size, d_model, n_heads, d_ff, n_layers, max_len):
        super().__init__()
        self.embed = nn.Embedding(vocab_size, d_model)
        self.register_buffer("positions", sinusoidal_positional_encoding(max_len, d_model))
        self.blocks = nn.Sequential(*[PreNormEncoderLayer(d_model, n_heads, d_ff) for _ in range(n_layers)])
        self.final_norm = nn.LayerNorm(d_model)

    def forward(self, tokens, key_padding_mask=None):
        idx = torch.arange(tokens.shape[1], device=tokens.device)
        x = self.embed(tokens) + F.embedding(idx, self.positions).unsqueeze(0)
        for block in self.blocks:
            x = block(x, key_padding_mask)
        return self.final_norm(x)
''',
    "ex8_tying": '''
class TiedLM(nn.Module):
    def __init__(self, vocab_size, d_model):
        super().__init__()
        self.lm_head = nn.Linear(d_model, vocab_size, bias=False)
        self.embed = nn.Embedding(vocab_size, d_model)
        self.mix = nn.Linear(d_model, d_model)
        self.embed.weight = self.lm_head.weight

    def forward(self, tokens):
        h = torch.tanh(self.mix(self.embed(tokens)))
        return F.linear(h, self.embed.weight)
''',
}
