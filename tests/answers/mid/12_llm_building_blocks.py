"""Known-wrong and alternative answers for notebooks/mid/12_llm_building_blocks.ipynb."""

_RMS_INIT = '''class RMSNorm(nn.Module):
    def __init__(self, dim, eps=1e-6):
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(dim))

    def forward(self, x):
'''

_GQA_INIT = '''class GroupedQueryAttention(nn.Module):
    def __init__(self, d_model, n_heads, n_kv_heads):
        super().__init__()
        self.n_heads, self.n_kv_heads = n_heads, n_kv_heads
        self.head_dim = d_model // n_heads
        self.q_proj = nn.Linear(d_model, d_model, bias=False)
        self.k_proj = nn.Linear(d_model, n_kv_heads * self.head_dim, bias=False)
        self.v_proj = nn.Linear(d_model, n_kv_heads * self.head_dim, bias=False)
        self.o_proj = nn.Linear(d_model, d_model, bias=False)
'''

_KV_WRONG = '''def kv_cache_bytes(cfg, seq_len, batch_size=1, dtype=torch.float16):
    head_dim = cfg["d_model"] // cfg["n_heads"]
    elem = torch.finfo(dtype).bits // 8
    return int(FACTOR * HEADS * head_dim * ELEM * cfg["n_layers"] * seq_len * batch_size)
'''

_KV_PREDICT = '''KV_ANSWERS = {{
    "mha_bytes_per_token_per_layer": {},
    "gqa8_bytes_per_token_per_layer": {},
    "mqa_bytes_per_token_per_layer": {},
    "gqa8_cache_gib": {},
    "q_proj_params_saved_by_mqa": {},
}}
'''

