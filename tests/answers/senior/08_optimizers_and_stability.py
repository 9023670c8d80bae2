"""Known-wrong and alternative answers for senior/08_optimizers_and_stability."""

_EX1_ID_STATE = '''class Lion(torch.optim.Optimizer):
    def __init__(self, params, lr=1e-4, betas=(0.9, 0.99), weight_decay=0.0):
        if lr < 0 or not all(0.0 <= b < 1.0 for b in betas):
            raise ValueError("bad hyper-parameters")
        super().__init__(params, dict(lr=lr, betas=betas, weight_decay=weight_decay))
        self.moments = {}  # keyed by id(p): invisible to state_dict()

    @torch.no_grad()
    def step(self, closure=None):
        loss = None
        if closure is not None:
            with torch.enable_grad():
                loss = closure()
        for group in self.param_groups:
            b1, b2 = group["betas"]
            for p in group["params"]:
                if p.grad is None:
                    continue
                m = self.moments.setdefault(id(p), torch.zeros_like(p))
                c = b1 * m + (1 - b1) * p.grad
                p.mul_(1 - group["lr"] * group["weight_decay"]).add_(torch.sign(c), alpha=-group["lr"])
                m.mul_(b2).add_(p.grad, alpha=1 - b2)
        return loss
'''

_EX1_ONE_BETA = '''class Lion(torch.optim.Optimizer):
    def __init__(self, params, lr=1e-4, betas=(0.9, 0.99), weight_decay=0.0):
        if lr < 0 or not all(0.0 <= b < 1.0 for b in betas):
            raise ValueError("bad hyper-parameters")
        super().__init__(params, dict(lr=lr, betas=betas, weight_decay=weight_decay))

    @torch.no_grad()
    def step(self, closure=None):
        loss = None
        if closure is not None:
            with torch.enable_grad():
                loss = closure()
        for group in self.param_groups:
            b1, b2 = group["betas"]
            for p in group["params"]:
                if p.grad is None:
                    continue
                st = self.state[p]
                m = st.setdefault("exp_avg", torch.zeros_like(p))
                m.mul_(b2).add_(p.grad, alpha=1 - b2)  # updates the moment first, then takes its sign
                p.mul_(1 - group["lr"] * group["weight_decay"]).add_(torch.sign(m), alpha=-group["lr"])
        return loss
'''

_EX1_BETA_UPPER_ONLY = '''class Lion(torch.optim.Optimizer):
    def __init__(self, params, lr=1e-4, betas=(0.9, 0.99), weight_decay=0.0):
        if lr < 0 or any(b >= 1.0 for b in betas):  # a negative beta slips through
            raise ValueError("bad hyper-parameters")
        super().__init__(params, dict(lr=lr, betas=betas, weight_decay=weight_decay))

    @torch.no_grad()
    def step(self, closure=None):
        loss = None
        if closure is not None:
            with torch.enable_grad():
                loss = closure()
        for group in self.param_groups:
            b1, b2 = group["betas"]
            for p in group["params"]:
                if p.grad is None:
                    continue
                st = self.state[p]
                m = st.setdefault("exp_avg", torch.zeros_like(p))
                c = b1 * m + (1 - b1) * p.grad
                p.mul_(1 - group["lr"] * group["weight_decay"]).add_(torch.sign(c), alpha=-group["lr"])
                m.mul_(b2).add_(p.grad, alpha=1 - b2)
        return loss
'''

