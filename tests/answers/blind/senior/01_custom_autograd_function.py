"""Blind set for notebooks/senior/01_custom_autograd_function.ipynb, written from release/ alone (issue 33)."""

SHORTCUT = {
    "ex1_softplus": ("backward lets autograd differentiate F.softplus instead of writing sigmoid(x) by hand", '''
import torch.nn.functional as F


class StableSoftplus(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x.clamp(min=0) + torch.log1p(torch.exp(-x.abs()))

    @staticmethod
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        with torch.enable_grad():
            xx = x.detach().requires_grad_()
            (gx,) = torch.autograd.grad(F.softplus(xx), xx, grad_output)
        return gx


stable_softplus = StableSoftplus.apply
'''),
    "ex2_linear": ("backward switches autograd back on and differentiates F.linear", '''
import torch.nn.functional as F


class LinearFn(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, weight, bias):
        ctx.save_for_backward(x, weight, bias)
        return x @ weight.T + bias

    @staticmethod
    def backward(ctx, grad_output):
        x, weight, bias = ctx.saved_tensors
        with torch.enable_grad():
            leaves = [t.detach().requires_grad_() for t in (x, weight, bias)]
            grads = torch.autograd.grad(F.linear(*leaves), leaves, grad_output)
        return tuple(g if need else None for g, need in zip(grads, ctx.needs_input_grad))
'''),
}

WRONG = {
    "ex1_softplus": ("naive derivative exp(x) / (1 + exp(x)): inf / inf = nan at x = 1000", '''
class StableSoftplus(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x.clamp(min=0) + torch.log1p(torch.exp(-x.abs()))

    @staticmethod
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        return grad_output * torch.exp(x) / (1 + torch.exp(x))


stable_softplus = StableSoftplus.apply
'''),
    "ex2_linear": ("bias gradient averages grad_output over the batch instead of summing", '''
class LinearFn(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, weight, bias):
        ctx.save_for_backward(x, weight)
        return x @ weight.T + bias

    @staticmethod
    def backward(ctx, grad_output):
        x, weight = ctx.saved_tensors
        gx = grad_output @ weight if ctx.needs_input_grad[0] else None
        gw = grad_output.T @ x if ctx.needs_input_grad[1] else None
        gb = grad_output.mean(0) if ctx.needs_input_grad[2] else None
        return gx, gw, gb
'''),
    "ex3_ste": ("backward returns ones instead of the incoming gradient", '''
class _RoundSTE(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        return torch.round(x)

    @staticmethod
    def backward(ctx, grad_output):
        return torch.ones_like(grad_output)


def round_ste(x):
    return _RoundSTE.apply(x)
'''),
    "ex4_fixed": ("fixes the arity and the chain rule but lets the gradient through where the clamp is active", '''
class ClampedExp(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, max_value):
        y = torch.exp(x.clamp(max=max_value))
        ctx.save_for_backward(y)
        return y

    @staticmethod
    def backward(ctx, grad_output):
        (y,) = ctx.saved_tensors
        return grad_output * y, None
'''),
    "ex5_predict": ("thinks backward runs once per use of z", '''
GRAD_ENABLED_IN_FORWARD = False
OUT_REQUIRES_GRAD = False
INPLACE_RAISES = True
N_BACKWARD_CALLS = 2
'''),
}

ALT = {
    "ex1_softplus": '''
class StableSoftplus(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        y = torch.logaddexp(x, torch.zeros_like(x))
        ctx.save_for_backward(y)  # sigmoid(x) = 1 - exp(-softplus(x)): the output is enough
        return y

    @staticmethod
    def backward(ctx, grad_output):
        (y,) = ctx.saved_tensors
        return grad_output * -torch.expm1(-y)


stable_softplus = StableSoftplus.apply
''',
    "ex2_linear": '''
class LinearFn(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, weight, bias):
        ctx.save_for_backward(x, weight)
        return torch.addmm(bias, x, weight.t())

    @staticmethod
    def backward(ctx, grad_output):
        x, weight = ctx.saved_tensors
        need_x, need_w, need_b = ctx.needs_input_grad
        return (torch.einsum("no,oi->ni", grad_output, weight) if need_x else None,
                torch.einsum("no,ni->oi", grad_output, x) if need_w else None,
                torch.einsum("no->o", grad_output) if need_b else None)
''',
    "ex3_ste": '''
def round_ste(x):
    return x + (torch.round(x) - x).detach()
''',
    "ex4_fixed": '''
class ClampedExp(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, max_value):
        active = x > max_value
        y = torch.exp(torch.where(active, torch.full_like(x, max_value), x))
        ctx.save_for_backward(y, active)
        return y

    @staticmethod
    def backward(ctx, grad_output):
        y, active = ctx.saved_tensors
        return grad_output * y.masked_fill(active, 0.0), None
''',
    "ex5_predict": '''
GRAD_ENABLED_IN_FORWARD, OUT_REQUIRES_GRAD, INPLACE_RAISES, N_BACKWARD_CALLS = (False, False, True, 1)
''',
}
