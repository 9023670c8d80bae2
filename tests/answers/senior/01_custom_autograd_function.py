"""Known-wrong and alternative answers for senior/01_custom_autograd_function."""

_SOFTPLUS_NAIVE_FORWARD = '''
class StableSoftplus(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return torch.log(1 + torch.exp(x))

    @staticmethod
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        return grad_output * torch.sigmoid(x)


stable_softplus = StableSoftplus.apply
'''

_SOFTPLUS_NAIVE_BACKWARD = '''
class StableSoftplus(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return torch.clamp(x, min=0) + torch.log1p(torch.exp(-x.abs()))

    @staticmethod
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        return grad_output * torch.exp(x) / (1 + torch.exp(x))


stable_softplus = StableSoftplus.apply
'''

_SOFTPLUS_ALT = '''
class StableSoftplus(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        y = torch.logaddexp(x, torch.zeros_like(x))   # log(e^x + e^0), computed stably
        ctx.save_for_backward(y)                      # save the output: sigmoid(x) = 1 - exp(-y)
        return y

    @staticmethod
    def backward(ctx, grad_output):
        (y,) = ctx.saved_tensors
        return grad_output * -torch.expm1(-y)


stable_softplus = StableSoftplus.apply
'''

_LINEAR_NO_BIAS_SUM = '''
class LinearFn(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, weight, bias):
        ctx.save_for_backward(x, weight)
        return x @ weight.T + bias

    @staticmethod
    def backward(ctx, grad_output):
        x, weight = ctx.saved_tensors
        return grad_output @ weight, grad_output.T @ x, grad_output.mean(0)
'''

_LINEAR_TRANSPOSED = '''
class LinearFn(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, weight, bias):
        ctx.save_for_backward(x, weight)
        return x @ weight.T + bias

    @staticmethod
    def backward(ctx, grad_output):
        x, weight = ctx.saved_tensors
        return grad_output @ weight, x.T @ grad_output, grad_output.sum(0)
'''

_LINEAR_IGNORES_NEEDS = '''
class LinearFn(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, weight, bias):
        ctx.save_for_backward(x, weight)
        return x @ weight.T + bias

    @staticmethod
    def backward(ctx, grad_output):
        x, weight = ctx.saved_tensors
        return grad_output @ weight, grad_output.T @ x, grad_output.sum(0)
'''

_LINEAR_ALT = '''
class LinearFn(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, weight, bias):
        ctx.save_for_backward(x, weight, bias)
        return torch.addmm(bias, x, weight.t())

    @staticmethod
    def backward(ctx, grad_output):
        x, weight, bias = ctx.saved_tensors
        need_x, need_w, need_b = ctx.needs_input_grad
        gx = torch.einsum("no,oi->ni", grad_output, weight) if need_x else None
        gw = torch.einsum("no,ni->oi", grad_output, x) if need_w else None
        gb = grad_output.sum(dim=0).reshape(bias.shape) if need_b else None
        return gx, gw, gb
'''

_STE_PLAIN_ROUND = '''
def round_ste(x):
    return torch.round(x)
'''

_STE_ONES = '''
def round_ste(x):
    return _RoundSTE.apply(x)


class _RoundSTE(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        return torch.round(x)

    @staticmethod
    def backward(ctx, grad_output):
        return torch.ones_like(grad_output)
'''

_STE_ALT = '''
def round_ste(x):
    # value of round(x), gradient of x: the detached term is a constant for autograd
    return x + (torch.round(x) - x).detach()
'''

_CLAMP_NO_NONE = '''
class ClampedExp(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, max_value):
        y = torch.exp(x.clamp(max=max_value))
        ctx.save_for_backward(x, y)
        ctx.max_value = max_value
        return y

    @staticmethod
    def backward(ctx, grad_output):
        x, y = ctx.saved_tensors
        return grad_output * y * (x <= ctx.max_value)
'''

_CLAMP_NO_CHAIN = '''
class ClampedExp(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, max_value):
        y = torch.exp(x.clamp(max=max_value))
        ctx.save_for_backward(x, y)
        ctx.max_value = max_value
        return y

    @staticmethod
    def backward(ctx, grad_output):
        x, y = ctx.saved_tensors
        return y * (x <= ctx.max_value), None
'''

