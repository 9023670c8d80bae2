"""Blind set for notebooks/junior/12_activations_and_metrics.ipynb, written from release/ alone (issue 33)."""

SHORTCUT = {
    "ex1_gelu": ("calls F.gelu", """
def gelu_erf(x):
    return F.gelu(x)


def gelu_tanh(x):
    return F.gelu(x, approximate="tanh")
"""),
    "ex2_silu_elu_selu": ("calls F.silu, F.elu and F.selu", """
def silu(x):
    return F.silu(x)


def elu(x, alpha=1.0):
    return F.elu(x, alpha=alpha)


def selu(x):
    return F.selu(x)
"""),
    "ex3_prelu": ("calls F.leaky_relu and F.prelu", """
def leaky_relu(x, negative_slope=0.01):
    return F.leaky_relu(x, negative_slope)


class PReLU(nn.Module):
    def __init__(self, num_parameters=1, init=0.25):
        super().__init__()
        self.weight = nn.Parameter(torch.full((num_parameters,), float(init)))

    def forward(self, x):
        return F.prelu(x, self.weight)
"""),
    "ex4_confusion": ("calls scikit-learn's confusion_matrix", """
def confusion_matrix(targets, preds, num_classes):
    cm = sk_confusion_matrix(targets.cpu().numpy(), preds.cpu().numpy(), labels=list(range(num_classes)))
    return torch.as_tensor(cm, dtype=torch.long, device=targets.device)
"""),
    "ex5_prf": ("calls scikit-learn's precision_recall_fscore_support on the expanded labels", """
def precision_recall_f1(cm):
    c = cm.shape[0]
    rows, cols = torch.meshgrid(torch.arange(c), torch.arange(c), indexing="ij")
    counts = cm.cpu().flatten()
    t = rows.flatten().repeat_interleave(counts).numpy()
    p = cols.flatten().repeat_interleave(counts).numpy()
    pr, rc, f1, _ = precision_recall_fscore_support(t, p, labels=list(range(c)), zero_division=0)
    as_t = lambda a: torch.tensor(a, dtype=torch.float32, device=cm.device)
    return as_t(pr), as_t(rc), as_t(f1), as_t(f1).mean()
"""),
}

WRONG = {
    "ex1_gelu": ("divides by 2 inside erf instead of sqrt(2)", """
def gelu_erf(x):
    return 0.5 * x * (1 + torch.erf(x / 2))


def gelu_tanh(x):
    return 0.5 * x * (1 + torch.tanh(math.sqrt(2 / math.pi) * (x + 0.044715 * x ** 3)))
"""),
    "ex2_silu_elu_selu": ("adds two clamped pieces: at 0 both slopes pass", """
def silu(x):
    return x * torch.sigmoid(x)


def elu(x, alpha=1.0):
    return x.clamp(min=0) + alpha * torch.expm1(x.clamp(max=0))


def selu(x):
    return SELU_SCALE * elu(x, SELU_ALPHA)
"""),
    "ex3_prelu": ("a (C,) slope broadcast against the last dim, not dim 1", """
def leaky_relu(x, negative_slope=0.01):
    return torch.where(x > 0, x, negative_slope * x)


class PReLU(nn.Module):
    def __init__(self, num_parameters=1, init=0.25):
        super().__init__()
        self.weight = nn.Parameter(torch.full((num_parameters,), float(init)))

    def forward(self, x):
        return torch.where(x > 0, x, self.weight * x)
"""),
    "ex4_confusion": ("rows are the predictions: the matrix comes out transposed", """
def confusion_matrix(targets, preds, num_classes):
    idx = preds * num_classes + targets
    return torch.bincount(idx, minlength=num_classes ** 2).reshape(num_classes, num_classes)
"""),
    "ex5_prf": ("macro F1 as the F1 of the mean precision and mean recall", """
def precision_recall_f1(cm):
    tp = cm.diag().float()
    p = tp / cm.sum(dim=0).clamp(min=1).float()
    r = tp / cm.sum(dim=1).clamp(min=1).float()
    f1 = 2 * p * r / (p + r).clamp(min=1e-12)
    mp, mr = p.mean(), r.mean()
    return p, r, f1, 2 * mp * mr / (mp + mr).clamp(min=1e-12)
"""),
    "ex6_box_iou": ("clamps the overlap but still divides by the sum of the areas", """
def box_iou(a, b):
    area_a = (a[:, 2] - a[:, 0]) * (a[:, 3] - a[:, 1])
    area_b = (b[:, 2] - b[:, 0]) * (b[:, 3] - b[:, 1])
    wh = (torch.minimum(a[:, None, 2:], b[None, :, 2:]) - torch.maximum(a[:, None, :2], b[None, :, :2])).clamp(min=0)
    inter = wh[..., 0] * wh[..., 1]
    return inter / (area_a[:, None] + area_b[None, :])
"""),
    "ex7_seg_iou": ("averages per-image IoUs instead of pooling the pixels of the batch", """
def per_class_iou(logits, target):
    pred = logits.argmax(dim=1)
    classes = torch.arange(logits.shape[1], device=logits.device).view(-1, 1, 1, 1)
    p, t = pred[None] == classes, target[None] == classes  # (C, B, H, W)
    inter = (p & t).flatten(2).sum(-1).float()
    union = (p | t).flatten(2).sum(-1).float()
    return torch.nanmean(inter / union, dim=1).to(torch.float32)
"""),
    "ex8_knn": ("cosine as a plain dot product: long vectors look closer", """
def knn_predict(train_x, train_y, query_x, k, metric="euclidean"):
    if metric == "cosine":
        idx = (query_x @ train_x.T).topk(k, dim=1, largest=True).indices
    else:
        idx = torch.cdist(query_x, train_x).topk(k, dim=1, largest=False).indices
    votes = F.one_hot(train_y[idx], int(train_y.max()) + 1).sum(dim=1)
    return votes.argmax(dim=1)
"""),
}

