"""Blind set for notebooks/mid/12_llm_building_blocks.ipynb, written from release/ alone (issue 33)."""

# What the statement fixes (signature, submodules), shared by several answers of a cell.
_EX1_RMSNORM_HEAD = '''
class RMSNorm(nn.Module):
    def __init__(self, dim, eps=1e-6):
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(dim))

    def forward(self, x):
'''

SHORTCUT = {
    "ex1_rmsnorm": ("calls F.rms_norm", _EX1_RMSNORM_HEAD + '''        return F.rms_norm(x, (x.shape[-1],), self.weight, self.eps)
'''),
}

WRONG = {
    "ex1_rmsnorm": ("adds eps to the root instead of inside it", _EX1_RMSNORM_HEAD + '''        return x / (x.pow(2).mean(-1, keepdim=True).sqrt() + self.eps) * self.weight
'''),
    "ex2_norm_predict": ("thinks RMSNorm centres a constant vector to zero like LayerNorm", '''
NORM_ANSWERS.update(layernorm_params=1024, rmsnorm_params=512, layernorm_of_constant=0.0,
                    rmsnorm_of_constant=0.0, rmsnorm_scale_invariant=True)
'''),
    "ex3_rope_angles": ("uses base ** (-i / d), forgetting the factor 2", '''
def rope_angles(positions, head_dim, base=10000.0):
    i = torch.arange(head_dim // 2, device=positions.device, dtype=torch.float32)
    inv = base ** (-i / head_dim)
    return positions.to(torch.float32)[:, None] * inv[None, :]
'''),
    "ex4_apply_rope": ("pairs feature i with i + d/2 (concatenated halves) instead of 2i, 2i+1", '''
def apply_rope(x, positions, base=10000.0):
    d = x.shape[-1]
    ang = rope_angles(positions, d, base)
    cos, sin = ang.cos().to(x.dtype), ang.sin().to(x.dtype)
    a, b = x[..., : d // 2], x[..., d // 2:]
    return torch.cat([a * cos - b * sin, a * sin + b * cos], dim=-1)
'''),
    "ex5_rope_attention": ("stops rotating the values but forgets the causal mask", '''
def rope_attention(q, k, v, positions):
    q, k = apply_rope(q, positions), apply_rope(k, positions)
    return F.scaled_dot_product_attention(q, k, v)
'''),
    "ex6_gqa": ("expands the KV heads with repeat (0, 1, 0, 1...) instead of repeat_interleave", '''
def gqa_attention(q, k, v, causal=True):
    g = q.shape[1] // k.shape[1]
    return F.scaled_dot_product_attention(q, k.repeat(1, g, 1, 1), v.repeat(1, g, 1, 1), is_causal=causal)
'''),
    "ex7_gqa_layer": ("splits heads with a direct view to (B, H, L, hd)", '''
class GroupedQueryAttention(nn.Module):
    def __init__(self, d_model, n_heads, n_kv_heads):
        super().__init__()
        assert d_model % n_heads == 0 and n_heads % n_kv_heads == 0
        self.h, self.kv, self.hd = n_heads, n_kv_heads, d_model // n_heads
        self.q_proj = nn.Linear(d_model, n_heads * self.hd, bias=False)
        self.k_proj = nn.Linear(d_model, n_kv_heads * self.hd, bias=False)
        self.v_proj = nn.Linear(d_model, n_kv_heads * self.hd, bias=False)
        self.o_proj = nn.Linear(n_heads * self.hd, d_model, bias=False)

    def forward(self, x):
        B, L, _ = x.shape
        q = self.q_proj(x).view(B, self.h, L, self.hd)
        k = self.k_proj(x).view(B, self.kv, L, self.hd)
        v = self.v_proj(x).view(B, self.kv, L, self.hd)
        out = gqa_attention(q, k, v, causal=True)
        return self.o_proj(out.transpose(1, 2).reshape(B, L, self.h * self.hd))
'''),
    "ex8_kv_bytes": ("hard-codes 2 bytes per element", '''
def kv_cache_bytes(cfg, seq_len, batch_size=1, dtype=torch.float16):
    hd = cfg["d_model"] // cfg["n_heads"]
    return int(2 * cfg["n_layers"] * batch_size * cfg["n_kv_heads"] * seq_len * hd * 2)
'''),
    "ex9_kv_predict": ("thinks MQA shrinks the query projection", '''
KV_ANSWERS.update(mha_bytes_per_token_per_layer=16384, gqa8_bytes_per_token_per_layer=4096,
                  mqa_bytes_per_token_per_layer=512, gqa8_cache_gib=8,
                  q_proj_params_saved_by_mqa=4096 * 4096 - 4096 * 128)
'''),
}