_CLAMP_NO_MASK = '''
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
'''

_CLAMP_ALT = '''
class ClampedExp(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, max_value):
        mask = x <= max_value
        y = torch.minimum(x, x.new_tensor(max_value)).exp()
        ctx.save_for_backward(y, mask)
        return y

    @staticmethod
    def backward(ctx, grad_output):
        y, mask = ctx.saved_tensors
        grad_x = None
        if ctx.needs_input_grad[0]:
            grad_x = torch.where(mask, grad_output * y, torch.zeros_like(y))
        return grad_x, None
'''

WRONG = {
    "ex1_softplus": [
        ("naive log(1 + exp(x)) overflows to inf at x = 1000", _SOFTPLUS_NAIVE_FORWARD),
        ("naive derivative exp(x) / (1 + exp(x)) is inf/inf = nan for large x", _SOFTPLUS_NAIVE_BACKWARD),
    ],
    "ex2_linear": [
        ("bias gradient averaged instead of summed over the batch", _LINEAR_NO_BIAS_SUM),
        ("weight gradient transposed (x.T @ g has shape (in, out))", _LINEAR_TRANSPOSED),
        ("computes grad_x although ctx.needs_input_grad[0] is False", _LINEAR_IGNORES_NEEDS),
    ],
    "ex3_ste": [
        ("plain torch.round: the gradient is zero", _STE_PLAIN_ROUND),
        ("backward returns ones instead of grad_output", _STE_ONES),
    ],
    "ex4_fixed": [
        ("returns one gradient for two forward inputs", _CLAMP_NO_NONE),
        ("forgets the chain rule (no grad_output)", _CLAMP_NO_CHAIN),
        ("passes gradient where the clamp is active", _CLAMP_NO_MASK),
    ],
    "ex5_predict": [
        ("thinks forward records a graph", "GRAD_ENABLED_IN_FORWARD = True\nOUT_REQUIRES_GRAD = False\n"
                                           "INPLACE_RAISES = True\nN_BACKWARD_CALLS = 1\n"),
        ("thinks backward runs once per use", "GRAD_ENABLED_IN_FORWARD = False\nOUT_REQUIRES_GRAD = False\n"
                                              "INPLACE_RAISES = True\nN_BACKWARD_CALLS = 2\n"),
    ],
}

ALT = {
    "ex1_softplus": _SOFTPLUS_ALT,
    "ex2_linear": _LINEAR_ALT,
    "ex3_ste": _STE_ALT,
    "ex4_fixed": _CLAMP_ALT,
    "ex5_predict": "GRAD_ENABLED_IN_FORWARD = not True\nOUT_REQUIRES_GRAD = bool(0)\n"
                   "INPLACE_RAISES = 1 == 1\nN_BACKWARD_CALLS = int(1.0)\n",
}

# issue 33: "by hand" is the backward; one that asks autograd for F.linear's gradients is a shortcut.
WRONG["ex2_linear"].append(("shortcut: backward asks autograd (enable_grad + autograd.grad) for F.linear's gradients", '''
class LinearFn(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, weight, bias):
        ctx.save_for_backward(x, weight, bias)
        return F.linear(x, weight, bias)

    @staticmethod
    def backward(ctx, grad_output):
        x, weight, bias = ctx.saved_tensors
        with torch.enable_grad():
            leaves = [t.detach().requires_grad_() for t in (x, weight, bias)]
            grads = torch.autograd.grad(F.linear(*leaves), leaves, grad_output)
        return tuple(g if need else None for g, need in zip(grads, ctx.needs_input_grad))
'''))

# issue 33 (blind set): "hand-written backward" is the section's title; one that asks autograd for F.softplus's
# gradient is a shortcut.
WRONG["ex1_softplus"].append(("shortcut: backward asks autograd (enable_grad + autograd.grad) for F.softplus's gradient", '''
import torch.nn.functional as F


class StableSoftplus(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return torch.clamp(x, min=0) + torch.log1p(torch.exp(-x.abs()))

    @staticmethod
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        with torch.enable_grad():
            xx = x.detach().requires_grad_()
            (gx,) = torch.autograd.grad(F.softplus(xx), xx, grad_output)
        return gx


stable_softplus = StableSoftplus.apply
'''))
