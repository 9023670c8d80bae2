"""Known-wrong and alternative answers for notebooks/junior/12_activations_and_metrics.ipynb."""

_GELU_TANH_OK = '''
def gelu_tanh(x):
    return 0.5 * x * (1.0 + torch.tanh(math.sqrt(2.0 / math.pi) * (x + 0.044715 * x ** 3)))
'''

_GELU_ERF_OK = '''
def gelu_erf(x):
    return 0.5 * x * (1.0 + torch.erf(x / math.sqrt(2.0)))
'''

_SILU_OK = '''
def silu(x):
    return x * torch.sigmoid(x)
'''

_ELU_OK = '''
def elu(x, alpha=1.0):
    return torch.where(x > 0, x, alpha * torch.expm1(x.clamp(max=0.0)))
'''

_SELU_OK = '''
def selu(x):
    return SELU_SCALE * elu(x, alpha=SELU_ALPHA)
'''

_LEAKY_OK = '''
def leaky_relu(x, negative_slope=0.01):
    return torch.where(x > 0, x, negative_slope * x)
'''

_PRELU_OK = '''
class PReLU(nn.Module):
    def __init__(self, num_parameters=1, init=0.25):
        super().__init__()
        self.weight = nn.Parameter(torch.full((num_parameters,), float(init)))

    def forward(self, x):
        slope = self.weight.reshape([1, -1] + [1] * (x.dim() - 2))
        return torch.where(x > 0, x, slope * x)
'''

_KNN_HEAD = '''
def knn_predict(train_x, train_y, query_x, k, metric="euclidean"):
    num_classes = int(train_y.max()) + 1
'''