WRONG = {
    "ex1_rmsnorm": [
        ("centres like LayerNorm before dividing by the RMS",
         _RMS_INIT + '''        x = x - x.mean(dim=-1, keepdim=True)
        return x * torch.rsqrt(x.pow(2).mean(dim=-1, keepdim=True) + self.eps) * self.weight
'''),
        ("adds eps outside the square root",
         _RMS_INIT + '''        return x / (x.pow(2).mean(dim=-1, keepdim=True).sqrt() + self.eps) * self.weight
'''),
        ("normalises over the whole tensor instead of the last dimension",
         _RMS_INIT + '''        return x * torch.rsqrt(x.pow(2).mean() + self.eps) * self.weight
'''),
    ],
    "ex2_norm_predict": [
        ("believes RMSNorm also has a bias",
         'NORM_ANSWERS = {"layernorm_params": 1024, "rmsnorm_params": 1024, "layernorm_of_constant": 0.0,\n'
         '                "rmsnorm_of_constant": 1.0, "rmsnorm_scale_invariant": True}\n'),
        ("believes LayerNorm has one parameter per feature and RMSNorm keeps the constant's value",
         'NORM_ANSWERS = {"layernorm_params": 512, "rmsnorm_params": 512, "layernorm_of_constant": 0.0,\n'
         '                "rmsnorm_of_constant": 5.0, "rmsnorm_scale_invariant": False}\n'),
    ],
    "ex3_rope_angles": [
        ("exponent i/d instead of 2i/d (frequencies decay half as fast)",
         '''def rope_angles(positions, head_dim, base=10000.0):
    i = torch.arange(head_dim // 2, dtype=torch.float32, device=positions.device)
    return positions.float()[:, None] * base ** (-i / head_dim)[None, :]
'''),
        ("positive exponent: frequencies grow instead of decaying",
         '''def rope_angles(positions, head_dim, base=10000.0):
    two_i = torch.arange(0, head_dim, 2, dtype=torch.float32, device=positions.device)
    return positions.float()[:, None] * base ** (two_i / head_dim)[None, :]
'''),
    ],
    "ex4_apply_rope": [
        ("pairs feature i with i + d/2 (rotate-half) instead of 2i with 2i+1",
         '''def apply_rope(x, positions, base=10000.0):
    ang = rope_angles(positions, x.shape[-1], base).to(x.device)
    cos, sin = ang.cos(), ang.sin()
    a, b = x.float().chunk(2, dim=-1)
    return torch.cat((a * cos - b * sin, a * sin + b * cos), dim=-1).to(x.dtype)
'''),
        ("rotates in the wrong direction (by -theta)",
         '''def apply_rope(x, positions, base=10000.0):
    ang = rope_angles(positions, x.shape[-1], base).to(x.device)
    cos, sin = ang.cos(), ang.sin()
    a, b = x[..., 0::2].float(), x[..., 1::2].float()
    return torch.stack((a * cos + b * sin, b * cos - a * sin), dim=-1).flatten(-2).to(x.dtype)
'''),
        ("rotates every position by the inverse frequencies alone (forgets to multiply by the position)",
         '''def apply_rope(x, positions, base=10000.0):
    ang = rope_angles(torch.ones_like(positions), x.shape[-1], base).to(x.device)
    cos, sin = ang.cos(), ang.sin()
    a, b = x[..., 0::2].float(), x[..., 1::2].float()
    return torch.stack((a * cos - b * sin, a * sin + b * cos), dim=-1).flatten(-2).to(x.dtype)
'''),
    ],
    "ex5_rope_attention": [
        ("applies RoPE to the values too",
         '''def rope_attention(q, k, v, positions):
    q, k, v = (apply_rope(t, positions) for t in (q, k, v))
    return F.scaled_dot_product_attention(q, k, v, is_causal=True)
'''),
        ("rotates the queries only",
         '''def rope_attention(q, k, v, positions):
    return F.scaled_dot_product_attention(apply_rope(q, positions), k, v, is_causal=True)
'''),
        ("fixes the values but forgets the causal mask",
         '''def rope_attention(q, k, v, positions):
    return F.scaled_dot_product_attention(apply_rope(q, positions), apply_rope(k, positions), v)
'''),
    ],
    "ex6_gqa": [
        ("Tensor.repeat tiles the KV heads: query head h reads KV head h % n_kv_heads",
         '''def gqa_attention(q, k, v, causal=True):
    g = q.shape[1] // k.shape[1]
    k, v = k.repeat(1, g, 1, 1), v.repeat(1, g, 1, 1)
    return F.scaled_dot_product_attention(q, k, v, is_causal=causal)
'''),
        ("ignores the causal flag",
         '''def gqa_attention(q, k, v, causal=True):
    g = q.shape[1] // k.shape[1]
    k, v = k.repeat_interleave(g, 1), v.repeat_interleave(g, 1)
    return F.scaled_dot_product_attention(q, k, v)
'''),
    ],
    "ex7_gqa_layer": [
        ("keeps MHA-sized key/value projections and attends with n_heads KV heads",
         _GQA_INIT.replace("n_kv_heads * self.head_dim, bias", "d_model, bias") + '''
    def forward(self, x):
        B, L, _ = x.shape
        q, k, v = (p(x).view(B, L, self.n_heads, self.head_dim).transpose(1, 2)
                   for p in (self.q_proj, self.k_proj, self.v_proj))
        out = gqa_attention(q, k, v, causal=True)
        return self.o_proj(out.transpose(1, 2).reshape(B, L, -1))
'''),
        ("splits heads with view(B, heads, L, head_dim): mixes positions and features",
         _GQA_INIT + '''
    def forward(self, x):
        B, L, _ = x.shape
        q = self.q_proj(x).view(B, self.n_heads, L, self.head_dim)
        k = self.k_proj(x).view(B, self.n_kv_heads, L, self.head_dim)
        v = self.v_proj(x).view(B, self.n_kv_heads, L, self.head_dim)
        out = gqa_attention(q, k, v, causal=True)
        return self.o_proj(out.transpose(1, 2).reshape(B, L, -1))
'''),
    ],
    "ex8_kv_bytes": [
        ("counts the keys only (forgets the values)",
         _KV_WRONG.replace("FACTOR", "1").replace("HEADS", 'cfg["n_kv_heads"]').replace("ELEM", "elem")),
        ("sizes the cache with n_heads instead of n_kv_heads",
         _KV_WRONG.replace("FACTOR", "2").replace("HEADS", 'cfg["n_heads"]').replace("ELEM", "elem")),
        ("hard-codes 2 bytes per element whatever the dtype",
         _KV_WRONG.replace("FACTOR", "2").replace("HEADS", 'cfg["n_kv_heads"]').replace("ELEM", "2")),
    ],
    "ex9_kv_predict": [
        ("forgets that values are cached as well as keys",
         _KV_PREDICT.format(32 * 128 * 2, 8 * 128 * 2, 128 * 2, 4, 0)),
        ("believes MQA also shrinks the query projection",
         _KV_PREDICT.format(16384, 4096, 512, 8, 4096 * 4096 - 4096 * 128)),
    ],
}

