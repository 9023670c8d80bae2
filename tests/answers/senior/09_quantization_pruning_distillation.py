"""Known-wrong and alternative answers for senior/09_quantization_pruning_distillation."""

from tests.answers.senior import edited, reference

NB = "senior/09_quantization_pruning_distillation"

EX1_WRONG_AXIS = edited(reference(NB, "ex1_symmetric"), "amax(dim=1, keepdim=True)", "amax(dim=0, keepdim=True)")

EX1_WRONG_255 = edited(reference(NB, "ex1_symmetric"), "/ 127.0", "/ 255.0")

EX1_ALT = '''
def quantize_symmetric(w, per_channel=False):
    w = w.detach().float()
    if per_channel:
        rows = [w[i].abs().max() for i in range(w.shape[0])]
        scale = torch.stack([torch.where(r > 0, r, torch.ones_like(r)) for r in rows]).reshape(-1, 1) / 127
    else:
        m = w.abs().max()
        scale = torch.where(m > 0, m, torch.ones_like(m)) / 127
    q = (w / scale).round().clamp(-127, 127).to(torch.int8)
    return q, scale


def dequantize(q, scale):
    return q.float().mul(scale)
'''

EX2_WRONG_NO_ZERO = edited(reference(NB, "ex2_affine"),
                           "lo = torch.clamp(x.detach().min(), max=0.0)\n    hi = torch.clamp(x.detach().max(), min=0.0)",
                           "lo, hi = x.detach().min(), x.detach().max()")

EX2_WRONG_FLOAT_ZP = edited(reference(NB, "ex2_affine"), "int(torch.round(-lo / scale).clamp(0, 255))", "float(-lo / scale)")

EX2_ALT = '''
def quantize_affine(x):
    qmin, qmax = 0, 255
    x = x.detach().float()
    lo = min(float(x.min()), 0.0)
    hi = max(float(x.max()), 0.0)
    scale = torch.tensor(max((hi - lo) / (qmax - qmin), 1e-12), device=x.device)
    zero_point = qmin - round(lo / float(scale))
    zero_point = max(qmin, min(qmax, zero_point))
    q = (x / scale).round().add(zero_point).clamp(qmin, qmax).to(torch.uint8)
    return q, scale, int(zero_point)


def dequantize_affine(q, scale, zero_point):
    return (q.float() - float(zero_point)) * scale
'''

EX3_WRONG_PASS_ALL = edited(reference(NB, "ex3_fakequant"), "grad_out * inside.to(grad_out.dtype)", "grad_out")

EX3_WRONG_NO_CLAMP = edited(reference(NB, "ex3_fakequant"), "torch.clamp(torch.round(u), -qmax, qmax)", "torch.round(u)")

EX3_ALT = '''
class FakeQuantSTE(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, scale, qmax):
        ctx.save_for_backward(x, scale)
        ctx.qmax = qmax
        lo, hi = -qmax * scale, qmax * scale
        return torch.round(torch.minimum(torch.maximum(x, lo), hi) / scale) * scale

    @staticmethod
    def backward(ctx, grad_out):
        x, scale = ctx.saved_tensors
        keep = (x >= -ctx.qmax * scale) & (x <= ctx.qmax * scale)
        return torch.where(keep, grad_out, torch.zeros_like(grad_out)), None, None
'''

EX4_WRONG_IN_PLACE = edited(reference(NB, "ex4_ptq"), "qmodel = copy.deepcopy(model)", "qmodel = model")

EX4_WRONG_SIZE = edited(edited(reference(NB, "ex4_ptq"), " + 4 * w.shape[0]"),
                        "size += 4 * m.bias.numel()", "size += math.ceil(m.bias.numel() * bits / 8)")

EX4_ALT = '''
import copy
import math


def ptq_copy(model, bits):
    qmax = 2 ** (bits - 1) - 1
    qmodel = copy.deepcopy(model)
    linears = [m for _, m in qmodel.named_modules() if isinstance(m, nn.Linear)]
    size = 0
    for lin in linears:
        w = lin.weight.detach()
        scale = torch.stack([row.abs().max() for row in w]).clamp_min(1e-12).unsqueeze(1) / qmax
        lin.weight = nn.Parameter((w / scale).round().clamp(-qmax, qmax) * scale)
        size += (w.numel() * bits + 7) // 8 + scale.numel() * 4
        size += 0 if lin.bias is None else lin.bias.numel() * lin.bias.element_size()
    return qmodel, size
'''

EX5_WRONG_ONE_SHOT = '''
import torch.nn.utils.prune as prune


def global_magnitude_prune(model, sparsity):
    ws = [m.weight for m in model.modules() if isinstance(m, nn.Linear)]
    flat = torch.cat([w.detach().abs().flatten() for w in ws])
    k = round(sparsity * flat.numel())
    threshold = flat.kthvalue(k).values
    with torch.no_grad():
        for w in ws:
            w[w.abs() <= threshold] = 0.0
    return model
'''

EX5_WRONG_PER_LAYER = edited(reference(NB, "ex5_prune"),
                             "prune.global_unstructured(targets, pruning_method=prune.L1Unstructured, amount=sparsity)",
                             "for m, name in targets:\n        prune.l1_unstructured(m, name, amount=sparsity)")

