"""Known-wrong and alternative answers for notebooks/junior/04_losses_and_optimizers.ipynb."""

from functools import partial

from tests.answers import edited, reference

_ref = partial(reference, "junior/04_losses_and_optimizers")

WRONG = {
    "ex1_cross_entropy": [
        ("takes log(softmax(z)) directly: overflows for large logits",
         "def cross_entropy(logits, target, reduction='mean'):\n"
         "    e = torch.exp(logits)\n    p = e / e.sum(1, keepdim=True)\n"
         "    per = -torch.log(p.gather(1, target[:, None]).squeeze(1))\n"
         "    return {'none': per, 'sum': per.sum()}.get(reduction, per.mean())\n"),
        ("shortcut: calls F.cross_entropy", "def cross_entropy(logits, target, reduction='mean'):\n"
         "    return F.cross_entropy(logits, target, reduction=reduction)\n"),
        ("shortcut: F.nll_loss of F.log_softmax (the library's cross-entropy in two calls)",
         "def cross_entropy(logits, target, reduction='mean'):\n"
         "    return F.nll_loss(F.log_softmax(logits, dim=1), target, reduction=reduction)\n"),
        ("ignores the reduction argument",
         "def cross_entropy(logits, target, reduction='mean'):\n"
         "    return (torch.logsumexp(logits, 1) - logits.gather(1, target[:, None]).squeeze(1)).mean()\n"),
    ],
    "ex2_digit_model": [
        ("keeps nn.Softmax before cross_entropy",
         "def make_digit_model():\n"
         "    return nn.Sequential(nn.Linear(64, 32), nn.ReLU(), nn.Linear(32, 10), nn.Softmax(dim=1))\n\n\n"
         "def predict_proba(model, x):\n    with torch.no_grad():\n        return model(x)\n"),
        ("predict_proba returns the logits",
         "def make_digit_model():\n    return nn.Sequential(nn.Linear(64, 32), nn.ReLU(), nn.Linear(32, 10))\n\n\n"
         "def predict_proba(model, x):\n    with torch.no_grad():\n        return model(x)\n"),
        ("predict_proba records an autograd graph (the statement asks for none)",
         edited(_ref("ex2_digit_model"), """    with torch.no_grad():
        return torch.softmax(model(x), dim=1)""", """    return torch.softmax(model(x), dim=1)""")),
    ],
    "ex3_bce_predict": [
        ("thinks sigmoid + BCE is just as accurate",
         "SIGMOID_BCE_LOSS = 200.0\nSIGMOID_BCE_GRAD = -1.0\nLOGITS_BCE_LOSS = 200.0\nLOGITS_BCE_GRAD = -1.0\n"),
        ("thinks the clamped loss still has a gradient",
         "SIGMOID_BCE_LOSS = 100.0\nSIGMOID_BCE_GRAD = -1.0\nLOGITS_BCE_LOSS = 200.0\nLOGITS_BCE_GRAD = -1.0\n"),
    ],
    "ex4_bce_with_logits": [
        ("shortcut: calls F.binary_cross_entropy_with_logits",
         "def bce_with_logits(z, y):\n    return F.binary_cross_entropy_with_logits(z, y)\n"),
        ("log(sigmoid(z)): inf for confidently wrong logits",
         "def bce_with_logits(z, y):\n    s = torch.sigmoid(z)\n"
         "    return -(y * torch.log(s) + (1 - y) * torch.log(1 - s)).mean()\n"),
        ("sigmoid then F.binary_cross_entropy: finite but clamped",
         "def bce_with_logits(z, y):\n    return F.binary_cross_entropy(torch.sigmoid(z), y)\n"),
        ("max/abs textbook form: right values, but the kinks at z = 0 give the gradient 1 - y instead of 0.5 - y",
         "def bce_with_logits(z, y):\n"
         "    return (z.clamp_min(0) - z * y + torch.log1p(torch.exp(-z.abs()))).mean()\n"),
    ],
    "ex5_step_predict": [
        ("thinks Adam's step scales with the gradient like SGD",
         "SGD_W1 = 1.4\nMOMENTUM_W2 = 2.08\nADAM_W1 = 1.4\nADAM_W1_SCALED = 401.0\nUNUSED_W1 = 5.0\n"),
        ("forgets the momentum buffer on the second step",
         "SGD_W1 = 1.4\nMOMENTUM_W2 = 1.72\nADAM_W1 = 1.1\nADAM_W1_SCALED = 1.1\nUNUSED_W1 = 5.0\n"),
    ],
    "ex6_sgd_momentum": [
        ("shortcut: steps a torch.optim.SGD built on the parameters",
         "def sgd_momentum_step(params, bufs, lr, momentum, weight_decay=0.0):\n"
         "    opt = torch.optim.SGD(params, lr=lr, momentum=momentum, weight_decay=weight_decay)\n"
         "    for p, buf in zip(params, bufs):\n        if buf is not None:\n"
         "            opt.state[p]['momentum_buffer'] = buf\n"
         "    opt.step()\n    return [opt.state[p].get('momentum_buffer') for p in params]\n"),
        ("uses an exponential moving average (1 - momentum) * grad, which torch's SGD does not",
         "def sgd_momentum_step(params, bufs, lr, momentum, weight_decay=0.0):\n    new_bufs = []\n"
         "    with torch.no_grad():\n        for p, buf in zip(params, bufs):\n"
         "            d_p = p.grad + weight_decay * p\n"
         "            buf = (1 - momentum) * d_p if buf is None else momentum * buf + (1 - momentum) * d_p\n"
         "            p -= lr * buf\n            new_bufs.append(buf)\n    return new_bufs\n"),
        ("rebinds p instead of updating it in place: nothing trains",
         "def sgd_momentum_step(params, bufs, lr, momentum, weight_decay=0.0):\n    new_bufs = []\n"
         "    with torch.no_grad():\n        for p, buf in zip(params, bufs):\n"
         "            d_p = p.grad + weight_decay * p\n"
         "            buf = d_p.clone() if buf is None else momentum * buf + d_p\n"
         "            p = p - lr * buf\n            new_bufs.append(buf)\n    return new_bufs\n"),
        ("ignores weight decay",
         "def sgd_momentum_step(params, bufs, lr, momentum, weight_decay=0.0):\n    new_bufs = []\n"
         "    with torch.no_grad():\n        for p, buf in zip(params, bufs):\n            if p.grad is None:\n"
         "                new_bufs.append(buf)\n                continue\n"
         "            buf = p.grad.clone() if buf is None else momentum * buf + p.grad\n"
         "            p -= lr * buf\n            new_bufs.append(buf)\n    return new_bufs\n"),
    ],
}

