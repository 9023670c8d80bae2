"""Blind set for notebooks/senior/19_backprop_and_memory_by_hand.ipynb, written from release/ alone (issue 33).

Long because every answer replaces a whole cell: a wrong answer and an alternative per exercise (and a shortcut
where the work is asked by hand).
"""

_CE_AUTOGRAD = '''
def softmax_ce_grad(logits, target, ignore_index: int = -100):
    with torch.enable_grad():
        z = logits.detach().clone().requires_grad_(True)
        loss = F.cross_entropy(z, target, ignore_index=ignore_index)
        (grad,) = torch.autograd.grad(loss, z)
    return loss.detach(), grad
'''

_CE_OVER_B = '''
def softmax_ce_grad(logits, target, ignore_index: int = -100):
    keep = target != ignore_index
    safe = torch.where(keep, target, torch.zeros_like(target))
    shifted = logits - logits.max(dim=1, keepdim=True).values
    logp = shifted - shifted.exp().sum(dim=1, keepdim=True).log()
    onehot = F.one_hot(safe, logits.shape[1]).to(logits.dtype)
    B = logits.shape[0]
    loss = -(logp * onehot).sum(dim=1)[keep].sum() / B
    grad = (logp.exp() - onehot) * keep[:, None].to(logits.dtype) / B
    return loss, grad
'''

_CE_ALT = '''
def softmax_ce_grad(logits, target, ignore_index: int = -100):
    keep = target.ne(ignore_index)
    safe = target.masked_fill(~keep, 0)  # any valid class: the row is zeroed below
    logp = logits - torch.logsumexp(logits, dim=1, keepdim=True)
    n = keep.sum().to(logits.dtype)
    picked = logp.gather(1, safe.unsqueeze(1)).squeeze(1)
    loss = -torch.where(keep, picked, torch.zeros_like(picked)).sum() / n
    grad = logp.exp().scatter_add(1, safe.unsqueeze(1), -torch.ones_like(picked).unsqueeze(1))
    grad = torch.where(keep.unsqueeze(1), grad, torch.zeros_like(grad)) / n
    return loss, grad
'''

_ATTN_FORWARD = '''
    @staticmethod
    def forward(ctx, q, k, v, causal):
        s = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
        if causal:
            s = s.masked_fill(torch.ones(s.shape[-2:], dtype=torch.bool, device=s.device).triu(1), float("-inf"))
        p = torch.softmax(s, dim=-1)
        ctx.save_for_backward(q, k, v, p)
        return p @ v
'''

_ATTN_BY_AUTOGRAD = '''
class SoftmaxAttention(torch.autograd.Function):
''' + _ATTN_FORWARD + '''
    @staticmethod
    def backward(ctx, grad_out):
        q, k, v, p = ctx.saved_tensors
        with torch.enable_grad():
            q2, k2, v2 = (t.detach().requires_grad_(True) for t in (q, k, v))
            s = q2 @ k2.transpose(-2, -1) / math.sqrt(q2.shape[-1])
            s = s.masked_fill(p == 0, float("-inf")) if bool((p == 0).any()) else s
            out = torch.softmax(s, dim=-1) @ v2
            dq, dk, dv = torch.autograd.grad(out, (q2, k2, v2), grad_out)
        return dq, dk, dv, None
'''

_ATTN_NO_ROWSUM = '''
class SoftmaxAttention(torch.autograd.Function):
''' + _ATTN_FORWARD + '''
    @staticmethod
    def backward(ctx, grad_out):
        q, k, v, p = ctx.saved_tensors
        scale = 1 / math.sqrt(q.shape[-1])
        dv = p.transpose(-2, -1) @ grad_out
        dp = grad_out @ v.transpose(-2, -1)
        ds = p * dp
        return ds @ k * scale, ds.transpose(-2, -1) @ q * scale, dv, None
'''

_ATTN_LSE = '''
class SoftmaxAttention(torch.autograd.Function):
    """Saves the output and the row log-sum-exp (FlashAttention's choice), not P: the backward rebuilds P."""

    @staticmethod
    def _scores(q, k, causal):
        s = torch.matmul(q, k.transpose(-1, -2)) * (q.shape[-1] ** -0.5)
        if causal:
            above = torch.triu(torch.ones(s.shape[-2], s.shape[-1], dtype=torch.bool, device=s.device), diagonal=1)
            s = s.masked_fill(above, float("-inf"))
        return s

    @staticmethod
    def forward(ctx, q, k, v, causal):
        s = SoftmaxAttention._scores(q, k, causal)
        lse = torch.logsumexp(s, dim=-1, keepdim=True)
        out = torch.matmul(torch.exp(s - lse), v)
        ctx.save_for_backward(q, k, v, out, lse)
        ctx.causal = causal
        return out

    @staticmethod
    def backward(ctx, grad_out):
        q, k, v, out, lse = ctx.saved_tensors
        scale = q.shape[-1] ** -0.5
        p = torch.exp(SoftmaxAttention._scores(q, k, ctx.causal) - lse)
        dv = torch.matmul(p.transpose(-1, -2), grad_out)
        dp = torch.matmul(grad_out, v.transpose(-1, -2))
        delta = (grad_out * out).sum(dim=-1, keepdim=True)  # = rowsum(dP * P)
        ds = p * (dp - delta)
        return torch.matmul(ds, k) * scale, torch.matmul(ds.transpose(-1, -2), q) * scale, dv, None
'''

