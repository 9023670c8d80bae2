"""Claims senior/04_compile_and_export makes about PyTorch, as code (cells by their 0-based index in the notebook)."""

from __future__ import annotations

import contextlib
import io
import logging
import warnings

import pytest
import torch
import torch._dynamo as dynamo
import torch.nn as nn

from torch._dynamo.testing import CompileCounter
from torch.export import Dim


@pytest.fixture(autouse=True)
def _quiet_dynamo():
    torch._logging.set_logs(dynamo=logging.ERROR, export=logging.ERROR)
    dynamo.reset()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        yield
    dynamo.reset()


def _leaky(x):
    y = torch.sin(x) * 2
    print("debug: mean", y.mean())
    if y.sum() > 0:
        y = y + 1
    else:
        y = y - 1
    scale = y.abs().max().item()
    return y / scale


def _fused(x):
    y = torch.sin(x) * 2
    y = torch.where(y.sum() > 0, y + 1, y - 1)
    return y / y.abs().max()


def test_senior04_print_value_branch_and_item_break_the_graph():
    """[7] a print, a Python branch on a tensor's value and .item() each break the graph."""
    with contextlib.redirect_stdout(io.StringIO()):
        report = dynamo.explain(_leaky)(torch.randn(16))
    assert report.graph_break_count >= 2 and report.graph_count >= 2


def test_senior04_where_and_tensor_scale_give_one_graph():
    """[10] torch.where on a 0-d condition and a tensor scale keep the function in one graph."""
    report = dynamo.explain(_fused)(torch.randn(16))
    assert report.graph_break_count == 0 and report.graph_count == 1


def _count(sizes, **kw):
    dynamo.reset()
    cnt = CompileCounter()
    g = torch.compile(lambda t: torch.relu(t * 3), backend=cnt, **kw)
    for n in sizes:
        g(torch.randn(n))
    return cnt.frame_count


def test_senior04_recompile_counts_static_default_dynamic():
    """[15] five sizes: dynamic=False compiles 5 times, the default (automatic dynamic) 2, dynamic=True once."""
    sizes = range(2, 7)
    assert [_count(sizes, dynamic=False), _count(sizes), _count(sizes, dynamic=True)] == [5, 2, 1]


def test_senior04_dynamic_true_still_specialises_batch_one():
    """[17], [21] sizes 0 and 1 are specialised even under dynamic=True: a batch of 1 compiles a second graph."""
    assert _count((3, 8, 5), dynamic=True) == 1
    assert _count((3, 8, 1, 5), dynamic=True) == 2


def test_senior04_mark_unbacked_compiles_once_including_batch_one():
    """[21] follow-up answer: an unbacked batch dimension serves sizes 1 to 64 with one graph."""
    from torch._dynamo.decorators import mark_unbacked

    cnt = CompileCounter()
    g = torch.compile(lambda t: torch.softmax(t @ t.T, dim=-1).sum(0), backend=cnt)
    for n in (1, 3, 8, 64):
        x = torch.randn(n, 4)
        mark_unbacked(x, 0)
        g(x)
    assert cnt.frame_count == 1


def test_senior04_recompile_limit_is_8():
    """[17] torch._dynamo.config.recompile_limit is 8 by default."""
    assert dynamo.config.recompile_limit == 8


class _Scorer(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(6, 16), nn.GELU(), nn.Dropout(0.3), nn.Linear(16, 3))

    def forward(self, x):
        return torch.log_softmax(self.body(x), dim=-1)


def test_senior04_export_without_dynamic_shapes_fixes_the_batch():
    """[24] hint 3: without dynamic_shapes the exported program accepts only the example's batch size."""
    ep = torch.export.export(_Scorer().eval(), (torch.randn(4, 6),))
    ep.module()(torch.randn(4, 6))
    with pytest.raises((AssertionError, RuntimeError)):  # a guard on the input's size fails
        ep.module()(torch.randn(9, 6))


def test_senior04_export_with_dim_accepts_new_batches_including_one():
    """[25] a Dim on dimension 0 lets the exported program take other batch sizes (1 included)."""
    model = _Scorer().eval()
    ep = torch.export.export(model, (torch.randn(4, 6),), dynamic_shapes={"x": {0: Dim("batch")}})
    for n in (1, 9, 31):
        x = torch.randn(n, 6)
        torch.testing.assert_close(ep.module()(x), model(x))


def test_senior04_export_branch_on_value_raises():
    """[28] follow-up: a branch on a tensor's value is a data-dependent error in torch.export."""
    class Branchy(nn.Module):
        def forward(self, x):
            return x + 1 if x.sum() > 0 else x - 1

    with pytest.raises(Exception, match="(?i)data.dependent|guard"):
        torch.export.export(Branchy(), (torch.randn(3),))


def test_senior04_jit_trace_bakes_in_the_branch_with_a_tracer_warning():
    """[28] follow-up: torch.jit.trace records the example's branch and warns only with a TracerWarning."""
    class Branchy(nn.Module):
        def forward(self, x):
            return x + 1 if x.sum() > 0 else x - 1

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        traced = torch.jit.trace(Branchy(), torch.ones(3))
    assert any(w.category.__name__ == "TracerWarning" for w in caught)
    assert torch.equal(traced(-torch.ones(3)), torch.zeros(3))  # took the x + 1 branch for a negative input
