"""Known-wrong and alternative answers for notebooks/mid/07_attention_and_transformer.ipynb."""

_MHA_INIT = (
    "class MultiHeadAttention(nn.Module):\n"
    "    def __init__(self, embed_dim, num_heads):\n"
    "        super().__init__()\n"
    "        self.h, self.d = num_heads, embed_dim // num_heads\n"
    "        self.q_proj = nn.Linear(embed_dim, embed_dim)\n"
    "        self.k_proj = nn.Linear(embed_dim, embed_dim)\n"
    "        self.v_proj = nn.Linear(embed_dim, embed_dim)\n"
    "        self.out_proj = nn.Linear(embed_dim, embed_dim)\n"
    "\n"
    "    def forward(self, x, key_padding_mask=None, causal=False):\n"
    "        B, L, E = x.shape\n"
)
_MHA_TAIL = (
    "        scores = q @ k.transpose(-2, -1) / SCALE\n"
    "        allowed = torch.ones(B, 1, L, L, dtype=torch.bool, device=x.device)\n"
    "        if key_padding_mask is not None:\n"
    "            allowed = allowed & ~key_padding_mask[:, None, None, :]\n"
    "        if causal:\n"
    "            allowed = allowed & torch.ones(L, L, dtype=torch.bool, device=x.device).tril()\n"
    "        out = scores.masked_fill(~allowed, float('-inf')).softmax(-1) @ v\n"
    "        return self.out_proj(out.transpose(1, 2).reshape(B, L, E))\n"
)

_LAYER_INIT = (
    "class PreNormEncoderLayer(nn.Module):\n"
    "    def __init__(self, d_model, n_heads, d_ff, dropout=0.0):\n"
    "        super().__init__()\n"
    "        self.norm1 = nn.LayerNorm(d_model)\n"
    "        self.attn = nn.MultiheadAttention(d_model, n_heads, dropout=dropout, batch_first=True)\n"
    "        self.norm2 = nn.LayerNorm(d_model)\n"
    "        self.ff = nn.Sequential(nn.Linear(d_model, d_ff), nn.GELU(), nn.Linear(d_ff, d_model))\n"
    "\n"
    "    def forward(self, x, key_padding_mask=None):\n"
)

_ENC_INIT = (
    "class TinyEncoder(nn.Module):\n"
    "    def __init__(self, vocab_size, d_model, n_heads, d_ff, n_layers, max_len):\n"
    "        super().__init__()\n"
    "        self.embed = nn.Embedding(vocab_size, d_model)\n"
    "        self.layers = nn.ModuleList(PreNormEncoderLayer(d_model, n_heads, d_ff) for _ in range(n_layers))\n"
    "        self.norm = nn.LayerNorm(d_model)\n"
)

_TIED_FWD = (
    "\n"
    "    def forward(self, tokens):\n"
    "        return self.lm_head(torch.tanh(self.mix(self.embed(tokens))))\n"
)