_VALUE_TORCH = '''
class Value:
    """Each Value wraps a float64 torch scalar: torch's autograd does the backward sweep."""

    def __init__(self, data, _t=None):
        self._t = torch.tensor(float(data), dtype=torch.float64, requires_grad=True) if _t is None else _t
        if not self._t.is_leaf:
            self._t.retain_grad()

    @staticmethod
    def _as(o):
        return o._t if isinstance(o, Value) else o

    @property
    def data(self):
        return self._t.item()

    @property
    def grad(self):
        return 0.0 if self._t.grad is None else self._t.grad.item()

    def __add__(self, other):
        return Value(None, self._t + Value._as(other))

    __radd__ = __add__

    def __mul__(self, other):
        return Value(None, self._t * Value._as(other))

    __rmul__ = __mul__

    def tanh(self):
        return Value(None, torch.tanh(self._t))

    def exp(self):
        return Value(None, torch.exp(self._t))

    def backward(self):
        self._t.backward()
'''

_VALUE_ACCUMULATE_ONLY = '''
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

    __radd__ = __add__

    def __mul__(self, other):
        other = other if isinstance(other, Value) else Value(other)
        out = Value(self.data * other.data, (self, other))

        def _backward():
            self.grad += other.data * out.grad
            other.grad += self.data * out.grad
        out._backward = _backward
        return out

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

    def backward(self, _seed=True):
        if _seed:
            self.grad = 1.0
        self._backward()
        for child in self._prev:
            child.backward(_seed=False)
'''

_VALUE_KAHN = '''
class Value:
    """Each node stores its inputs with the local derivative along each edge; backward visits the nodes in
    reverse topological order found by counting, for every node, the edges still to arrive (Kahn's algorithm)."""

    def __init__(self, data, _edges=()):
        self.data = float(data)
        self.grad = 0.0
        self._edges = tuple(_edges)  # (input node, d self / d input)

    @staticmethod
    def _lift(x):
        return x if isinstance(x, Value) else Value(x)

    def __add__(self, other):
        other = Value._lift(other)
        return Value(self.data + other.data, ((self, 1.0), (other, 1.0)))

    def __radd__(self, other):
        return Value._lift(other) + self

    def __mul__(self, other):
        other = Value._lift(other)
        return Value(self.data * other.data, ((self, other.data), (other, self.data)))

    def __rmul__(self, other):
        return Value._lift(other) * self

    def tanh(self):
        t = math.tanh(self.data)
        return Value(t, ((self, 1.0 - t * t),))

    def exp(self):
        e = math.exp(self.data)
        return Value(e, ((self, e),))

    def backward(self):
        pending, stack, seen = {}, [self], {id(self)}
        while stack:  # how many consumers each node has inside this graph
            node = stack.pop()
            for child, _ in node._edges:
                pending[id(child)] = pending.get(id(child), 0) + 1
                if id(child) not in seen:
                    seen.add(id(child))
                    stack.append(child)
        self.grad = 1.0
        ready = [self]
        while ready:  # a node is processed once all of its consumers have pushed their share
            node = ready.pop()
            for child, local in node._edges:
                child.grad += local * node.grad
                pending[id(child)] -= 1
                if pending[id(child)] == 0:
                    ready.append(child)
'''

_CKPT_LIBRARY = '''
import torch.utils.checkpoint


class Checkpoint(torch.autograd.Function):
    @staticmethod
    def forward(ctx, fn, *inputs):
        ctx.save_for_backward(*inputs)
        return fn(*inputs)

    @staticmethod
    def backward(ctx, grad_out):
        raise RuntimeError("not used: checkpoint() goes through torch.utils.checkpoint")


def checkpoint(fn, *inputs):
    return torch.utils.checkpoint.checkpoint(fn, *inputs, use_reentrant=True)
'''

_CKPT = '''
class Checkpoint(torch.autograd.Function):
    @staticmethod
    def forward(ctx, fn, *inputs):
        ctx.fn = fn
        ctx.cuda_devices = sorted({x.get_device() for x in inputs if torch.is_tensor(x) and x.is_cuda})
        ctx.cpu_rng = torch.get_rng_state()
        ctx.cuda_rng = [torch.cuda.get_rng_state(d) for d in ctx.cuda_devices]
        ctx.save_for_backward(*inputs)
        return fn(*inputs)

    @staticmethod
    def backward(ctx, grad_out):
        inputs = [x.detach().requires_grad_(x.requires_grad) for x in ctx.saved_tensors]
        with torch.random.fork_rng(devices=ctx.cuda_devices):
            torch.set_rng_state(ctx.cpu_rng)
            for d, state in zip(ctx.cuda_devices, ctx.cuda_rng):
                torch.cuda.set_rng_state(state, d)
            with torch.enable_grad():
                out = ctx.fn(*inputs)
        torch.autograd.backward(out, grad_out)
        return (None, *[x.grad if x.requires_grad else None for x in inputs])


def checkpoint(fn, *inputs):
    return Checkpoint.apply(fn, *inputs)
'''

