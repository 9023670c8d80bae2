"""Known-wrong and alternative answers for senior/13_kv_cache_and_speculative_decoding."""

from tests.answers.senior import edited, reference

NB = "senior/13_kv_cache_and_speculative_decoding"

EX1 = reference(NB, "ex1_attend_with_cache")

EX1_WRONG_IS_CAUSAL = edited(EX1, """
    t_new, t_all = q.shape[2], k.shape[2]
    q_pos = torch.arange(t_all - t_new, t_all, device=q.device).unsqueeze(1)
    k_pos = torch.arange(t_all, device=q.device).unsqueeze(0)
    attn = F.scaled_dot_product_attention(q, k, v, attn_mask=k_pos <= q_pos)""", """
    attn = F.scaled_dot_product_attention(q, k, v, is_causal=True)""")

EX1_WRONG_OFF_BY_ONE = edited(EX1, "attn_mask=k_pos <= q_pos", "attn_mask=k_pos <= q_pos + 1")

EX1_WRONG_DIM = edited(edited(EX1, "[cache[0], k], dim=2", "[cache[0], k], dim=1"), "[cache[1], v], dim=2", "[cache[1], v], dim=1")

EX1_ALT = '''
def attend_with_cache(block, x_new, cache=None):
    q, k_new, v_new = block.qkv_heads(x_new)
    k = k_new if cache is None else torch.cat((cache[0], k_new), dim=-2)
    v = v_new if cache is None else torch.cat((cache[1], v_new), dim=-2)
    t_past = k.shape[-2] - q.shape[-2]
    scores = (q @ k.transpose(-2, -1)) / math.sqrt(q.shape[-1])
    hidden = torch.ones(q.shape[-2], k.shape[-2], dtype=torch.bool, device=q.device).triu(diagonal=t_past + 1)
    attn = torch.softmax(scores.masked_fill(hidden, float("-inf")), dim=-1) @ v
    return block.finish(x_new, attn), (k, v)
'''

EX2 = reference(NB, "ex2_lm_step")

EX2_WRONG_POSITIONS = edited(EX2, """
    start = 0 if caches is None else caches[0][0].shape[2]
    x = model.embed(idx_new, start_pos=start)""", """
    x = model.embed(idx_new)""")

EX2_WRONG_SHARED_CACHE = edited(EX2, "caches[i])", "caches[0])")

EX2_ALT = '''
def lm_step(model, idx_new, caches=None):
    caches = caches if caches is not None else [None] * len(model.blocks)
    past = caches[0][1].shape[-2] if caches[0] is not None else 0
    pos = past + torch.arange(idx_new.shape[-1], device=idx_new.device)
    h = model.tok(idx_new) + model.pos(pos)[None]
    out = []
    for blk, cache in zip(model.blocks, caches):
        h, cache = attend_with_cache(blk, h, cache)
        out.append(cache)
    return model.head(model.norm(h)), out
'''

EX3 = reference(NB, "ex3_greedy")

EX3_WRONG_NO_CACHE = edited(EX3, "lm_step(model, nxt, caches)", "lm_step(model, torch.cat(out, dim=1))")

EX3_WRONG_REFEED = '''
def greedy_generate(model, prompt, n_new):
    seq = prompt
    with torch.no_grad():
        logits, caches = lm_step(model, prompt)
        for _ in range(n_new):
            seq = torch.cat([seq, logits[:, -1].argmax(dim=-1, keepdim=True)], dim=1)
            if seq.shape[1] < prompt.shape[1] + n_new:
                logits, caches = lm_step(model, seq, caches)
    return seq
'''

EX3_ALT = '''
@torch.inference_mode()
def greedy_generate(model, prompt, n_new):
    seq = prompt.clone()
    step_input, caches = prompt, None
    while seq.shape[1] < prompt.shape[1] + n_new:
        logits, caches = lm_step(model, step_input, caches)
        step_input = torch.argmax(logits[:, -1:, :], dim=-1)
        seq = torch.cat((seq, step_input), dim=-1)
    return seq
'''

EX4 = reference(NB, "ex4_cache_bytes")

EX4_WRONG_NO_TWO = edited(edited(EX4, " * 2 * n_kv_heads", " * n_kv_heads"), "GIB_PER_SEQUENCE_AT_4K = 2.0", "GIB_PER_SEQUENCE_AT_4K = 1.0")

