"""Known-wrong and alternative answers for notebooks/mid/04_custom_losses.ipynb."""

WRONG = {
    "ex1_label_smoothing": [
        ("softmax().log(): log(0) = -inf once a probability underflows", '''\
def smooth_ce(logits, target, eps=0.1, reduction="mean"):
    logp = torch.softmax(logits, dim=-1).log()
    nll = -logp.gather(-1, target.unsqueeze(-1)).squeeze(-1)
    loss = (1 - eps) * nll + eps * (-logp.mean(dim=-1))
    return {"mean": loss.mean(), "sum": loss.sum()}.get(reduction, loss)
'''),
        ("spreads eps over the K-1 wrong classes only (not PyTorch's convention)", '''\
def smooth_ce(logits, target, eps=0.1, reduction="mean"):
    logp = F.log_softmax(logits, dim=-1)
    k = logits.size(-1)
    nll = -logp.gather(-1, target.unsqueeze(-1)).squeeze(-1)
    others = (-logp.sum(dim=-1) - nll) / (k - 1)
    loss = (1 - eps) * nll + eps * others
    return {"mean": loss.mean(), "sum": loss.sum()}.get(reduction, loss)
'''),
    ],
    "ex2_focal": [
        ("detaches the modulating factor: right values, wrong gradients", '''\
def focal_loss(logits, target, gamma=2.0, alpha=None, reduction="mean"):
    logp_t = F.log_softmax(logits, dim=-1).gather(-1, target.unsqueeze(-1)).squeeze(-1)
    p_t = logp_t.exp().detach()
    loss = -((1 - p_t) ** gamma) * logp_t
    if alpha is not None:
        loss = loss * alpha[target]
    return {"mean": loss.mean(), "sum": loss.sum()}.get(reduction, loss)
'''),
        ("alpha-weighted mean divides by the sum of alphas, like CrossEntropyLoss(weight=...)", '''\
def focal_loss(logits, target, gamma=2.0, alpha=None, reduction="mean"):
    logp_t = F.log_softmax(logits, dim=-1).gather(-1, target.unsqueeze(-1)).squeeze(-1)
    loss = -((1 - logp_t.exp()) ** gamma) * logp_t
    w = torch.ones_like(loss) if alpha is None else alpha[target]
    loss = loss * w
    if reduction == "mean":
        return loss.sum() / w.sum()
    return loss.sum() if reduction == "sum" else loss
'''),
    ],
    "ex3_predict_reduction": [
        ("thinks ignored targets still count in the denominator", '''\
SMOOTHED_LOSS_CAN_REACH_ZERO = False
IGNORE_INDEX_MEAN_DIVIDES_BY = "batch"
WEIGHTED_MEAN_DIVIDES_BY = "sum of weights"
'''),
        ("thinks the weighted mean divides by the batch size", '''\
SMOOTHED_LOSS_CAN_REACH_ZERO = False
IGNORE_INDEX_MEAN_DIVIDES_BY = "non-ignored"
WEIGHTED_MEAN_DIVIDES_BY = "batch"
'''),
    ],
    "ex4_soft_dice": [
        ("hard threshold and a new leaf tensor: backward runs, no gradient reaches the logits", '''\
def soft_dice_loss(logits, target, eps=1.0):
    pred = (logits > 0).float()
    inter = (pred * target).sum(dim=(1, 2))
    dice = (2 * inter + eps) / (pred.sum(dim=(1, 2)) + target.sum(dim=(1, 2)) + eps)
    return torch.tensor(1 - dice.mean().item(), requires_grad=True)
'''),
        ("one Dice over the whole batch instead of the mean of per-sample Dice", '''\
def soft_dice_loss(logits, target, eps=1.0):
    prob = torch.sigmoid(logits)
    dice = (2 * (prob * target).sum() + eps) / (prob.sum() + target.sum() + eps)
    return 1 - dice
'''),
    ],
    "ex5_device_forward": [
        ("fixes the mask but leaves the distance tensor on the CPU", '''\
class CausalScores(nn.Module):
    def __init__(self, slope=0.5):
        super().__init__()
        self.slope = slope

    def forward(self, x):
        L, D = x.shape[1], x.shape[2]
        scores = x @ x.transpose(1, 2) / D ** 0.5
        pos = torch.arange(L)
        dist = (pos[None, :] - pos[:, None]).abs().float()
        mask = torch.ones(L, L, device=x.device, dtype=torch.bool).triu(1)
        scores = scores - self.slope * dist
        return scores.masked_fill(mask, float("-inf")).softmax(dim=-1)
'''),
        ("round-trips through the CPU: x.cpu() ... .to(x.device)", '''\
class CausalScores(nn.Module):
    def __init__(self, slope=0.5):
        super().__init__()
        self.slope = slope

    def forward(self, x):
        dev, xc = x.device, x.cpu()
        L, D = xc.shape[1], xc.shape[2]
        scores = xc @ xc.transpose(1, 2) / D ** 0.5
        pos = torch.arange(L)
        scores = scores - self.slope * (pos[None, :] - pos[:, None]).abs().to(xc.dtype)
        mask = torch.ones(L, L, dtype=torch.bool).triu(1)
        return scores.masked_fill(mask, float("-inf")).softmax(dim=-1).to(dev)
'''),
    ],
    "ex6_buffer": [
        ("keeps the weights as a plain tensor attribute", '''\
class WeightedCE(nn.Module):
    def __init__(self, class_weights):
        super().__init__()
        self.class_weights = torch.as_tensor(class_weights, dtype=torch.float32)

    def forward(self, logits, target):
        return F.cross_entropy(logits, target, weight=self.class_weights)
'''),
        ("makes the weights an nn.Parameter: they move, but the optimizer trains them", '''\
class WeightedCE(nn.Module):
    def __init__(self, class_weights):
        super().__init__()
        self.class_weights = nn.Parameter(torch.as_tensor(class_weights, dtype=torch.float32))

    def forward(self, logits, target):
        return F.cross_entropy(logits, target, weight=self.class_weights)
'''),
    ],
}