WRONG = {
    "ex1_sdpa": [
        ("forgets the 1/sqrt(d) scaling",
         "def attention(q, k, v, mask=None):\n"
         "    scores = q @ k.transpose(-2, -1)\n"
         "    if mask is not None:\n"
         "        scores = scores.masked_fill(~mask, float('-inf'))\n"
         "    w = scores.softmax(-1)\n"
         "    return w @ v, w\n"),
        ("applies the mask after the softmax (weights no longer sum to 1)",
         "def attention(q, k, v, mask=None):\n"
         "    w = (q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])).softmax(-1)\n"
         "    if mask is not None:\n"
         "        w = w * mask\n"
         "    return w @ v, w\n"),
    ],
    "ex2_masks": [
        ("upper-triangular causal mask: attends to the future instead of the past",
         "def build_attention_mask(lengths, L, causal):\n"
         "    pos = torch.arange(L, device=lengths.device)\n"
         "    mask = (pos[None, :] < lengths[:, None])[:, None, None, :].expand(-1, 1, L, L)\n"
         "    if causal:\n"
         "        mask = mask & (pos[None, :] >= pos[:, None])\n"
         "    return mask\n"),
        ("masks padded queries (rows) instead of padded keys (columns)",
         "def build_attention_mask(lengths, L, causal):\n"
         "    pos = torch.arange(L, device=lengths.device)\n"
         "    mask = (pos[None, :] < lengths[:, None])[:, None, :, None].expand(-1, 1, L, L)\n"
         "    if causal:\n"
         "        mask = mask & (pos[None, :] <= pos[:, None])\n"
         "    return mask\n"),
    ],
    "ex3_mha": [
        ("splits heads with view(B, H, L, d): mixes positions and features",
         _MHA_INIT +
         "        q, k, v = (t.view(B, self.h, L, self.d) for t in (self.q_proj(x), self.k_proj(x), self.v_proj(x)))\n"
         + _MHA_TAIL.replace("SCALE", "math.sqrt(self.d)")),
        ("scales by sqrt(embed_dim) instead of sqrt(head_dim)",
         _MHA_INIT +
         "        q, k, v = (t.view(B, L, self.h, self.d).transpose(1, 2)\n"
         "                   for t in (self.q_proj(x), self.k_proj(x), self.v_proj(x)))\n"
         + _MHA_TAIL.replace("SCALE", "math.sqrt(E)")),
    ],
    "ex4_predict": [
        ("believes every head has its own full-size projections",
         "MHA_PARAMS_8_HEADS = 8 * (4 * 64 * 64 + 4 * 64)\nMHA_PARAMS_4_HEADS = 4 * (4 * 64 * 64 + 4 * 64)\n"),
    ],
    "ex5_pe": [
        ("uses i instead of 2i in the exponent",
         "def sinusoidal_positional_encoding(max_len, d_model):\n"
         "    pos = torch.arange(max_len, dtype=torch.float32)[:, None]\n"
         "    i = torch.arange(d_model // 2, dtype=torch.float32)[None, :]\n"
         "    angle = pos / torch.pow(10000.0, i / d_model)\n"
         "    pe = torch.zeros(max_len, d_model)\n"
         "    pe[:, 0::2], pe[:, 1::2] = torch.sin(angle), torch.cos(angle)\n"
         "    return pe\n"),
        ("puts all sines first and all cosines after (concatenated, not interleaved)",
         "def sinusoidal_positional_encoding(max_len, d_model):\n"
         "    pos = torch.arange(max_len, dtype=torch.float32)[:, None]\n"
         "    i2 = torch.arange(0, d_model, 2, dtype=torch.float32)[None, :]\n"
         "    angle = pos / torch.pow(10000.0, i2 / d_model)\n"
         "    return torch.cat([torch.sin(angle), torch.cos(angle)], dim=1)\n"),
    ],
    "ex6_layer": [
        ("post-norm: normalizes after the residual addition",
         _LAYER_INIT +
         "        x = self.norm1(x + self.attn(x, x, x, key_padding_mask=key_padding_mask, need_weights=False)[0])\n"
         "        return self.norm2(x + self.ff(x))\n"),
        ("drops the residual connections",
         _LAYER_INIT +
         "        h = self.norm1(x)\n"
         "        x = self.attn(h, h, h, key_padding_mask=key_padding_mask, need_weights=False)[0]\n"
         "        return self.ff(self.norm2(x))\n"),
    ],
    "ex7_encoder": [
        ("forgets the positional encoding: the model cannot see word order",
         _ENC_INIT +
         "\n"
         "    def forward(self, tokens, key_padding_mask=None):\n"
         "        h = self.embed(tokens)\n"
         "        for layer in self.layers:\n"
         "            h = layer(h, key_padding_mask=key_padding_mask)\n"
         "        return self.norm(h)\n"),
        ("a learned positional table initialized to zeros: at init the model is still order-blind",
         _ENC_INIT +
         "        self.pos = nn.Parameter(torch.zeros(max_len, d_model))\n"
         "\n"
         "    def forward(self, tokens, key_padding_mask=None):\n"
         "        h = self.embed(tokens) + self.pos[: tokens.shape[1]]\n"
         "        for layer in self.layers:\n"
         "            h = layer(h, key_padding_mask=key_padding_mask)\n"
         "        return self.norm(h)\n"),
    ],
    "ex8_tying": [
        ("copies the values into a second Parameter: two matrices, not one",
         "class TiedLM(nn.Module):\n"
         "    def __init__(self, vocab_size, d_model):\n"
         "        super().__init__()\n"
         "        self.embed = nn.Embedding(vocab_size, d_model)\n"
         "        self.mix = nn.Linear(d_model, d_model)\n"
         "        self.lm_head = nn.Linear(d_model, vocab_size, bias=False)\n"
         "        self.lm_head.weight = nn.Parameter(self.embed.weight.detach().clone())\n"
         + _TIED_FWD),
        ("shares storage through .data: still two Parameters, each with its own gradient",
         "class TiedLM(nn.Module):\n"
         "    def __init__(self, vocab_size, d_model):\n"
         "        super().__init__()\n"
         "        self.embed = nn.Embedding(vocab_size, d_model)\n"
         "        self.mix = nn.Linear(d_model, d_model)\n"
         "        self.lm_head = nn.Linear(d_model, vocab_size, bias=False)\n"
         "        self.lm_head.weight.data = self.embed.weight.data\n"
         + _TIED_FWD),
    ],
}