ALT = {
    "ex1_gelu": """
def gelu_erf(x):
    return x * torch.special.ndtr(x)  # ndtr is the standard normal CDF, Phi


def gelu_tanh(x):
    # 0.5 * (1 + tanh(u)) == sigmoid(2 u)
    return x * torch.sigmoid(2 * math.sqrt(2 / math.pi) * (x + 0.044715 * x * x * x))
""",
    "ex2_silu_elu_selu": """
def silu(x):
    return x * 0.5 * (1 + torch.tanh(0.5 * x))


def elu(x, alpha=1.0):
    # relu has slope 0 at 0 and clamp(max=0) slope 1 there: the negative branch's gradient alone
    return torch.relu(x) + alpha * torch.expm1(x.clamp(max=0))


def selu(x):
    return SELU_SCALE * elu(x, alpha=SELU_ALPHA)
""",
    "ex3_prelu": """
def leaky_relu(x, negative_slope=0.01):
    return x * torch.where(x > 0, torch.ones_like(x), torch.full_like(x, negative_slope))


class PReLU(nn.Module):
    def __init__(self, num_parameters=1, init=0.25):
        super().__init__()
        self.register_parameter("weight", nn.Parameter(torch.empty(num_parameters).fill_(init)))

    def forward(self, x):
        slope = self.weight.reshape(1, -1, *([1] * (x.dim() - 2)))
        return x * torch.where(x > 0, torch.ones_like(x), slope.to(x.dtype).expand_as(x))
""",
    "ex4_confusion": """
def confusion_matrix(targets, preds, num_classes):
    cm = torch.zeros(num_classes, num_classes, dtype=torch.long, device=targets.device)
    cm.index_put_((targets, preds), torch.ones_like(targets, dtype=torch.long), accumulate=True)
    return cm
""",
    "ex5_prf": """
def precision_recall_f1(cm):
    cmf = cm.to(torch.float32)
    tp, predicted, actual = cmf.diag(), cmf.sum(dim=0), cmf.sum(dim=1)
    p = torch.nan_to_num(tp / predicted, nan=0.0)
    r = torch.nan_to_num(tp / actual, nan=0.0)
    f1 = torch.nan_to_num(2 * tp / (predicted + actual), nan=0.0)  # 2PR/(P+R) = 2TP/(2TP+FP+FN)
    return p, r, f1, f1.mean()
""",
    "ex6_box_iou": """
def box_iou(a, b):
    ax1, ay1, ax2, ay2 = (c[:, None] for c in a.unbind(dim=1))
    bx1, by1, bx2, by2 = (c[None, :] for c in b.unbind(dim=1))
    iw = torch.relu(torch.minimum(ax2, bx2) - torch.maximum(ax1, bx1))
    ih = torch.relu(torch.minimum(ay2, by2) - torch.maximum(ay1, by1))
    inter = iw * ih
    union = (ax2 - ax1) * (ay2 - ay1) + (bx2 - bx1) * (by2 - by1) - inter
    return inter / union
""",
    "ex7_seg_iou": """
def per_class_iou(logits, target):
    c = logits.shape[1]
    pred = logits.argmax(dim=1)
    cm = torch.bincount((target * c + pred).flatten(), minlength=c * c).reshape(c, c)
    inter = cm.diag()
    union = cm.sum(dim=0) + cm.sum(dim=1) - inter
    return (inter.to(torch.float32) / union.to(torch.float32)).to(logits.device)
""",
    "ex8_knn": """
def knn_predict(train_x, train_y, query_x, k, metric="euclidean"):
    if metric == "cosine":
        sim = F.cosine_similarity(query_x[:, None, :], train_x[None, :, :], dim=-1)
        idx = sim.argsort(dim=1, descending=True)[:, :k]
    else:
        idx = ((query_x[:, None, :] - train_x[None, :, :]) ** 2).sum(-1).argsort(dim=1)[:, :k]
    n_classes = int(train_y.max()) + 1
    q = query_x.shape[0]
    rows = torch.arange(q, device=query_x.device)[:, None].expand(q, k)
    labels = train_y.to(query_x.device)[idx]
    votes = torch.bincount((rows * n_classes + labels).flatten(), minlength=q * n_classes).reshape(q, n_classes)
    return votes.argmax(dim=1)
""",
}
