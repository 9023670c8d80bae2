"""Claims junior/05_training_loop makes about PyTorch, as code (cells as tools/dump_notebook.py numbers them)."""

from __future__ import annotations

import pytest
import torch
import torch.nn as nn


def test_junior05_sum_of_losses_keeps_a_graph_chain():
    """[10] follow-up to ex1: total += loss builds an AddBackward0 chain that keeps every batch's graph nodes."""
    w = torch.randn(3, requires_grad=True)
    total = 0.0
    for _ in range(3):
        loss = (w * 2).sum()
        loss.backward()
        total = total + loss
    assert type(total.grad_fn).__name__ == "AddBackward0" and total.requires_grad
    assert isinstance(total.detach().item(), float)


def test_junior05_no_zero_grad_oscillates_without_diverging():
    """[15] follow-up to ex2: without zero_grad the steps are momentum with beta = 1: on a quadratic with a small
    learning rate the weight keeps oscillating around the minimum, neither settling nor diverging."""
    w = torch.tensor([0.0], requires_grad=True)
    opt = torch.optim.SGD([w], lr=0.1)
    errors = []
    for _ in range(200):
        ((w - 3) ** 2).sum().backward()  # never zeroed: the gradients add up
        opt.step()
        errors.append(abs(w.item() - 3))
    assert max(errors) < 10  # bounded: no divergence
    assert max(errors[-20:]) > 1  # still swinging after 200 steps: never settles


def test_junior05_state_dict_aliases_the_live_parameters():
    """[33] follow-up to ex5: model.state_dict() holds references to the live tensors; deepcopy makes a snapshot."""
    import copy

    lin = nn.Linear(2, 2)
    alias, snapshot = lin.state_dict(), copy.deepcopy(lin.state_dict())
    with torch.no_grad():
        lin.weight.add_(1.0)
    assert torch.equal(alias["weight"], lin.weight)
    assert not torch.equal(snapshot["weight"], lin.weight)


def test_junior05_sgd_weight_decay_is_added_to_the_gradient():
    """[34] SGD(weight_decay) updates p <- p - lr * (grad + wd * p); with a zero gradient p shrinks by 1 - lr*wd."""
    p = nn.Parameter(torch.tensor([2.0]))
    p.grad = torch.zeros(1)
    torch.optim.SGD([p], lr=0.2, weight_decay=0.25).step()
    assert p.item() == pytest.approx(2.0 * (1 - 0.2 * 0.25))


def test_junior05_optimizer_skips_parameters_without_grad():
    """[34] parameters with grad None are skipped, weight decay included."""
    p = nn.Parameter(torch.tensor([2.0]))
    torch.optim.SGD([p], lr=0.2, weight_decay=0.25).step()
    assert p.item() == 2.0
