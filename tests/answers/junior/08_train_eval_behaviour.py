"""Known-wrong and alternative answers for notebooks/junior/08_train_eval_behaviour.ipynb."""

WRONG = {
    "ex1_predict_dropout": [
        ("believes dropout only zeroes, and that eval() turns off autograd", '''
KEPT_VALUE = 1.0
EVAL_IS_IDENTITY = True
EVAL_DISABLES_GRAD = True
'''),
    ],
    "ex2_dropout": [
        ("shortcut: calls F.dropout", """
def dropout(x, p, training):
    return torch.nn.functional.dropout(x, p, training)
"""),
        ("shortcut: an nn.Dropout module", """
def dropout(x, p, training):
    return nn.Dropout(p).train(training)(x)
"""),
        ("zeroes without rescaling the survivors", '''
def dropout(x, p, training):
    if not training:
        return x
    return x * (torch.rand_like(x) >= p).to(x.dtype)
'''),
        ("keeps each element with probability p instead of dropping it", '''
def dropout(x, p, training):
    if not training or p == 0:
        return x
    if p == 1:
        return torch.zeros_like(x)
    return x * (torch.rand_like(x) < p).to(x.dtype) / (1 - p)
'''),
        ("draws the mask with NumPy's RNG: torch.manual_seed does not make it reproducible", '''
def dropout(x, p, training):
    if not training or p == 0:
        return x
    if p == 1:
        return torch.zeros_like(x)
    keep = torch.from_numpy(np.random.rand(*x.shape) >= p).to(device=x.device, dtype=x.dtype)
    return x * keep / (1 - p)
'''),
    ],
    "ex3_predict": [
        ("leaves dropout on (the original bug)", '''
def predict(model, x):
    logits = model(x)
    return logits.argmax(dim=1)
'''),
        ("switches to eval mode and never switches back", '''
def predict(model, x):
    model.eval()
    with torch.no_grad():
        return model(x).argmax(dim=1)
'''),
        ("restores only the model's own flag: model.train(was) switches a frozen BatchNorm back to training", '''
def predict(model, x):
    was_training = model.training
    model.eval()
    try:
        with torch.no_grad():
            return model(x).argmax(dim=1)
    finally:
        model.train(was_training)
'''),
    ],
    "ex4_predict_bn": [
        ("stores the biased variance in running_var", '''
RUNNING_MEAN = [0.3, 0.2, 0.4]
RUNNING_VAR = [0.9 + 0.1 * 8 / 3, 0.9, 0.9 + 0.1 * 32 / 3]
TRAIN_OUT_COL0 = [-1.2247, 0.0, 1.2247]
'''),
        ("weights the old value by momentum instead of the new one", '''
RUNNING_MEAN = [2.7, 1.8, 3.6]
RUNNING_VAR = [3.7, 0.1, 14.5]
TRAIN_OUT_COL0 = [-1.0, 0.0, 1.0]
'''),
    ],
    "ex5_batchnorm": [
        ("shortcut: calls F.batch_norm", """
def batchnorm_forward(x, weight, bias, running_mean, running_var, training, momentum=0.1, eps=1e-5):
    return torch.nn.functional.batch_norm(x, running_mean, running_var, weight, bias, training, momentum, eps)
"""),
        ("normalises with the unbiased variance", '''
def batchnorm_forward(x, weight, bias, running_mean, running_var, training, momentum=0.1, eps=1e-5):
    if training:
        mean, var = x.mean(dim=0), x.var(dim=0)
        with torch.no_grad():
            running_mean.mul_(1 - momentum).add_(momentum * mean)
            running_var.mul_(1 - momentum).add_(momentum * var)
    else:
        mean, var = running_mean, running_var
    return (x - mean) / torch.sqrt(var + eps) * weight + bias
'''),
        ("uses batch statistics in eval mode too", '''
def batchnorm_forward(x, weight, bias, running_mean, running_var, training, momentum=0.1, eps=1e-5):
    mean = x.mean(dim=0)
    var = x.var(dim=0, unbiased=False)
    if training:
        with torch.no_grad():
            n = x.shape[0]
            running_mean.mul_(1 - momentum).add_(momentum * mean)
            running_var.mul_(1 - momentum).add_(momentum * var * n / (n - 1))
    return (x - mean) / torch.sqrt(var + eps) * weight + bias
'''),
        ("updates the running statistics outside torch.no_grad(): with an input that requires grad they "
         "join the autograd graph", '''
def batchnorm_forward(x, weight, bias, running_mean, running_var, training, momentum=0.1, eps=1e-5):
    if training:
        n = x.shape[0]
        mean = x.mean(dim=0)
        var = x.var(dim=0, unbiased=False)
        running_mean.mul_(1 - momentum).add_(momentum * mean)
        running_var.mul_(1 - momentum).add_(momentum * var * n / (n - 1))
    else:
        mean, var = running_mean, running_var
    return (x - mean) / torch.sqrt(var + eps) * weight + bias
'''),
    ],
    "ex6_predict_batch_dependence": [
        ("thinks BatchNorm treats every row on its own in both modes", '''
TRAIN_DEPENDS_ON_BATCH = False
EVAL_DEPENDS_ON_BATCH = False
BATCH_OF_ONE_RAISES = False
'''),
    ],
}

