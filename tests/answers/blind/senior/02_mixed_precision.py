"""Blind set for notebooks/senior/02_mixed_precision.ipynb, written from release/ alone (issue 33)."""

WRONG = {
    "ex1_dtypes": ("thinks autocast makes the bf16 + fp32 add run in bf16", '''
DTYPE_MATMUL = torch.bfloat16
DTYPE_PLAIN_ADD = torch.float32
DTYPE_MIXED_ADD = torch.bfloat16
DTYPE_SUM_OF_H = torch.bfloat16
DTYPE_LOSS = torch.float32
'''),
    "ex2_step": ("forgets to zero the gradients, so every step adds to the last one's", '''
def autocast_train_step(model, opt, x, y, amp_dtype):
    with torch.autocast(device_type=x.device.type, dtype=amp_dtype):
        loss = F.cross_entropy(model(x), y)
    loss.backward()
    opt.step()
    return loss.item()
'''),
    "ex3_scaling": ("does not clear w.grad, so a second call accumulates onto the first", '''
def scaled_fp16_grad(loss_fn, w, scale):
    (loss_fn(w) * scale).backward()
    return w.grad.float() / scale
'''),
    "ex4_scaler": ("steps the optimizer directly, so a step with inf gradients is not skipped", '''
def scaled_clipped_step(model, opt, scaler, x, y, max_norm):
    opt.zero_grad(set_to_none=True)
    loss = F.mse_loss(model(x), y)
    scaler.scale(loss).backward()
    scaler.unscale_(opt)
    torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm)
    opt.step()
    scaler.update()
    return loss.item()
'''),
    "ex5_range": ("takes the largest uint16 for the largest float16", '''
FP16_MAX = 65535.0
OVERFLOWS_AT_70000 = torch.float16
LOSES_1_PLUS_1_OVER_256 = torch.bfloat16
NEEDS_LOSS_SCALING = torch.float16
'''),
}

ALT = {
    "ex1_dtypes": '''
_g = torch.Generator().manual_seed(123)
_a, _b = torch.randn(4, 8, generator=_g), torch.randn(8, 3, generator=_g)
_bias, _t = torch.randn(3, generator=_g), torch.tensor([0, 2, 1, 0])
with torch.autocast("cpu", dtype=torch.bfloat16):  # predicted, then verified by running it
    _h = _a @ _b
    DTYPE_MATMUL = _h.dtype
    DTYPE_PLAIN_ADD = (_a.sum() + _bias).dtype
    DTYPE_MIXED_ADD = (_h + _bias).dtype
    DTYPE_SUM_OF_H = _h.sum().dtype
    DTYPE_LOSS = F.cross_entropy(_h, _t).dtype
''',
    "ex2_step": '''
def autocast_train_step(model, opt, x, y, amp_dtype):
    for p in model.parameters():
        p.grad = None
    with torch.autocast(x.device.type, amp_dtype):
        logits = model(x)
        loss = F.cross_entropy(logits, y)
    loss.backward()
    opt.step()
    return float(loss.detach())
''',
    "ex3_scaling": '''
def scaled_fp16_grad(loss_fn, w, scale):
    (g,) = torch.autograd.grad(loss_fn(w) * scale, w)  # never touches w.grad
    return g.to(torch.float32).div(scale)
''',
    "ex4_scaler": '''
def scaled_clipped_step(model, opt, scaler, x, y, max_norm):
    params = [p for p in model.parameters()]
    for p in params:
        p.grad = None
    loss = F.mse_loss(model(x), y)
    scaler.scale(loss).backward()
    scaler.unscale_(opt)
    grads = [p.grad for p in params if p.grad is not None]
    total = torch.sqrt(sum((g.float() ** 2).sum() for g in grads))
    factor = torch.clamp(max_norm / (total + 1e-6), max=1.0)
    for g in grads:
        g.mul_(factor.to(g.dtype))
    scaler.step(opt)
    scaler.update()
    return float(loss.detach())
''',
    "ex5_range": '''
FP16_MAX = float(torch.finfo(torch.float16).max)
_kinds = (torch.float16, torch.bfloat16)
OVERFLOWS_AT_70000 = next(d for d in _kinds if torch.isinf(torch.tensor(70000.0).to(d)))
LOSES_1_PLUS_1_OVER_256 = next(d for d in _kinds if torch.tensor(1 + 1 / 256).to(d).item() == 1.0)
NEEDS_LOSS_SCALING = max(_kinds, key=lambda d: torch.finfo(d).tiny)
''',
}
