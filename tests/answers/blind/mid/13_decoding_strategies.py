"""Blind set for notebooks/mid/13_decoding_strategies.ipynb, written from release/ alone (issue 33)."""

WRONG = {
    "ex1_greedy": ("checks for the end token before appending it, so eos is left out", '''
def greedy_decode(next_logits, prompt, max_new_tokens, eos_id=None):
    out = list(prompt)
    for _ in range(max_new_tokens):
        tok = int(torch.argmax(next_logits(out)).item())
        if tok == eos_id:
            break
        out.append(tok)
    return out
'''),
    "ex2_temperature": ("divides by T even when T == 0", '''
def temperature_probs(logits, temperature):
    return torch.softmax(logits / temperature, dim=-1)
'''),
    "ex3_top_k": ("keeps entries strictly above the k-th largest (> instead of >=)", '''
def top_k_filter(logits, k):
    if k >= logits.shape[-1]:
        return logits.clone()
    kth = torch.topk(logits, k, dim=-1).values[..., -1:]
    return logits.masked_fill(~(logits > kth), float("-inf"))
'''),
    "ex4_top_p": ("tests each token's own cumulative sum, dropping the one that crosses p", '''
def top_p_filter(logits, p):
    sorted_logits, idx = torch.sort(logits, dim=-1, descending=True)
    cum = torch.softmax(sorted_logits, dim=-1).cumsum(dim=-1)
    remove_sorted = cum > p
    remove = torch.zeros_like(remove_sorted).scatter(-1, idx, remove_sorted)
    return logits.masked_fill(remove, float("-inf"))
'''),
    "ex5_repetition_penalty": ("penalises a token once per occurrence", '''
def apply_repetition_penalty(logits, prev_tokens, penalty):
    out = logits.clone()
    for t in prev_tokens.tolist():
        out[t] = out[t] / penalty if out[t] > 0 else out[t] * penalty
    return out
'''),
    "ex6_sample": ("draws from the global RNG instead of the given generator", '''
def sample_next(logits, generator, temperature=1.0, top_k=None, top_p=None):
    z = logits / temperature
    if top_k is not None:
        z = top_k_filter(z, top_k)
    if top_p is not None:
        z = top_p_filter(z, top_p)
    return torch.multinomial(torch.softmax(z, dim=-1), num_samples=1).squeeze(-1)
'''),
    "ex7_beam": ("ranks the extensions by the new token's log-prob, not the total", '''
def beam_search(step_log_probs, start, steps, beam_width):
    seqs = torch.tensor([[start]])
    scores = torch.zeros(1)
    for _ in range(steps):
        lp = step_log_probs(seqs)
        V = lp.shape[-1]
        k = min(beam_width, lp.numel())
        _, flat = torch.topk(lp.flatten(), k)
        rows, toks = flat // V, flat % V
        scores = scores[rows] + lp[rows, toks]
        seqs = torch.cat([seqs[rows], toks[:, None]], dim=1)
    order = torch.argsort(scores, descending=True)
    return [(seqs[i, 1:].tolist(), float(scores[i])) for i in order]
'''),
}

ALT = {
    "ex1_greedy": '''
def greedy_decode(next_logits, prompt, max_new_tokens, eos_id=None):
    tokens = [int(t) for t in prompt]
    while len(tokens) < len(prompt) + max_new_tokens:
        tokens.append(int(torch.max(next_logits(tokens), dim=-1).indices))
        if eos_id is not None and tokens[-1] == eos_id:
            break
    return tokens
''',
    "ex2_temperature": '''
def temperature_probs(logits, temperature):
    if temperature == 0:
        hot = torch.zeros_like(logits)
        return hot.scatter(-1, logits.argmax(dim=-1, keepdim=True), 1.0)
    return torch.exp(F.log_softmax(logits / temperature, dim=-1))
''',
    "ex3_top_k": '''
def top_k_filter(logits, k):
    if k >= logits.shape[-1]:
        return logits.clone()
    values, indices = logits.topk(k, dim=-1)
    return torch.full_like(logits, float("-inf")).scatter(-1, indices, values)
''',
    "ex4_top_p": '''
def top_p_filter(logits, p):
    probs = torch.softmax(logits, dim=-1)
    above = probs.unsqueeze(-2) > probs.unsqueeze(-1)
    mass_before = (above * probs.unsqueeze(-2)).sum(dim=-1)
    return logits.masked_fill(mass_before >= p, float("-inf"))
''',
    "ex5_repetition_penalty": '''
def apply_repetition_penalty(logits, prev_tokens, penalty):
    seen = torch.zeros(logits.shape[-1], dtype=torch.bool, device=logits.device)
    seen[prev_tokens] = True
    pushed = torch.where(logits > 0, logits / penalty, logits * penalty)
    return torch.where(seen, pushed, logits)
''',
    "ex6_sample": '''
def sample_next(logits, generator, temperature=1.0, top_k=None, top_p=None):
    z = logits / temperature
    if top_k is not None and top_k < z.shape[-1]:
        kth = z.topk(top_k, dim=-1).values[..., -1:]
        z = z.masked_fill(z < kth, float("-inf"))
    if top_p is not None:
        z = top_p_filter(z, top_p)
    probs = F.softmax(z, dim=-1)
    return torch.multinomial(probs, num_samples=1, generator=generator)[..., 0].long()
''',
    "ex7_beam": '''
import heapq


def beam_search(step_log_probs, start, steps, beam_width):
    beams = [(0.0, [start])]
    for _ in range(steps):
        lp = step_log_probs(torch.tensor([seq for _, seq in beams], dtype=torch.long)).tolist()
        candidates = [(score + row[tok], seq + [tok]) for (score, seq), row in zip(beams, lp)
                      for tok in range(len(row))]
        beams = heapq.nlargest(beam_width, candidates, key=lambda c: c[0])
    return [(seq[1:], float(score)) for score, seq in beams]
''',
}
