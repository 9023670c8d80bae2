"""Blind set for notebooks/junior/04_losses_and_optimizers.ipynb, written from release/ alone (issue 33)."""

SHORTCUT = {
    "ex1_cross_entropy": ("calls F.cross_entropy", """
def cross_entropy(logits: torch.Tensor, target: torch.Tensor, reduction: str = "mean") -> torch.Tensor:
    return F.cross_entropy(logits, target, reduction=reduction)
"""),
    "ex4_bce_with_logits": ("calls F.binary_cross_entropy_with_logits", """
def bce_with_logits(z: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    return F.binary_cross_entropy_with_logits(z, y)
"""),
    "ex6_sgd_momentum": ("steps a torch.optim.SGD loaded with the buffers", """
def sgd_momentum_step(params: list[torch.Tensor], bufs: list, lr: float, momentum: float,
                      weight_decay: float = 0.0) -> list:
    opt = torch.optim.SGD(params, lr=lr, momentum=momentum, weight_decay=weight_decay)
    for p, b in zip(params, bufs):
        if b is not None:
            opt.state[p]["momentum_buffer"] = b
    opt.step()
    return [opt.state[p].get("momentum_buffer", b) if p.grad is not None else b for p, b in zip(params, bufs)]
"""),
}

WRONG = {
    "ex1_cross_entropy": ("log of softmax: the small probabilities underflow to 0 for large logits", """
def cross_entropy(logits: torch.Tensor, target: torch.Tensor, reduction: str = "mean") -> torch.Tensor:
    logp = torch.log(torch.softmax(logits, dim=1))
    loss = -logp.gather(1, target[:, None]).squeeze(1)
    if reduction == "none":
        return loss
    return loss.sum() if reduction == "sum" else loss.mean()
"""),
    "ex2_digit_model": ("predict_proba records a graph (no torch.no_grad)", """
def make_digit_model() -> nn.Module:
    return nn.Sequential(nn.Linear(64, 32), nn.ReLU(), nn.Linear(32, 10))


def predict_proba(model: nn.Module, x: torch.Tensor) -> torch.Tensor:
    return torch.softmax(model(x), dim=1)
"""),
    "ex3_bce_predict": ("takes the sigmoid path's gradient for sigmoid(z) - y", """
SIGMOID_BCE_LOSS = 100.0
SIGMOID_BCE_GRAD = -1.0
LOGITS_BCE_LOSS = 200.0
LOGITS_BCE_GRAD = -1.0
"""),
    "ex4_bce_with_logits": ("the clamp_min/abs textbook form: wrong gradient at z = 0", """
def bce_with_logits(z: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    return (z.clamp_min(0) - z * y + torch.log1p(torch.exp(-z.abs()))).mean()
"""),
    "ex5_step_predict": ("momentum's second step reuses the first gradient", """
SGD_W1 = 1.4
MOMENTUM_W2 = 2.16
ADAM_W1 = 1.1
ADAM_W1_SCALED = 1.1
UNUSED_W1 = 5.0
"""),
    "ex6_sgd_momentum": ("weight decay added after the momentum buffer instead of before", """
def sgd_momentum_step(params: list[torch.Tensor], bufs: list, lr: float, momentum: float,
                      weight_decay: float = 0.0) -> list:
    new_bufs = []
    with torch.no_grad():
        for p, buf in zip(params, bufs):
            if p.grad is None:
                new_bufs.append(buf)
                continue
            buf = p.grad.clone() if buf is None else momentum * buf + p.grad
            p -= lr * (buf + weight_decay * p)
            new_bufs.append(buf)
    return new_bufs
"""),
}

ALT = {
    "ex1_cross_entropy": """
def cross_entropy(logits: torch.Tensor, target: torch.Tensor, reduction: str = "mean") -> torch.Tensor:
    m = logits.max(dim=1, keepdim=True).values.detach()
    lse = m.squeeze(1) + torch.exp(logits - m).sum(dim=1).log()
    picked = logits[torch.arange(logits.shape[0], device=logits.device), target]
    loss = lse - picked
    return {"none": loss, "sum": loss.sum(), "mean": loss.mean()}[reduction]
""",
    "ex2_digit_model": """
from collections import OrderedDict


def make_digit_model() -> nn.Module:
    return nn.Sequential(OrderedDict(hidden=nn.Linear(64, 32), act=nn.ReLU(), out=nn.Linear(32, 10)))


def predict_proba(model: nn.Module, x: torch.Tensor) -> torch.Tensor:
    with torch.inference_mode():
        return F.log_softmax(model(x), dim=-1).exp()
""",
    "ex3_bce_predict": """
SIGMOID_BCE_LOSS = 100
SIGMOID_BCE_GRAD = 0
LOGITS_BCE_LOSS = 200
LOGITS_BCE_GRAD = 0.0 - 1
""",
    "ex4_bce_with_logits": """
def bce_with_logits(z: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    return -(y * F.logsigmoid(z) + (1 - y) * F.logsigmoid(-z)).mean()
""",
    "ex5_step_predict": """
SGD_W1 = 1.0 + 0.1 * 4
MOMENTUM_W2 = SGD_W1 - 0.1 * (0.9 * -4 + 2 * (SGD_W1 - 3))
ADAM_W1 = 1.0 + 0.1
ADAM_W1_SCALED = ADAM_W1
UNUSED_W1 = 5
""",
    "ex6_sgd_momentum": """
def sgd_momentum_step(params: list[torch.Tensor], bufs: list, lr: float, momentum: float,
                      weight_decay: float = 0.0) -> list:
    new_bufs = list(bufs)
    with torch.no_grad():
        for i, p in enumerate(params):
            if p.grad is None:
                continue
            d_p = torch.add(p.grad, p, alpha=weight_decay)
            new_bufs[i] = torch.clone(d_p) if bufs[i] is None else bufs[i].mul(momentum).add_(d_p)
            p.add_(new_bufs[i], alpha=-lr)
    return new_bufs
""",
}