WRONG = {
    "ex1_gelu": [
        ("shortcut: calls F.gelu for both forms", """
def gelu_erf(x):
    return F.gelu(x)


def gelu_tanh(x):
    return F.gelu(x, approximate="tanh")
"""),
        ("divides by 2 inside erf instead of by sqrt(2)", '''
def gelu_erf(x):
    return 0.5 * x * (1.0 + torch.erf(x / 2.0))
''' + _GELU_TANH_OK),
        ("writes the tanh approximation for the exact form too", '''
def gelu_erf(x):
    return 0.5 * x * (1.0 + torch.tanh(math.sqrt(2.0 / math.pi) * (x + 0.044715 * x ** 3)))
''' + _GELU_TANH_OK),
        ("uses the sigmoid(1.702 x) approximation as the tanh form", _GELU_ERF_OK + '''
def gelu_tanh(x):
    return x * torch.sigmoid(1.702 * x)
'''),
    ],
    "ex2_silu_elu_selu": [
        ("shortcut: calls F.silu, F.elu and F.selu", """
def silu(x):
    return F.silu(x)


def elu(x, alpha=1.0):
    return F.elu(x, alpha=alpha)


def selu(x):
    return F.selu(x)
"""),
        ("shortcut: only SELU by way of nn.SELU", _SILU_OK + _ELU_OK + """
def selu(x):
    return nn.SELU()(x)
"""),
        ("SiLU as x / (1 + exp(-x)): exp overflows at x = -100, the gradient is nan", '''
def silu(x):
    return x / (1.0 + torch.exp(-x))
''' + _ELU_OK + _SELU_OK),
        ("ELU with torch.where on an unclamped exp: the unused branch makes the gradient nan at x = 100",
         _SILU_OK + '''
def elu(x, alpha=1.0):
    return torch.where(x > 0, x, alpha * (torch.exp(x) - 1))
''' + _SELU_OK),
        ("ELU as the sum of two clamped pieces: right values, but the gradient at 0 is 1 + alpha", _SILU_OK + '''
def elu(x, alpha=1.0):
    return x.clamp(min=0) + alpha * torch.expm1(x.clamp(max=0))
''' + _SELU_OK),
        ("SELU with alpha and scale swapped", _SILU_OK + _ELU_OK + '''
def selu(x):
    return SELU_ALPHA * elu(x, alpha=SELU_SCALE)
'''),
        ("SELU scales only the negative branch", _SILU_OK + _ELU_OK + '''
def selu(x):
    return torch.where(x > 0, x, SELU_SCALE * SELU_ALPHA * torch.expm1(x.clamp(max=0)))
'''),
    ],
    "ex3_prelu": [
        ("shortcut: F.leaky_relu, and a PReLU that calls F.prelu", """
def leaky_relu(x, negative_slope=0.01):
    return F.leaky_relu(x, negative_slope)


class PReLU(nn.Module):
    def __init__(self, num_parameters=1, init=0.25):
        super().__init__()
        self.weight = nn.Parameter(torch.full((num_parameters,), float(init)))

    def forward(self, x):
        return F.prelu(x, self.weight)
"""),
        ("shortcut: PReLU subclasses nn.PReLU", _LEAKY_OK + """
class PReLU(nn.PReLU):
    pass
"""),
        ("keeps the slope as a plain tensor, not an nn.Parameter: it is never learned", _LEAKY_OK + '''
class PReLU(nn.Module):
    def __init__(self, num_parameters=1, init=0.25):
        super().__init__()
        self.weight = torch.full((num_parameters,), float(init), requires_grad=True)

    def forward(self, x):
        slope = self.weight.reshape([1, -1] + [1] * (x.dim() - 2))
        return torch.where(x > 0, x, slope * x)
'''),
        ("ignores init: every slope starts at 0.01", _LEAKY_OK + '''
class PReLU(nn.Module):
    def __init__(self, num_parameters=1, init=0.25):
        super().__init__()
        self.weight = nn.Parameter(torch.full((num_parameters,), 0.01))

    def forward(self, x):
        slope = self.weight.reshape([1, -1] + [1] * (x.dim() - 2))
        return torch.where(x > 0, x, slope * x)
'''),
        ("broadcasts the (C,) slope along the last dim instead of the channel dim", _LEAKY_OK + '''
class PReLU(nn.Module):
    def __init__(self, num_parameters=1, init=0.25):
        super().__init__()
        self.weight = nn.Parameter(torch.full((num_parameters,), float(init)))

    def forward(self, x):
        return torch.where(x > 0, x, self.weight * x)
'''),
        ("leaky ReLU puts 0 on the positive side: gradient 1 at x = 0", '''
def leaky_relu(x, negative_slope=0.01):
    return torch.where(x >= 0, x, negative_slope * x)
''' + _PRELU_OK),
    ],
    "ex4_confusion": [
        ("shortcut: scikit-learn's confusion_matrix", """
def confusion_matrix(targets, preds, num_classes):
    cm = sk_confusion_matrix(targets.cpu().numpy(), preds.cpu().numpy(), labels=list(range(num_classes)))
    return torch.as_tensor(cm, dtype=torch.long, device=targets.device)
"""),
        ("transposed: rows are the predictions", '''
def confusion_matrix(targets, preds, num_classes):
    return torch.bincount(preds * num_classes + targets, minlength=num_classes ** 2).reshape(num_classes, num_classes)
'''),
        ("infers the number of classes from the largest label seen", '''
def confusion_matrix(targets, preds, num_classes):
    n = int(torch.cat([targets, preds]).max()) + 1
    return torch.bincount(targets * n + preds, minlength=n * n).reshape(n, n)
'''),
        ("float counts from torch.histc", '''
def confusion_matrix(targets, preds, num_classes):
    flat = (targets * num_classes + preds).float()
    counts = torch.histc(flat, bins=num_classes ** 2, min=0, max=num_classes ** 2 - 1)
    return counts.reshape(num_classes, num_classes)
'''),
    ],
    "ex5_prf": [
        ("shortcut: rebuilds the labels and asks scikit-learn", """
def precision_recall_f1(cm):
    from sklearn.metrics import precision_recall_fscore_support

    c = cm.shape[0]
    counts = cm.cpu().flatten()
    pairs = torch.arange(c * c).repeat_interleave(counts)
    t, p = (pairs // c).numpy(), (pairs % c).numpy()
    prec, rec, f1, _ = precision_recall_fscore_support(t, p, labels=list(range(c)), zero_division=0)
    out = [torch.tensor(v, dtype=torch.float32, device=cm.device) for v in (prec, rec, f1)]
    return out[0], out[1], out[2], out[2].mean()
"""),
        ("precision and recall swapped (sums over the wrong dim)", '''
def precision_recall_f1(cm):
    cm = cm.float()
    tp = cm.diag()
    precision = tp / cm.sum(dim=1).clamp(min=1)
    recall = tp / cm.sum(dim=0).clamp(min=1)
    f1 = 2 * precision * recall / (precision + recall).clamp(min=1e-12)
    return precision, recall, f1, f1.mean()
'''),
        ("macro F1 as the harmonic mean of macro precision and macro recall", '''
def precision_recall_f1(cm):
    cm = cm.float()
    tp = cm.diag()
    precision = tp / cm.sum(dim=0).clamp(min=1)
    recall = tp / cm.sum(dim=1).clamp(min=1)
    f1 = 2 * precision * recall / (precision + recall).clamp(min=1e-12)
    p, r = precision.mean(), recall.mean()
    return precision, recall, f1, 2 * p * r / (p + r)
'''),
        ("no zero-division handling: nan for a class never predicted", '''
def precision_recall_f1(cm):
    cm = cm.float()
    tp = cm.diag()
    precision = tp / cm.sum(dim=0)
    recall = tp / cm.sum(dim=1)
    f1 = 2 * precision * recall / (precision + recall)
    return precision, recall, f1, f1.mean()
'''),
        ("macro F1 averaged only over the classes that occur", '''
def precision_recall_f1(cm):
    cm = cm.float()
    tp = cm.diag()
    precision = tp / cm.sum(dim=0).clamp(min=1)
    recall = tp / cm.sum(dim=1).clamp(min=1)
    f1 = 2 * precision * recall / (precision + recall).clamp(min=1e-12)
    return precision, recall, f1, f1[cm.sum(dim=1) > 0].mean()
'''),
    ],
    "ex6_box_iou": [
        # Fails here with ModuleNotFoundError (torchvision is not installed, and must not be); where it is, as on
        # Colab, with the by-hand message: tests/test_by_hand.py proves that with a stand-in torchvision.
        ("shortcut: calls torchvision.ops.box_iou", '''
def box_iou(a, b):
    from torchvision.ops import box_iou as library_box_iou

    return library_box_iou(a, b)
'''),
        ("the broken version unchanged", '''
def box_iou(a, b):
    area_a = (a[:, 2] - a[:, 0]) * (a[:, 3] - a[:, 1])
    area_b = (b[:, 2] - b[:, 0]) * (b[:, 3] - b[:, 1])
    top_left = torch.maximum(a[:, None, :2], b[None, :, :2])
    bottom_right = torch.minimum(a[:, None, 2:], b[None, :, 2:])
    wh = bottom_right - top_left
    inter = wh[..., 0] * wh[..., 1]
    return inter / (area_a[:, None] + area_b[None, :])
'''),
        ("fixes the union but not the clamp: boxes apart on a diagonal overlap 'positively'", '''
def box_iou(a, b):
    area_a = (a[:, 2] - a[:, 0]) * (a[:, 3] - a[:, 1])
    area_b = (b[:, 2] - b[:, 0]) * (b[:, 3] - b[:, 1])
    top_left = torch.maximum(a[:, None, :2], b[None, :, :2])
    bottom_right = torch.minimum(a[:, None, 2:], b[None, :, 2:])
    wh = bottom_right - top_left
    inter = wh[..., 0] * wh[..., 1]
    return inter / (area_a[:, None] + area_b[None, :] - inter)
'''),
        ("clamps the product instead of each side: one negative side times one positive side", '''
def box_iou(a, b):
    area_a = (a[:, 2] - a[:, 0]) * (a[:, 3] - a[:, 1])
    area_b = (b[:, 2] - b[:, 0]) * (b[:, 3] - b[:, 1])
    top_left = torch.maximum(a[:, None, :2], b[None, :, :2])
    bottom_right = torch.minimum(a[:, None, 2:], b[None, :, 2:])
    wh = bottom_right - top_left
    inter = (wh[..., 0] * wh[..., 1]).clamp(min=0)
    return inter / (area_a[:, None] + area_b[None, :] - inter)
'''),
        ("fixes the clamp but not the union", '''
def box_iou(a, b):
    area_a = (a[:, 2] - a[:, 0]) * (a[:, 3] - a[:, 1])
    area_b = (b[:, 2] - b[:, 0]) * (b[:, 3] - b[:, 1])
    top_left = torch.maximum(a[:, None, :2], b[None, :, :2])
    bottom_right = torch.minimum(a[:, None, 2:], b[None, :, 2:])
    wh = (bottom_right - top_left).clamp(min=0)
    inter = wh[..., 0] * wh[..., 1]
    return inter / (area_a[:, None] + area_b[None, :])
'''),
    ],
    "ex7_seg_iou": [
        ("shortcut: scikit-learn's jaccard_score per class", """
def per_class_iou(logits, target):
    import numpy as np
    from sklearn.metrics import jaccard_score

    c = logits.shape[1]
    pred = logits.argmax(dim=1).flatten().cpu().numpy()
    true = target.flatten().cpu().numpy()
    scores = jaccard_score(true, pred, labels=list(range(c)), average=None, zero_division=0)
    seen = np.isin(np.arange(c), np.concatenate([true, pred]))
    return torch.tensor(np.where(seen, scores, np.nan), dtype=torch.float32, device=logits.device)
"""),
        ("argmax over the last dim instead of the class dim", '''
def per_class_iou(logits, target):
    pred = logits.argmax(dim=-1)
    out = []
    for c in range(logits.shape[1]):
        p, t = pred == c, target == c
        out.append((p & t).sum().float() / (p | t).sum().float())
    return torch.stack(out)
'''),
        ("union as the sum of the two areas (the overlap counted twice)", '''
def per_class_iou(logits, target):
    pred = logits.argmax(dim=1)
    out = []
    for c in range(logits.shape[1]):
        p, t = pred == c, target == c
        out.append((p & t).sum().float() / (p.sum() + t.sum()).float())
    return torch.stack(out)
'''),
        ("absent classes get 0 instead of nan", '''
def per_class_iou(logits, target):
    pred = logits.argmax(dim=1)
    out = []
    for c in range(logits.shape[1]):
        p, t = pred == c, target == c
        out.append((p & t).sum().float() / (p | t).sum().float().clamp(min=1))
    return torch.stack(out)
'''),
        ("averages per-image IoUs instead of pooling the batch", '''
def per_class_iou(logits, target):
    pred = logits.argmax(dim=1)
    out = []
    for c in range(logits.shape[1]):
        p, t = pred == c, target == c
        per_image = (p & t).sum(dim=(1, 2)).float() / (p | t).sum(dim=(1, 2)).float()
        out.append(torch.nanmean(per_image))
    return torch.stack(out)
'''),
    ],
    "ex8_knn": [
        ("shortcut: scikit-learn's KNeighborsClassifier", """
def knn_predict(train_x, train_y, query_x, k, metric="euclidean"):
    from sklearn.neighbors import KNeighborsClassifier

    clf = KNeighborsClassifier(n_neighbors=k, metric=metric, algorithm="brute")
    clf.fit(train_x.cpu().numpy(), train_y.cpu().numpy())
    return torch.as_tensor(clf.predict(query_x.cpu().numpy()), dtype=torch.long, device=query_x.device)
"""),
        ("takes the k LARGEST distances (the farthest points)", _KNN_HEAD + '''
    if metric == "euclidean":
        idx = torch.cdist(query_x, train_x).topk(k, dim=1).indices
    else:
        idx = (F.normalize(query_x, dim=1) @ F.normalize(train_x, dim=1).T).topk(k, dim=1).indices
    return F.one_hot(train_y[idx], num_classes).sum(dim=1).argmax(dim=1)
'''),
        ("cosine without normalising: a raw dot product favours long vectors", _KNN_HEAD + '''
    if metric == "euclidean":
        idx = torch.cdist(query_x, train_x).topk(k, dim=1, largest=False).indices
    else:
        idx = (query_x @ train_x.T).topk(k, dim=1).indices
    return F.one_hot(train_y[idx], num_classes).sum(dim=1).argmax(dim=1)
'''),
        ("breaks vote ties by the label of the nearest neighbour, not the smallest label", _KNN_HEAD + '''
    if metric == "euclidean":
        idx = torch.cdist(query_x, train_x).topk(k, dim=1, largest=False).indices
    else:
        idx = (F.normalize(query_x, dim=1) @ F.normalize(train_x, dim=1).T).topk(k, dim=1).indices
    labels = train_y[idx]
    votes = F.one_hot(labels, num_classes).sum(dim=1)
    tied = votes == votes.max(dim=1, keepdim=True).values
    first = torch.gather(tied, 1, labels).float().argmax(dim=1)
    return labels.gather(1, first[:, None]).squeeze(1)
'''),
        ("ignores the metric: always Euclidean", _KNN_HEAD + '''
    idx = torch.cdist(query_x, train_x).topk(k, dim=1, largest=False).indices
    return F.one_hot(train_y[idx], num_classes).sum(dim=1).argmax(dim=1)
'''),
    ],
}

