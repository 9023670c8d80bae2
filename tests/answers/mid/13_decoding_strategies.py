"""Known-wrong and alternative answers for notebooks/mid/13_decoding_strategies.ipynb."""

_TOP_P = '''def top_p_filter(logits, p):
    sorted_logits, order = torch.sort(logits, dim=-1, descending=True)
    probs = torch.softmax(sorted_logits, dim=-1)
    remove_sorted = REMOVE
    remove = torch.zeros_like(remove_sorted).scatter(-1, order, remove_sorted)
    return logits.masked_fill(remove, float("-inf"))
'''

_BEAM = '''def beam_search(step_log_probs, start, steps, beam_width):
    seqs = torch.tensor([[start]])
    scores = torch.zeros(1)
    for _ in range(steps):
        logp = step_log_probs(seqs)
        V = logp.shape[-1]
        cand = (CAND).flatten()
        top = torch.topk(cand, min(beam_width, cand.numel()))
        parent, token = top.indices // V, top.indices % V
        seqs = torch.cat([seqs[parent], token[:, None]], dim=1)
        scores = top.values
    return [(s[1:].tolist(), float(v)) for s, v in zip(seqs, scores)]
'''

WRONG = {
    "ex1_greedy": [
        ("ignores the end-of-sequence token",
         '''def greedy_decode(next_logits, prompt, max_new_tokens, eos_id=None):
    tokens = list(prompt)
    for _ in range(max_new_tokens):
        tokens.append(int(torch.argmax(next_logits(tokens))))
    return tokens
'''),
        ("stops before appending the end token",
         '''def greedy_decode(next_logits, prompt, max_new_tokens, eos_id=None):
    tokens = list(prompt)
    for _ in range(max_new_tokens):
        nxt = int(torch.argmax(next_logits(tokens)))
        if nxt == eos_id:
            break
        tokens.append(nxt)
    return tokens
'''),
        ("returns the generated tokens without the prompt",
         '''def greedy_decode(next_logits, prompt, max_new_tokens, eos_id=None):
    tokens, new = list(prompt), []
    for _ in range(max_new_tokens):
        nxt = int(torch.argmax(next_logits(tokens)))
        tokens.append(nxt)
        new.append(nxt)
        if nxt == eos_id:
            break
    return new
'''),
    ],
    "ex2_temperature": [
        ("multiplies the logits by the temperature",
         '''def temperature_probs(logits, temperature):
    if temperature == 0:
        return F.one_hot(logits.argmax(-1), logits.shape[-1]).to(logits.dtype)
    return torch.softmax(logits * temperature, dim=-1)
'''),
        ("divides the probabilities after the softmax",
         '''def temperature_probs(logits, temperature):
    if temperature == 0:
        return F.one_hot(logits.argmax(-1), logits.shape[-1]).to(logits.dtype)
    return torch.softmax(logits, dim=-1) / temperature
'''),
        ("divides by zero at temperature 0",
         '''def temperature_probs(logits, temperature):
    return torch.softmax(logits / temperature, dim=-1)
'''),
        ("returns F.one_hot's int64 at temperature 0 instead of the logits' dtype",
         '''def temperature_probs(logits, temperature):
    if temperature == 0:
        return F.one_hot(logits.argmax(-1), logits.shape[-1])
    return torch.softmax(logits / temperature, dim=-1)
'''),
    ],
    "ex3_top_k": [
        ("sets the removed logits to 0 instead of -inf",
         '''def top_k_filter(logits, k):
    if k >= logits.shape[-1]:
        return logits.clone()
    kth = torch.topk(logits, k, dim=-1).values[..., -1:]
    return logits.masked_fill(logits < kth, 0.0)
'''),
        ("keeps only logits strictly above the k-th largest (k - 1 tokens)",
         '''def top_k_filter(logits, k):
    if k >= logits.shape[-1]:
        return logits.clone()
    kth = torch.topk(logits, k, dim=-1).values[..., -1:]
    return logits.masked_fill(logits <= kth, float("-inf"))
'''),
        ("right values, but writes -inf into the caller's logits (in place)",
         '''def top_k_filter(logits, k):
    if k >= logits.shape[-1]:
        return logits
    kth = torch.topk(logits, k, dim=-1).values[..., -1:]
    logits[logits < kth] = float("-inf")
    return logits
'''),
    ],
    "ex4_top_p": [
        ("drops the token that crosses the threshold (keeps cumulative <= p)",
         _TOP_P.replace("REMOVE", "torch.cumsum(probs, dim=-1) > p")),
        ("does not sort: accumulates in vocabulary order",
         '''def top_p_filter(logits, p):
    probs = torch.softmax(logits, dim=-1)
    remove = torch.cumsum(probs, dim=-1) - probs >= p
    return logits.masked_fill(remove, float("-inf"))
'''),
        ("right values, but masks the caller's logits in place (masked_fill_)",
         _TOP_P.replace("REMOVE", "torch.cumsum(probs, dim=-1) - probs >= p").replace("logits.masked_fill(",
                                                                                     "logits.masked_fill_(")),
    ],
    "ex5_repetition_penalty": [
        ("divides every repeated logit, so negative logits move up",
         '''def apply_repetition_penalty(logits, prev_tokens, penalty):
    out = logits.clone()
    ids = torch.unique(prev_tokens)
    out[ids] = out[ids] / penalty
    return out
'''),
        ("penalises a token once per occurrence",
         '''def apply_repetition_penalty(logits, prev_tokens, penalty):
    out = logits.clone()
    for t in prev_tokens.tolist():
        out[t] = out[t] / penalty if out[t] > 0 else out[t] * penalty
    return out
'''),
        ("right arithmetic, but edits the caller's logits in place",
         '''def apply_repetition_penalty(logits, prev_tokens, penalty):
    ids = torch.unique(prev_tokens)
    sel = logits[ids]
    logits[ids] = torch.where(sel > 0, sel / penalty, sel * penalty)
    return logits
'''),
    ],
    "ex6_sample": [
        ("ignores the generator (draws from the global RNG)",
         '''def sample_next(logits, generator, temperature=1.0, top_k=None, top_p=None):
    logits = logits / temperature
    if top_k is not None:
        logits = top_k_filter(logits, top_k)
    if top_p is not None:
        logits = top_p_filter(logits, top_p)
    return torch.multinomial(torch.softmax(logits, dim=-1), num_samples=1).squeeze(-1)
'''),
        ("filters, then samples from the unfiltered logits",
         '''def sample_next(logits, generator, temperature=1.0, top_k=None, top_p=None):
    scaled = logits / temperature
    filtered = scaled
    if top_k is not None:
        filtered = top_k_filter(filtered, top_k)
    if top_p is not None:
        filtered = top_p_filter(filtered, top_p)
    probs = torch.softmax(scaled, dim=-1)
    return torch.multinomial(probs, num_samples=1, generator=generator).squeeze(-1)
'''),
        ("forgets the temperature",
         '''def sample_next(logits, generator, temperature=1.0, top_k=None, top_p=None):
    if top_k is not None:
        logits = top_k_filter(logits, top_k)
    if top_p is not None:
        logits = top_p_filter(logits, top_p)
    probs = torch.softmax(logits, dim=-1)
    return torch.multinomial(probs, num_samples=1, generator=generator).squeeze(-1)
'''),
    ],
    "ex7_beam": [
        ("ranks the extensions by the last token's log-prob only (no running score)",
         _BEAM.replace("CAND", "logp + 0 * scores[:, None]").replace("scores = top.values",
                                                                      "scores = top.values")),
        ("adds probabilities instead of log-probabilities",
         _BEAM.replace("CAND", "scores[:, None] + logp.exp()")),
    ],
}