EX5_ALT = '''
import torch.nn.utils.prune as prune


def global_magnitude_prune(model, sparsity):
    linears = [m for m in model.modules() if isinstance(m, nn.Linear)]
    flat = torch.cat([m.weight.detach().abs().flatten() for m in linears])
    k = round(sparsity * flat.numel())
    drop = torch.zeros(flat.numel(), dtype=torch.bool, device=flat.device)
    if k > 0:
        drop[torch.topk(flat, k, largest=False).indices] = True
    start = 0
    for m in linears:
        n = m.weight.numel()
        mask = (~drop[start:start + n]).reshape(m.weight.shape).to(m.weight.dtype)
        start += n
        m.register_buffer("prune_mask", mask)
        with torch.no_grad():
            m.weight.mul_(mask)
        m.weight.register_hook(lambda grad, mask=mask: grad * mask)
        m.register_forward_pre_hook(_reapply_mask)
    return model


def _reapply_mask(mod, inp):
    # A pre-hook's return value replaces the layer's input: return nothing.
    with torch.no_grad():
        mod.weight.mul_(mod.prune_mask)
'''

EX6_WRONG_NO_T2 = edited(reference(NB, "ex6_distill"), " * T * T")

EX6_WRONG_MEAN = edited(reference(NB, "ex6_distill"), 'reduction="batchmean"', 'reduction="mean"')

EX6_ALT = '''
def distillation_loss(student_logits, teacher_logits, labels, T=4.0, alpha=0.7):
    t = teacher_logits.detach()
    p_t = torch.softmax(t / T, dim=1)
    kl = (p_t * (torch.log_softmax(t / T, dim=1) - torch.log_softmax(student_logits / T, dim=1))).sum(1).mean()
    ce = -torch.log_softmax(student_logits, dim=1).gather(1, labels[:, None]).mean()
    return alpha * (T ** 2) * kl + (1 - alpha) * ce
'''

EX5_WRONG_PRUNES_BIASES = edited(EX5_ALT, "            m.weight.mul_(mask)\n",
                                 "            m.weight.mul_(mask)\n"
                                 "            m.bias.mul_((m.bias.abs() > flat.kthvalue(k).values).to(m.bias.dtype))\n")


# Shortcuts the statement puts off limits (issue 33): PyTorch's own quantize functions.
EX1_SHORTCUT = '''
def quantize_symmetric(w, per_channel=False):
    amax = w.detach().abs().amax(dim=1) if per_channel else w.detach().abs().amax()
    scale = amax.clamp_min(1e-12) / 127.0
    if per_channel:
        q = torch.quantize_per_channel(w.detach(), scale.double(), torch.zeros_like(scale, dtype=torch.long), 0, torch.qint8)
        return q.int_repr(), scale.unsqueeze(1)
    return torch.quantize_per_tensor(w.detach(), float(scale), 0, torch.qint8).int_repr(), scale


def dequantize(q, scale):
    return q.to(torch.float32) * scale
'''

EX3_SHORTCUT = '''
class FakeQuantSTE(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, scale, qmax):
        with torch.enable_grad():
            xd = x.detach().requires_grad_(True)
            y = torch.fake_quantize_per_tensor_affine(xd, float(scale), 0, -qmax, qmax)
        ctx.save_for_backward(xd, y)
        return y.detach()

    @staticmethod
    def backward(ctx, grad_out):
        xd, y = ctx.saved_tensors
        (g,) = torch.autograd.grad(y, xd, grad_out)
        return g, None, None
'''

WRONG = {
    "ex1_symmetric": [("per-channel scale reduces over the wrong axis (columns)", EX1_WRONG_AXIS),
                      ("divides by 255 for a signed range: half the levels unused", EX1_WRONG_255),
                      ("shortcut: torch.quantize_per_tensor / quantize_per_channel", EX1_SHORTCUT)],
    "ex2_affine": [("range does not include 0, so zero is not exact", EX2_WRONG_NO_ZERO),
                   ("non-integer zero point", EX2_WRONG_FLOAT_ZP)],
    "ex3_fakequant": [("STE passes the gradient even for clipped values", EX3_WRONG_PASS_ALL),
                      ("forgets to clamp to [-qmax, qmax]", EX3_WRONG_NO_CLAMP),
                      ("shortcut: torch.fake_quantize_per_tensor_affine", EX3_SHORTCUT)],
    "ex4_ptq": [("quantizes the original model in place", EX4_WRONG_IN_PLACE),
                ("size ignores scales and float biases", EX4_WRONG_SIZE)],
    "ex5_prune": [("zeroes weights once without a mask: they grow back", EX5_WRONG_ONE_SHOT),
                  ("zeroes small biases with the same threshold", EX5_WRONG_PRUNES_BIASES),
                  ("prunes each layer separately instead of globally", EX5_WRONG_PER_LAYER)],
    "ex6_distill": [("forgets the T^2 factor", EX6_WRONG_NO_T2),
                    ("kl_div reduction='mean' also averages over classes", EX6_WRONG_MEAN)],
}

ALT = {
    "ex1_symmetric": EX1_ALT,
    "ex2_affine": EX2_ALT,
    "ex3_fakequant": EX3_ALT,
    "ex4_ptq": EX4_ALT,
    "ex5_prune": EX5_ALT,
    "ex6_distill": EX6_ALT,
}

# issue 33 (blind set): without the guard an all-zero row gets scale 0; its codes are 0 / 0 = NaN, which the int8
# cast happens to turn into 0 on this hardware, so only the scale itself shows the slip.
WRONG["ex1_symmetric"].append(("no guard: an all-zero row gets scale 0",
                               edited(reference(NB, "ex1_symmetric"), "amax.clamp_min(1e-12) / 127.0", "amax / 127.0")))