ALT = {
    "ex1_gelu": '''
def gelu_erf(x):
    # Phi(x) via the complementary error function, computed in float64 and cast back
    phi = 0.5 * torch.special.erfc(-x.double() / math.sqrt(2.0))
    return (x.double() * phi).to(x.dtype)


def gelu_tanh(x):
    c = math.sqrt(2.0 / math.pi)
    # 0.5 * (1 + tanh(u)) == sigmoid(2u)
    return x * torch.sigmoid(2.0 * c * (x + 0.044715 * x * x * x))
''',
    "ex2_silu_elu_selu": '''
def silu(x):
    return x * torch.special.expit(x)


def elu(x, alpha=1.0):
    pos = x > 0
    neg = alpha * (torch.exp(torch.where(pos, torch.zeros_like(x), x)) - 1.0)
    return torch.where(pos, x, neg)


def selu(x):
    alpha, scale = 1.6732632423543772848170429916717, 1.0507009873554804934193349852946
    return torch.where(x > 0, scale * x, scale * alpha * torch.expm1(x.clamp_max(0)))
''',
    "ex3_prelu": '''
def leaky_relu(x, negative_slope=0.01):
    return x * torch.where(x > 0, torch.ones_like(x), torch.full_like(x, negative_slope))


class PReLU(nn.Module):
    def __init__(self, num_parameters=1, init=0.25):
        super().__init__()
        self.weight = nn.Parameter(torch.empty(num_parameters))
        with torch.no_grad():
            self.weight.fill_(init)

    def forward(self, x):
        shape = [1] * x.dim()
        shape[1] = -1
        w = self.weight.view(shape)
        return x.clamp(min=0) * (x > 0) + w * x * (x <= 0)
''',
    "ex4_confusion": '''
def confusion_matrix(targets, preds, num_classes):
    cm = torch.zeros(num_classes, num_classes, dtype=torch.long, device=targets.device)
    cm.index_put_((targets, preds), torch.ones_like(targets), accumulate=True)
    return cm
''',
    "ex5_prf": '''
def precision_recall_f1(cm):
    cm = cm.double()
    tp = torch.diagonal(cm)
    predicted, actual = cm.sum(0), cm.sum(1)
    zero = torch.zeros_like(tp)
    precision = torch.where(predicted > 0, tp / predicted, zero)
    recall = torch.where(actual > 0, tp / actual, zero)
    # F1 = 2 TP / (2 TP + FP + FN), the same number without going through P and R
    denom = predicted + actual
    f1 = torch.where(denom > 0, 2 * tp / denom, zero)
    return precision.float(), recall.float(), f1.float(), f1.mean().float()
''',
    "ex6_box_iou": '''
def box_iou(a, b):
    ax1, ay1, ax2, ay2 = a.unbind(dim=1)
    bx1, by1, bx2, by2 = b.unbind(dim=1)
    iw = (torch.minimum(ax2[:, None], bx2[None]) - torch.maximum(ax1[:, None], bx1[None])).clamp(min=0)
    ih = (torch.minimum(ay2[:, None], by2[None]) - torch.maximum(ay1[:, None], by1[None])).clamp(min=0)
    inter = iw * ih
    union = ((ax2 - ax1) * (ay2 - ay1))[:, None] + ((bx2 - bx1) * (by2 - by1))[None] - inter
    return inter / union
''',
    "ex7_seg_iou": '''
def per_class_iou(logits, target):
    C = logits.shape[1]
    pred = logits.argmax(dim=1).flatten()
    true = target.flatten()
    inter = torch.bincount(true[pred == true], minlength=C)
    pred_count = torch.bincount(pred, minlength=C)
    true_count = torch.bincount(true, minlength=C)
    union = pred_count + true_count - inter
    return inter.float() / union.float()
''',
    "ex8_knn": '''
def knn_predict(train_x, train_y, query_x, k, metric="euclidean"):
    if metric == "cosine":
        d = 1.0 - F.cosine_similarity(query_x[:, None, :], train_x[None, :, :], dim=-1)
    else:
        d = ((query_x[:, None, :] - train_x[None, :, :]) ** 2).sum(-1)
    idx = d.argsort(dim=1)[:, :k]
    labels = train_y[idx]
    C = int(train_y.max()) + 1
    votes = torch.zeros(len(query_x), C, dtype=torch.long, device=query_x.device)
    votes.scatter_add_(1, labels, torch.ones_like(labels))
    # most votes first; among equal counts, the smallest label (score = votes * C - label)
    score = votes * C - torch.arange(C, device=query_x.device)
    return score.argmax(dim=1)
''',
}
