"""Blind set for notebooks/senior/13_kv_cache_and_speculative_decoding.ipynb, written from release/ alone (issue 33)."""

_ATTEND_MASK_ONLY_ON_PREFILL = '''
def attend_with_cache(block, x_new, cache=None):
    q, k, v = block.qkv_heads(x_new)
    if cache is None:
        attn = F.scaled_dot_product_attention(q, k, v, is_causal=True)
    else:
        k = torch.cat([cache[0], k], dim=2)
        v = torch.cat([cache[1], v], dim=2)
        attn = F.scaled_dot_product_attention(q, k, v)  # "a new token may see the whole cache"
    return block.finish(x_new, attn), (k, v)
'''

_ATTEND_BY_HAND = '''
def attend_with_cache(block, x_new, cache=None):
    q, k_new, v_new = block.qkv_heads(x_new)
    k = k_new if cache is None else torch.cat([cache[0], k_new], dim=-2)
    v = v_new if cache is None else torch.cat([cache[1], v_new], dim=-2)
    t_new, t_all = q.shape[-2], k.shape[-2]
    q_pos = torch.arange(t_all - t_new, t_all, device=q.device)[:, None]
    k_pos = torch.arange(t_all, device=q.device)[None, :]
    scores = (q @ k.transpose(-2, -1)) / math.sqrt(q.shape[-1])
    scores = scores.masked_fill(k_pos > q_pos, float("-inf"))
    attn = scores.softmax(dim=-1) @ v
    return block.finish(x_new, attn), (k, v)
'''

_LM_STEP_AT_ZERO = '''
def lm_step(model, idx_new, caches=None):
    x = model.embed(idx_new)
    new_caches = []
    for i, blk in enumerate(model.blocks):
        x, c = attend_with_cache(blk, x, None if caches is None else caches[i])
        new_caches.append(c)
    return model.head(model.norm(x)), new_caches
'''

_LM_STEP_ALT = '''
def lm_step(model, idx_new, caches=None):
    caches = list(caches) if caches is not None else [None] * len(model.blocks)
    past = 0 if caches[-1] is None else caches[-1][1].size(-2)
    x = model.embed(idx_new, start_pos=past)
    updated = []
    for blk, cache in zip(model.blocks, caches):
        x, cache = attend_with_cache(blk, x, cache)
        updated.append(cache)
    return model.head(model.norm(x)), updated
'''

_GREEDY = '''
def greedy_generate(model, prompt, n_new: int):
    logits, caches = lm_step(model, prompt)
    out = [prompt]
    for _ in range(n_new):
        nxt = logits[:, -1].argmax(-1, keepdim=True)
        out.append(nxt)
        logits, caches = lm_step(model, nxt, caches)
    return torch.cat(out, dim=1)
'''

_GREEDY_ALT = '''
@torch.inference_mode()
def greedy_generate(model, prompt, n_new: int):
    B, T = prompt.shape
    seq = torch.empty(B, T + n_new, dtype=prompt.dtype, device=prompt.device)
    seq[:, :T] = prompt
    caches, fed = None, prompt
    for i in range(n_new):
        logits, caches = lm_step(model, fed, caches)
        seq[:, T + i] = logits[:, -1].argmax(-1)
        fed = seq[:, T + i:T + i + 1]
    return seq.clone()
'''

_BYTES_NO_VALUES = '''
def kv_cache_bytes(batch: int, seq_len: int, n_layers: int, n_kv_heads: int, head_dim: int, dtype) -> int:
    return batch * seq_len * n_layers * n_kv_heads * head_dim * dtype.itemsize


GIB_PER_SEQUENCE_AT_4K = kv_cache_bytes(1, 4096, 32, 32, 128, torch.bfloat16) / 2**30
GQA_SAVING = 32 / 8
'''

_BYTES_ALT = '''
def kv_cache_bytes(batch: int, seq_len: int, n_layers: int, n_kv_heads: int, head_dim: int, dtype) -> int:
    one_element = torch.empty((), dtype=dtype).element_size()
    per_token_per_layer = 2 * n_kv_heads * head_dim * one_element  # a key and a value per KV head
    return int(per_token_per_layer * n_layers * seq_len * batch)


GIB_PER_SEQUENCE_AT_4K = 2 * 32 * 32 * 128 * 2 * 4096 / 1024**3
GQA_SAVING = kv_cache_bytes(1, 4096, 32, 32, 128, torch.bfloat16) / kv_cache_bytes(1, 4096, 32, 8, 128, torch.bfloat16)
'''

_SPEC_FROM_P = '''
def speculative_sample(p, q, n: int, generator):
    drafts = torch.multinomial(q, n, replacement=True, generator=generator)
    u = torch.rand(n, generator=generator)
    accepted = u < p[drafts] / q[drafts]
    repl = torch.multinomial(p, n, replacement=True, generator=generator)
    return torch.where(accepted, drafts, repl), accepted
'''

