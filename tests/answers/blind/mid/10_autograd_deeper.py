"""Blind set for notebooks/mid/10_autograd_deeper.ipynb, written from release/ alone (issue 33)."""

# What the statement fixes (signature, submodules), shared by several answers of a cell.
_EX5_GATED_HEAD = '''
class GatedBlock(nn.Module):
    def __init__(self, d):
        super().__init__()
        self.proj = nn.Linear(d, 2 * d)
        self.out = nn.Linear(d, d)

    def forward(self, x):
'''

SHORTCUT = {
    "ex6_hvp": ("calls torch.autograd.functional.hvp", '''
def hvp(f, x, v):
    return torch.autograd.functional.hvp(f, x, v)[1]
'''),
}

WRONG = {
    "ex1_capture": ("stores the live outputs, not detached ones", '''
def capture_features(model, names, x):
    feats, handles = {}, []
    for name in names:
        handles.append(model.get_submodule(name).register_forward_hook(
            lambda m, i, o, n=name: feats.__setitem__(n, o)))
    try:
        model(x)
    finally:
        for h in handles:
            h.remove()
    return feats
'''),
    "ex2_output_grad": ("stores grad_input[0] (dL/d input) instead of grad_output[0]", '''
def output_grad(model, name, x, target):
    store = {}
    h = model.get_submodule(name).register_full_backward_hook(lambda m, gi, go: store.__setitem__("g", gi[0]))
    try:
        F.cross_entropy(model(x), target).backward()
    finally:
        h.remove()
    return store["g"]
'''),
    "ex3_clamp_hooks": ("clamps only the upper bound", '''
def add_grad_clamp_hooks(model, clip):
    return [p.register_hook(lambda g: g.clamp(max=clip)) for p in model.parameters()]
'''),
    "ex4_predict_inplace": ("thinks sin's saved tensor is its output", '''
RAISES = {"sigmoid_mul_": True, "scale_add_": False, "sin_mul_": True, "exp_then_add_": True, "relu_setitem": True}
VERSION = 3
'''),
    "ex5_gated": ("detaches the gate to silence the error (wrong gradients)", _EX5_GATED_HEAD + '''        a, b = self.proj(x).chunk(2, dim=-1)
        gate = torch.sigmoid(b).detach()
        gate = gate * a
        h = self.out(gate)
        h += x
        return torch.relu_(h)
'''),
    "ex6_hvp": ("multiplies the Hessian's row sums by v elementwise", '''
def hvp(f, x, v):
    z = x.detach().clone().requires_grad_(True)
    (g,) = torch.autograd.grad(f(z), z, create_graph=True)
    (h,) = torch.autograd.grad(g.sum(), z)
    return h * v
'''),
    "ex7_penalty": ("takes one gradient norm over the whole batch", '''
def gradient_penalty(critic, x):
    z = x.detach().clone().requires_grad_(True)
    (g,) = torch.autograd.grad(critic(z).sum(), z, create_graph=True)
    return (g.norm() - 1) ** 2
'''),
    "ex8_predict_retain": ("believes x * 2 saves nothing, so its second backward works", '''
SECOND_RAISES = {"square_twice": True, "scale_twice": False, "sum_twice": False, "retain_first": False,
                 "grad_then_backward": True, "create_graph_then_backward": False}
'''),
}

ALT = {
    "ex1_capture": '''
import contextlib


def capture_features(model, names, x):
    wanted = {id(model.get_submodule(n)): n for n in names}
    feats = {}

    def grab(module, inputs, output):
        if id(module) in wanted:
            feats[wanted[id(module)]] = output.detach()

    with contextlib.ExitStack() as stack:
        for n in names:
            stack.callback(model.get_submodule(n).register_forward_hook(grab).remove)
        model(x)
    return feats
''',
    "ex2_output_grad": '''
def output_grad(model, name, x, target):
    seen, handles = {}, []

    def on_forward(module, inputs, output):
        handles.append(output.register_hook(lambda g: seen.__setitem__("g", g)))

    handles.append(model.get_submodule(name).register_forward_hook(on_forward))
    try:
        F.cross_entropy(model(x), target).backward()
    finally:
        for h in handles:
            h.remove()
    return seen["g"]
''',
    "ex3_clamp_hooks": '''
import functools


def add_grad_clamp_hooks(model, clip):
    clamp = functools.partial(torch.clamp, min=-clip, max=clip)
    handles = []
    for p in model.parameters():
        handles.append(p.register_hook(clamp))
    return handles
''',
    "ex4_predict_inplace": '''
def _sigmoid_mul_(x):
    y = x.sigmoid()
    y.mul_(2)
    y.sum().backward()


def _scale_add_(x):
    y = x * 2
    y.add_(1)
    y.sum().backward()


def _sin_mul_(x):
    y = x.sin()
    y.mul_(2)
    y.sum().backward()


def _exp_then_add_(x):
    y = x.exp()
    z = y * 3
    y.add_(1)
    z.sum().backward()


def _relu_setitem(x):
    y = x.relu()
    y[0] = 0
    (y * y).sum().backward()


def _raises(snippet):
    try:
        snippet(torch.randn(3, requires_grad=True))
    except RuntimeError as e:
        return "inplace" in str(e)
    return False


RAISES = {"sigmoid_mul_": _raises(_sigmoid_mul_), "scale_add_": _raises(_scale_add_), "sin_mul_": _raises(_sin_mul_),
          "exp_then_add_": _raises(_exp_then_add_), "relu_setitem": _raises(_relu_setitem)}
_t = torch.zeros(3)
_t.add_(1)
_t[0] = 5
_t.view(3).mul_(2)
VERSION = int(_t._version)
''',
    "ex5_gated": _EX5_GATED_HEAD + '''        return F.relu(self.out(F.glu(self.proj(x), dim=-1)) + x)
''',
    "ex6_hvp": '''
def hvp(f, x, v):
    z = x.detach().requires_grad_(True)
    (g,) = torch.autograd.grad(f(z), z, create_graph=True)
    (hv,) = torch.autograd.grad(g, z, grad_outputs=v)
    return hv.detach()
''',
    "ex7_penalty": '''
def gradient_penalty(critic, x):
    z = x.detach().clone().requires_grad_(True)
    out = critic(z)
    (g,) = torch.autograd.grad(out, z, grad_outputs=torch.ones_like(out), create_graph=True)
    norms = torch.linalg.vector_norm(g.flatten(1), dim=1)
    return torch.mean(torch.square(norms - 1))
''',
    "ex8_predict_retain": '''
SECOND_RAISES = dict(square_twice=True, scale_twice=True, sum_twice=False, retain_first=False,
                     grad_then_backward=True, create_graph_then_backward=False)
''',
}
