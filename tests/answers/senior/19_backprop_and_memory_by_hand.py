"""Known-wrong and alternative answers for notebooks/senior/19_backprop_and_memory_by_hand.ipynb.

Long because each of the five exercises has several known-wrong answers, each a whole cell.
"""

import importlib

from tests.answers.senior import edited, reference

EX1_WRONG_DIVIDE_BY_B = '''
def softmax_ce_grad(logits, target, ignore_index=-100):
    keep = target != ignore_index
    w = keep.to(logits.dtype)
    b = logits.shape[0]
    shifted = logits - logits.max(dim=-1, keepdim=True).values
    logp = shifted - shifted.exp().sum(dim=-1, keepdim=True).log()
    onehot = F.one_hot(torch.where(keep, target, 0), logits.shape[-1]).to(logits.dtype)
    loss = -((logp * onehot).sum(-1) * w).sum() / b
    return loss, (logp.exp() - onehot) * w[:, None] / b
'''

EX1_WRONG_UNSTABLE = '''
def softmax_ce_grad(logits, target, ignore_index=-100):
    keep = target != ignore_index
    w = keep.to(logits.dtype)
    n = w.sum()
    e = logits.exp()
    p = e / e.sum(dim=-1, keepdim=True)
    onehot = F.one_hot(torch.where(keep, target, 0), logits.shape[-1]).to(logits.dtype)
    loss = -((p.log() * onehot).sum(-1) * w).sum() / n
    return loss, (p - onehot) * w[:, None] / n
'''

EX1_WRONG_IGNORED_ROWS_KEEP_GRAD = '''
def softmax_ce_grad(logits, target, ignore_index=-100):
    keep = target != ignore_index
    w = keep.to(logits.dtype)
    n = w.sum()
    shifted = logits - logits.max(dim=-1, keepdim=True).values
    logp = shifted - shifted.exp().sum(dim=-1, keepdim=True).log()
    onehot = F.one_hot(torch.where(keep, target, 0), logits.shape[-1]).to(logits.dtype)
    loss = -((logp * onehot).sum(-1) * w).sum() / n
    return loss, (logp.exp() - onehot) / n
'''

EX1_ALT = '''
def softmax_ce_grad(logits, target, ignore_index=-100):
    loss = F.cross_entropy(logits, target, ignore_index=ignore_index)
    rows = (target != ignore_index).nonzero().squeeze(1)
    grad = torch.zeros_like(logits)
    p = torch.softmax(logits[rows], dim=1)
    p[torch.arange(rows.numel(), device=logits.device), target[rows]] -= 1.0
    grad[rows] = p / rows.numel()
    return loss, grad
'''

_EX2_FORWARD = '''
class SoftmaxAttention(torch.autograd.Function):
    @staticmethod
    def forward(ctx, q, k, v, causal=False):
        scale = q.shape[-1] ** -0.5
        scores = q @ k.transpose(-2, -1) * scale
        if causal:
            t, s = scores.shape[-2:]
            scores = scores.masked_fill(torch.ones(t, s, dtype=torch.bool, device=q.device).triu(1), float("-inf"))
        p = torch.softmax(scores, dim=-1)
        ctx.save_for_backward(q, k, v, p)
        ctx.scale = scale
        return p @ v
'''

EX2_WRONG_NO_ROWSUM = _EX2_FORWARD + '''
    @staticmethod
    def backward(ctx, grad_out):
        q, k, v, p = ctx.saved_tensors
        dv = p.transpose(-2, -1) @ grad_out
        ds = p * (grad_out @ v.transpose(-2, -1))
        return ds @ k * ctx.scale, ds.transpose(-2, -1) @ q * ctx.scale, dv, None
'''

EX2_WRONG_NO_SCALE = _EX2_FORWARD + '''
    @staticmethod
    def backward(ctx, grad_out):
        q, k, v, p = ctx.saved_tensors
        dv = p.transpose(-2, -1) @ grad_out
        dp = grad_out @ v.transpose(-2, -1)
        ds = p * (dp - (dp * p).sum(-1, keepdim=True))
        return ds @ k, ds.transpose(-2, -1) @ q, dv, None
'''

