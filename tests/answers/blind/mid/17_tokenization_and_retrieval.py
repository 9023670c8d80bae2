"""Blind set for notebooks/mid/17_tokenization_and_retrieval.ipynb, written from release/ alone (issue 33)."""

WRONG = {
    "ex1_merge_pair": ("edits the caller's list in place and returns it", '''
def merge_pair(ids, pair, new_id):
    i = 0
    while i < len(ids) - 1:
        if (ids[i], ids[i + 1]) == pair:
            ids[i:i + 2] = [new_id]
        i += 1
    return ids
'''),
    "ex2_train_bpe": ("takes Counter.most_common, so ties go to the pair seen first", '''
from collections import Counter


def train_bpe(text, num_merges):
    ids = list(text.encode("utf-8"))
    merges = []
    for r in range(num_merges):
        counts = Counter(zip(ids, ids[1:]))
        if not counts:
            break
        pair, n = counts.most_common(1)[0]
        if n < 2:
            break
        merges.append((int(pair[0]), int(pair[1])))
        ids = merge_pair(ids, pair, 256 + r)
    return merges
'''),
    "ex3_encode_decode": ("works on code points (ord) instead of UTF-8 bytes", '''
def encode(text, merges):
    ids = [ord(ch) for ch in text]
    ranks = {p: r for r, p in enumerate(merges)}
    while len(ids) > 1:
        pair = min(zip(ids, ids[1:]), key=lambda p: ranks.get(p, float("inf")))
        if pair not in ranks:
            break
        ids = merge_pair(ids, pair, 256 + ranks[pair])
    return ids


def decode(ids, merges):
    table = {}
    for r, (a, b) in enumerate(merges):
        table[256 + r] = table.get(a, chr(a)) + table.get(b, chr(b))
    return "".join(table.get(i, chr(i)) for i in ids)
'''),
    "ex4_chunk": ("starts a window at every step, adding windows that lie inside the previous one", '''
def chunk(tokens, size, overlap):
    if size < 1 or not 0 <= overlap < size:
        raise ValueError(f"need size >= 1 and 0 <= overlap < size, got size={size}, overlap={overlap}")
    step = size - overlap
    return [tokens[s:s + size] for s in range(0, len(tokens), step)]
'''),
    "ex5_top_k_cosine": ("runs with autograd on, so the scores require grad", '''
def top_k_cosine(queries, embeddings, k):
    q = F.normalize(queries, dim=-1)
    e = F.normalize(embeddings, dim=-1)
    return torch.topk(q @ e.T, k, dim=-1)
'''),
}

ALT = {
    "ex1_merge_pair": '''
def merge_pair(ids, pair, new_id):
    out = []
    it = iter(ids)
    pending = next(it, None)
    for tok in it:
        if pending is not None and (pending, tok) == tuple(pair):
            out.append(new_id)
            pending = None
        else:
            if pending is not None:
                out.append(pending)
            pending = tok
    if pending is not None:
        out.append(pending)
    return out
''',
    "ex2_train_bpe": '''
def train_bpe(text, num_merges):
    ids = list(text.encode("utf-8"))
    merges = []
    while len(merges) < num_merges:
        counts = {}
        for pair in zip(ids, ids[1:]):
            counts[pair] = counts.get(pair, 0) + 1
        if not counts:
            break
        best = sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))[0]
        if best[1] < 2:
            break
        merges.append((int(best[0][0]), int(best[0][1])))
        ids = merge_pair(ids, best[0], 255 + len(merges))
    return merges
''',
    "ex3_encode_decode": '''
def encode(text, merges):
    ids = list(text.encode("utf-8"))
    for rank, pair in enumerate(merges):
        ids = merge_pair(ids, tuple(pair), 256 + rank)
    return [int(i) for i in ids]


def decode(ids, merges):
    def spell(i):
        if i < 256:
            return bytes([i])
        a, b = merges[i - 256]
        return spell(a) + spell(b)

    return b"".join(spell(int(i)) for i in ids).decode("utf-8", errors="replace")
''',
    "ex4_chunk": '''
def chunk(tokens, size, overlap):
    if not (size >= 1 and 0 <= overlap < size):
        raise ValueError(f"invalid chunking: size={size} must be >= 1 and overlap={overlap} in [0, size)")
    n, step = tokens.shape[0], size - overlap
    windows, start = [], 0
    while start < n:
        windows.append(tokens[start:start + size])
        if start + size >= n:
            break
        start += step
    return windows
''',
    "ex5_top_k_cosine": '''
def top_k_cosine(queries, embeddings, k):
    with torch.inference_mode():
        sims = F.cosine_similarity(queries.unsqueeze(-2), embeddings, dim=-1)
        order = torch.argsort(sims, dim=-1, descending=True)[..., :k]
        return sims.gather(-1, order), order.to(torch.int64)
''',
}