EX4_WRONG_BITS = edited(edited(EX4, "dtype.itemsize", "torch.finfo(dtype).bits"),
                        "GIB_PER_SEQUENCE_AT_4K = 2.0", "GIB_PER_SEQUENCE_AT_4K = 16.0")

EX4_ALT = '''
def kv_cache_bytes(batch, seq_len, n_layers, n_kv_heads, head_dim, dtype):
    one = torch.empty((), dtype=dtype).element_size()
    per_token_per_layer = 2 * n_kv_heads * head_dim * one  # a key and a value per KV head
    return int(per_token_per_layer * n_layers * seq_len * batch)


GIB_PER_SEQUENCE_AT_4K = 4096 * 32 * 2 * 32 * 128 * 2 / 1024 ** 3
GQA_SAVING = 32 / 8
'''

EX5 = reference(NB, "ex5_speculative")

EX5_WRONG_RESIDUAL_FROM_P = edited(EX5, "torch.multinomial(residual / residual.sum(),", "torch.multinomial(p,")

EX5_WRONG_ACCEPT_IF_GREATER = edited(EX5, """
    u = torch.rand(n, generator=generator)
    accepted = u * q[draft] < p[draft]""", """
    accepted = p[draft] > q[draft]""")

EX5_ALT = '''
def speculative_sample(p, q, n, generator):
    u = torch.rand(n, generator=generator)
    cdf_q = torch.cumsum(q, 0)
    draft = torch.searchsorted(cdf_q, u * cdf_q[-1], right=True).clamp(max=q.numel() - 1)
    while bool((q[draft] == 0).any()):  # rounding at the edges of the cdf: redraw those
        bad = q[draft] == 0
        draft[bad] = torch.multinomial(q, int(bad.sum()), replacement=True, generator=generator)
    ratio = torch.where(q[draft] > 0, p[draft] / q[draft], torch.ones_like(p[draft]))
    accepted = torch.rand(n, generator=generator) < torch.minimum(ratio, torch.ones_like(ratio))
    residual = torch.relu(p - q)
    total = residual.sum()
    if float(total) > 0:
        fallback = torch.multinomial(residual / total, n, replacement=True, generator=generator)
    else:
        fallback = draft.clone()
    return torch.where(accepted, draft, fallback).long(), accepted
'''

EX6 = reference(NB, "ex6_acceptance")

EX6_WRONG_DOT = edited(EX6, "torch.minimum(p, q).sum(dim=-1)", "(p * q).sum(dim=-1)")

EX6_WRONG_LINEAR_TOKENS = edited(EX6, """
    if alpha >= 1.0:
        return float(k + 1)
    return (1 - alpha ** (k + 1)) / (1 - alpha)""", """
    return k * alpha + 1""")

EX6_ALT = '''
def expected_acceptance(p, q):
    return 1 - 0.5 * (p - q).abs().sum(-1)


def expected_tokens_per_call(alpha, k):
    return float(sum(alpha ** j for j in range(k + 1)))
'''

EX7 = reference(NB, "ex7_window")

EX7_WRONG_WIDE = edited(EX7, "i - j < W", "i - j <= W")

EX7_WRONG_NOT_CAUSAL = edited(EX7, "(j <= i) & (i - j < W)", "(i - j).abs() < W")

EX7_ALT = '''
def sliding_window_mask(T, W, device=None):
    ones = torch.ones(T, T, dtype=torch.bool, device=device)
    return torch.tril(ones) & torch.triu(ones, diagonal=-(W - 1))


def windowed_attention(q, k, v, W):
    T = q.shape[-2]
    bias = torch.zeros(T, T, device=q.device, dtype=q.dtype)
    bias = bias.masked_fill(~sliding_window_mask(T, W, q.device), float("-inf"))
    scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1]) + bias
    return torch.softmax(scores, dim=-1) @ v
'''

EX8 = reference(NB, "ex8_rolling")

EX8_WRONG_NEVER_EVICTS = edited(edited(EX8, "[self.k, k], dim=-2)[..., -self.window:, :]", "[self.k, k], dim=-2)"),
                                "[self.v, v], dim=-2)[..., -self.window:, :]", "[self.v, v], dim=-2)")

EX8_WRONG_KEEPS_W_MINUS_1 = edited(edited(EX8, "[self.k, k], dim=-2)[..., -self.window:", "[self.k, k], dim=-2)[..., -(self.window - 1):"),
                                   "[self.v, v], dim=-2)[..., -self.window:", "[self.v, v], dim=-2)[..., -(self.window - 1):")