EX2_WRONG_BACKWARD_FORGETS_MASK = '''
class SoftmaxAttention(torch.autograd.Function):
    @staticmethod
    def forward(ctx, q, k, v, causal=False):
        s = q @ k.transpose(-2, -1) / q.shape[-1] ** 0.5
        if causal:
            s = s.masked_fill(torch.ones(s.shape[-2:], dtype=torch.bool, device=q.device).triu(1), float("-inf"))
        ctx.save_for_backward(q, k, v)
        return torch.softmax(s, -1) @ v

    @staticmethod
    def backward(ctx, grad_out):
        q, k, v = ctx.saved_tensors
        scale = q.shape[-1] ** -0.5
        p = torch.softmax(q @ k.transpose(-2, -1) * scale, -1)
        dv = p.transpose(-2, -1) @ grad_out
        dp = grad_out @ v.transpose(-2, -1)
        ds = p * (dp - (dp * p).sum(-1, keepdim=True))
        return ds @ k * scale, ds.transpose(-2, -1) @ q * scale, dv, None
'''

EX2_ALT = '''
class SoftmaxAttention(torch.autograd.Function):
    """Saves O instead of P (FlashAttention style) and recomputes P in backward."""

    @staticmethod
    def _probs(q, k, causal):
        s = torch.einsum("...td,...sd->...ts", q, k) / math.sqrt(q.shape[-1])
        if causal:
            t = s.shape[-1]
            keep = torch.arange(t, device=q.device)[:, None] >= torch.arange(t, device=q.device)[None, :]
            s = torch.where(keep, s, torch.full_like(s, float("-inf")))
        return torch.softmax(s, dim=-1)

    @staticmethod
    def forward(ctx, q, k, v, causal):
        o = torch.einsum("...ts,...se->...te", SoftmaxAttention._probs(q, k, causal), v)
        ctx.causal = causal
        ctx.save_for_backward(q, k, v, o)
        return o

    @staticmethod
    def backward(ctx, do):
        q, k, v, o = ctx.saved_tensors
        p = SoftmaxAttention._probs(q, k, ctx.causal)
        dv = torch.einsum("...ts,...te->...se", p, do)
        dp = torch.einsum("...te,...se->...ts", do, v)
        delta = (do * o).sum(dim=-1, keepdim=True)
        ds = p * (dp - delta) / math.sqrt(q.shape[-1])
        return torch.einsum("...ts,...sd->...td", ds, k), torch.einsum("...ts,...td->...sd", ds, q), dv, None
'''

_EX3_OPS_ACCUMULATE = '''
class Value:
    def __init__(self, data, _children=()):
        self.data, self.grad = float(data), 0.0
        self._prev, self._backward = tuple(_children), lambda: None

    def __add__(self, other):
        other = other if isinstance(other, Value) else Value(other)
        out = Value(self.data + other.data, (self, other))

        def _backward():
            self.grad += out.grad
            other.grad += out.grad
        out._backward = _backward
        return out

    def __mul__(self, other):
        other = other if isinstance(other, Value) else Value(other)
        out = Value(self.data * other.data, (self, other))

        def _backward():
            self.grad += other.data * out.grad
            other.grad += self.data * out.grad
        out._backward = _backward
        return out

    __radd__ = __add__
    __rmul__ = __mul__

    def tanh(self):
        t = math.tanh(self.data)
        out = Value(t, (self,))

        def _backward():
            self.grad += (1 - t * t) * out.grad
        out._backward = _backward
        return out

    def exp(self):
        e = math.exp(self.data)
        out = Value(e, (self,))

        def _backward():
            self.grad += e * out.grad
        out._backward = _backward
        return out
'''

EX3_WRONG_RECURSIVE = _EX3_OPS_ACCUMULATE + '''
    def backward(self, _seed=True):
        if _seed:
            self.grad = 1.0
        self._backward()
        for child in self._prev:
            child.backward(_seed=False)
'''

EX3_WRONG_OVERWRITES = (_EX3_OPS_ACCUMULATE.replace("grad +=", "grad =") + '''
    def backward(self):
        order, seen = [], set()

        def visit(node):
            if node not in seen:
                seen.add(node)
                for child in node._prev:
                    visit(child)
                order.append(node)
        visit(self)
        self.grad = 1.0
        for node in reversed(order):
            node._backward()
''')