ALT = {
    "ex1_rmsnorm": '''class RMSNorm(nn.Module):
    def __init__(self, dim, eps=1e-6):
        super().__init__()
        self.dim, self.eps = dim, eps
        self.weight = nn.Parameter(torch.ones(dim))

    def forward(self, x):
        ms = (x * x).sum(dim=-1, keepdim=True) / self.dim
        return self.weight * (x / torch.sqrt(ms + self.eps))
''',
    "ex2_norm_predict": '''NORM_ANSWERS = dict(layernorm_params=2 * 512, rmsnorm_params=512, layernorm_of_constant=0,
                    rmsnorm_of_constant=5 / (25 + 1e-6) ** 0.5, rmsnorm_scale_invariant=1 == 1)
''',
    "ex3_rope_angles": '''def rope_angles(positions, head_dim, base=10000.0):
    half = head_dim // 2
    inv = torch.exp(-math.log(base) * 2 * torch.arange(half, device=positions.device, dtype=torch.float64) / head_dim)
    return torch.outer(positions.to(torch.float64), inv).float()
''',
    "ex4_apply_rope": '''def apply_rope(x, positions, base=10000.0):
    d = x.shape[-1]
    rot = torch.polar(torch.ones(len(positions), d // 2, device=x.device), rope_angles(positions, d, base).to(x.device))
    z = torch.view_as_complex(x.float().reshape(*x.shape[:-1], d // 2, 2).contiguous())
    return torch.view_as_real(z * rot).reshape(x.shape).to(x.dtype)
''',
    "ex5_rope_attention": '''def rope_attention(q, k, v, positions):
    qr, kr = apply_rope(q, positions), apply_rope(k, positions)
    L = q.shape[-2]
    scores = qr @ kr.transpose(-1, -2) * q.shape[-1] ** -0.5
    keep = torch.tril(torch.ones(L, L, dtype=torch.bool, device=q.device))
    return scores.masked_fill(~keep, float("-inf")).softmax(-1) @ v
''',
    "ex6_gqa": '''def gqa_attention(q, k, v, causal=True):
    # No copies: fold the query heads of each group next to their shared KV head.
    B, Hq, L, d = q.shape
    Hkv = k.shape[1]
    qg = q.reshape(B, Hkv, Hq // Hkv, L, d)
    out = F.scaled_dot_product_attention(qg, k[:, :, None], v[:, :, None], is_causal=causal)
    return out.reshape(B, Hq, L, d)
''',
    "ex7_gqa_layer": '''class GroupedQueryAttention(nn.Module):
    def __init__(self, d_model, n_heads, n_kv_heads):
        super().__init__()
        hd = d_model // n_heads
        self.shape = (n_heads, n_kv_heads, hd)
        self.q_proj = nn.Linear(d_model, n_heads * hd, bias=False)
        self.k_proj = nn.Linear(d_model, n_kv_heads * hd, bias=False)
        self.v_proj = nn.Linear(d_model, n_kv_heads * hd, bias=False)
        self.o_proj = nn.Linear(n_heads * hd, d_model, bias=False)

    def forward(self, x):
        h, hkv, hd = self.shape
        q = self.q_proj(x).unflatten(-1, (h, hd)).permute(0, 2, 1, 3)
        k = self.k_proj(x).unflatten(-1, (hkv, hd)).permute(0, 2, 1, 3)
        v = self.v_proj(x).unflatten(-1, (hkv, hd)).permute(0, 2, 1, 3)
        out = F.scaled_dot_product_attention(q, k, v, is_causal=True, enable_gqa=True)
        return self.o_proj(out.permute(0, 2, 1, 3).flatten(2))
''',
    "ex8_kv_bytes": '''def kv_cache_bytes(cfg, seq_len, batch_size=1, dtype=torch.float16):
    one = torch.empty((), dtype=dtype, device="meta").element_size()
    k_elems = batch_size * cfg["n_kv_heads"] * seq_len * (cfg["d_model"] // cfg["n_heads"])
    return cfg["n_layers"] * 2 * k_elems * one
''',
    "ex9_kv_predict": '''KV_ANSWERS = {
    "mha_bytes_per_token_per_layer": 16384,
    "gqa8_bytes_per_token_per_layer": 4096,
    "mqa_bytes_per_token_per_layer": 512,
    "gqa8_cache_gib": 4096 * 32 * 8192 * 8 // 2 ** 30,
    "q_proj_params_saved_by_mqa": 0,
}
''',
}

# Builds the frequencies on the CPU whatever the positions' device: on a CPU-only machine only the meta device
# shows it.
_CPU_FREQ = ALT["ex3_rope_angles"].replace("device=positions.device, ", "")
assert _CPU_FREQ != ALT["ex3_rope_angles"]
WRONG["ex3_rope_angles"].append(("the frequencies are created on the CPU, not on positions.device", _CPU_FREQ))

# issue 33: RMSNorm "from scratch": calling the library is a shortcut.
WRONG["ex1_rmsnorm"].append(("shortcut: calls F.rms_norm", '''
class RMSNorm(nn.Module):
    def __init__(self, dim, eps=1e-6):
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(dim))

    def forward(self, x):
        return F.rms_norm(x, (x.shape[-1],), self.weight, self.eps)
'''))

WRONG["ex1_rmsnorm"].append(("upcasts to float32 and never casts back: a bfloat16 model returns float32", '''
class RMSNorm(nn.Module):
    def __init__(self, dim, eps=1e-6):
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(dim))

    def forward(self, x):
        x = x.float()
        return x * torch.rsqrt(x.pow(2).mean(dim=-1, keepdim=True) + self.eps) * self.weight
'''))
