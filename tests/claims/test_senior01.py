"""Claims senior/01_custom_autograd_function makes about PyTorch, as code (cells by their 0-based index in the notebook)."""

from __future__ import annotations

import warnings

import pytest
import torch


class _Linear(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, weight, bias):
        ctx.save_for_backward(x, weight)
        return x @ weight.T + bias

    @staticmethod
    def backward(ctx, grad_output):
        x, weight = ctx.saved_tensors
        return (grad_output @ weight if ctx.needs_input_grad[0] else None), grad_output.T @ x, grad_output.sum(0)


class _BiasUnreduced(_Linear):
    @staticmethod
    def backward(ctx, grad_output):
        x, weight = ctx.saved_tensors
        return grad_output @ weight, grad_output.T @ x, grad_output  # (N, out) for a (out,) bias


class _WeightTransposed(_Linear):
    @staticmethod
    def backward(ctx, grad_output):
        x, weight = ctx.saved_tensors
        return grad_output @ weight, x.T @ grad_output, grad_output.sum(0)


class _CtxAttr(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.x = x
        return x * x

    @staticmethod
    def backward(ctx, g):
        return 2 * ctx.x * g


class _Saved(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x * x

    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        return 2 * x * g


def test_senior01_naive_softplus_overflows_and_naive_derivative_is_nan():
    """[4] log(1 + exp(1000.)) is inf, and exp(x) / (1 + exp(x)) is nan there; sigmoid stays finite."""
    x = torch.tensor(1000.0)
    assert torch.isinf(torch.log(1 + torch.exp(x)))
    assert torch.isnan(torch.exp(x) / (1 + torch.exp(x)))
    assert torch.sigmoid(x).item() == 1.0


def test_senior01_gradcheck_central_difference_error_is_quadratic_in_eps():
    """[8] central differences: the truncation error falls 100x when eps falls 10x (O(eps**2), not O(eps))."""
    x = torch.tensor(0.7, dtype=torch.float64)

    def err(eps):
        return abs((torch.exp(x + eps) - torch.exp(x - eps)) / (2 * eps) - torch.exp(x)).item()

    assert 80 < err(1e-2) / err(1e-3) < 120


def test_senior01_ctx_attribute_misses_inplace_edit():
    """[10] follow-up: a tensor kept as ctx.x gives a silently wrong gradient after an in-place edit."""
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    base = x * 1
    y = _CtxAttr.apply(base)
    with torch.no_grad():
        base.mul_(10)
    y.sum().backward()
    assert torch.equal(x.grad, torch.tensor([20.0, 40.0]))  # the right answer is [2, 4]


def test_senior01_save_for_backward_detects_inplace_edit():
    """[10], [30] save_for_backward checks the version counter, even for an edit under no_grad."""
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    base = x * 1
    y = _Saved.apply(base)
    with torch.no_grad():
        base.mul_(10)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        y.sum().backward()


def test_senior01_broadcastable_bias_gradient_is_summed():
    """[15] follow-up: a gradient that broadcasts to the input's shape is reduced with sum_to_size."""
    x, w, b = (torch.randn(5, 3, requires_grad=True), torch.randn(4, 3, requires_grad=True),
               torch.randn(4, requires_grad=True))
    g = torch.randn(5, 4)
    _BiasUnreduced.apply(x, w, b).backward(g)
    torch.testing.assert_close(b.grad, g.sum(0))


def test_senior01_transposed_weight_gradient_raises():
    """[15] follow-up: a gradient whose shape cannot be reduced to the input's (a transposed weight) raises."""
    x, w, b = (torch.randn(5, 3, requires_grad=True), torch.randn(4, 3, requires_grad=True),
               torch.randn(4, requires_grad=True))
    with pytest.raises(RuntimeError):
        _WeightTransposed.apply(x, w, b).backward(torch.randn(5, 4))


def test_senior01_needs_input_grad_false_for_data():
    """[11] ctx.needs_input_grad is False for an input that does not require grad."""
    seen = []

    class Probe(_Linear):
        @staticmethod
        def backward(ctx, g):
            seen.append(tuple(ctx.needs_input_grad))
            return _Linear.backward(ctx, g)

    Probe.apply(torch.randn(2, 3), torch.randn(4, 3, requires_grad=True), torch.randn(4, requires_grad=True)).sum().backward()
    assert seen == [(False, True, True)]


def test_senior01_round_has_zero_gradient_and_rounds_half_to_even():
    """[16], [19] torch.round's gradient is zero everywhere, and it rounds half to even."""
    x = torch.tensor([0.5, 1.5, 2.4, -2.5], requires_grad=True)
    y = torch.round(x)
    y.sum().backward()
    assert torch.equal(y.detach(), torch.tensor([0.0, 2.0, 2.0, -2.0]))
    assert torch.count_nonzero(x.grad) == 0


def test_senior01_exp_rounds_together_below_the_boundary():
    """[29] follow-up answer: exp of the float just below max_value can equal exp(max_value) in float32."""
    m = torch.linspace(-3.0, 3.0, 2001)
    below = torch.nextafter(m, torch.full_like(m, -10.0))
    assert (below < m).all() and (torch.exp(below) == torch.exp(m)).sum() > 100


def test_senior01_exp_overflows_above_88_in_float32():
    """[29] follow-up answer: exp(max_value) is inf in float32 once max_value is above about 88.7."""
    assert torch.isfinite(torch.exp(torch.tensor(88.7)))
    assert torch.isinf(torch.exp(torch.tensor(88.8)))


def test_senior01_function_forward_runs_without_grad_mode():
    """[32] inside Function.forward grad mode is off; no input requiring grad means no node."""
    seen = {}

    class Probe(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            seen["grad"] = torch.is_grad_enabled()
            return x * 2

        @staticmethod
        def backward(ctx, g):
            seen["calls"] = seen.get("calls", 0) + 1
            return g * 2

    assert Probe.apply(torch.randn(3)).requires_grad is False
    z = Probe.apply(torch.randn(3, requires_grad=True))
    (z + z * 3).sum().backward()
    assert seen == {"grad": False, "calls": 1}


def test_senior01_version_note_grad_fn_apply_on_a_temporary_output():
    """[14] version note, not a course claim: calling grad_fn.apply on a node whose output tensor is already
    gone works on torch 2.13, while torch 2.11 raises "backward through the graph a second time"; the ex2 test
    no longer relies on it (it records what backward returns from a subclass)."""
    w, b = torch.randn(4, 3, requires_grad=True), torch.randn(4, requires_grad=True)
    call = lambda: _Linear.apply(torch.randn(3, 3), w, b).grad_fn.apply(torch.ones(3, 4))  # noqa: E731
    if tuple(int(p) for p in torch.__version__.split("+")[0].split(".")[:2]) >= (2, 13):
        assert call()[0] is None
    else:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            with pytest.raises(RuntimeError, match="second time"):
                call()


def test_senior01_recording_subclass_sees_what_backward_returns():
    """[14] the version-independent way the ex2 test reads backward's return value: a recording subclass."""
    returned = []

    class Recorded(_Linear):
        @staticmethod
        def backward(ctx, g):
            returned.append(_Linear.backward(ctx, g))
            return returned[-1]

    Recorded.apply(torch.randn(3, 3), torch.randn(4, 3, requires_grad=True), torch.randn(4, requires_grad=True)).sum().backward()
    assert returned[0][0] is None and returned[0][1].shape == (4, 3)
