"""Known-wrong and alternative answers for notebooks/mid/09_debugging_training.ipynb."""

from tests.answers import edited, reference

WRONG = {
    "ex1_overfit": [
        ("never zeroes the gradients, so every step applies the sum of all past gradients", '''\
def overfit_one_batch(model, x, y, steps=300, lr=1e-2):
    opt = torch.optim.Adam(model.parameters(), lr=lr)
    losses = []
    for _ in range(steps):
        loss = F.cross_entropy(model(x), y)
        loss.backward()
        opt.step()
        losses.append(loss.item())
    return losses
'''),
        ("stores the loss tensors (keeps every graph alive)", '''\
def overfit_one_batch(model, x, y, steps=300, lr=1e-2):
    opt = torch.optim.Adam(model.parameters(), lr=lr)
    losses = []
    for _ in range(steps):
        opt.zero_grad()
        loss = F.cross_entropy(model(x), y)
        loss.backward()
        opt.step()
        losses.append(loss)
    return losses
'''),
    ],
    "ex2_first_nonfinite": [
        ("checks torch.isnan only, so an output that is +Inf without NaN goes unnoticed (found by the blind set)",
         edited(reference("mid/09_debugging_training", "ex2_first_nonfinite"),
                "not torch.isfinite(output).all()", "torch.isnan(output).any()")),
        ("scans the parameters instead of the activations", '''\
def first_nonfinite_module(model, x):
    for name, m in model.named_modules():
        if name and any(not torch.isfinite(p).all() for p in m.parameters(recurse=False)):
            return name
    return None
'''),
        ("reports in definition order and checks only NaN, never removes the hooks", '''\
def first_nonfinite_module(model, x):
    outs = {}
    for name, m in model.named_modules():
        if name:
            m.register_forward_hook(lambda mod, i, o, n=name: outs.__setitem__(n, o))
    with torch.no_grad():
        model(x)
    for name, _ in model.named_modules():
        if name in outs and torch.isnan(outs[name]).any():
            return name
    return None
'''),
        ("right hooks, but runs the forward with autograd on (builds a graph it never uses)", '''\
def first_nonfinite_module(model, x):
    bad = []
    handles = [m.register_forward_hook(lambda mod, i, o, n=name: bad.append(n) if not torch.isfinite(o).all() else None)
               for name, m in model.named_modules() if name]
    try:
        model(x)
    finally:
        for h in handles:
            h.remove()
    return bad[0] if bad else None
'''),
    ],
    "ex3_where_nan": [
        ("the naive torch.where: NaN gradient at x = 0", '''\
ANOMALY_NODE = "LogBackward0"


def masked_log(x):
    return torch.where(x > 0, torch.log(x), torch.zeros_like(x))
'''),
        ("blames torch.where for the NaN", '''\
ANOMALY_NODE = "WhereBackward0"


def masked_log(x):
    positive = x > 0
    return torch.where(positive, torch.log(torch.where(positive, x, torch.ones_like(x))), torch.zeros_like(x))
'''),
    ],
    "ex4_grad_norms": [
        ("norm of the weights, not of their gradients", '''\
def layer_grad_norms(model):
    return {name: m.weight.norm().item() for name, m in model.named_modules() if isinstance(m, nn.Linear)}
'''),
        ("iterates parameters: biases included and names are parameter names", '''\
def layer_grad_norms(model):
    return {name: p.grad.norm().item() for name, p in model.named_parameters()}
'''),
    ],
    "ex5_healthy_net": [
        ("keeps the sigmoids and only changes the init", '''\
def make_healthy_net(depth, width):
    layers = []
    for _ in range(depth):
        lin = nn.Linear(width, width)
        nn.init.kaiming_normal_(lin.weight, nonlinearity="relu")
        layers += [lin, nn.Sigmoid()]
    return nn.Sequential(*layers, nn.Linear(width, 1))
'''),
        ("tanh with the default init: the signal still shrinks layer by layer", '''\
def make_healthy_net(depth, width):
    layers = []
    for _ in range(depth):
        layers += [nn.Linear(width, width), nn.Tanh()]
    return nn.Sequential(*layers, nn.Linear(width, 1))
'''),
    ],
    "ex6_clip": [
        ("clips every parameter separately", '''\
def clip_global_norm_(parameters, max_norm):
    total = 0.0
    for p in parameters:
        if p.grad is None:
            continue
        n = p.grad.norm()
        total += n.item() ** 2
        if n > max_norm:
            p.grad.mul_(max_norm / (n + 1e-6))
    return total ** 0.5
'''),
        ("always rescales, even gradients that are already small", '''\
def clip_global_norm_(parameters, max_norm):
    grads = [p.grad for p in parameters if p.grad is not None]
    total = torch.sqrt(sum((g ** 2).sum() for g in grads))
    for g in grads:
        g.mul_(max_norm / (total + 1e-6))
    return total
'''),
    ],
    "ex7_evaluate": [
        ("the leaky loop: accumulates loss tensors", '''\
def evaluate(model, batches, loss_fn):
    total = 0
    for x, y in batches:
        total += loss_fn(model(x), y)
    return total / len(batches)
'''),
        ("detaches only at the end: every graph is alive until the loop finishes", '''\
def evaluate(model, batches, loss_fn):
    total = 0
    for x, y in batches:
        total = total + loss_fn(model(x), y)
    return (total / len(batches)).item()
'''),
    ],
    "ex8_predict_leaks": [
        ("thinks any tensor kept around is fine as long as it is not a list of losses", '''\
KEEPS_GRAPHS = {"append_loss": True, "append_item": False, "append_detach": False,
                "ema_tensor": False, "ema_no_grad": False}
'''),
        ("thinks detach() still keeps the graph", '''\
KEEPS_GRAPHS = {"append_loss": True, "append_item": False, "append_detach": True,
                "ema_tensor": True, "ema_no_grad": False}
'''),
    ],
}

