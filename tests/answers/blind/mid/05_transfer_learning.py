"""Blind set for notebooks/mid/05_transfer_learning.ipynb, written from release/ alone (issue 33)."""

WRONG = {
    "ex1_prepare": ("builds the new head on the default device, not the model's", '''
def prepare_for_finetune(model, num_classes):
    for p in model.backbone.parameters():
        p.requires_grad = False
    model.head = nn.Linear(model.head.in_features, num_classes)
    return model
'''),
    "ex2_groups": ("puts only the trainable backbone parameters in the optimizer", '''
def make_optimizer(model, backbone_lr, head_lr):
    return torch.optim.SGD([
        {"params": [p for p in model.backbone.parameters() if p.requires_grad], "lr": backbone_lr},
        {"params": list(model.head.parameters()), "lr": head_lr},
    ], lr=head_lr, momentum=0.9)
'''),
    "ex3_unfreeze": ("slices [-n:], so n=0 unfreezes every layer", '''
def unfreeze_last(model, n):
    linears = [m for m in model.backbone.modules() if isinstance(m, nn.Linear)]
    for layer in linears[-n:]:
        layer.requires_grad_(True)
    return model
'''),
    "ex4_schedule": ("does not clip the progress, so past T the cosine climbs again", '''
def warmup_cosine(warmup_steps, total_steps, min_ratio=0.0):
    def f(step):
        if step < warmup_steps:
            return (step + 1) / warmup_steps
        p = (step - warmup_steps) / max(1, total_steps - warmup_steps)
        return min_ratio + (1 - min_ratio) * 0.5 * (1 + math.cos(math.pi * p))
    return f
'''),
    "ex5_loop": ("never clears the gradients (right learning rates, wrong weights)", '''
def train_with_schedule(model, opt, sched, batches, loss_fn):
    losses = []
    for x, y in batches:
        loss = loss_fn(model(x), y)
        loss.backward()
        opt.step()
        sched.step()
        losses.append(loss.item())
    return losses
'''),
    "ex6_predict": ("thinks Xavier keeps the variance under ReLU (forgets the ReLU's 1/2)", '''
DEFAULT_INIT_TREND = "shrink"
XAVIER_RELU_FACTOR = 1.0
'''),
    "ex7_init": ("uses Kaiming in fan_out mode (preserves the backward pass, not the forward one)", '''
def init_weights(model, nonlinearity):
    for m in model.modules():
        if isinstance(m, nn.Linear):
            if nonlinearity == "relu":
                nn.init.kaiming_normal_(m.weight, mode="fan_out", nonlinearity="relu")
            else:
                nn.init.xavier_normal_(m.weight, gain=1.0)
            if m.bias is not None:
                nn.init.zeros_(m.bias)
    return model
'''),
}

ALT = {
    "ex1_prepare": '''
def prepare_for_finetune(model, num_classes):
    model.backbone.requires_grad_(False)
    old = model.head
    model.head = nn.Linear(old.in_features, num_classes, device=old.weight.device, dtype=old.weight.dtype)
    return model
''',
    "ex2_groups": '''
def make_optimizer(model, backbone_lr, head_lr):
    named = dict(model.named_parameters())
    backbone = [p for name, p in named.items() if name.startswith("backbone.")]
    head = [p for name, p in named.items() if name.startswith("head.")]
    opt = torch.optim.SGD([{"params": backbone}], lr=backbone_lr, momentum=0.9)
    opt.add_param_group({"params": head, "lr": head_lr})
    return opt
''',
    "ex3_unfreeze": '''
def unfreeze_last(model, n):
    remaining = n
    for layer in reversed(list(model.backbone.modules())):
        if remaining <= 0:
            break
        if isinstance(layer, nn.Linear):
            for p in layer.parameters():
                p.requires_grad = True
            remaining -= 1
    return model
''',
    "ex4_schedule": '''
import functools


def _multiplier(step, warmup_steps, total_steps, min_ratio):
    if step < warmup_steps:
        return (step + 1) / warmup_steps
    span = max(1, total_steps - warmup_steps)
    progress = min(step - warmup_steps, span) / span
    return min_ratio + (1 - min_ratio) * (1 + math.cos(math.pi * progress)) / 2


def warmup_cosine(warmup_steps, total_steps, min_ratio=0.0):
    return functools.partial(_multiplier, warmup_steps=warmup_steps, total_steps=total_steps,
                             min_ratio=min_ratio)
''',
    "ex5_loop": '''
def train_with_schedule(model, opt, sched, batches, loss_fn):
    kept = []
    for inputs, targets in batches:
        opt.zero_grad(set_to_none=True)
        loss = loss_fn(model(inputs), targets)
        loss.backward()
        opt.step()
        sched.step()
        kept.append(loss.detach())
    return [float(v) for v in kept]
''',
    "ex6_predict": '''
_fan = 256
DEFAULT_INIT_TREND = "Shrink " if _fan * (1 / (3 * _fan)) / 2 < 1 else "grow"
XAVIER_RELU_FACTOR = _fan * (2 / (_fan + _fan)) / 2
''',
    "ex7_init": '''
def init_weights(model, nonlinearity):
    with torch.no_grad():
        for layer in [m for m in model.modules() if isinstance(m, nn.Linear)]:
            fan_out, fan_in = layer.weight.shape
            var = 2.0 / fan_in if nonlinearity == "relu" else 2.0 / (fan_in + fan_out)
            bound = math.sqrt(3.0 * var)
            layer.weight.uniform_(-bound, bound)
            if layer.bias is not None:
                layer.bias.zero_()
    return model
''',
}
