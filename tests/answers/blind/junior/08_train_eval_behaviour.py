"""Blind set for notebooks/junior/08_train_eval_behaviour.ipynb, written from release/ alone (issue 33)."""

SHORTCUT = {
    "ex2_dropout": ("calls F.dropout", """
def dropout(x, p, training):
    return torch.nn.functional.dropout(x, p=p, training=training)
"""),
    "ex5_batchnorm": ("calls F.batch_norm", """
def batchnorm_forward(x, weight, bias, running_mean, running_var, training, momentum=0.1, eps=1e-5):
    return torch.nn.functional.batch_norm(x, running_mean, running_var, weight, bias, training, momentum, eps)
"""),
}

WRONG = {
    "ex1_predict_dropout": ("thinks eval() stops gradient tracking", """
KEPT_VALUE = 2.0
EVAL_IS_IDENTITY = True
EVAL_DISABLES_GRAD = True
"""),
    "ex2_dropout": ("no special case for p == 1: 0 / 0 gives NaN instead of zeros", """
def dropout(x, p, training):
    if not training or p == 0:
        return x
    keep = (torch.rand_like(x) >= p).to(x.dtype)
    return x * keep / (1 - p)
"""),
    "ex3_predict": ("restores with model.train(): a mixed-mode model comes back all in training mode", """
def predict(model, x):
    was_training = model.training
    model.eval()
    try:
        with torch.no_grad():
            return model(x).argmax(dim=1)
    finally:
        model.train(was_training)
"""),
    "ex4_predict_bn": ("stores the biased variance in running_var", """
RUNNING_MEAN = [0.3, 0.2, 0.4]
RUNNING_VAR = [0.9 + 0.1 * 8 / 3, 0.9, 0.9 + 0.1 * 32 / 3]
TRAIN_OUT_COL0 = [-1.2247, 0.0, 1.2247]
"""),
    "ex5_batchnorm": ("updates running_var with the biased variance", """
def batchnorm_forward(x, weight, bias, running_mean, running_var, training, momentum=0.1, eps=1e-5):
    if training:
        mean, var = x.mean(dim=0), x.var(dim=0, unbiased=False)
        with torch.no_grad():
            running_mean.mul_(1 - momentum).add_(momentum * mean)
            running_var.mul_(1 - momentum).add_(momentum * var)
    else:
        mean, var = running_mean, running_var
    return (x - mean) / torch.sqrt(var + eps) * weight + bias
"""),
    "ex6_predict_batch_dependence": ("thinks BatchNorm accepts a batch of one in training mode", """
TRAIN_DEPENDS_ON_BATCH = True
EVAL_DEPENDS_ON_BATCH = False
BATCH_OF_ONE_RAISES = False
"""),
}

ALT = {
    "ex1_predict_dropout": """
KEPT_VALUE = 1 / (1 - 0.5)
EVAL_IS_IDENTITY = not False
EVAL_DISABLES_GRAD = False
""",
    "ex2_dropout": """
def dropout(x, p, training):
    if not training or p == 0:
        return x
    if p >= 1:
        return torch.zeros_like(x)
    keep = torch.bernoulli(torch.full_like(x, 1 - p))
    return x * keep * (1.0 / (1 - p))
""",
    "ex3_predict": """
def predict(model, x):
    modes = [(m, m.training) for m in model.modules()]
    for m, _ in modes:
        m.training = False
    try:
        with torch.inference_mode():
            return model(x).argmax(dim=-1)
    finally:
        for m, flag in modes:
            m.training = flag
""",
    "ex4_predict_bn": """
_n = BN_BATCH.shape[0]
RUNNING_MEAN = (0.1 * BN_BATCH.mean(0)).tolist()
RUNNING_VAR = (0.9 + 0.1 * BN_BATCH.var(0, unbiased=True)).tolist()
_c0 = BN_BATCH[:, 0]
TRAIN_OUT_COL0 = ((_c0 - _c0.mean()) / (((_c0 - _c0.mean()) ** 2).sum() / _n + 1e-5).sqrt()).tolist()
""",
    "ex5_batchnorm": """
def batchnorm_forward(x, weight, bias, running_mean, running_var, training, momentum=0.1, eps=1e-5):
    if training:
        n = x.shape[0]
        mean = x.sum(dim=0) / n
        var = ((x - mean) ** 2).sum(dim=0) / n
        with torch.no_grad():
            running_mean.lerp_(mean.detach(), momentum)
            running_var.lerp_(var.detach() * (n / (n - 1)), momentum)
    else:
        mean, var = running_mean, running_var
    return (x - mean) * torch.rsqrt(var + eps) * weight + bias
""",
    "ex6_predict_batch_dependence": """
TRAIN_DEPENDS_ON_BATCH, EVAL_DEPENDS_ON_BATCH, BATCH_OF_ONE_RAISES = True, False, True
""",
}