ALT = {
    "ex1_cross_entropy": (
        "def cross_entropy(logits, target, reduction='mean'):\n"
        "    # minus the log-probability of the true class, from log_softmax\n"
        "    per = -F.log_softmax(logits, dim=1)[torch.arange(len(target)), target]\n"
        "    return {'none': per, 'sum': per.sum(), 'mean': per.mean()}[reduction]\n"
    ),
    "ex2_digit_model": (
        "def make_digit_model():\n"
        "    # log-probabilities also work: log_softmax of log_softmax is itself\n"
        "    return nn.Sequential(nn.Linear(64, 32), nn.ReLU(), nn.Linear(32, 10), nn.LogSoftmax(dim=1))\n\n\n"
        "@torch.inference_mode()\ndef predict_proba(model, x):\n    return model(x).exp()\n"
    ),
    "ex3_bce_predict": (
        "import math\n\nSIGMOID_BCE_LOSS = 100.0\nSIGMOID_BCE_GRAD = 0.0\n"
        "LOGITS_BCE_LOSS = 200.0 + math.log1p(math.exp(-200.0))  # log(1 + e^200)\n"
        "LOGITS_BCE_GRAD = 1 / (1 + math.exp(200.0)) - 1\n"
    ),
    "ex4_bce_with_logits": ("def bce_with_logits(z, y):\n"
                            "    return -(y * F.logsigmoid(z) + (1 - y) * F.logsigmoid(-z)).mean()\n"),
    "ex5_step_predict": (
        "SGD_W1 = 1 - 0.1 * (-4)\n_buf = -4.0\n_w = 1 + 0.4\n_buf = 0.9 * _buf + 2 * (_w - 3)\n"
        "MOMENTUM_W2 = _w - 0.1 * _buf\nADAM_W1 = ADAM_W1_SCALED = 1.0 + 0.1\nUNUSED_W1 = 5.0\n"
    ),
    "ex6_sgd_momentum": (
        "def sgd_momentum_step(params, bufs, lr, momentum, weight_decay=0.0):\n    new_bufs = []\n"
        "    for p, buf in zip(params, bufs):\n        if p.grad is None:\n            new_bufs.append(buf)\n"
        "            continue\n        with torch.no_grad():\n"
        "            buf = torch.zeros_like(p) if buf is None else buf\n"
        "            buf = buf.mul(momentum).add(p.grad).add(p, alpha=weight_decay)\n"
        "            p.add_(buf, alpha=-lr)\n        new_bufs.append(buf)\n    return new_bufs\n"
    ),
}