EX3_WRONG_NO_VISITED_SET = _EX3_OPS_ACCUMULATE + '''
    def backward(self):
        order = []

        def visit(node):
            for child in node._prev:
                visit(child)
            order.append(node)
        visit(self)
        self.grad = 1.0
        for node in reversed(order):
            node._backward()
'''

EX3_ALT = '''
class Value:
    """Each node keeps (input, local derivative) edges; backward is an iterative DFS, then one sweep."""

    def __init__(self, data, edges=()):
        self.data = float(data)
        self.grad = 0.0
        self.edges = list(edges)

    def __add__(self, other):
        if not isinstance(other, Value):
            other = Value(other)
        return Value(self.data + other.data, [(self, 1.0), (other, 1.0)])

    def __radd__(self, other):
        return self.__add__(other)

    def __mul__(self, other):
        if not isinstance(other, Value):
            other = Value(other)
        return Value(self.data * other.data, [(self, other.data), (other, self.data)])

    def __rmul__(self, other):
        return self.__mul__(other)

    def tanh(self):
        t = math.tanh(self.data)
        return Value(t, [(self, 1.0 - t ** 2)])

    def exp(self):
        e = math.exp(self.data)
        return Value(e, [(self, e)])

    def backward(self):
        post, done, stack = [], set(), [(self, False)]
        while stack:
            node, expanded = stack.pop()
            if expanded:
                post.append(node)
                continue
            if id(node) in done:
                continue
            done.add(id(node))
            stack.append((node, True))
            for child, _ in node.edges:
                if id(child) not in done:
                    stack.append((child, False))
        self.grad = 1.0
        for node in reversed(post):
            for child, local in node.edges:
                child.grad += local * node.grad
'''

_EX4_FORWARD = '''
class Checkpoint(torch.autograd.Function):
    @staticmethod
    def forward(ctx, fn, *inputs):
        ctx.fn = fn
        ctx.cpu_state = torch.get_rng_state()
        ctx.save_for_backward(*inputs)
        return fn(*inputs)
'''

_EX4_WRAPPER = '''

def checkpoint(fn, *inputs):
    return Checkpoint.apply(fn, *inputs)
'''

EX4_WRONG_NO_DETACH = _EX4_FORWARD + '''
    @staticmethod
    def backward(ctx, grad_out):
        inputs = ctx.saved_tensors
        with torch.random.fork_rng(devices=[]):
            torch.set_rng_state(ctx.cpu_state)
            with torch.enable_grad():
                out = ctx.fn(*inputs)
        torch.autograd.backward(out, grad_out)
        return (None, *(t.grad if t.requires_grad and t.is_leaf else None for t in inputs))
''' + _EX4_WRAPPER

EX4_WRONG_GRAD_INPUTS_ONLY = _EX4_FORWARD + '''
    @staticmethod
    def backward(ctx, grad_out):
        inputs = [t.detach().requires_grad_(t.requires_grad) for t in ctx.saved_tensors]
        with torch.random.fork_rng(devices=[]):
            torch.set_rng_state(ctx.cpu_state)
            with torch.enable_grad():
                out = ctx.fn(*inputs)
        wanted = [t for t in inputs if t.requires_grad]
        grads = iter(torch.autograd.grad(out, wanted, grad_out))
        return (None, *(next(grads) if t.requires_grad else None for t in inputs))
''' + _EX4_WRAPPER

EX4_WRONG_NO_RNG = '''
class Checkpoint(torch.autograd.Function):
    @staticmethod
    def forward(ctx, fn, *inputs):
        ctx.fn = fn
        ctx.save_for_backward(*inputs)
        return fn(*inputs)

    @staticmethod
    def backward(ctx, grad_out):
        inputs = [t.detach().requires_grad_(t.requires_grad) for t in ctx.saved_tensors]
        with torch.enable_grad():
            out = ctx.fn(*inputs)
        torch.autograd.backward(out, grad_out)
        return (None, *(t.grad for t in inputs))
''' + _EX4_WRAPPER

