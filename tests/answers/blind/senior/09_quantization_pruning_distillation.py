"""Blind set for notebooks/senior/09_quantization_pruning_distillation.ipynb, written from release/ alone (issue 33)."""

_DEQUANT = '''

def dequantize(q: torch.Tensor, scale: torch.Tensor) -> torch.Tensor:
    return q.to(torch.float32) * scale
'''

_DEQUANT_AFFINE = '''

def dequantize_affine(q: torch.Tensor, scale: torch.Tensor, zero_point: int) -> torch.Tensor:
    return (q.to(torch.float32) - zero_point) * scale
'''

SHORTCUT = {
    "ex1_symmetric": ("calls torch.quantize_per_tensor / quantize_per_channel and reads int_repr()", '''
def quantize_symmetric(w: torch.Tensor, per_channel: bool = False):
    if per_channel:
        scale = (w.abs().amax(dim=1, keepdim=True) / 127).clamp_min(1e-12)
        zeros = torch.zeros(w.shape[0], dtype=torch.long, device=w.device)
        q = torch.quantize_per_channel(w.float(), scale.flatten().double(), zeros, 0, torch.qint8).int_repr()
    else:
        scale = (w.abs().amax() / 127).clamp_min(1e-12)
        q = torch.quantize_per_tensor(w.float(), float(scale), 0, torch.qint8).int_repr()
    return q, scale
''' + _DEQUANT),
    "ex2_affine": ("calls torch.quantize_per_tensor with quint8", '''
def quantize_affine(x: torch.Tensor):
    lo, hi = torch.clamp(x.min(), max=0.0), torch.clamp(x.max(), min=0.0)
    scale = ((hi - lo) / 255).clamp_min(1e-12)
    zero_point = int(torch.round(-lo / scale).clamp(0, 255))
    q = torch.quantize_per_tensor(x.float(), float(scale), zero_point, torch.quint8).int_repr()
    return q, scale, zero_point
''' + _DEQUANT_AFFINE),
    "ex3_fakequant": ("forward calls torch.fake_quantize_per_tensor_affine", '''
class FakeQuantSTE(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, scale, qmax):
        ctx.save_for_backward((x / scale).abs() <= qmax)
        return torch.fake_quantize_per_tensor_affine(x, float(scale), 0, -qmax, qmax)

    @staticmethod
    def backward(ctx, grad_out):
        (inside,) = ctx.saved_tensors
        return grad_out * inside.to(grad_out.dtype), None, None
'''),
    "ex4_ptq": ("quantizes each weight with torch.fake_quantize_per_channel_affine", '''
import copy
import math


def ptq_copy(model: nn.Module, bits: int):
    qmax = 2 ** (bits - 1) - 1
    out, size = copy.deepcopy(model), 0
    for m in out.modules():
        if isinstance(m, nn.Linear):
            w = m.weight.detach()
            scale = (w.abs().amax(dim=1) / qmax).clamp_min(1e-12).float()
            zeros = torch.zeros(w.shape[0], dtype=torch.int32, device=w.device)
            with torch.no_grad():
                m.weight.copy_(torch.fake_quantize_per_channel_affine(w, scale, zeros, 0, -qmax, qmax))
            size += math.ceil(w.numel() * bits / 8) + 4 * w.shape[0]
            size += 4 * m.bias.numel() if m.bias is not None else 0
    return out, size
'''),
}

WRONG = {
    "ex1_symmetric": ("no guard for an all-zero row: its scale is 0 and 0 / 0 is nan", '''
def quantize_symmetric(w: torch.Tensor, per_channel: bool = False):
    amax = w.abs().amax(dim=1, keepdim=True) if per_channel else w.abs().amax()
    scale = amax / 127
    q = torch.clamp(torch.round(w / scale), -127, 127).to(torch.int8)
    return q, scale
''' + _DEQUANT),
    "ex2_affine": ("takes the range from x.min() and x.max() alone, without stretching it to include 0", '''
def quantize_affine(x: torch.Tensor):
    lo, hi = x.min(), x.max()
    scale = ((hi - lo) / 255).clamp_min(1e-12)
    zero_point = int(torch.round(-lo / scale).clamp(0, 255))
    q = torch.clamp(torch.round(x / scale) + zero_point, 0, 255).to(torch.uint8)
    return q, scale, zero_point
''' + _DEQUANT_AFFINE),
    "ex3_fakequant": ("backward returns the mask itself, ignoring grad_out (the chain rule)", '''
class FakeQuantSTE(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, scale, qmax):
        ctx.save_for_backward((x / scale).abs() <= qmax)
        return torch.clamp(torch.round(x / scale), -qmax, qmax) * scale

    @staticmethod
    def backward(ctx, grad_out):
        (inside,) = ctx.saved_tensors
        return inside.to(grad_out.dtype), None, None
'''),
    "ex4_ptq": ("qmax = 2**(bits-1): one level too many on each side", '''
import copy
import math


def ptq_copy(model: nn.Module, bits: int):
    qmax = 2 ** (bits - 1)
    out, size = copy.deepcopy(model), 0
    for m in out.modules():
        if isinstance(m, nn.Linear):
            w = m.weight.detach()
            scale = (w.abs().amax(dim=1, keepdim=True) / qmax).clamp_min(1e-12)
            with torch.no_grad():
                m.weight.copy_(torch.clamp(torch.round(w / scale), -qmax, qmax) * scale)
            size += math.ceil(w.numel() * bits / 8) + 4 * w.shape[0]
            size += 4 * m.bias.numel() if m.bias is not None else 0
    return out, size
'''),
    "ex5_prune": ("prunes each layer to the sparsity on its own instead of ranking all weights together", '''
import torch.nn.utils.prune as prune


def global_magnitude_prune(model: nn.Module, sparsity: float) -> nn.Module:
    for m in model.modules():
        if isinstance(m, nn.Linear):
            prune.l1_unstructured(m, "weight", amount=sparsity)
    return model
'''),
    "ex6_distill": ("F.kl_div with reduction='mean', which also divides by the number of classes", '''
def distillation_loss(student_logits, teacher_logits, labels, T: float = 4.0, alpha: float = 0.7):
    soft = F.kl_div(F.log_softmax(student_logits / T, -1), F.softmax(teacher_logits.detach() / T, -1),
                    reduction="mean")
    return alpha * T * T * soft + (1 - alpha) * F.cross_entropy(student_logits, labels)
'''),
}

