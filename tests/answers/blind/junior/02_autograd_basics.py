"""Blind set for notebooks/junior/02_autograd_basics.ipynb, written from release/ alone (issue 33)."""

SHORTCUT = {
    "ex2_manual_grads": ("switches grad mode back on and calls backward", """
def manual_grads(x: torch.Tensor, y: torch.Tensor, w: float, b: float) -> tuple[torch.Tensor, torch.Tensor]:
    with torch.enable_grad():
        wt = torch.tensor(w, device=x.device, requires_grad=True)
        bt = torch.tensor(b, device=x.device, requires_grad=True)
        ((wt * x + bt - y) ** 2).mean().backward()
    return wt.grad, bt.grad
"""),
}

WRONG = {
    "ex1_graph_predict": ("names the inner operation (the power) as d's grad_fn", """
C_REQUIRES_GRAD = True
C_IS_LEAF = False
D_GRAD_FN = "PowBackward0"
A_GRAD = 36.0
B_GRAD_IS_NONE = True
"""),
    "ex2_manual_grads": ("sums over the samples instead of taking the mean (loses 1/N)", """
def manual_grads(x: torch.Tensor, y: torch.Tensor, w: float, b: float) -> tuple[torch.Tensor, torch.Tensor]:
    r = w * x + b - y
    return (2 * r * x).sum(), (2 * r).sum()
"""),
    "ex3_power_until": ("stops at y >= limit instead of y > limit", """
def power_until(x: torch.Tensor, limit: float) -> torch.Tensor:
    y = x
    while y.item() < limit:
        y = y * x
    return y
"""),
    "ex4_accumulate_predict": ("thinks backward() overwrites .grad", """
GRAD_AFTER_LOOP = 8.0
GRAD_AFTER_RESET = 5.0
"""),
    "ex5_fit": ("zero_grad between backward and step: step sees no gradient", """
def fit(model: torch.nn.Module, x: torch.Tensor, y: torch.Tensor, steps: int, lr: float) -> list[float]:
    opt = torch.optim.SGD(model.parameters(), lr=lr)
    losses = []
    for _ in range(steps):
        loss = F.mse_loss(model(x), y)
        loss.backward()
        opt.zero_grad()
        opt.step()
        losses.append(loss.item())
    return losses
"""),
    "ex6_no_grad_predict": ("thinks a frozen layer's output never requires grad", """
A_REQUIRES_GRAD = False
B_REQUIRES_GRAD = False
DETACH_SHARES_MEMORY = True
C_REQUIRES_GRAD = False
C_USABLE_LATER = False
E_REQUIRES_GRAD = False
"""),
    "ex7_evaluate": ("averages the per-batch means: the short last batch weighs too much", """
def evaluate(model: torch.nn.Module, x: torch.Tensor, y: torch.Tensor, batch_size: int) -> float:
    means = []
    with torch.no_grad():
        for i in range(0, len(x), batch_size):
            means.append(F.mse_loss(model(x[i:i + batch_size]), y[i:i + batch_size]).item())
    return sum(means) / len(means)
"""),
}

ALT = {
    "ex1_graph_predict": """
C_REQUIRES_GRAD, C_IS_LEAF = True, False
D_GRAD_FN = "AddBackward0"
A_GRAD = 2 * (2.0 * 3.0) * 3.0
B_GRAD_IS_NONE = True
""",
    "ex2_manual_grads": """
def manual_grads(x: torch.Tensor, y: torch.Tensor, w: float, b: float) -> tuple[torch.Tensor, torch.Tensor]:
    # both derivatives at once: 2/N * X^T r with X = [x, 1]
    design = torch.stack([x, torch.ones_like(x)], dim=1)
    r = design @ torch.tensor([w, b], dtype=x.dtype, device=x.device) - y
    g = 2.0 / x.numel() * (design.T @ r)
    return g[0], g[1]
""",
    "ex3_power_until": """
def power_until(x: torch.Tensor, limit: float) -> torch.Tensor:
    def grow(y):
        return y if y.item() > limit else grow(y * x)
    return grow(x)
""",
    "ex4_accumulate_predict": """
GRAD_AFTER_LOOP = 3 * 8
GRAD_AFTER_RESET = 5
""",
    "ex5_fit": """
def fit(model: torch.nn.Module, x: torch.Tensor, y: torch.Tensor, steps: int, lr: float) -> list[float]:
    params = list(model.parameters())
    opt = torch.optim.SGD(params, lr=lr)
    losses = []
    for _ in range(steps):
        loss = F.mse_loss(model(x), y)
        for p, g in zip(params, torch.autograd.grad(loss, params)):
            p.grad = g  # replaces, never adds
        opt.step()
        losses.append(loss.item())
    return losses
""",
    "ex6_no_grad_predict": """
A_REQUIRES_GRAD = B_REQUIRES_GRAD = C_REQUIRES_GRAD = False
DETACH_SHARES_MEMORY = True
C_USABLE_LATER = False
E_REQUIRES_GRAD = True
""",
    "ex7_evaluate": """
def evaluate(model: torch.nn.Module, x: torch.Tensor, y: torch.Tensor, batch_size: int) -> float:
    total, count = 0.0, 0
    with torch.inference_mode():
        for xb, yb in zip(x.split(batch_size), y.split(batch_size)):
            total += ((model(xb) - yb) ** 2).double().sum().item()
            count += yb.numel()
    return total / count
""",
}
