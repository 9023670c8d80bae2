"""Known-wrong and alternative answers for notebooks/mid/11_tensor_algorithms.ipynb."""

WRONG = {
    "ex1_window_max": [
        ("a Python loop over the window positions", '''\
def sliding_window_max(x, k):
    n = x.shape[-1]
    return torch.stack([x[..., i:i + k].amax(dim=-1) for i in range(n - k + 1)], dim=-1)
'''),
        ("non-overlapping windows (step k instead of 1)", '''\
def sliding_window_max(x, k):
    return x.unfold(-1, k, k).amax(dim=-1)
'''),
    ],
    "ex2_kth_largest": [
        ("kthvalue counts from the smallest", '''\
def kth_largest(x, k):
    return torch.kthvalue(x, k, dim=-1).values
'''),
        ("off by one after a descending sort", '''\
def kth_largest(x, k):
    return torch.sort(x, dim=-1, descending=True).values[..., min(k, x.shape[-1] - 1)]
'''),
    ],
    "ex3_pair_count": [
        ("counts ordered pairs and i == j", '''\
def count_pairs(x, target):
    return int(((x.unsqueeze(0) + x.unsqueeze(1)) == target).sum())
'''),
        ("a Python loop over i", '''\
def count_pairs(x, target):
    return int(sum(((x[i + 1:] + x[i]) == target).sum() for i in range(x.shape[0])))
'''),
    ],
    "ex4_ring_buffer": [
        ("get() returns storage order, not oldest first", '''\
class RingBuffer:
    def __init__(self, capacity, dim, device=None):
        self.capacity = capacity
        self.buf = torch.zeros(capacity, dim, device=device)
        self.pos = 0
        self.size = 0

    def push(self, rows):
        rows = rows[-self.capacity:]
        m = rows.shape[0]
        slots = (self.pos + torch.arange(m, device=self.buf.device)) % self.capacity
        self.buf[slots] = rows
        self.pos = (self.pos + m) % self.capacity
        self.size = min(self.size + m, self.capacity)

    def get(self):
        return self.buf[: self.size].clone()
'''),
        ("writes one row at a time", '''\
class RingBuffer:
    def __init__(self, capacity, dim, device=None):
        self.capacity = capacity
        self.buf = torch.zeros(capacity, dim, device=device)
        self.pos = 0
        self.size = 0

    def push(self, rows):
        for r in range(rows.shape[0]):
            self.buf[self.pos] = rows[r]
            self.pos = (self.pos + 1) % self.capacity
            self.size = min(self.size + 1, self.capacity)

    def get(self):
        if self.size < self.capacity:
            return self.buf[: self.size].clone()
        return torch.roll(self.buf, shifts=-self.pos, dims=0)
'''),
    ],
    "ex5_segment_mean": [
        ("divides by zero for empty segments", '''\
def segment_mean(values, segment_ids, num_segments):
    sums = torch.zeros(num_segments, values.shape[1], dtype=values.dtype, device=values.device)
    sums.index_add_(0, segment_ids, values)
    counts = torch.bincount(segment_ids, minlength=num_segments)
    return sums / counts.unsqueeze(1)
'''),
        ("counts with bincount without minlength: trailing empty segments have no slot (found by the blind set)",
         '''\
def segment_mean(values, segment_ids, num_segments):
    sums = torch.zeros(num_segments, values.shape[1], dtype=values.dtype, device=values.device)
    sums.index_add_(0, segment_ids, values)
    counts = torch.bincount(segment_ids).clamp_min(1)
    return sums / counts.unsqueeze(1)
'''),
        ("index_copy_ overwrites instead of summing", '''\
def segment_mean(values, segment_ids, num_segments):
    sums = torch.zeros(num_segments, values.shape[1], dtype=values.dtype, device=values.device)
    sums.index_copy_(0, segment_ids, values)
    counts = torch.bincount(segment_ids, minlength=num_segments).clamp_min(1)
    return sums / counts.unsqueeze(1)
'''),
    ],
    "ex6_gcn_scatter": [
        ("forgets the self-loops", '''\
def gcn_propagate(x, edge_index):
    src, dst = edge_index
    deg = torch.bincount(dst, minlength=x.shape[0]).to(x.dtype)
    w = deg[src].rsqrt() * deg[dst].rsqrt()
    out = torch.zeros_like(x)
    out.index_add_(0, dst, w.unsqueeze(1) * x[src])
    return out
'''),
        ("row normalisation D^-1 (A + I) instead of the symmetric one", '''\
def gcn_propagate(x, edge_index):
    n = x.shape[0]
    loops = torch.arange(n, device=x.device)
    src = torch.cat([edge_index[0], loops])
    dst = torch.cat([edge_index[1], loops])
    deg = torch.bincount(dst, minlength=n).to(x.dtype)
    out = torch.zeros_like(x)
    out.index_add_(0, dst, x[src] / deg[dst].unsqueeze(1))
    return out
'''),
    ],
    "ex7_sparse_adj": [
        ("returns a dense matrix", '''\
def normalized_adjacency(edge_index, n):
    a = torch.eye(n, device=edge_index.device)
    a[edge_index[1], edge_index[0]] = 1.0
    d = a.sum(1).rsqrt()
    return d.unsqueeze(1) * a * d.unsqueeze(0)
'''),
        ("sparse, but without self-loops", '''\
def normalized_adjacency(edge_index, n):
    src, dst = edge_index
    deg = torch.bincount(dst, minlength=n).float().clamp_min(1)
    w = deg[src].rsqrt() * deg[dst].rsqrt()
    return torch.sparse_coo_tensor(torch.stack([dst, src]), w, (n, n)).coalesce()
'''),
    ],
}

