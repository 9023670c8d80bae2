"""Known-wrong and alternative answers for notebooks/mid/17_tokenization_and_retrieval.ipynb."""

_TRAIN = '''def train_bpe(text, num_merges):
    ids = list(text.encode("utf-8"))
    merges = []
    for r in range(num_merges):
        counts = {}
        for pair in zip(ids, ids[1:]):
            counts[pair] = counts.get(pair, 0) + 1
        if not counts:
            break
CHOOSE
        ids = merge_pair(ids, pair, 256 + r)
        merges.append(pair)
    return merges
'''

_DECODE = '''

def decode(ids, merges):
    vocab = {i: bytes([i]) for i in range(256)}
    for r, (a, b) in enumerate(merges):
        vocab[256 + r] = vocab[a] + vocab[b]
    return b"".join(vocab[i] for i in ids).decode("utf-8", errors="replace")
'''

_ENCODE = '''def encode(text, merges):
    rank = {pair: r for r, pair in enumerate(merges)}
    ids = list(text.encode("utf-8"))
    while len(ids) >= 2:
        pair = min(zip(ids, ids[1:]), key=lambda p: rank.get(p, math.inf))
        if pair not in rank:
            break
        ids = merge_pair(ids, pair, 256 + rank[pair])
    return ids
'''

_CHUNK = '''def chunk(tokens, size, overlap):
    if size < 1 or not 0 <= overlap < size:
        raise ValueError(f"need size >= 1 and 0 <= overlap < size, got size={size}, overlap={overlap}")
    n = tokens.shape[0]
    step = size - overlap
    return [tokens[s:s + size] for s in STARTS]
'''

WRONG = {
    "ex1_merge_pair": [
        ("the colleague's version (overlapping matches read the original list)",
         '''def merge_pair(ids, pair, new_id):
    out = list(ids)
    for i in range(len(ids) - 1):
        if (ids[i], ids[i + 1]) == pair:
            out[i] = new_id
            out[i + 1] = None
    return [t for t in out if t is not None]
'''),
        ("loops while i < len(ids) - 1 and drops the last id when it is not merged",
         '''def merge_pair(ids, pair, new_id):
    out = []
    i = 0
    while i < len(ids) - 1:
        if (ids[i], ids[i + 1]) == tuple(pair):
            out.append(new_id)
            i += 2
        else:
            out.append(ids[i])
            i += 1
    return out
'''),
    ],
    "ex2_train_bpe": [
        ("breaks ties towards the largest pair",
         _TRAIN.replace("CHOOSE", '''        best = max(counts.values())
        if best < 2:
            break
        pair = max(p for p, c in counts.items() if c == best)''')),
        ("never stops early: keeps merging pairs that occur once",
         _TRAIN.replace("CHOOSE", '''        best = max(counts.values())
        pair = min(p for p, c in counts.items() if c == best)''')),
        ("Counter.most_common: ties go to the pair seen first",
         _TRAIN.replace("CHOOSE", '''        pair, best = collections.Counter(zip(ids, ids[1:])).most_common(1)[0]
        if best < 2:
            break''').replace("def train_bpe", "import collections\n\n\ndef train_bpe")),
    ],
    "ex3_encode_decode": [
        ("decodes strictly (raises on an incomplete character)",
         _ENCODE + '''

def decode(ids, merges):
    vocab = {i: bytes([i]) for i in range(256)}
    for r, (a, b) in enumerate(merges):
        vocab[256 + r] = vocab[a] + vocab[b]
    return b"".join(vocab[i] for i in ids).decode("utf-8")
'''),
        ("works on ord() code points instead of UTF-8 bytes",
         _ENCODE.replace('list(text.encode("utf-8"))', "[ord(c) for c in text]") + _DECODE),
        ("merges the pair most frequent in the input instead of the lowest rank",
         '''def encode(text, merges):
    rank = {pair: r for r, pair in enumerate(merges)}
    ids = list(text.encode("utf-8"))
    while True:
        counts = {}
        for p in zip(ids, ids[1:]):
            if p in rank:
                counts[p] = counts.get(p, 0) + 1
        if not counts:
            return ids
        pair = max(counts, key=counts.get)
        ids = merge_pair(ids, pair, 256 + rank[pair])
''' + _DECODE),
    ],
    "ex4_chunk": [
        ("range(0, n, step): adds windows that lie inside the previous one",
         _CHUNK.replace("STARTS", "range(0, n, step)")),
        ("range(0, n - size + 1, step): loses the tail",
         _CHUNK.replace("STARTS", "range(0, max(n - size + 1, 1) if n else 0, step)")),
        ("no validation of size and overlap",
         '''def chunk(tokens, size, overlap):
    n = tokens.shape[0]
    step = size - overlap
    return [tokens[s:s + size] for s in range(0, max(n - overlap, 1) if n else 0, step)]
'''),
    ],
    "ex5_top_k_cosine": [
        ("raw dot product without normalising",
         '''def top_k_cosine(queries, embeddings, k):
    with torch.no_grad():
        return torch.topk(queries @ embeddings.T, k, dim=-1)
'''),
        ("F.normalize with its default dim=1",
         '''def top_k_cosine(queries, embeddings, k):
    with torch.no_grad():
        q = F.normalize(queries) if queries.dim() > 1 else queries / queries.norm()
        return torch.topk(q @ F.normalize(embeddings).T, k, dim=-1)
'''),
        ("builds an autograd graph (no torch.no_grad)",
         '''def top_k_cosine(queries, embeddings, k):
    q = F.normalize(queries, dim=-1)
    e = F.normalize(embeddings, dim=-1)
    return torch.topk(q @ e.T, k, dim=-1)
'''),
    ],
}

