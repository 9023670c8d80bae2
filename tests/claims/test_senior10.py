"""Claims senior/10_inference_and_serving makes about PyTorch, as code (cells as tools/dump_notebook.py numbers them)."""

from __future__ import annotations

import pytest
import torch
import torch.nn as nn


def _setup():
    torch.manual_seed(0)
    lin, x = nn.Linear(4, 4), torch.randn(3, 4)
    with torch.no_grad():
        a = lin(x)
    with torch.inference_mode():
        b = lin(x)
    return lin, a, b


def test_senior10_no_grad_output_is_a_normal_tensor():
    """[5] under no_grad the output does not require grad and is not an inference tensor; under inference_mode it is."""
    _, a, b = _setup()
    assert not a.requires_grad and not a.is_inference() and b.is_inference()


def test_senior10_inference_tensor_fails_in_the_forward_of_a_layer_that_saves_it():
    """[9] a trainable layer's forward raises on an inference tensor, before any backward runs."""
    lin, _, b = _setup()
    with pytest.raises(RuntimeError, match="Inference tensors cannot be saved for backward"):
        lin(b)
    lin(b.clone()).sum().backward()  # a clone made outside inference mode is an ordinary tensor


def test_senior10_inference_tensor_works_in_an_op_that_saves_nothing():
    """[5] an inference tensor may take part in autograd when no op saves it (an addition)."""
    lin, _, b = _setup()
    (lin.weight[:3] + b).sum().backward()
    assert lin.weight.grad is not None


def test_senior10_inplace_update_of_inference_tensor_outside_raises():
    """[5] updating an inference tensor in place outside inference mode raises."""
    _, _, b = _setup()
    with pytest.raises(RuntimeError):
        b.add_(1)