ALT = {
    "ex1_predict_dropout": '''
KEPT_VALUE = 1 / (1 - 0.5)
EVAL_IS_IDENTITY = not False
EVAL_DISABLES_GRAD = bool(0)
''',
    "ex2_dropout": '''
def dropout(x, p, training):
    if not training:
        return x
    if p >= 1:
        return x * 0
    keep = torch.bernoulli(torch.full_like(x, 1 - p))
    return torch.where(keep.bool(), x / (1 - p), torch.zeros_like(x))
''',
    "ex3_predict": '''
def predict(model, x):
    modes = [(m, m.training) for m in model.modules()]  # parents come before their children
    model.train(False)
    with torch.inference_mode():
        classes = torch.max(model(x), dim=1).indices
    for m, mode in modes:
        m.train(mode)
    return classes
''',
    "ex4_predict_bn": '''
_mean = BN_BATCH.mean(dim=0)
RUNNING_MEAN = (0.1 * _mean).tolist()
RUNNING_VAR = (0.9 + 0.1 * BN_BATCH.var(dim=0, unbiased=True)).tolist()
TRAIN_OUT_COL0 = ((BN_BATCH[:, 0] - _mean[0]) / BN_BATCH[:, 0].var(unbiased=False).sqrt()).tolist()
''',
    "ex5_batchnorm": '''
def batchnorm_forward(x, weight, bias, running_mean, running_var, training, momentum=0.1, eps=1e-5):
    if not training:
        scale = weight / (running_var + eps).sqrt()
        return x * scale + (bias - running_mean * scale)
    n = x.shape[0]
    mean = x.sum(dim=0) / n
    centered = x - mean
    var = (centered ** 2).sum(dim=0) / n
    out = centered * torch.rsqrt(var + eps) * weight + bias
    with torch.no_grad():
        running_mean.copy_((1 - momentum) * running_mean + momentum * mean)
        running_var.copy_((1 - momentum) * running_var + momentum * var * n / (n - 1))
    return out
''',
    "ex6_predict_batch_dependence": '''
TRAIN_DEPENDS_ON_BATCH = 1 == 1
EVAL_DEPENDS_ON_BATCH = 1 == 0
BATCH_OF_ONE_RAISES = not False
''',
}

WRONG["ex2_dropout"].append(("draws the mask with torch.rand(x.shape): always on the CPU, whatever x's device", '''
def dropout(x, p, training):
    if not training or p == 0:
        return x
    if p == 1:
        return torch.zeros_like(x)
    keep = (torch.rand(x.shape) >= p).to(x.dtype)
    return x * keep / (1 - p)
'''))