ALT = {
    "ex1_sdpa": (
        "def attention(q, k, v, mask=None):\n"
        "    scores = torch.einsum('...qd,...kd->...qk', q * q.shape[-1] ** -0.5, k)\n"
        "    if mask is not None:\n"
        "        scores = torch.where(mask, scores, torch.finfo(scores.dtype).min)\n"
        "    w = torch.softmax(scores, dim=-1)\n"
        "    if mask is not None:\n"
        "        w = w * mask\n"
        "    return torch.einsum('...qk,...kd->...qd', w, v), w\n"),
    "ex2_masks": (
        "def build_attention_mask(lengths, L, causal):\n"
        "    B = len(lengths)\n"
        "    mask = torch.zeros(B, 1, L, L, dtype=torch.bool, device=lengths.device)\n"
        "    for b, n in enumerate(lengths.tolist()):\n"
        "        mask[b, 0, :, :n] = True\n"
        "    if causal:\n"
        "        mask &= torch.tril(torch.ones(L, L, dtype=torch.bool, device=lengths.device))\n"
        "    return mask\n"),
    "ex3_mha": (
        "class MultiHeadAttention(nn.Module):\n"
        "    def __init__(self, embed_dim, num_heads):\n"
        "        super().__init__()\n"
        "        self.num_heads = num_heads\n"
        "        for name in ('q_proj', 'k_proj', 'v_proj', 'out_proj'):\n"
        "            setattr(self, name, nn.Linear(embed_dim, embed_dim))\n"
        "\n"
        "    def forward(self, x, key_padding_mask=None, causal=False):\n"
        "        B, L, E = x.shape\n"
        "        H = self.num_heads\n"
        "        q, k, v = (p(x).reshape(B, L, H, E // H).permute(0, 2, 1, 3)\n"
        "                   for p in (self.q_proj, self.k_proj, self.v_proj))\n"
        "        mask = None\n"
        "        if key_padding_mask is not None:\n"
        "            mask = (~key_padding_mask)[:, None, None, :]\n"
        "        if causal:\n"
        "            c = torch.ones(L, L, dtype=torch.bool, device=x.device).tril()\n"
        "            mask = c if mask is None else mask & c\n"
        "        out = attention(q, k, v, mask)[0]  # exercise 1's function\n"
        "        return self.out_proj(out.permute(0, 2, 1, 3).reshape(B, L, E))\n"),
    "ex4_predict": "MHA_PARAMS_8_HEADS = 16640\nMHA_PARAMS_4_HEADS = 16640.0\n",
    "ex5_pe": (
        "def sinusoidal_positional_encoding(max_len, d_model):\n"
        "    pos = torch.arange(max_len).unsqueeze(1).float()\n"
        "    div = torch.exp(torch.arange(0, d_model, 2).float() * (-math.log(10000.0) / d_model))\n"
        "    pe = torch.stack([torch.sin(pos * div), torch.cos(pos * div)], dim=-1)\n"
        "    return pe.reshape(max_len, d_model)\n"),
    "ex6_layer": (
        "class PreNormEncoderLayer(nn.Module):\n"
        "    def __init__(self, d_model, n_heads, d_ff, dropout=0.0):\n"
        "        super().__init__()\n"
        "        self.norm1, self.norm2 = nn.LayerNorm(d_model), nn.LayerNorm(d_model)\n"
        "        self.attn = nn.MultiheadAttention(d_model, n_heads, batch_first=True)\n"
        "        self.ff = nn.Sequential(nn.Linear(d_model, d_ff), nn.GELU(), nn.Linear(d_ff, d_model), nn.Dropout(dropout))\n"
        "\n"
        "    def _sa(self, x, kpm):\n"
        "        h = self.norm1(x)\n"
        "        out, _ = self.attn(h, h, h, key_padding_mask=kpm)\n"
        "        return out\n"
        "\n"
        "    def forward(self, x, key_padding_mask=None):\n"
        "        x = x + self._sa(x, key_padding_mask)\n"
        "        return x + self.ff(self.norm2(x))\n"),
    "ex7_encoder": (
        "class TinyEncoder(nn.Module):\n"
        "    def __init__(self, vocab_size, d_model, n_heads, d_ff, n_layers, max_len):\n"
        "        super().__init__()\n"
        "        self.embed = nn.Embedding(vocab_size, d_model)\n"
        "        self.register_buffer('positions', sinusoidal_positional_encoding(max_len, d_model), persistent=False)\n"
        "        self.blocks = nn.Sequential(*[PreNormEncoderLayer(d_model, n_heads, d_ff) for _ in range(n_layers)])\n"
        "        self.final_norm = nn.LayerNorm(d_model)\n"
        "        self.scale = math.sqrt(d_model)\n"
        "\n"
        "    def forward(self, tokens, key_padding_mask=None):\n"
        "        L = tokens.size(1)\n"
        "        h = self.embed(tokens) * self.scale + self.positions[:L].unsqueeze(0)\n"
        "        for blk in self.blocks:\n"
        "            h = blk(h, key_padding_mask)\n"
        "        return self.final_norm(h)\n"),
    "ex8_tying": (
        "class TiedLM(nn.Module):\n"
        "    def __init__(self, vocab_size, d_model):\n"
        "        super().__init__()\n"
        "        self.lm_head = nn.Linear(d_model, vocab_size, bias=False)\n"
        "        self.embed = nn.Embedding(vocab_size, d_model)\n"
        "        self.embed.weight = self.lm_head.weight\n"
        "        self.mix = nn.Linear(d_model, d_model)\n"
        + _TIED_FWD),
}