_EX1_ALT = '''class Lion(torch.optim.Optimizer):
    def __init__(self, params, lr=1e-4, betas=(0.9, 0.99), weight_decay=0.0):
        for name, ok in [("lr", lr >= 0), ("betas", 0 <= betas[0] < 1 and 0 <= betas[1] < 1),
                         ("weight_decay", weight_decay >= 0)]:
            if not ok:
                raise ValueError(f"invalid {name}")
        super().__init__(params, {"lr": lr, "betas": tuple(betas), "weight_decay": weight_decay})

    def step(self, closure=None):
        loss = None
        if closure is not None:
            loss = closure()
        with torch.no_grad():
            for group in self.param_groups:
                b1, b2 = group["betas"]
                for p in group["params"]:
                    if p.grad is None:
                        continue
                    state = self.state[p]
                    if len(state) == 0:
                        state["m"] = torch.zeros_like(p, memory_format=torch.preserve_format)
                    m = state["m"]
                    direction = m.lerp(p.grad, 1 - b1).sign_()
                    if group["weight_decay"]:
                        p.mul_(1 - group["lr"] * group["weight_decay"])
                    p.sub_(group["lr"] * direction)
                    m.lerp_(p.grad, 1 - b2)
        return loss
'''

_DP_MODULE = '''

class DropPath(nn.Module):
    def __init__(self, p):
        super().__init__()
        self.p = p

    def forward(self, x):
        return drop_path(x, self.p, self.training)
'''

_EX2_ELEMENTWISE = '''def drop_path(x, p, training):
    if not training or p == 0.0:
        return x
    if p >= 1.0:
        return torch.zeros_like(x)
    return F.dropout(x, p, training=True)  # per element, not per sample
''' + _DP_MODULE

_EX2_NO_RESCALE = '''def drop_path(x, p, training):
    if not training or p == 0.0:
        return x
    if p >= 1.0:
        return torch.zeros_like(x)
    shape = (x.shape[0],) + (1,) * (x.dim() - 1)
    mask = torch.empty(shape, device=x.device, dtype=x.dtype).bernoulli_(1 - p)
    return x * mask
''' + _DP_MODULE

_EX2_ALT = '''def drop_path(x, p, training):
    if not training or p <= 0.0:
        return x
    keep = 1.0 - p
    if keep <= 0.0:
        return x * 0.0
    kept = torch.rand(x.shape[0], device=x.device) < keep
    kept = kept.view(-1, *([1] * (x.dim() - 1)))
    return torch.where(kept, x / keep, torch.zeros_like(x))


class DropPath(nn.Module):
    def __init__(self, p):
        super().__init__()
        self.p = p

    def forward(self, x):
        return drop_path(x, self.p, self.training)
'''

_EX3_SCALE_ALL = '''@torch.no_grad()
def stream_stds(x, blocks, alpha):
    stds = []
    for block in blocks:
        x = alpha * (x + block(x))  # scales the identity path too
        stds.append(x.std().item())
    return stds
'''

_EX3_BRANCH_STD = '''@torch.no_grad()
def stream_stds(x, blocks, alpha):
    stds = []
    for block in blocks:
        branch = alpha * block(x)
        x = x + branch
        stds.append(branch.std().item())  # measures the branch, not the stream
    return stds
'''

_EX3_ALT = '''def stream_stds(x, blocks, alpha):
    with torch.inference_mode():
        states = []
        h = x
        for block in blocks:
            h = torch.add(h, block(h), alpha=alpha)
            states.append(h)
        return [float(torch.std(s, correction=0)) for s in states]  # the population std is accepted too
'''

_EX4_SUM = '''def gradient_noise(model, X, Y, batch_size, n_batches, generator):
    params = [p for p in model.parameters() if p.requires_grad]

    def flat_grad(xb, yb):
        loss = F.mse_loss(model(xb), yb, reduction="sum")
        return torch.cat([g.reshape(-1) for g in torch.autograd.grad(loss, params)])

    full = flat_grad(X, Y) * batch_size / X.shape[0]
    total = 0.0
    for _ in range(n_batches):
        idx = torch.randint(0, X.shape[0], (batch_size,), generator=generator).to(X.device)
        total += (flat_grad(X[idx], Y[idx]) - full).pow(2).sum().item()
    return total / n_batches
'''