ALT = {
    "ex1_rmsnorm": '''
class RMSNorm(nn.Module):
    def __init__(self, dim, eps=1e-6):
        super().__init__()
        self.dim, self.eps = dim, eps
        self.weight = nn.Parameter(torch.ones(dim))

    def forward(self, x):
        xf = x.float()
        ms = torch.linalg.vector_norm(xf, dim=-1, keepdim=True) ** 2 / self.dim
        return (xf / torch.sqrt(ms + self.eps) * self.weight.float()).to(x.dtype)
''',
    "ex2_norm_predict": '''
_d = 512
NORM_ANSWERS["layernorm_params"] = 2 * _d
NORM_ANSWERS["rmsnorm_params"] = _d
NORM_ANSWERS["layernorm_of_constant"] = 0
NORM_ANSWERS["rmsnorm_of_constant"] = 5.0 / math.sqrt(25.0 + 1e-6)
NORM_ANSWERS["rmsnorm_scale_invariant"] = True
''',
    "ex3_rope_angles": '''
def rope_angles(positions, head_dim, base=10000.0):
    exponents = torch.arange(0, head_dim, 2, device=positions.device, dtype=torch.float64) / head_dim
    inv_freq = torch.exp(-math.log(base) * exponents).to(torch.float32)
    return torch.outer(positions.to(torch.float32), inv_freq)
''',
    "ex4_apply_rope": '''
def apply_rope(x, positions, base=10000.0):
    d = x.shape[-1]
    ang = rope_angles(positions, d, base)
    pairs = torch.view_as_complex(x.float().reshape(*x.shape[:-1], d // 2, 2).contiguous())
    rotated = pairs * torch.polar(torch.ones_like(ang), ang)
    return torch.view_as_real(rotated).reshape(x.shape).to(x.dtype)
''',
    "ex5_rope_attention": '''
def rope_attention(q, k, v, positions):
    q, k = apply_rope(q, positions), apply_rope(k, positions)
    L = q.shape[-2]
    scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
    future = torch.ones(L, L, dtype=torch.bool, device=q.device).triu(1)
    return scores.masked_fill(future, float("-inf")).softmax(-1) @ v
''',
    "ex6_gqa": '''
def gqa_attention(q, k, v, causal=True):
    B, Hq, L, d = q.shape
    Hkv = k.shape[1]
    qg = q.reshape(B, Hkv, Hq // Hkv, L, d)
    scores = torch.einsum("bkgld,bkmd->bkglm", qg, k) / math.sqrt(d)
    if causal:
        future = torch.ones(L, k.shape[2], dtype=torch.bool, device=q.device).triu(1)
        scores = scores.masked_fill(future, float("-inf"))
    out = torch.einsum("bkglm,bkmd->bkgld", scores.softmax(-1), v)
    return out.reshape(B, Hq, L, d)
''',
    "ex7_gqa_layer": '''
class GroupedQueryAttention(nn.Module):
    def __init__(self, d_model, n_heads, n_kv_heads):
        super().__init__()
        assert d_model % n_heads == 0 and n_heads % n_kv_heads == 0
        self.n_heads, self.n_kv_heads = n_heads, n_kv_heads
        head_dim = d_model // n_heads
        self.q_proj = nn.Linear(d_model, n_heads * head_dim, bias=False)
        self.k_proj = nn.Linear(d_model, n_kv_heads * head_dim, bias=False)
        self.v_proj = nn.Linear(d_model, n_kv_heads * head_dim, bias=False)
        self.o_proj = nn.Linear(n_heads * head_dim, d_model, bias=False)

    def forward(self, x):
        heads = lambda t, n: t.unflatten(-1, (n, -1)).permute(0, 2, 1, 3)  # noqa: E731
        q = heads(self.q_proj(x), self.n_heads)
        k = heads(self.k_proj(x), self.n_kv_heads)
        v = heads(self.v_proj(x), self.n_kv_heads)
        out = gqa_attention(q, k, v, causal=True)
        return self.o_proj(out.permute(0, 2, 1, 3).flatten(2))
''',
    "ex8_kv_bytes": '''
def kv_cache_bytes(cfg, seq_len, batch_size=1, dtype=torch.float16):
    head_dim = cfg["d_model"] // cfg["n_heads"]
    one = torch.empty((batch_size, cfg["n_kv_heads"], seq_len, head_dim), dtype=dtype, device="meta")
    return int(one.numel() * one.element_size() * 2 * cfg["n_layers"])
''',
    "ex9_kv_predict": '''
_hd, _b = 4096 // 32, 2
_per = {n: 2 * n * _hd * _b for n in (32, 8, 1)}
KV_ANSWERS.update(mha_bytes_per_token_per_layer=_per[32], gqa8_bytes_per_token_per_layer=_per[8],
                  mqa_bytes_per_token_per_layer=_per[1], gqa8_cache_gib=_per[8] * 32 * 8192 * 8 // 2 ** 30,
                  q_proj_params_saved_by_mqa=0)
''',
}
