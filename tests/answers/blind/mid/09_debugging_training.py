"""Blind set for notebooks/mid/09_debugging_training.ipynb, written from release/ alone (issue 33)."""

SHORTCUT = {
    "ex6_clip": ("calls torch.nn.utils.clip_grad_norm_", '''
def clip_global_norm_(parameters, max_norm):
    return torch.nn.utils.clip_grad_norm_(parameters, max_norm)
'''),
}

WRONG = {
    "ex1_overfit": ("never clears the gradients, so every step applies the sum of all past ones", '''
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
    "ex2_first_nonfinite": ("checks for NaN only, so an Inf goes unnoticed", '''
def first_nonfinite_module(model, x):
    found, handles = [], []

    def make_hook(name):
        def hook(mod, inp, out):
            if isinstance(out, torch.Tensor) and torch.isnan(out).any():
                found.append(name)
        return hook

    for name, m in model.named_modules():
        if name:
            handles.append(m.register_forward_hook(make_hook(name)))
    try:
        with torch.no_grad():
            model(x)
    finally:
        for h in handles:
            h.remove()
    return found[0] if found else None
'''),
    "ex3_where_nan": ("repairs the output of log (nan_to_num) instead of its input", '''
ANOMALY_NODE = "LogBackward0"


def masked_log(x):
    return torch.where(x > 0, torch.log(x), torch.zeros_like(x)).nan_to_num()
'''),
    "ex4_grad_norms": ("takes the norm of the weight, not of its gradient", '''
def layer_grad_norms(model):
    return {name: m.weight.norm().item() for name, m in model.named_modules() if isinstance(m, nn.Linear)}
'''),
    "ex5_healthy_net": ("swaps sigmoid for tanh but keeps the default init", '''
def make_healthy_net(depth, width):
    layers = []
    for _ in range(depth):
        layers += [nn.Linear(width, width), nn.Tanh()]
    return nn.Sequential(*layers, nn.Linear(width, 1))
'''),
    "ex6_clip": ("scales every time, so small gradients are scaled up", '''
def clip_global_norm_(parameters, max_norm):
    grads = [p.grad for p in parameters if p.grad is not None]
    total = torch.sqrt(sum((g ** 2).sum() for g in grads))
    for g in grads:
        g.mul_(max_norm / (total + 1e-6))
    return total
'''),
    "ex7_evaluate": ("sums the loss tensors under grad and calls .item() only at the end", '''
def evaluate(model, batches, loss_fn):
    total = 0
    for x, y in batches:
        total = total + loss_fn(model(x), y)
    return (total / len(batches)).item()
'''),
    "ex8_predict_leaks": ("thinks a detached tensor still holds its graph", '''
KEEPS_GRAPHS = {"append_loss": True, "append_item": False, "append_detach": True, "ema_tensor": True,
                "ema_no_grad": False}
'''),
}

ALT = {
    "ex1_overfit": '''
def overfit_one_batch(model, x, y, steps=300, lr=1e-2):
    opt = torch.optim.Adam(model.parameters(), lr=lr)
    record = []

    def closure():
        opt.zero_grad(set_to_none=True)
        loss = F.cross_entropy(model(x), y)
        loss.backward()
        record.append(float(loss.detach()))
        return loss

    for _ in range(steps):
        opt.step(closure)
    return record
''',
    "ex2_first_nonfinite": '''
def first_nonfinite_module(model, x):
    names = {id(m): name for name, m in model.named_modules() if name}
    order = []

    def watch(mod, inp, out):
        name = names.get(id(mod))
        if name is not None and torch.is_tensor(out) and not bool(torch.isfinite(out).all()):
            order.append(name)

    handle = torch.nn.modules.module.register_module_forward_hook(watch)
    try:
        with torch.no_grad():
            model(x)
    finally:
        handle.remove()
    return next(iter(order), None)
''',
    "ex3_where_nan": '''
ANOMALY_NODE = "Log" + "Backward0"


def masked_log(x):
    bad = x <= 0
    return torch.log(x.masked_fill(bad, 1.0)).masked_fill(bad, 0.0)
''',
    "ex4_grad_norms": '''
def layer_grad_norms(model):
    out = {}
    for name, module in model.named_modules():
        if isinstance(module, nn.Linear):
            out[name] = float(torch.linalg.vector_norm(module.weight.grad.flatten()))
    return out
''',
    "ex5_healthy_net": '''
class _ResidualStack(nn.Module):
    def __init__(self, depth, width):
        super().__init__()
        self.hidden = nn.ModuleList(nn.Linear(width, width) for _ in range(depth))
        self.head = nn.Linear(width, 1)

    def forward(self, x):
        for layer in self.hidden:
            x = x + torch.tanh(layer(x))
        return self.head(x)


def make_healthy_net(depth, width):
    return _ResidualStack(depth, width)
''',
    "ex6_clip": '''
def clip_global_norm_(parameters, max_norm):
    params = [p for p in parameters if p.grad is not None]
    if not params:
        return 0.0
    total = torch.cat([p.grad.detach().reshape(-1) for p in params]).norm(2)
    factor = max_norm / (float(total) + 1e-6)
    if factor < 1:
        for p in params:
            p.grad.mul_(factor)
    return float(total)
''',
    "ex7_evaluate": '''
def evaluate(model, batches, loss_fn):
    with torch.inference_mode():
        per_batch = torch.stack([loss_fn(model(x), y).reshape(()) for x, y in batches])
    return float(per_batch.double().mean())
''',
    "ex8_predict_leaks": '''
KEEPS_GRAPHS = {key: key in ("append_loss", "ema_tensor")
                for key in ("append_loss", "append_item", "append_detach", "ema_tensor", "ema_no_grad")}
''',
}