ALT = {
    "ex1_overfit": '''\
def overfit_one_batch(model, x, y, steps=300, lr=1e-2):
    opt = torch.optim.AdamW(model.parameters(), lr=lr, weight_decay=0.0)
    out = []
    for step in range(steps):
        logits = model(x)
        loss = F.nll_loss(F.log_softmax(logits, dim=1), y)
        for p in model.parameters():
            p.grad = None
        loss.backward()
        opt.step()
        out.append(float(loss.detach()))
    return out
''',
    "ex2_first_nonfinite": '''\
def first_nonfinite_module(model, x):
    found = None
    handles = []

    def hook(module, inputs, output):
        nonlocal found
        if found is None and torch.is_tensor(output) and (output.isnan() | output.isinf()).any():
            found = names[module]

    names = {m: n for n, m in model.named_modules() if n}
    for m in names:
        handles.append(m.register_forward_hook(hook))
    try:
        with torch.inference_mode():
            model(x)
    finally:
        for h in handles:
            h.remove()
    return found
''',
    "ex3_where_nan": '''\
ANOMALY_NODE = "LogBackward0"


def masked_log(x):
    return torch.where(x > 0, x.clamp_min(1e-30).log(), 0.0)
''',
    "ex4_grad_norms": '''\
def layer_grad_norms(model):
    out = {}
    for name, m in model.named_modules():
        if type(m) is nn.Linear or isinstance(m, nn.Linear):
            out[name] = float(torch.sqrt((m.weight.grad ** 2).sum()))
    return out
''',
    "ex5_healthy_net": '''\
class Block(nn.Module):
    def __init__(self, width):
        super().__init__()
        self.norm = nn.LayerNorm(width)
        self.lin = nn.Linear(width, width)

    def forward(self, x):
        return x + torch.tanh(self.lin(self.norm(x)))


def make_healthy_net(depth, width):
    return nn.Sequential(*[Block(width) for _ in range(depth)], nn.Linear(width, 1))
''',
    "ex6_clip": '''\
def clip_global_norm_(parameters, max_norm):
    params = [p for p in parameters if p.grad is not None]
    total = torch.cat([p.grad.reshape(-1) for p in params]).norm()
    coef = torch.clamp(max_norm / (total + 1e-6), max=1.0)
    for p in params:
        p.grad.mul_(coef)
    return total.item()
''',
    "ex7_evaluate": '''\
def evaluate(model, batches, loss_fn):
    values = []
    for x, y in batches:
        values.append(loss_fn(model(x), y).item())
    return sum(values) / len(values)
''',
    "ex8_predict_leaks": '''\
KEEPS_GRAPHS = dict(append_loss=True, append_item=False, append_detach=False, ema_tensor=True, ema_no_grad=False)
''',
}

WRONG["ex6_clip"].append((
    "right values, but replaces each .grad with a new tensor instead of scaling it in place",
    ALT["ex6_clip"].replace("        p.grad.mul_(coef)\n", "        p.grad = p.grad * coef\n")))
assert WRONG["ex6_clip"][-1][1] != ALT["ex6_clip"]

WRONG["ex6_clip"].append(("shortcut: calls torch.nn.utils.clip_grad_norm_ (the statement forbids it)", '''\
def clip_global_norm_(parameters, max_norm):
    return torch.nn.utils.clip_grad_norm_(parameters, max_norm)
'''))