EX4_ALT = '''
class Checkpoint(torch.autograd.Function):
    @staticmethod
    def forward(ctx, fn, *inputs):
        ctx.run = fn
        ctx.flags = [t.requires_grad for t in inputs]
        ctx.rng_cpu = torch.random.get_rng_state()
        ctx.rng_cuda = {t.device: torch.cuda.get_rng_state(t.device) for t in inputs if t.device.type == "cuda"}
        ctx.save_for_backward(*inputs)
        with torch.no_grad():
            return fn(*inputs)

    @staticmethod
    def backward(ctx, *grad_outputs):
        fresh = []
        for t, flag in zip(ctx.saved_tensors, ctx.flags):
            d = t.detach()
            d.requires_grad = flag
            fresh.append(d)
        outer_cpu = torch.random.get_rng_state()
        outer_cuda = {dev: torch.cuda.get_rng_state(dev) for dev in ctx.rng_cuda}
        torch.random.set_rng_state(ctx.rng_cpu)
        for dev, state in ctx.rng_cuda.items():
            torch.cuda.set_rng_state(state, dev)
        try:
            with torch.enable_grad():
                y = ctx.run(*fresh)
        finally:
            torch.random.set_rng_state(outer_cpu)
            for dev, state in outer_cuda.items():
                torch.cuda.set_rng_state(state, dev)
        y.backward(grad_outputs[0])
        return (None,) + tuple(d.grad if flag else None for d, flag in zip(fresh, ctx.flags))
''' + _EX4_WRAPPER

EX5_WRONG_KEEPS_ORIGINAL = '''
def offload_hooks(offload_device):
    def pack(t):
        return t, t.detach().to(offload_device, copy=True)

    def unpack(packed):
        original, stored = packed
        return stored.to(original.device)
    return torch.autograd.graph.saved_tensors_hooks(pack, unpack)
'''

EX5_WRONG_NO_COPY = '''
def offload_hooks(offload_device):
    def pack(t):
        return t.device, t.to(offload_device)

    def unpack(packed):
        dev, stored = packed
        return stored.to(dev)
    return torch.autograd.graph.saved_tensors_hooks(pack, unpack)
'''

EX5_ALT = '''
class _Offload(torch.autograd.graph.saved_tensors_hooks):
    """Keeps the host copies in a side table; the packed value is only a key."""

    def __init__(self, offload_device):
        self.where = torch.device(offload_device)
        self.table = {}
        super().__init__(self._pack, self._unpack)

    def _pack(self, t):
        buf = torch.empty(t.shape, dtype=t.dtype, device=self.where)
        buf.copy_(t.detach())
        key = len(self.table)
        self.table[key] = (buf, t.device)
        return key

    def _unpack(self, key):
        buf, dev = self.table[key]
        return buf.to(dev)


def offload_hooks(offload_device):
    return _Offload(offload_device)
'''

# right on the CPU, but the one-hot targets are built there whatever the logits' device
EX1_WRONG_ONEHOT_ON_CPU = edited(edited(EX1_WRONG_IGNORED_ROWS_KEEP_GRAD, "(logp.exp() - onehot) / n",
                                        "(logp.exp() - onehot) * w[:, None] / n"),
                                 "F.one_hot(torch.where(keep, target, 0), logits.shape[-1]).to(logits.dtype)",
                                 "torch.zeros(logits.shape, dtype=logits.dtype).scatter_(1, torch.where(keep, target, 0)[:, None], 1.0)")


NB = "senior/19_backprop_and_memory_by_hand"

EX1_SHORTCUT_AUTOGRAD = '''
def softmax_ce_grad(logits, target, ignore_index=-100):
    with torch.enable_grad():
        z = logits.detach().requires_grad_(True)
        loss = F.cross_entropy(z, target, ignore_index=ignore_index)
        (grad,) = torch.autograd.grad(loss, z)
    return loss.detach(), grad
'''

