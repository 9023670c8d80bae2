"""Claims junior/03_modules makes about PyTorch, as code (cells as tools/dump_notebook.py numbers them)."""

from __future__ import annotations

import inspect

import torch
import torch.nn as nn


def test_junior03_frozen_parameter_is_skipped_by_weight_decay():
    """[9] follow-up to ex1: a requires_grad=False parameter gets no .grad, so AdamW's weight decay leaves it alone."""
    frozen = nn.Parameter(torch.ones(3), requires_grad=False)
    live = nn.Parameter(torch.ones(3))
    opt = torch.optim.AdamW([frozen, live], lr=0.1, weight_decay=0.5)
    (live ** 2).sum().backward()
    opt.step()
    assert frozen.grad is None and torch.equal(frozen.detach(), torch.ones(3))
    assert not torch.equal(live.detach(), torch.ones(3))


def test_junior03_buffers_are_saved_but_not_parameters():
    """[9] a buffer is in state_dict() and moves with .to(), but is not in parameters()."""
    m = nn.Module()
    m.register_buffer("mean", torch.zeros(2))
    m.register_parameter("scale", nn.Parameter(torch.ones(2), requires_grad=False))
    assert [n for n, _ in m.named_parameters()] == ["scale"]
    assert list(m.state_dict()) == ["scale", "mean"]
    assert m.to(torch.float64).mean.dtype == torch.float64


def test_junior03_apply_visits_every_submodule():
    """[37] follow-up: model.apply(fn) calls fn on every submodule, recursively, and on the model itself."""
    model = nn.Sequential(nn.Linear(2, 3), nn.Sequential(nn.ReLU(), nn.Linear(3, 1)))
    seen = []
    model.apply(lambda m: seen.append(type(m).__name__))
    assert sorted(seen) == ["Linear", "Linear", "ReLU", "Sequential", "Sequential"]

    def init(m):
        if isinstance(m, nn.Linear):
            nn.init.zeros_(m.bias)

    model.apply(init)
    assert torch.equal(model[1][1].bias.detach(), torch.zeros(1))


def test_junior03_linear_default_init_is_kaiming_uniform_sqrt5():
    """[37] follow-up: nn.Linear initialises its weight with kaiming_uniform_(a=sqrt(5))."""
    src = inspect.getsource(nn.Linear.reset_parameters)
    assert "kaiming_uniform_" in src and "sqrt(5)" in src


def test_junior03_forward_skips_hooks():
    """[37] follow-up: model(x) runs forward hooks; model.forward(x) skips them."""
    lin, calls = nn.Linear(2, 2), []
    lin.register_forward_hook(lambda mod, inp, out: calls.append(1))
    lin(torch.ones(1, 2))
    lin.forward(torch.ones(1, 2))
    assert calls == [1]