ALT = {
    "ex1_merge_pair": '''def merge_pair(ids, pair, new_id):
    out = []
    skip = False
    for i, t in enumerate(ids):
        if skip:
            skip = False
            continue
        if i + 1 < len(ids) and (t, ids[i + 1]) == tuple(pair):
            out.append(new_id)
            skip = True
        else:
            out.append(t)
    return out
''',
    "ex2_train_bpe": '''from collections import Counter


def train_bpe(text, num_merges):
    seq = list(text.encode("utf-8"))
    merges = []
    while len(merges) < num_merges:
        counts = Counter(zip(seq, seq[1:]))
        if not counts:
            break
        pair = max(counts, key=lambda p: (counts[p], -p[0], -p[1]))
        if counts[pair] < 2:
            break
        new_id = 256 + len(merges)
        merged, i = [], 0
        while i < len(seq):
            if seq[i:i + 2] == list(pair):
                merged.append(new_id)
                i += 2
            else:
                merged.append(seq[i])
                i += 1
        seq = merged
        merges.append((int(pair[0]), int(pair[1])))
    return merges
''',
    "ex3_encode_decode": '''def encode(text, merges):
    ids = list(text.encode("utf-8"))
    for r, pair in enumerate(merges):
        ids = merge_pair(ids, pair, 256 + r)
    return ids


def decode(ids, merges):
    def expand(i):
        if i < 256:
            return bytes([i])
        a, b = merges[i - 256]
        return expand(a) + expand(b)
    return bytes().join(expand(i) for i in ids).decode("utf-8", "replace")
''',
    "ex4_chunk": '''def chunk(tokens, size, overlap):
    if not (size >= 1 and 0 <= overlap < size):
        raise ValueError(f"invalid window: size={size}, overlap={overlap} (need 0 <= overlap < size)")
    n = len(tokens)
    if n == 0:
        return []
    step = size - overlap
    count = 1 + max(0, math.ceil((n - size) / step))
    return [tokens[i * step:i * step + size] for i in range(count)]
''',
    "ex5_top_k_cosine": '''@torch.inference_mode()
def top_k_cosine(queries, embeddings, k):
    q = queries / queries.norm(dim=-1, keepdim=True)
    e = embeddings / embeddings.norm(dim=-1, keepdim=True)
    sims = torch.einsum("...d,nd->...n", q, e)
    order = sims.argsort(dim=-1, descending=True)[..., :k]
    return sims.gather(-1, order), order
''',
}

# issue 33 (blind set): a range that stops at n - overlap returns no window for a sequence shorter than the overlap.
WRONG["ex4_chunk"].append(("no window for a sequence shorter than the overlap (range stops at n - overlap)", '''
def chunk(tokens, size, overlap):
    if size < 1 or not 0 <= overlap < size:
        raise ValueError(f"need size >= 1 and 0 <= overlap < size, got size={size}, overlap={overlap}")
    step = size - overlap
    return [tokens[s:s + size] for s in range(0, max(tokens.shape[0] - overlap, 0), step)]
'''))