EX2_SHORTCUT_AUTOGRAD_BACKWARD = _EX2_FORWARD + '''
    @staticmethod
    def backward(ctx, grad_out):
        q, k, v, p = ctx.saved_tensors
        with torch.enable_grad():
            q, k, v = (t.detach().requires_grad_(True) for t in (q, k, v))
            s = q @ k.transpose(-2, -1) * ctx.scale
            s = s.masked_fill(p == 0, float("-inf"))
            out = torch.softmax(s, dim=-1) @ v
            return (*torch.autograd.grad(out, (q, k, v), grad_out), None)
'''

EX3_WRONG_NO_RADD = edited(reference(NB, "ex3_value"), "    __radd__ = __add__\n", "")

EX5_WRONG_DETACH_NOT_COPY = edited(reference(NB, "ex5_offload"), "t.detach().to(offload_device, copy=True)", "t.detach()")

# The by-hand shortcuts the blind set found passing (docs/blind-sets/senior-12-22.md), taken from it as written.
_BLIND = importlib.import_module("tests.answers.blind.senior.19_backprop_and_memory_by_hand").SHORTCUT
EX3_SHORTCUT_TORCH_VALUE = _BLIND["ex3_value"][1]
EX4_SHORTCUT_LIBRARY = _BLIND["ex4_checkpoint"][1]
EX5_SHORTCUT_SAVE_ON_CPU = _BLIND["ex5_offload"][1]

WRONG = {
    "ex1_ce_grad": [
        ("divides by B, ignored rows included", EX1_WRONG_DIVIDE_BY_B),
        ("no max subtraction: overflows on large logits", EX1_WRONG_UNSTABLE),
        ("ignored rows keep a gradient", EX1_WRONG_IGNORED_ROWS_KEEP_GRAD),
        ("one-hot targets built on the CPU: breaks on a GPU", EX1_WRONG_ONEHOT_ON_CPU),
        ("shortcut: torch.autograd.grad under enable_grad", EX1_SHORTCUT_AUTOGRAD),
    ],
    "ex2_attention": [
        ("softmax backward without the rowsum term", EX2_WRONG_NO_ROWSUM),
        ("scale missing from dQ and dK", EX2_WRONG_NO_SCALE),
        ("backward recomputes P without the causal mask", EX2_WRONG_BACKWARD_FORGETS_MASK),
        ("shortcut: backward recomputes the forward and calls torch.autograd.grad", EX2_SHORTCUT_AUTOGRAD_BACKWARD),
    ],
    "ex3_value": [
        ("+= fixed, but the recursive sweep without a topological order", EX3_WRONG_RECURSIVE),
        ("topological order, but grads overwritten", EX3_WRONG_OVERWRITES),
        ("topological sort without a visited set", EX3_WRONG_NO_VISITED_SET),
        ("no __radd__: 1 + x fails", EX3_WRONG_NO_RADD),
        ("shortcut: each Value wraps a torch tensor and backward is torch's (blind set)", EX3_SHORTCUT_TORCH_VALUE),
    ],
    "ex4_checkpoint": [
        ("recomputes from the saved inputs without detaching them", EX4_WRONG_NO_DETACH),
        ("torch.autograd.grad on the inputs only: parameters get no grad", EX4_WRONG_GRAD_INPUTS_ONLY),
        ("RNG state not restored: dropout draws a new mask", EX4_WRONG_NO_RNG),
        ("shortcut: checkpoint() calls torch.utils.checkpoint.checkpoint (blind set)", EX4_SHORTCUT_LIBRARY),
    ],
    "ex5_offload": [
        ("pack keeps the original tensor beside the copy", EX5_WRONG_KEEPS_ORIGINAL),
        ("pack uses .to() without copy: the same tensor on the CPU", EX5_WRONG_NO_COPY),
        ("pack returns (device, t.detach()): shares storage, nothing offloaded", EX5_WRONG_DETACH_NOT_COPY),
        ("shortcut: the built-in save_on_cpu, offload_device ignored (blind set)", EX5_SHORTCUT_SAVE_ON_CPU),
    ],
}

ALT = {
    "ex1_ce_grad": EX1_ALT,
    "ex2_attention": EX2_ALT,
    "ex3_value": EX3_ALT,
    "ex4_checkpoint": EX4_ALT,
    "ex5_offload": EX5_ALT,
}
