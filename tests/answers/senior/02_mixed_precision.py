"""Known-wrong and alternative answers for senior/02_mixed_precision."""

_DTYPES = """DTYPE_MATMUL = {mm}
DTYPE_PLAIN_ADD = torch.float32
DTYPE_MIXED_ADD = torch.float32
DTYPE_SUM_OF_H = {sum}
DTYPE_LOSS = torch.float32
"""

_STEP_NO_AUTOCAST = '''
def autocast_train_step(model, opt, x, y, amp_dtype):
    opt.zero_grad(set_to_none=True)
    loss = F.cross_entropy(model(x), y)
    loss.backward()
    opt.step()
    return loss.item()
'''

_STEP_CAST_MODEL = '''
def autocast_train_step(model, opt, x, y, amp_dtype):
    model.to(amp_dtype)
    opt.zero_grad(set_to_none=True)
    loss = F.cross_entropy(model(x.to(amp_dtype)), y)
    loss.backward()
    opt.step()
    return loss.item()
'''

_STEP_ALT = '''
def autocast_train_step(model, opt, x, y, amp_dtype):
    for p in model.parameters():
        p.grad = None
    with torch.autocast(x.device.type, amp_dtype):
        logits = model(x)
    loss = F.cross_entropy(logits.float(), y)   # the loss outside autocast, in float32
    loss.backward()
    opt.step()
    return float(loss.detach())
'''

_SCALE_FP16_DIV = '''
def scaled_fp16_grad(loss_fn, w, scale):
    w.grad = None
    (loss_fn(w) * scale).backward()
    return (w.grad / scale).float()
'''

_SCALE_NO_UNSCALE = '''
def scaled_fp16_grad(loss_fn, w, scale):
    w.grad = None
    (loss_fn(w) * scale).backward()
    return w.grad.float()
'''

_SCALE_ACCUMULATES = '''
def scaled_fp16_grad(loss_fn, w, scale):
    (loss_fn(w) * scale).backward()
    return w.grad.float() / scale
'''

_SCALE_ALT = '''
def scaled_fp16_grad(loss_fn, w, scale):
    (g,) = torch.autograd.grad(loss_fn(w) * scale, w)
    return g.to(torch.float32).div(scale)
'''

_SCALER_CLIP_FIRST = '''
def scaled_clipped_step(model, opt, scaler, x, y, max_norm):
    opt.zero_grad(set_to_none=True)
    loss = F.mse_loss(model(x), y)
    scaler.scale(loss).backward()
    torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm)
    scaler.unscale_(opt)
    scaler.step(opt)
    scaler.update()
    return loss.item()
'''

_SCALER_OPT_STEP = '''
def scaled_clipped_step(model, opt, scaler, x, y, max_norm):
    opt.zero_grad(set_to_none=True)
    loss = F.mse_loss(model(x), y)
    scaler.scale(loss).backward()
    scaler.unscale_(opt)
    torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm)
    opt.step()
    scaler.update()
    return loss.item()
'''

_SCALER_NO_UPDATE = '''
def scaled_clipped_step(model, opt, scaler, x, y, max_norm):
    opt.zero_grad(set_to_none=True)
    loss = F.mse_loss(model(x), y)
    scaler.scale(loss).backward()
    scaler.unscale_(opt)
    torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm)
    scaler.step(opt)
    return loss.item()
'''

_SCALER_RETURNS_TENSOR = '''
def scaled_clipped_step(model, opt, scaler, x, y, max_norm):
    opt.zero_grad(set_to_none=True)
    loss = F.mse_loss(model(x), y)
    scaler.scale(loss).backward()
    scaler.unscale_(opt)
    torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm)
    scaler.step(opt)
    scaler.update()
    return loss
'''

_SCALER_ALT = '''
def scaled_clipped_step(model, opt, scaler, x, y, max_norm):
    params = [p for p in model.parameters() if p.requires_grad]
    for p in params:
        p.grad = None
    loss = F.mse_loss(model(x), y)
    scaler.scale(loss).backward()
    scaler.unscale_(opt)
    total = torch.linalg.vector_norm(torch.stack([torch.linalg.vector_norm(p.grad) for p in params]))
    coef = torch.clamp(max_norm / (total + 1e-6), max=1.0)
    for p in params:
        p.grad.mul_(coef)
    scaler.step(opt)
    scaler.update()
    return float(loss.detach())
'''

_RANGE = """FP16_MAX = {mx}
OVERFLOWS_AT_70000 = {ov}
LOSES_1_PLUS_1_OVER_256 = torch.bfloat16
NEEDS_LOSS_SCALING = torch.float16
"""

WRONG = {
    "ex1_dtypes": [
        ("thinks autocast leaves matmul in float32", _DTYPES.format(mm="torch.float32", sum="torch.bfloat16")),
        ("carries the CUDA fp32 list (sum) over to CPU", _DTYPES.format(mm="torch.bfloat16", sum="torch.float32")),
    ],
    "ex2_step": [
        ("no autocast at all", _STEP_NO_AUTOCAST),
        ("casts the whole model to the low-precision dtype", _STEP_CAST_MODEL),
    ],
    "ex3_scaling": [
        ("unscales while the gradient is still fp16 (underflows again)", _SCALE_FP16_DIV),
        ("forgets to unscale", _SCALE_NO_UNSCALE),
        ("accumulates into the old w.grad", _SCALE_ACCUMULATES),
    ],
    "ex4_scaler": [
        ("clips the scaled gradients (before unscale_)", _SCALER_CLIP_FIRST),
        ("calls opt.step() directly, so overflowed steps are applied", _SCALER_OPT_STEP),
        ("never calls scaler.update()", _SCALER_NO_UPDATE),
        ("returns the loss tensor instead of a Python float", _SCALER_RETURNS_TENSOR),
    ],
    "ex5_range": [
        ("takes the uint16 maximum for fp16", _RANGE.format(mx="65535.0", ov="torch.float16")),
        ("thinks bf16 has the narrow range", _RANGE.format(mx="65504.0", ov="torch.bfloat16")),
    ],
}

ALT = {
    "ex1_dtypes": ("low, high = torch.bfloat16, torch.float32\n"
                   "DTYPE_MATMUL, DTYPE_PLAIN_ADD, DTYPE_MIXED_ADD, DTYPE_SUM_OF_H, DTYPE_LOSS = low, high, high, low, high\n"),
    "ex2_step": _STEP_ALT,
    "ex3_scaling": _SCALE_ALT,
    "ex4_scaler": _SCALER_ALT,
    "ex5_range": ("FP16_MAX = (2 - 2 ** -10) * 2.0 ** 15\n"
                  "OVERFLOWS_AT_70000 = getattr(torch, 'half')\n"
                  "LOSES_1_PLUS_1_OVER_256 = getattr(torch, 'bfloat16')\n"
                  "NEEDS_LOSS_SCALING = torch.half\n"),
}