_SPEC_INVERSE_CDF = '''
def speculative_sample(p, q, n: int, generator):
    p, q = p.double(), q.double()

    def draw(dist):  # inverse-CDF sampling: a zero-probability token is never picked
        cdf = dist.cumsum(0)
        u = torch.rand(n, generator=generator, dtype=torch.float64) * cdf[-1]
        return torch.searchsorted(cdf, u, right=True).clamp_(max=dist.numel() - 1)

    drafts = draw(q)
    accepted = torch.rand(n, generator=generator, dtype=torch.float64) * q[drafts] < p[drafts]
    residual = (p - q).clamp(min=0)
    if residual.sum() > 0:
        replacements = draw(residual)
    else:  # p == q: every draft is accepted, the replacements are never used
        replacements = drafts.clone()
    return torch.where(accepted, drafts, replacements).long(), accepted
'''

_ACCEPT = '''
def expected_acceptance(p, q):
    return torch.minimum(p, q).sum(-1)


def expected_tokens_per_call(alpha: float, k: int) -> float:
    if alpha == 1:
        return float(k)
    return (1 - alpha ** k) / (1 - alpha)
'''

_ACCEPT_ALT = '''
def expected_acceptance(p, q):
    return 1 - 0.5 * (p - q).abs().sum(dim=-1)  # one minus the total variation distance


def expected_tokens_per_call(alpha: float, k: int) -> float:
    total = 0.0
    for j in range(k):  # j drafts accepted, then a rejection and the target's replacement
        total += (j + 1) * alpha ** j * (1 - alpha)
    return float(total + (k + 1) * alpha ** k)  # all k accepted, plus the bonus token
'''

_WINDOW_WIDE = '''
def sliding_window_mask(T: int, W: int, device=None):
    i = torch.arange(T, device=device)[:, None]
    j = torch.arange(T, device=device)[None, :]
    return (j <= i) & (j >= i - W)


def windowed_attention(q, k, v, W: int):
    return F.scaled_dot_product_attention(q, k, v, attn_mask=sliding_window_mask(q.shape[-2], W, q.device))
'''

_WINDOW_ALT = '''
def sliding_window_mask(T: int, W: int, device=None):
    ones = torch.ones(T, T, dtype=torch.bool, device=device)
    return torch.tril(ones) & torch.triu(ones, diagonal=-(W - 1))


def windowed_attention(q, k, v, W: int):
    T = q.shape[-2]
    scores = q @ k.transpose(-1, -2) * q.shape[-1] ** -0.5
    scores = scores.masked_fill(~sliding_window_mask(T, W, q.device), float("-inf"))
    return torch.softmax(scores, dim=-1) @ v
'''

_ROLLING_SHORT = '''
class RollingKVCache:
    def __init__(self, window: int):
        self.window = window
        self.k = self.v = None

    def append(self, k, v):
        if self.k is not None:
            k = torch.cat([self.k, k], dim=-2)
            v = torch.cat([self.v, v], dim=-2)
        self.k, self.v = k[..., -(self.window - 1):, :], v[..., -(self.window - 1):, :]

    def attend(self, q):
        return F.scaled_dot_product_attention(q, self.k, self.v)
'''

_ROLLING_RING = '''
class RollingKVCache:
    def __init__(self, window: int):
        self.window = window
        self.k = self.v = None
        self.count = 0

    def append(self, k, v):
        if self.k is None:
            shape = (*k.shape[:-2], self.window, k.shape[-1])
            self.k = torch.zeros(shape, dtype=k.dtype, device=k.device)
            self.v = torch.zeros(shape, dtype=v.dtype, device=v.device)
        slot = self.count % self.window
        self.k[..., slot:slot + 1, :] = k
        self.v[..., slot:slot + 1, :] = v
        self.count += 1

    def attend(self, q):
        n = min(self.count, self.window)  # slots not yet written hold no token
        k, v = self.k[..., :n, :], self.v[..., :n, :]
        weights = torch.softmax(q @ k.transpose(-1, -2) / math.sqrt(q.shape[-1]), dim=-1)
        return weights @ v
'''

WRONG = {
    "ex1_attend_with_cache": ("drops the mask once a cache exists, as if every call after the prefill brought one "
                              "token: a chunk of several new tokens sees its own future", _ATTEND_MASK_ONLY_ON_PREFILL),
    "ex2_lm_step": ("embeds the new tokens at position 0 instead of after the cached ones", _LM_STEP_AT_ZERO),
    "ex3_greedy": ("generates with grad mode on (no torch.no_grad), building a graph through the caches", _GREEDY),
    "ex4_cache_bytes": ("counts the keys but forgets the values (no factor 2)", _BYTES_NO_VALUES),
    "ex5_speculative": ("samples the replacement from p instead of the residual max(0, p - q)", _SPEC_FROM_P),
    "ex6_acceptance": ("forgets the target's own token per call: (1 - alpha**k) / (1 - alpha)", _ACCEPT),
    "ex7_window": ("off by one: `j >= i - W` lets every query see W + 1 keys", _WINDOW_WIDE),
    "ex8_rolling": ("keeps only W - 1 entries after the append, forgetting the newest token counts in the window",
                    _ROLLING_SHORT),
}

ALT = {
    "ex1_attend_with_cache": _ATTEND_BY_HAND,
    "ex2_lm_step": _LM_STEP_ALT,
    "ex3_greedy": _GREEDY_ALT,
    "ex4_cache_bytes": _BYTES_ALT,
    "ex5_speculative": _SPEC_INVERSE_CDF,
    "ex6_acceptance": _ACCEPT_ALT,
    "ex7_window": _WINDOW_ALT,
    "ex8_rolling": _ROLLING_RING,
}