ALT = {
    "ex1_symmetric": '''
def quantize_symmetric(w: torch.Tensor, per_channel: bool = False):
    amax = w.abs().amax(dim=1, keepdim=True) if per_channel else w.abs().amax()
    scale = torch.where(amax > 0, amax / 127, torch.ones_like(amax))  # an all-zero row keeps scale 1
    r = w / scale
    q = (r.abs() + 0.5).floor() * r.sign()  # round half away from zero
    return q.clamp(-127, 127).to(torch.int8), scale


def dequantize(q: torch.Tensor, scale: torch.Tensor) -> torch.Tensor:
    return scale * q.float()
''',
    "ex2_affine": '''
def quantize_affine(x: torch.Tensor):
    lo = min(float(x.min()), 0.0)
    hi = max(float(x.max()), 0.0)
    s = (hi - lo) / 255 if hi > lo else 1.0
    zero_point = min(255, max(0, round(-lo / s)))
    q = torch.clamp(torch.round(x / s) + zero_point, 0, 255).to(torch.uint8)
    return q, torch.tensor(s, dtype=torch.float32, device=x.device), zero_point


def dequantize_affine(q: torch.Tensor, scale: torch.Tensor, zero_point: int) -> torch.Tensor:
    return (q.to(torch.int16) - zero_point).to(torch.float32) * scale
''',
    "ex3_fakequant": '''
class FakeQuantSTE(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, scale, qmax):
        ctx.save_for_backward(x, scale)  # the mask is recomputed in backward
        ctx.qmax = qmax
        codes = torch.round(x / scale)
        return torch.where(codes > qmax, qmax, torch.where(codes < -qmax, -qmax, codes)) * scale

    @staticmethod
    def backward(ctx, grad_out):
        x, scale = ctx.saved_tensors
        return torch.where((x / scale).abs() <= ctx.qmax, grad_out, torch.zeros_like(grad_out)), None, None
''',
    "ex4_ptq": '''
import copy
import math


def ptq_copy(model: nn.Module, bits: int):
    qmax = 2 ** (bits - 1) - 1
    out = copy.deepcopy(model)
    linears = {name for name, m in out.named_modules() if isinstance(m, nn.Linear)}
    state = out.state_dict()
    size = 0
    for name in linears:
        key = f"{name}.weight" if name else "weight"
        w = state[key]
        scale = torch.clamp(w.abs().max(dim=1, keepdim=True).values / qmax, min=1e-12)
        state[key] = torch.clamp(torch.round(w / scale), -qmax, qmax) * scale
        size += -(-w.numel() * bits // 8) + 4 * w.shape[0]
        bias = state.get(f"{name}.bias" if name else "bias")
        size += 4 * bias.numel() if bias is not None else 0
    out.load_state_dict(state)
    return out, size
''',
    "ex5_prune": '''
def global_magnitude_prune(model: nn.Module, sparsity: float) -> nn.Module:
    linears = [m for m in model.modules() if isinstance(m, nn.Linear)]
    mags = torch.cat([m.weight.detach().abs().flatten() for m in linears])
    k = round(sparsity * mags.numel())
    drop = torch.zeros(mags.numel(), dtype=torch.bool, device=mags.device)
    if k > 0:
        drop[torch.topk(mags, k, largest=False).indices] = True
    for m, part in zip(linears, drop.split([m.weight.numel() for m in linears])):
        m.register_buffer("prune_mask", (~part).view_as(m.weight).to(m.weight.dtype))
        with torch.no_grad():
            m.weight.mul_(m.prune_mask)
        m.weight.register_hook(lambda g, mod=m: g * mod.prune_mask)
        m.register_forward_pre_hook(lambda mod, args: mod.weight.data.mul_(mod.prune_mask))
    return model
''',
    "ex6_distill": '''
def distillation_loss(student_logits, teacher_logits, labels, T: float = 4.0, alpha: float = 0.7):
    log_s = F.log_softmax(student_logits / T, dim=-1)
    log_t = F.log_softmax(teacher_logits.detach() / T, dim=-1)
    soft = F.kl_div(log_s, log_t, reduction="sum", log_target=True) / student_logits.shape[0]
    hard = F.nll_loss(F.log_softmax(student_logits, dim=-1), labels)
    return alpha * T ** 2 * soft + (1 - alpha) * hard
''',
}
