"""Blind set for notebooks/mid/04_custom_losses.ipynb, written from release/ alone (issue 33)."""

SHORTCUT = {
    "ex1_label_smoothing": ("calls F.cross_entropy(label_smoothing=eps)", '''
def smooth_ce(logits, target, eps=0.1, reduction="mean"):
    return F.cross_entropy(logits, target, label_smoothing=eps, reduction=reduction)
'''),
}

WRONG = {
    "ex1_label_smoothing": ("spreads eps over the K - 1 wrong classes only", '''
def smooth_ce(logits, target, eps=0.1, reduction="mean"):
    logp = F.log_softmax(logits, dim=-1)
    k = logits.shape[-1]
    q = torch.full_like(logp, eps / (k - 1))
    q.scatter_(1, target[:, None], 1 - eps)
    loss = -(q * logp).sum(dim=-1)
    if reduction == "mean":
        return loss.mean()
    if reduction == "sum":
        return loss.sum()
    return loss
'''),
    "ex2_focal": ("detaches the modulating factor (right value, wrong gradient)", '''
def focal_loss(logits, target, gamma=2.0, alpha=None, reduction="mean"):
    logp = F.log_softmax(logits, dim=-1).gather(1, target[:, None]).squeeze(1)
    p = logp.exp()
    loss = -((1 - p).detach() ** gamma) * logp
    if alpha is not None:
        loss = loss * alpha.to(logits.device, logits.dtype)[target]
    if reduction == "mean":
        return loss.mean()
    if reduction == "sum":
        return loss.sum()
    return loss
'''),
    "ex3_predict_reduction": ("thinks a weighted mean divides by the batch size", '''
SMOOTHED_LOSS_CAN_REACH_ZERO = False
IGNORE_INDEX_MEAN_DIVIDES_BY = "non-ignored"
WEIGHTED_MEAN_DIVIDES_BY = "batch"
'''),
    "ex4_soft_dice": ("one Dice over the whole batch instead of the mean of per-sample Dice", '''
def soft_dice_loss(logits, target, eps=1.0):
    p = torch.sigmoid(logits)
    inter = (p * target).sum()
    dice = (2 * inter + eps) / (p.sum() + target.sum() + eps)
    return 1 - dice
'''),
    "ex5_device_forward": ("follows the device but leaves the distance in float32 (bfloat16 in, float32 out)", '''
class CausalScores(nn.Module):
    def __init__(self, slope=0.5):
        super().__init__()
        self.slope = slope

    def forward(self, x):
        L, D = x.shape[1], x.shape[2]
        scores = x @ x.transpose(1, 2) / D ** 0.5
        pos = torch.arange(L, device=x.device)
        dist = (pos[None, :] - pos[:, None]).abs().float()
        mask = torch.ones(L, L, device=x.device).triu(1).bool()
        scores = scores - self.slope * dist
        return scores.masked_fill(mask, float("-inf")).softmax(dim=-1)
'''),
    "ex6_buffer": ("keeps the weights as a plain tensor attribute (stays on the CPU)", '''
class WeightedCE(nn.Module):
    def __init__(self, class_weights):
        super().__init__()
        self.class_weights = torch.as_tensor(class_weights, dtype=torch.float32)

    def forward(self, logits, target):
        return F.cross_entropy(logits, target, weight=self.class_weights)
'''),
}

ALT = {
    "ex1_label_smoothing": '''
def smooth_ce(logits, target, eps=0.1, reduction="mean"):
    k = logits.shape[-1]
    logp = logits - torch.logsumexp(logits, dim=-1, keepdim=True)
    q = torch.zeros_like(logp).scatter(1, target.view(-1, 1), 1.0) * (1 - eps) + eps / k
    per_sample = -(q * logp).sum(dim=-1)
    return {"mean": per_sample.mean, "sum": per_sample.sum, "none": lambda: per_sample}[reduction]()
''',
    "ex2_focal": '''
def focal_loss(logits, target, gamma=2.0, alpha=None, reduction="mean"):
    onehot = F.one_hot(target, logits.shape[-1]).to(logits.dtype)
    logpt = (F.log_softmax(logits, dim=-1) * onehot).sum(dim=-1)
    factor = torch.pow(-torch.expm1(logpt), gamma)
    weight = 1.0 if alpha is None else onehot @ alpha.to(device=logits.device, dtype=logits.dtype)
    loss = -weight * factor * logpt
    if reduction == "none":
        return loss
    return loss.sum() if reduction == "sum" else loss.sum() / loss.numel()
''',
    "ex3_predict_reduction": '''
SMOOTHED_LOSS_CAN_REACH_ZERO = bool(F.cross_entropy(torch.tensor([[100.0, -100.0]]), torch.tensor([0]),
                                                    label_smoothing=0.1) < 1e-6)
IGNORE_INDEX_MEAN_DIVIDES_BY = ["batch", "non-ignored"][1]
WEIGHTED_MEAN_DIVIDES_BY = "sum of " + "weights"
''',
    "ex4_soft_dice": '''
def soft_dice_loss(logits, target, eps=1.0):
    probs = torch.sigmoid(logits).flatten(1)
    tgt = target.to(probs.dtype).flatten(1)
    numerator = 2 * torch.einsum("bn,bn->b", probs, tgt) + eps
    denominator = probs.sum(-1) + tgt.sum(-1) + eps
    return (1 - numerator / denominator).mean()
''',
    "ex5_device_forward": '''
class CausalScores(nn.Module):
    def __init__(self, slope=0.5):
        super().__init__()
        self.slope = slope

    def forward(self, x):
        L, D = x.shape[-2], x.shape[-1]
        scores = torch.matmul(x, x.transpose(-1, -2)) * D ** -0.5
        idx = torch.arange(L, device=x.device)
        dist = (idx.view(1, L) - idx.view(L, 1)).abs().to(x.dtype)
        future = idx.view(1, L) > idx.view(L, 1)
        scores = (scores - self.slope * dist).masked_fill(future, float("-inf"))
        return torch.softmax(scores, dim=-1)
''',
    "ex6_buffer": '''
class WeightedCE(nn.Module):
    def __init__(self, class_weights):
        super().__init__()
        self.register_buffer("class_weights", torch.tensor(list(class_weights), dtype=torch.float32))

    def forward(self, logits, target):
        logp = F.log_softmax(logits, dim=-1).gather(-1, target.unsqueeze(-1)).squeeze(-1)
        w = self.class_weights.to(logits.dtype)[target]
        return -(w * logp).sum() / w.sum()
''',
}