WRONG["ex1_sdpa"].append((
    "shortcut: weights by hand, output from F.scaled_dot_product_attention (the statement forbids it)",
    "def attention(q, k, v, mask=None):\n"
    "    scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])\n"
    "    if mask is not None:\n"
    "        scores = scores.masked_fill(~mask, float('-inf'))\n"
    "    return F.scaled_dot_product_attention(q, k, v, attn_mask=mask), scores.softmax(-1)\n"))
WRONG["ex3_mha"].append((
    "shortcut: splits the heads, then calls F.scaled_dot_product_attention (the statement forbids it)",
    _MHA_INIT +
    "        q, k, v = (p(x).view(B, L, self.h, self.d).transpose(1, 2) for p in (self.q_proj, self.k_proj, self.v_proj))\n"
    "        allowed = torch.ones(B, 1, L, L, dtype=torch.bool, device=x.device)\n"
    "        if key_padding_mask is not None:\n"
    "            allowed = allowed & ~key_padding_mask[:, None, None, :]\n"
    "        if causal:\n"
    "            allowed = allowed & torch.ones(L, L, dtype=torch.bool, device=x.device).tril()\n"
    "        out = F.scaled_dot_product_attention(q, k, v, attn_mask=allowed)\n"
    "        return self.out_proj(out.transpose(1, 2).reshape(B, L, E))\n"))