_CKPT_ALT = '''
class Checkpoint(torch.autograd.Function):
    @staticmethod
    def forward(ctx, fn, *inputs):
        ctx.fn = fn
        ctx.rng = [torch.get_rng_state()]
        ctx.gpus = [x.device for x in inputs if x.is_cuda][:1]
        if ctx.gpus:
            ctx.rng.append(torch.cuda.get_rng_state(ctx.gpus[0]))
        ctx.save_for_backward(*inputs)
        with torch.no_grad():
            return fn(*inputs)

    @staticmethod
    def backward(ctx, grad_out):
        fresh = []
        for x in ctx.saved_tensors:
            y = x.detach()
            fresh.append(y.requires_grad_() if x.requires_grad else y)
        outer = [torch.get_rng_state()] + ([torch.cuda.get_rng_state(ctx.gpus[0])] if ctx.gpus else [])
        torch.set_rng_state(ctx.rng[0])
        if ctx.gpus:
            torch.cuda.set_rng_state(ctx.rng[1], ctx.gpus[0])
        try:
            with torch.enable_grad():
                recomputed = ctx.fn(*fresh)
        finally:  # the caller's random stream continues as if nothing had been redrawn
            torch.set_rng_state(outer[0])
            if ctx.gpus:
                torch.cuda.set_rng_state(outer[1], ctx.gpus[0])
        recomputed.backward(grad_out)
        return (None,) + tuple(y.grad if y.requires_grad else None for y in fresh)


def checkpoint(fn, *inputs):
    return Checkpoint.apply(fn, *inputs)
'''

_OFFLOAD_BUILTIN = '''
def offload_hooks(offload_device):
    return torch.autograd.graph.save_on_cpu(pin_memory=False)
'''

_OFFLOAD_NO_COPY = '''
def offload_hooks(offload_device):
    def pack(t):
        return t.device, t.to(offload_device)

    def unpack(packed):
        dev, stored = packed
        return stored.to(dev)

    return torch.autograd.graph.saved_tensors_hooks(pack, unpack)
'''

_OFFLOAD_ALT = '''
def offload_hooks(offload_device):
    target = torch.device(offload_device)

    def pack(t):
        stored = torch.empty(t.shape, dtype=t.dtype, device=target)
        stored.copy_(t)
        return {"home": str(t.device), "data": stored}  # nothing here refers to t

    def unpack(packed):
        return packed["data"].to(torch.device(packed["home"]))

    return torch.autograd.graph.saved_tensors_hooks(pack, unpack)
'''

SHORTCUT = {
    "ex1_ce_grad": ("takes the gradient with autograd (enable_grad + autograd.grad through F.cross_entropy)",
                    _CE_AUTOGRAD),
    "ex2_attention": ("backward re-runs the forward under enable_grad and calls torch.autograd.grad",
                      _ATTN_BY_AUTOGRAD),
    "ex3_value": ("each Value wraps a torch tensor and backward calls torch's autograd", _VALUE_TORCH),
    "ex4_checkpoint": ("checkpoint() calls torch.utils.checkpoint.checkpoint(use_reentrant=True)", _CKPT_LIBRARY),
    "ex5_offload": ("returns the built-in torch.autograd.graph.save_on_cpu (and ignores offload_device)",
                    _OFFLOAD_BUILTIN),
}

WRONG = {
    "ex1_ce_grad": ("divides by the batch size B instead of the number N of non-ignored rows", _CE_OVER_B),
    "ex2_attention": ("softmax backward without the rowsum term: dS = P * dP", _ATTN_NO_ROWSUM),
    "ex3_value": ("accumulates with += but keeps the recursive tree sweep, so a shared node runs its _backward "
                  "once per path", _VALUE_ACCUMULATE_ONLY),
    "ex4_checkpoint": ("recomputes without restoring the forward's RNG state, so dropout draws a different mask",
                       _CKPT.replace("            torch.set_rng_state(ctx.cpu_rng)\n", "")
                       .replace("            for d, state in zip(ctx.cuda_devices, ctx.cuda_rng):\n"
                                "                torch.cuda.set_rng_state(state, d)\n", "")),
    "ex5_offload": ("t.to(offload_device) without copy=True returns t itself when it is already there",
                    _OFFLOAD_NO_COPY),
}

ALT = {
    "ex1_ce_grad": _CE_ALT,
    "ex2_attention": _ATTN_LSE,
    "ex3_value": _VALUE_KAHN,
    "ex4_checkpoint": _CKPT_ALT,
    "ex5_offload": _OFFLOAD_ALT,
}