_EX4_NORM = '''def gradient_noise(model, X, Y, batch_size, n_batches, generator):
    params = [p for p in model.parameters() if p.requires_grad]

    def flat_grad(xb, yb):
        loss = F.mse_loss(model(xb), yb)
        return torch.cat([g.reshape(-1) for g in torch.autograd.grad(loss, params)])

    full = flat_grad(X, Y)
    total = 0.0
    for _ in range(n_batches):
        idx = torch.randint(0, X.shape[0], (batch_size,), generator=generator).to(X.device)
        total += (flat_grad(X[idx], Y[idx]) - full).norm().item()  # a norm, not a squared norm
    return total / n_batches
'''

_EX4_ALT = '''from torch.func import functional_call, grad, vmap


def gradient_noise(model, X, Y, batch_size, n_batches, generator):
    # per-sample gradients once, with torch.func; a mini-batch gradient is the mean of its rows
    params = {k: v.detach() for k, v in model.named_parameters()}

    def sample_loss(p, x, y):
        return F.mse_loss(functional_call(model, p, (x.unsqueeze(0),)), y.unsqueeze(0))

    per = vmap(grad(sample_loss), in_dims=(None, 0, 0))(params, X, Y)
    G = torch.cat([per[k].reshape(X.shape[0], -1) for k in params], dim=1)
    full = G.mean(0)
    dists = []
    for _ in range(n_batches):
        idx = torch.randint(0, X.shape[0], (batch_size,), generator=generator).to(X.device)
        dists.append((G[idx].mean(0) - full).square().sum())
    return float(torch.stack(dists).mean())
'''

_EX5_INVERSE = '''def scaled_lr(base_lr, base_batch, new_batch, rule):
    k = base_batch / new_batch  # upside down
    if rule == "linear":
        return base_lr * k
    if rule == "sqrt":
        return base_lr * math.sqrt(k)
    raise ValueError(rule)


def warmup_lr(step, warmup_steps, peak_lr):
    return peak_lr if step >= warmup_steps else peak_lr * (step + 1) / warmup_steps
'''

_EX5_WARMUP_ZERO = '''def scaled_lr(base_lr, base_batch, new_batch, rule):
    k = new_batch / base_batch
    if rule == "linear":
        return base_lr * k
    if rule == "sqrt":
        return base_lr * math.sqrt(k)
    raise ValueError(rule)


def warmup_lr(step, warmup_steps, peak_lr):
    return peak_lr * min(1.0, step / warmup_steps)  # starts at 0 and peaks one step late
'''

_EX5_ALT = '''RULES = {"linear": lambda k: k, "sqrt": lambda k: k ** 0.5}


def scaled_lr(base_lr, base_batch, new_batch, rule):
    if rule not in RULES:
        raise ValueError(f"rule must be one of {sorted(RULES)}")
    return base_lr * RULES[rule](new_batch / base_batch)


def warmup_lr(step, warmup_steps, peak_lr):
    return peak_lr * min(step + 1, warmup_steps) / warmup_steps
'''

WRONG = {
    "ex1_lion": [("keeps the moment outside self.state: lost by state_dict", _EX1_ID_STATE),
                 ("one beta: updates m first, then takes its sign", _EX1_ONE_BETA),
                 ("validates only the upper end of the betas", _EX1_BETA_UPPER_ONLY)],
    "ex2_drop_path": [("drops single elements (dropout), not whole samples", _EX2_ELEMENTWISE),
                      ("forgets to rescale by 1 / (1 - p)", _EX2_NO_RESCALE)],
    "ex3_depth": [("scales the identity path too", _EX3_SCALE_ALL),
                  ("measures the branch instead of the stream", _EX3_BRANCH_STD)],
    "ex4_noise": [("sum loss: the noise grows with B", _EX4_SUM),
                  ("returns a norm instead of a squared norm", _EX4_NORM)],
    "ex5_lr_rules": [("scales the rate the wrong way", _EX5_INVERSE),
                     ("warm-up starts at zero", _EX5_WARMUP_ZERO)],
}

ALT = {
    "ex1_lion": _EX1_ALT,
    "ex2_drop_path": _EX2_ALT,
    "ex3_depth": _EX3_ALT,
    "ex4_noise": _EX4_ALT,
    "ex5_lr_rules": _EX5_ALT,
}