ALT = {
    "ex1_window_max": '''\
def sliding_window_max(x, k):
    # loop over the k offsets (constant), never over the n positions
    m = x.shape[-1] - k + 1
    out = x[..., :m]
    for i in range(1, k):
        out = torch.maximum(out, x[..., i:i + m])
    return out
''',
    "ex2_kth_largest": '''\
def kth_largest(x, k):
    return torch.kthvalue(x, x.shape[-1] - k + 1, dim=-1).values
''',
    "ex3_pair_count": '''\
def count_pairs(x, target):
    vals, counts = torch.unique(x, return_counts=True)
    partner = target - vals
    idx = torch.searchsorted(vals, partner).clamp(max=vals.shape[0] - 1)
    found = vals[idx] == partner
    partner_counts = torch.where(found, counts[idx], torch.zeros_like(counts))
    same = 2 * vals == target
    cross = (counts * partner_counts * (~same)).sum() // 2
    within = (counts * (counts - 1) // 2 * same).sum()
    return int(cross + within)
''',
    "ex4_ring_buffer": '''\
class RingBuffer:
    def __init__(self, capacity, dim, device=None):
        self.capacity = capacity
        self.data = torch.zeros(0, dim, device=device)

    def push(self, rows):
        self.data = torch.cat([self.data, rows])[-self.capacity:]

    def get(self):
        return self.data.clone()
''',
    "ex5_segment_mean": '''\
def segment_mean(values, segment_ids, num_segments):
    onehot = F.one_hot(segment_ids, num_segments).T.to(values.dtype)
    sums = onehot @ values
    counts = onehot.sum(dim=1, keepdim=True)
    return sums / torch.where(counts > 0, counts, torch.ones_like(counts))
''',
    "ex6_gcn_scatter": '''\
def gcn_propagate(x, edge_index):
    n = x.shape[0]
    loops = torch.arange(n, device=x.device)
    idx = torch.cat([edge_index, torch.stack([loops, loops])], dim=1)
    deg = torch.zeros(n, dtype=x.dtype, device=x.device).scatter_add_(
        0, idx[1], torch.ones(idx.shape[1], dtype=x.dtype, device=x.device))
    dinv = deg.pow(-0.5)
    msg = (dinv[idx[0]] * dinv[idx[1]]).unsqueeze(1) * x[idx[0]]
    return torch.zeros_like(x).scatter_add_(0, idx[1].unsqueeze(1).expand_as(msg), msg)
''',
    "ex7_sparse_adj": '''\
def normalized_adjacency(edge_index, n):
    loops = torch.arange(n, device=edge_index.device)
    rows = torch.cat([edge_index[1], loops])
    cols = torch.cat([edge_index[0], loops])
    a_hat = torch.sparse_coo_tensor(torch.stack([rows, cols]), torch.ones(rows.shape[0], device=edge_index.device),
                                    (n, n)).coalesce()
    d = torch.sparse.sum(a_hat, dim=1).to_dense().rsqrt()
    r, c = a_hat.indices()
    return torch.sparse_coo_tensor(a_hat.indices(), a_hat.values() * d[r] * d[c], (n, n)).coalesce()
''',
}

WRONG["ex6_gcn_scatter"].append(("shortcut: builds the dense normalised adjacency and multiplies (not message passing)", '''\
def gcn_propagate(x, edge_index):
    n = x.shape[0]
    a = torch.zeros(n, n, dtype=x.dtype, device=x.device)
    a[edge_index[1], edge_index[0]] = 1.0
    a = a + torch.eye(n, dtype=x.dtype, device=x.device)
    d = a.sum(1).rsqrt()
    return (d[:, None] * a * d[None, :]) @ x
'''))
WRONG["ex7_sparse_adj"].append(("shortcut: builds the dense matrix, then to_sparse() (the statement forbids a dense (n, n))", '''\
def normalized_adjacency(edge_index, n):
    a = torch.zeros(n, n, device=edge_index.device)
    a[edge_index[1], edge_index[0]] = 1.0
    a = a + torch.eye(n, device=edge_index.device)
    d = a.sum(1).rsqrt()
    return (d[:, None] * a * d[None, :]).to_sparse()
'''))
