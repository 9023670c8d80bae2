"""Blind set for notebooks/senior/08_optimizers_and_stability.ipynb, written from release/ alone (issue 33)."""

WRONG = {
    "ex1_lion": ("updates the moment first and takes the direction from the new moment", '''
class Lion(torch.optim.Optimizer):
    def __init__(self, params, lr=1e-4, betas=(0.9, 0.99), weight_decay=0.0):
        if lr < 0:
            raise ValueError(f"invalid lr {lr}")
        if not all(0.0 <= b < 1.0 for b in betas):
            raise ValueError(f"invalid betas {betas}")
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
                state = self.state[p]
                if "exp_avg" not in state:
                    state["exp_avg"] = torch.zeros_like(p)
                m = state["exp_avg"]
                m.mul_(b2).add_(p.grad, alpha=1 - b2)
                c = b1 * m + (1 - b1) * p.grad
                p.mul_(1 - group["lr"] * group["weight_decay"]).add_(torch.sign(c), alpha=-group["lr"])
        return loss
'''),
    "ex2_drop_path": ("drops whole samples but forgets to divide the kept ones by 1 - p", '''
def drop_path(x, p, training):
    if not training or p == 0:
        return x
    if p == 1:
        return torch.zeros_like(x)
    mask = torch.bernoulli(torch.full((x.shape[0],) + (1,) * (x.dim() - 1), 1 - p, device=x.device, dtype=x.dtype))
    return x * mask


class DropPath(nn.Module):
    def __init__(self, p):
        super().__init__()
        self.p = p

    def forward(self, x):
        return drop_path(x, self.p, self.training)
'''),
    "ex3_depth": ("off by one: measures the stream before each block, never after the last", '''
@torch.no_grad()
def stream_stds(x, blocks, alpha):
    stds = []
    for block in blocks:
        stds.append(x.std().item())
        x = x + alpha * block(x)
    return stds
'''),
    "ex4_noise": ("draws the mini-batches without replacement", '''
def gradient_noise(model, X, Y, batch_size, n_batches, generator):
    params = [p for p in model.parameters() if p.requires_grad]

    def flat_grad(xb, yb):
        return torch.cat([g.reshape(-1) for g in torch.autograd.grad(F.mse_loss(model(xb), yb), params)])

    full = flat_grad(X, Y)
    total = 0.0
    for _ in range(n_batches):
        idx = torch.randperm(len(X), generator=generator)[:batch_size].to(X.device)
        total += (flat_grad(X[idx], Y[idx]) - full).pow(2).sum().item()
    return total / n_batches
'''),
    "ex5_lr_rules": ("warm-up starts at 0 and peaks one step late (another library's convention)", '''
def scaled_lr(base_lr, base_batch, new_batch, rule):
    k = new_batch / base_batch
    if rule == "linear":
        return base_lr * k
    if rule == "sqrt":
        return base_lr * math.sqrt(k)
    raise ValueError(f"unknown rule {rule!r}")


def warmup_lr(step, warmup_steps, peak_lr):
    return peak_lr * min(1.0, step / warmup_steps)
'''),
}

ALT = {
    "ex1_lion": '''
class Lion(torch.optim.Optimizer):
    def __init__(self, params, lr=1e-4, betas=(0.9, 0.99), weight_decay=0.0):
        b1, b2 = betas
        for name, value, ok in [("lr", lr, lr >= 0), ("beta1", b1, 0 <= b1 < 1), ("beta2", b2, 0 <= b2 < 1)]:
            if not ok:
                raise ValueError(f"invalid {name}: {value}")
        super().__init__(params, {"lr": lr, "betas": (b1, b2), "weight_decay": weight_decay})

    @torch.no_grad()
    def step(self, closure=None):
        loss = None
        if closure is not None:
            with torch.enable_grad():
                loss = closure()
        for group in self.param_groups:
            lr, wd = group["lr"], group["weight_decay"]
            b1, b2 = group["betas"]
            for p in (q for q in group["params"] if q.grad is not None):
                g = p.grad
                momentum = self.state[p].setdefault("momentum", torch.zeros_like(p, memory_format=torch.preserve_format))
                direction = momentum.lerp(g, 1 - b1).sign_()
                p.mul_(1 - lr * wd).sub_(lr * direction)
                momentum.lerp_(g, 1 - b2)
        return loss
''',
    "ex2_drop_path": '''
def drop_path(x, p, training):
    if not training or p <= 0:
        return x
    keep = 1.0 - p
    if keep <= 0:
        return x * 0.0
    shape = (x.shape[0],) + (1,) * (x.dim() - 1)
    kept = (torch.rand(shape, device=x.device) < keep).to(x.dtype)
    return x * kept / keep


class DropPath(nn.Module):
    def __init__(self, p):
        super().__init__()
        self.p = p

    def forward(self, x):
        return drop_path(x, self.p, training=self.training)
''',
    "ex3_depth": '''
@torch.no_grad()
def stream_stds(x, blocks, alpha):
    out = []
    for block in blocks:
        x = torch.add(x, block(x), alpha=alpha)
        out.append(float(((x - x.mean()) ** 2).mean().sqrt()))  # population std, no Bessel correction
    return out
''',
    "ex4_noise": '''
def gradient_noise(model, X, Y, batch_size, n_batches, generator):
    params = list(model.parameters())

    def flat_grad(xb, yb):
        loss = ((model(xb) - yb) ** 2).mean()
        return torch.cat([g.flatten() for g in torch.autograd.grad(loss, params)])

    full = flat_grad(X, Y).detach()
    draws = torch.randint(0, X.shape[0], (n_batches, batch_size), generator=generator).to(X.device)
    dists = torch.stack([(flat_grad(X[idx], Y[idx]) - full).square().sum() for idx in draws])
    return dists.mean().item()
''',
    "ex5_lr_rules": '''
def scaled_lr(base_lr, base_batch, new_batch, rule):
    powers = {"linear": 1.0, "sqrt": 0.5}
    if rule not in powers:
        raise ValueError(f"rule must be 'linear' or 'sqrt', got {rule!r}")
    return base_lr * (new_batch / base_batch) ** powers[rule]


def warmup_lr(step, warmup_steps, peak_lr):
    return peak_lr * min(step + 1, warmup_steps) / warmup_steps
''',
}
