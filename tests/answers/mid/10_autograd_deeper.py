"""Known-wrong and alternative answers for notebooks/mid/10_autograd_deeper.ipynb."""

WRONG = {
    "ex1_capture": [
        ("never removes the hooks", '''\
def capture_features(model, names, x):
    feats = {}
    for name in names:
        model.get_submodule(name).register_forward_hook(
            lambda m, i, o, name=name: feats.__setitem__(name, o.detach()))
    model(x)
    return feats
'''),
        ("stores the live outputs, keeping the graph alive", '''\
def capture_features(model, names, x):
    feats = {}
    hs = [model.get_submodule(n).register_forward_hook(lambda m, i, o, n=n: feats.__setitem__(n, o)) for n in names]
    model(x)
    for h in hs:
        h.remove()
    return feats
'''),
    ],
    "ex2_output_grad": [
        ("returns grad_input (the gradient w.r.t. the layer's input)", '''\
def output_grad(model, name, x, target):
    grabbed = {}
    h = model.get_submodule(name).register_full_backward_hook(
        lambda m, gi, go: grabbed.__setitem__("g", gi[0]))
    F.cross_entropy(model(x), target).backward()
    h.remove()
    return grabbed["g"]
'''),
        ("returns the weight gradient instead of the output gradient", '''\
def output_grad(model, name, x, target):
    model.zero_grad()
    F.cross_entropy(model(x), target).backward()
    return model.get_submodule(name).weight.grad
'''),
    ],
    "ex3_clamp_hooks": [
        ("loses the handles: the hooks can never be removed", '''\
def add_grad_clamp_hooks(model, clip):
    for p in model.parameters():
        p.register_hook(lambda g: g.clamp(-clip, clip))
    return []
'''),
        ("clamps only the positive side", '''\
def add_grad_clamp_hooks(model, clip):
    return [p.register_hook(lambda g: g.clamp(max=clip)) for p in model.parameters()]
'''),
    ],
    "ex4_predict_inplace": [
        ("believes every in-place op on a graph tensor raises", '''\
RAISES = {"sigmoid_mul_": True, "scale_add_": True, "sin_mul_": True, "exp_then_add_": True, "relu_setitem": True}
VERSION = 3
'''),
        ("believes a view has its own version counter", '''\
RAISES = {"sigmoid_mul_": True, "scale_add_": False, "sin_mul_": False, "exp_then_add_": True, "relu_setitem": True}
VERSION = 2
'''),
    ],
    "ex5_gated": [
        ("the original in-place gate", '''\
class GatedBlock(BrokenGatedBlock):
    pass
'''),
        ("silences the error by detaching the gate", '''\
class GatedBlock(nn.Module):
    def __init__(self, d):
        super().__init__()
        self.proj = nn.Linear(d, 2 * d)
        self.out = nn.Linear(d, d)

    def forward(self, x):
        a, b = self.proj(x).chunk(2, dim=-1)
        gate = torch.sigmoid(b).detach()
        gate.mul_(a)
        h = self.out(gate)
        h += x
        return torch.relu_(h)
'''),
    ],
    "ex6_hvp": [
        ("first gradient without create_graph", '''\
def hvp(f, x, v):
    x = x.detach().requires_grad_(True)
    (g,) = torch.autograd.grad(f(x), x)
    (hv,) = torch.autograd.grad(g, x, grad_outputs=v)
    return hv
'''),
        ("multiplies H @ 1 elementwise by v", '''\
def hvp(f, x, v):
    x = x.detach().requires_grad_(True)
    (g,) = torch.autograd.grad(f(x), x, create_graph=True)
    (h1,) = torch.autograd.grad(g.sum(), x)
    return h1 * v
'''),
    ],
    "ex7_penalty": [
        ("no create_graph: the penalty cannot train the critic", '''\
def gradient_penalty(critic, x):
    x = x.detach().requires_grad_(True)
    (gx,) = torch.autograd.grad(critic(x).sum(), x)
    return ((gx.norm(dim=1) - 1) ** 2).mean()
'''),
        ("one norm over the whole batch", '''\
def gradient_penalty(critic, x):
    x = x.detach().requires_grad_(True)
    (gx,) = torch.autograd.grad(critic(x).sum(), x, create_graph=True)
    return (gx.norm() - 1) ** 2
'''),
    ],
    "ex8_predict_retain": [
        ("believes a graph that saved nothing can be walked twice", '''\
SECOND_RAISES = {"square_twice": True, "scale_twice": False, "sum_twice": False, "retain_first": False,
                 "grad_then_backward": True, "create_graph_then_backward": False}
'''),
        ("believes autograd.grad never frees the graph", '''\
SECOND_RAISES = {"square_twice": True, "scale_twice": True, "sum_twice": False, "retain_first": False,
                 "grad_then_backward": False, "create_graph_then_backward": False}
'''),
    ],
}