EX8_ALT = '''
class RollingKVCache:
    """A ring buffer: slot step % window is overwritten, order inside the buffer does not matter."""

    def __init__(self, window):
        self.window = window
        self.buf_k = self.buf_v = None
        self.steps = 0

    def append(self, k, v):
        if self.buf_k is None:
            shape = k.shape[:-2] + (self.window, k.shape[-1])
            self.buf_k = k.new_zeros(shape)
            self.buf_v = v.new_zeros(shape)
        slot = self.steps % self.window
        self.buf_k[..., slot:slot + 1, :] = k
        self.buf_v[..., slot:slot + 1, :] = v
        self.steps += 1

    @property
    def k(self):
        return self.buf_k[..., :min(self.steps, self.window), :]

    @property
    def v(self):
        return self.buf_v[..., :min(self.steps, self.window), :]

    def attend(self, q):
        w = torch.softmax(q @ self.k.transpose(-2, -1) / math.sqrt(q.shape[-1]), dim=-1)
        return w @ self.v
'''

EX1_WRONG_CPU_MASK = edited(EX1_ALT, ", device=q.device")

EX6_WRONG_DIM1 = edited(EX6_ALT, ".sum(-1)", ".sum(1)")

EX7_WRONG_IGNORES_DEVICE = edited(EX7_ALT, ", device=device")

EX3_WRONG_GRAD_ON = edited(EX3_ALT, "@torch.inference_mode()\n")


WRONG = {
    "ex1_attend_with_cache": [("the teammate's is_causal=True: top-left aligned mask in the cache", EX1_WRONG_IS_CAUSAL),
                              ("causal mask off by one: a chunk's token sees the next one", EX1_WRONG_OFF_BY_ONE),
                              ("cache appended on the heads dim instead of the sequence dim", EX1_WRONG_DIM),
                              ("mask built on the CPU: breaks on a GPU", EX1_WRONG_CPU_MASK)],
    "ex2_lm_step": [("positions restart at 0 for new tokens", EX2_WRONG_POSITIONS),
                    ("every block reads block 0's cache", EX2_WRONG_SHARED_CACHE)],
    "ex3_greedy": [("recomputes the whole sequence every step, no cache", EX3_WRONG_NO_CACHE),
                   ("refeeds the whole sequence on top of the cache", EX3_WRONG_REFEED),
                   ("builds an autograd graph at every step", EX3_WRONG_GRAD_ON)],
    "ex4_cache_bytes": [("forgets that both K and V are cached", EX4_WRONG_NO_TWO),
                        ("counts bits instead of bytes", EX4_WRONG_BITS)],
    "ex5_speculative": [("samples the replacement from p instead of the residual", EX5_WRONG_RESIDUAL_FROM_P),
                        ("accepts exactly when p > q", EX5_WRONG_ACCEPT_IF_GREATER)],
    "ex6_acceptance": [("acceptance as sum(p * q)", EX6_WRONG_DOT),
                       ("tokens per call linear in k", EX6_WRONG_LINEAR_TOKENS),
                       ("sums over dim 1: wrong for leading batch dims", EX6_WRONG_DIM1)],
    # ex8's test uses ex7's _window_loop, which a mask that fails row 4 leaves undefined: the round of ex8's
    # second wrong answer pairs it with the one ex7 answer that fails after that definition
    "ex7_window": [("window one too wide", EX7_WRONG_WIDE),
                   ("ignores the device argument", EX7_WRONG_IGNORES_DEVICE),
                   ("symmetric band, not causal", EX7_WRONG_NOT_CAUSAL)],
    "ex8_rolling": [("never evicts: the cache grows without bound", EX8_WRONG_NEVER_EVICTS),
                    ("keeps W - 1 entries", EX8_WRONG_KEEPS_W_MINUS_1)],
}

ALT = {
    "ex1_attend_with_cache": EX1_ALT,
    "ex2_lm_step": EX2_ALT,
    "ex3_greedy": EX3_ALT,
    "ex4_cache_bytes": EX4_ALT,
    "ex5_speculative": EX5_ALT,
    "ex6_acceptance": EX6_ALT,
    "ex7_window": EX7_ALT,
    "ex8_rolling": EX8_ALT,
}
