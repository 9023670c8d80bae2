"""Known-wrong and alternative answers for senior/08_optimizers_and_stability."""

from tests.answers.senior import edited, reference

NB = "senior/08_optimizers_and_stability"

_EX1_ID_STATE = edited(edited(reference(NB, "ex1_lion"), "weight_decay=weight_decay))\n",
                              "weight_decay=weight_decay))\n"
                              "        self.moments = {}  # keyed by id(p): invisible to state_dict()\n"),
                       'state = self.state[p]\n'
                       '                if "exp_avg" not in state:\n'
                       '                    state["exp_avg"] = torch.zeros_like(p)\n'
                       '                m = state["exp_avg"]',
                       "m = self.moments.setdefault(id(p), torch.zeros_like(p))")

_EX1_ONE_BETA = edited(reference(NB, "ex1_lion"),
                       "c = m * b1 + p.grad * (1 - b1)\n"
                       "                p.mul_(1 - lr * wd).add_(torch.sign(c), alpha=-lr)\n"
                       "                m.mul_(b2).add_(p.grad, alpha=1 - b2)",
                       "m.mul_(b2).add_(p.grad, alpha=1 - b2)\n"
                       "                p.mul_(1 - lr * wd).add_(torch.sign(m), alpha=-lr)")

_EX1_BETA_UPPER_ONLY = edited(reference(NB, "ex1_lion"), "if not all(0.0 <= b < 1.0 for b in betas):",
                              "if any(b >= 1.0 for b in betas):")

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


_EX2_ELEMENTWISE = edited(reference(NB, "ex2_drop_path"),
                          "    keep = 1.0 - p\n"
                          "    shape = (x.shape[0],) + (1,) * (x.dim() - 1)\n"
                          "    mask = torch.empty(shape, device=x.device, dtype=x.dtype).bernoulli_(keep)\n"
                          "    return x * mask / keep\n",
                          "    return F.dropout(x, p, training=True)\n")

_EX2_NO_RESCALE = edited(reference(NB, "ex2_drop_path"), "return x * mask / keep", "return x * mask")

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

_EX3_SCALE_ALL = edited(reference(NB, "ex3_depth"), "x = x + alpha * block(x)", "x = alpha * (x + block(x))")

_EX3_BRANCH_STD = edited(reference(NB, "ex3_depth"), "x = x + alpha * block(x)\n        stds.append(x.std().item())",
                         "branch = alpha * block(x)\n        x = x + branch\n        stds.append(branch.std().item())")

_EX3_ALT = '''def stream_stds(x, blocks, alpha):
    with torch.inference_mode():
        states = []
        h = x
        for block in blocks:
            h = torch.add(h, block(h), alpha=alpha)
            states.append(h)
        return [float(torch.std(s, correction=0)) for s in states]  # the population std is accepted too
'''

_EX4_SUM = edited(edited(reference(NB, "ex4_noise"), "loss = F.mse_loss(model(xb), yb)",
                         'loss = F.mse_loss(model(xb), yb, reduction="sum")'),
                  "full = flat_grad(X, Y)", "full = flat_grad(X, Y) * batch_size / X.shape[0]")

_EX4_NORM = edited(reference(NB, "ex4_noise"), ".pow(2).sum().item()", ".norm().item()")

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

_EX5_INVERSE = edited(reference(NB, "ex5_lr_rules"), "k = new_batch / base_batch", "k = base_batch / new_batch")

_EX5_WARMUP_ZERO = edited(reference(NB, "ex5_lr_rules"), "(step + 1) / warmup_steps", "step / warmup_steps")

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