ALT = {
    "ex1_capture": '''\
def capture_features(model, names, x):
    wanted = {model.get_submodule(n): n for n in names}
    feats = {}

    def hook(module, inputs, output):
        feats[wanted[module]] = output.detach().clone()

    handles = [m.register_forward_hook(hook) for m in wanted]
    with torch.no_grad():
        model(x)
    for h in handles:
        h.remove()
    return feats
''',
    "ex2_output_grad": '''\
def output_grad(model, name, x, target):
    box = []

    def fwd(module, inputs, output):
        output.register_hook(lambda g: box.append(g))

    h = model.get_submodule(name).register_forward_hook(fwd)
    loss = F.cross_entropy(model(x), target)
    h.remove()
    loss.backward()
    return box[0]
''',
    "ex3_clamp_hooks": '''\
def add_grad_clamp_hooks(model, clip):
    handles = []
    for p in model.parameters():
        def clamp_in_place(param):
            param.grad.clamp_(-clip, clip)
        handles.append(p.register_post_accumulate_grad_hook(clamp_in_place))
    return handles
''',
    "ex4_predict_inplace": '''\
RAISES = dict(sigmoid_mul_=True, scale_add_=False, sin_mul_=False, exp_then_add_=True, relu_setitem=True)
VERSION = 1 + 1 + 1
''',
    "ex5_gated": '''\
class GatedBlock(nn.Module):
    def __init__(self, d):
        super().__init__()
        self.proj = nn.Linear(d, 2 * d)
        self.out = nn.Linear(d, d)

    def forward(self, x):
        a, b = self.proj(x).chunk(2, dim=-1)
        gate = torch.sigmoid(b).clone()
        gate.mul_(a)
        return F.relu(self.out(gate) + x)
''',
    "ex6_hvp": '''\
def hvp(f, x, v):
    x = x.clone().requires_grad_(True)
    (g,) = torch.autograd.grad(f(x), x, create_graph=True)
    (g * v).sum().backward()
    return x.grad
''',
    "ex7_penalty": '''\
def gradient_penalty(critic, x):
    x = x.clone().detach().requires_grad_(True)
    out = critic(x)
    gx = torch.autograd.grad(out, x, grad_outputs=torch.ones_like(out), create_graph=True, retain_graph=True)[0]
    norms = gx.pow(2).sum(dim=1).sqrt()
    return (norms - 1).pow(2).sum() / x.shape[0]
''',
    "ex8_predict_retain": '''\
SECOND_RAISES = dict(square_twice=True, scale_twice=True, sum_twice=False, retain_first=False,
                     grad_then_backward=True, create_graph_then_backward=False)
''',
}

WRONG["ex6_hvp"] += [
    ("shortcut: calls torch.autograd.functional.hvp (the statement forbids it)", '''\
def hvp(f, x, v):
    return torch.autograd.functional.hvp(f, x, v)[1]
'''),
    ("shortcut: forward-over-reverse with torch.func (the statement forbids it)", '''\
def hvp(f, x, v):
    return torch.func.jvp(torch.func.grad(f), (x,), (v,))[1]
'''),
    ("shortcut: a nested torch.func.grad, imported at the top of the cell (the statement forbids torch.func)", '''\
from torch.func import grad


def hvp(f, x, v):
    return grad(lambda z: grad(f)(z) @ v)(x)
'''),
]