ALT = {
    "ex1_greedy": '''def greedy_decode(next_logits, prompt, max_new_tokens, eos_id=None):
    out = prompt.copy()
    while len(out) - len(prompt) < max_new_tokens:
        _, idx = next_logits(out).max(dim=-1)
        out = out + [idx.item()]
        if out[-1] == eos_id:
            return out
    return out
''',
    "ex2_temperature": '''def temperature_probs(logits, temperature):
    if temperature == 0:
        return torch.zeros_like(logits).scatter_(-1, logits.argmax(-1, keepdim=True), 1.0)
    z = logits / temperature
    z = z - z.amax(dim=-1, keepdim=True)
    e = z.exp()
    return e / e.sum(dim=-1, keepdim=True)
''',
    "ex3_top_k": '''def top_k_filter(logits, k):
    k = min(k, logits.shape[-1])
    vals, idx = logits.topk(k, dim=-1)
    return torch.full_like(logits, float("-inf")).scatter(-1, idx, vals)
''',
    "ex4_top_p": '''def top_p_filter(logits, p):
    order = logits.argsort(dim=-1, descending=True)
    probs = logits.softmax(-1).gather(-1, order)
    keep_sorted = probs.cumsum(-1) - probs < p
    keep = keep_sorted.gather(-1, order.argsort(dim=-1))
    return torch.where(keep, logits, torch.full_like(logits, float("-inf")))
''',
    "ex5_repetition_penalty": '''def apply_repetition_penalty(logits, prev_tokens, penalty):
    out = logits.detach().clone()
    for t in set(prev_tokens.tolist()):
        v = out[t]
        out[t] = v * penalty if v < 0 else v / penalty
    return out
''',
    "ex6_sample": '''def sample_next(logits, generator, temperature=1.0, top_k=None, top_p=None):
    z = logits / temperature
    if top_k is not None and top_k < z.shape[-1]:
        cut = z.sort(dim=-1, descending=True).values[..., top_k - 1:top_k]
        z = torch.where(z >= cut, z, torch.full_like(z, float("-inf")))
    if top_p is not None:
        z = top_p_filter(z, top_p)
    ids = torch.multinomial(F.softmax(z, dim=-1), num_samples=1, generator=generator)
    return ids[:, 0]
''',
    "ex7_beam": '''def beam_search(step_log_probs, start, steps, beam_width):
    beams = [([start], 0.0)]
    for _ in range(steps):
        logp = step_log_probs(torch.tensor([b[0] for b in beams])).double()
        cands = [(seq + [tok], score + logp[i, tok].item())
                 for i, (seq, score) in enumerate(beams) for tok in range(logp.shape[1])]
        cands.sort(key=lambda c: c[1], reverse=True)
        beams = cands[:beam_width]
    return [(seq[1:], float(score)) for seq, score in beams]
''',
}