ALT = {
    "ex1_label_smoothing": '''\
def smooth_ce(logits, target, eps=0.1, reduction="mean"):
    k = logits.size(-1)
    q = torch.full_like(logits, eps / k)
    q.scatter_(-1, target.unsqueeze(-1), 1 - eps + eps / k)
    loss = -(q * torch.log_softmax(logits, dim=-1)).sum(dim=-1)
    if reduction == "none":
        return loss
    return loss.sum() if reduction == "sum" else loss.mean()
''',
    "ex2_focal": '''\
def focal_loss(logits, target, gamma=2.0, alpha=None, reduction="mean"):
    ce = F.cross_entropy(logits, target, reduction="none")  # = -log p_t
    p_t = torch.exp(-ce)
    loss = (1 - p_t).pow(gamma) * ce
    if alpha is not None:
        loss = alpha.to(loss)[target] * loss
    if reduction == "none":
        return loss
    return loss.sum() if reduction == "sum" else loss.mean()
''',
    "ex3_predict_reduction": '''\
SMOOTHED_LOSS_CAN_REACH_ZERO = bool(0)
IGNORE_INDEX_MEAN_DIVIDES_BY = "-".join(["non", "ignored"])
WEIGHTED_MEAN_DIVIDES_BY = "sum of " + "weights"
''',
    "ex4_soft_dice": '''\
def soft_dice_loss(logits, target, eps=1.0):
    p = logits.sigmoid().flatten(1)
    t = target.flatten(1)
    num = 2 * torch.einsum("bn,bn->b", p, t) + eps
    den = p.sum(-1) + t.sum(-1) + eps
    return (1 - num / den).mean()
''',
    "ex5_device_forward": '''\
class CausalScores(nn.Module):
    def __init__(self, slope=0.5):
        super().__init__()
        self.slope = slope

    def forward(self, x):
        L, D = x.shape[1], x.shape[2]
        scores = torch.matmul(x, x.transpose(1, 2)) * D ** -0.5
        pos = torch.arange(L, device=x.device, dtype=x.dtype)
        dist = (pos.unsqueeze(0) - pos.unsqueeze(1)).abs()
        causal = torch.tril(torch.ones(L, L, device=x.device, dtype=torch.bool))
        scores = (scores - self.slope * dist).masked_fill(~causal, float("-inf"))
        return torch.softmax(scores, dim=-1)
''',
    "ex6_buffer": '''\
class WeightedCE(nn.Module):
    def __init__(self, class_weights):
        super().__init__()
        self.register_buffer("class_weights", torch.tensor(list(class_weights), dtype=torch.float32),
                             persistent=False)

    def forward(self, logits, target):
        logp = F.log_softmax(logits, dim=-1)
        return F.nll_loss(logp, target, weight=self.class_weights.to(logp.dtype))
''',
}

WRONG["ex1_label_smoothing"] += [
    ("shortcut: calls F.cross_entropy(label_smoothing=eps) (the statement asks for it by hand)", '''\
def smooth_ce(logits, target, eps=0.1, reduction="mean"):
    return F.cross_entropy(logits, target, label_smoothing=eps, reduction=reduction)
'''),
    ("shortcut: F.nll_loss of log_softmax for the NLL term", '''\
def smooth_ce(logits, target, eps=0.1, reduction="mean"):
    logp = F.log_softmax(logits, dim=-1)
    loss = (1 - eps) * F.nll_loss(logp, target, reduction="none") - eps * logp.mean(dim=-1)
    if reduction == "none":
        return loss
    return loss.sum() if reduction == "sum" else loss.mean()
'''),
]
