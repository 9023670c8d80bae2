"""Blind set for notebooks/mid/06_accumulation_and_clipping.ipynb, written from release/ alone (issue 33)."""

SHORTCUT = {
    "ex4_clip": ("calls torch.nn.utils.clip_grad_norm_", '''
def clip_global_norm_(parameters, max_norm):
    return torch.nn.utils.clip_grad_norm_(parameters, max_norm)
'''),
    "ex6_adam": ("keeps a torch.optim.Adam in the state and steps it", '''
def adam_step(param, grad, state, lr=1e-3, betas=(0.9, 0.999), eps=1e-8):
    if "opt" not in state:
        state["opt"] = torch.optim.Adam([param], lr=lr, betas=betas, eps=eps)
    param.grad = grad
    state["opt"].step()
    inner = state["opt"].state[param]
    state["step"] = int(inner["step"])
    state["exp_avg"], state["exp_avg_sq"] = inner["exp_avg"], inner["exp_avg_sq"]
'''),
}

WRONG = {
    "ex1_accum": ("does not scale the micro-batch losses by 1 / accum_steps", '''
def accumulated_backward(model, x, y, accum_steps):
    assert len(x) % accum_steps == 0, "the batch must split into equal micro-batches"
    model.zero_grad()
    total = 0.0
    for xb, yb in zip(x.chunk(accum_steps), y.chunk(accum_steps)):
        loss = F.cross_entropy(model(xb), yb)
        loss.backward()
        total += loss.item() / accum_steps
    return total
'''),
    "ex2_loop": ("divides the short last group's losses by accum_steps, not by its own size", '''
def train_accumulated(model, opt, micro_batches, accum_steps):
    opt.zero_grad()
    steps, n = 0, len(micro_batches)
    for i, (xb, yb) in enumerate(micro_batches):
        (F.cross_entropy(model(xb), yb) / accum_steps).backward()
        if (i + 1) % accum_steps == 0 or i == n - 1:
            opt.step()
            opt.zero_grad()
            steps += 1
    return steps
'''),
    "ex3_predict": ("forgets that data parallelism also divides the steps per epoch", '''
EFFECTIVE_BATCH = 512
STEPS_PER_EPOCH = 64
'''),
    "ex4_clip": ("clips each tensor by its own norm", '''
def clip_global_norm_(parameters, max_norm):
    params = [p for p in parameters if p.grad is not None]
    total = torch.linalg.vector_norm(torch.stack([torch.linalg.vector_norm(p.grad) for p in params]))
    for p in params:
        n = torch.linalg.vector_norm(p.grad)
        if n > max_norm:
            p.grad.mul_(max_norm / (n + 1e-6))
    return total
'''),
    "ex5_predict": ("adds the clipped values instead of taking the L2 norm", '''
NORM_AFTER_NORM_CLIP = 6.5
NORM_AFTER_VALUE_CLIP = 3.0
KEEPS_DIRECTION = "norm"
'''),
    "ex6_adam": ("drops the bias correction", '''
def adam_step(param, grad, state, lr=1e-3, betas=(0.9, 0.999), eps=1e-8):
    if not state:
        state["step"] = 0
        state["exp_avg"] = torch.zeros_like(param)
        state["exp_avg_sq"] = torch.zeros_like(param)
    b1, b2 = betas
    state["step"] += 1
    state["exp_avg"] = b1 * state["exp_avg"] + (1 - b1) * grad
    state["exp_avg_sq"] = b2 * state["exp_avg_sq"] + (1 - b2) * grad * grad
    param.sub_(lr * state["exp_avg"] / (state["exp_avg_sq"].sqrt() + eps))
'''),
    "ex7_predict": ("thinks scaling every gradient by 0.01 changes Adam's trajectory", '''
ADAM_CHANGES = True
SGD_CHANGES = True
ADAM_FIRST_STEP = 0.01
'''),
}

ALT = {
    "ex1_accum": '''
def accumulated_backward(model, x, y, accum_steps):
    assert len(x) % accum_steps == 0, "the batch must split into equal micro-batches"
    for p in model.parameters():
        p.grad = None
    size = len(x) // accum_steps
    parts = []
    for xb, yb in zip(torch.split(x, size), torch.split(y, size)):
        part = F.cross_entropy(model(xb), yb, reduction="sum") / len(x)
        part.backward()
        parts.append(part.item())
    return float(sum(parts))
''',
    "ex2_loop": '''
def train_accumulated(model, opt, micro_batches, accum_steps):
    opt.zero_grad()
    groups = [micro_batches[i:i + accum_steps] for i in range(0, len(micro_batches), accum_steps)]
    for group in groups:
        for xb, yb in group:
            F.cross_entropy(model(xb), yb).div(len(group)).backward()
        opt.step()
        opt.zero_grad()
    return len(groups)
''',
    "ex3_predict": '''
_per_step = 16 * 8 * 4
EFFECTIVE_BATCH = _per_step
STEPS_PER_EPOCH = 8192 // _per_step
''',
    "ex4_clip": '''
def clip_global_norm_(parameters, max_norm):
    grads = [p.grad for p in list(parameters) if p.grad is not None]
    if not grads:
        return torch.tensor(0.0)
    squares = torch.stack([(g.detach().double() ** 2).sum() for g in grads])
    total = squares.sum().sqrt().to(grads[0].dtype)
    factor = torch.clamp(max_norm / (total + 1e-6), max=1.0)
    for g in grads:
        g.mul_(factor.to(g.device, g.dtype))
    return total
''',
    "ex5_predict": '''
NORM_AFTER_NORM_CLIP = 13.0 * 6.5 / (13.0 + 1e-6)
NORM_AFTER_VALUE_CLIP = math.sqrt(1.0 ** 2 * 3)
KEEPS_DIRECTION = "norm"
''',
    "ex6_adam": '''
def adam_step(param, grad, state, lr=1e-3, betas=(0.9, 0.999), eps=1e-8):
    beta1, beta2 = betas
    if len(state) == 0:
        state.update(step=0, exp_avg=torch.zeros_like(param), exp_avg_sq=torch.zeros_like(param))
    state["step"] += 1
    t = state["step"]
    state["exp_avg"].lerp_(grad, 1 - beta1)
    state["exp_avg_sq"].mul_(beta2).addcmul_(grad, grad, value=1 - beta2)
    bc1, bc2 = 1 - beta1 ** t, 1 - beta2 ** t
    denom = (state["exp_avg_sq"].sqrt() / math.sqrt(bc2)).add_(eps)
    param.addcdiv_(state["exp_avg"], denom, value=-lr / bc1)
''',
    "ex7_predict": '''
ADAM_CHANGES = not True
SGD_CHANGES = not False
ADAM_FIRST_STEP = 1e-2 * 1.0
''',
}
