"""Blind set for notebooks/mid/11_tensor_algorithms.ipynb, written from release/ alone (issue 33)."""

# What the statement fixes (signature, submodules), shared by several answers of a cell.
_EX4_RING_BUFFER_HEAD = '''
class RingBuffer:
    def __init__(self, capacity, dim, device=None):
        self.capacity = capacity
        self.buf = torch.zeros(capacity, dim, device=device)
        self.pos = 0
        self.size = 0

    def push(self, rows):
        m = rows.shape[0]
'''

SHORTCUT = {
    "ex6_gcn_scatter": ("builds the dense normalised matrix and multiplies", '''
def gcn_propagate(x, edge_index):
    n = x.shape[0]
    a = torch.zeros(n, n, dtype=x.dtype, device=x.device)
    a[edge_index[1], edge_index[0]] = 1.0
    a = a + torch.eye(n, dtype=x.dtype, device=x.device)
    d = a.sum(1).rsqrt()
    return (d[:, None] * a * d[None, :]) @ x
'''),
    "ex7_sparse_adj": ("builds the dense matrix and calls to_sparse()", '''
def normalized_adjacency(edge_index, n):
    a = torch.zeros(n, n, device=edge_index.device)
    a[edge_index[1], edge_index[0]] = 1.0
    a = a + torch.eye(n, device=edge_index.device)
    d = a.sum(1).rsqrt()
    return (d[:, None] * a * d[None, :]).to_sparse()
'''),
}

WRONG = {
    "ex1_window_max": ("unfolds dimension 0, so batched (..., n) inputs break", '''
def sliding_window_max(x, k):
    return x.unfold(0, k, 1).amax(dim=-1)
'''),
    "ex2_kth_largest": ("uses kthvalue(k), which counts from the smallest", '''
def kth_largest(x, k):
    return torch.kthvalue(x, k, dim=-1).values
'''),
    "ex3_pair_count": ("halves the full table, so i == j pairs with 2 x[i] == target count", '''
def count_pairs(x, target):
    return int((x[None, :] + x[:, None] == target).sum().item()) // 2
'''),
    "ex4_ring_buffer": ("get() returns the storage order, not oldest first, once it wraps", _EX4_RING_BUFFER_HEAD + '''        if m >= self.capacity:
            self.pos = (self.pos + m - self.capacity) % self.capacity
            rows = rows[-self.capacity:]
            m = self.capacity
        slots = (self.pos + torch.arange(m, device=self.buf.device)) % self.capacity
        self.buf[slots] = rows.to(self.buf.dtype)
        self.pos = (self.pos + m) % self.capacity
        self.size = min(self.size + m, self.capacity)

    def get(self):
        return self.buf[: self.size].clone()
'''),
    "ex5_segment_mean": ("counts with bincount without minlength, so trailing empty segments break", '''
def segment_mean(values, segment_ids, num_segments):
    sums = torch.zeros(num_segments, values.shape[1], dtype=values.dtype, device=values.device)
    sums.index_add_(0, segment_ids, values)
    counts = torch.bincount(segment_ids).clamp(min=1).to(values.dtype)
    return sums / counts[:, None]
'''),
    "ex6_gcn_scatter": ("divides by the target degree only (row normalisation)", '''
def gcn_propagate(x, edge_index):
    n = x.shape[0]
    loops = torch.arange(n, device=x.device)
    src = torch.cat([edge_index[0], loops])
    dst = torch.cat([edge_index[1], loops])
    deg = torch.bincount(dst, minlength=n).to(x.dtype)
    w = 1.0 / deg[dst]
    return torch.zeros_like(x).index_add_(0, dst, x[src] * w[:, None])
'''),
    "ex7_sparse_adj": ("forgets the self-loops", '''
def normalized_adjacency(edge_index, n):
    src, dst = edge_index[0], edge_index[1]
    deg = torch.bincount(dst, minlength=n).float().clamp(min=1)
    w = deg[src].rsqrt() * deg[dst].rsqrt()
    return torch.sparse_coo_tensor(torch.stack([dst, src]), w, (n, n), check_invariants=False).coalesce()
'''),
}

ALT = {
    "ex1_window_max": '''
def sliding_window_max(x, k):
    n = x.shape[-1]
    width = n - k + 1
    return torch.stack([x[..., i:i + width] for i in range(k)], dim=0).amax(dim=0)
''',
    "ex2_kth_largest": '''
def kth_largest(x, k):
    n = x.shape[-1]
    return x.kthvalue(n - k + 1, dim=-1).values
''',
    "ex3_pair_count": '''
def count_pairs(x, target):
    s = torch.sort(x).values
    need = target - s
    matches = torch.searchsorted(s, need, right=True) - torch.searchsorted(s, need, right=False)
    self_pairs = (2 * s == target).sum()
    return int(((matches.sum() - self_pairs) // 2).item())
''',
    "ex4_ring_buffer": _EX4_RING_BUFFER_HEAD + '''        keep = min(m, self.capacity)
        start = (self.pos + m - keep) % self.capacity
        slots = torch.remainder(torch.arange(keep, device=self.buf.device) + start, self.capacity)
        self.buf.index_copy_(0, slots, rows[m - keep:].to(self.buf.dtype))
        self.pos = (self.pos + m) % self.capacity
        self.size = min(self.size + m, self.capacity)

    def get(self):
        first = (self.pos - self.size) % self.capacity
        order = (first + torch.arange(self.size, device=self.buf.device)) % self.capacity
        return self.buf.index_select(0, order)
''',
    "ex5_segment_mean": '''
def segment_mean(values, segment_ids, num_segments):
    out = torch.zeros(num_segments, values.shape[1], dtype=values.dtype, device=values.device)
    index = segment_ids.long().unsqueeze(1).expand_as(values)
    return out.scatter_reduce(0, index, values, reduce="mean", include_self=False)
''',
    "ex6_gcn_scatter": '''
def gcn_propagate(x, edge_index):
    n = x.shape[0]
    nodes = torch.arange(n, device=edge_index.device)
    src = torch.cat([nodes, edge_index[0]])
    dst = torch.cat([nodes, edge_index[1]])
    inv_sqrt = torch.bincount(dst, minlength=n).to(x.dtype).pow(-0.5)
    msg = x.index_select(0, src) * (inv_sqrt[src] * inv_sqrt[dst]).unsqueeze(-1)
    out = torch.zeros_like(x)
    out.scatter_add_(0, dst.unsqueeze(-1).expand_as(msg), msg)
    return out
''',
    "ex7_sparse_adj": '''
def normalized_adjacency(edge_index, n):
    nodes = torch.arange(n, device=edge_index.device)
    rows = torch.cat([edge_index[1], nodes])
    cols = torch.cat([edge_index[0], nodes])
    ones = torch.ones(rows.shape[0], device=edge_index.device)
    a_hat = torch.sparse_coo_tensor(torch.stack([rows, cols]), ones, (n, n), check_invariants=False).coalesce()
    deg = torch.zeros(n, device=edge_index.device).index_add_(0, a_hat.indices()[0], a_hat.values())
    r, c = a_hat.indices()
    values = a_hat.values() * deg[r].rsqrt() * deg[c].rsqrt()
    return torch.sparse_coo_tensor(a_hat.indices(), values, (n, n), check_invariants=False).coalesce()
''',
}
