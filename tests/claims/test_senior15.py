"""Claims senior/15_serving_and_custom_ops makes about PyTorch, as code (cells as tools/dump_notebook.py numbers them)."""

from __future__ import annotations

import numpy as np
import pytest
import torch


def test_senior15_dynamo_traces_plain_numpy():
    """[38] statement of ex7: plain NumPy is not what stops Dynamo; it traces it under fullgraph=True."""
    torch._dynamo.reset()
    fn = torch.compile(lambda x: torch.from_numpy(2.0 * np.tanh(x.numpy() / 2.0)) * 2, backend="eager", fullgraph=True)
    x = torch.randn(4)
    torch.testing.assert_close(fn(x), 4.0 * torch.tanh(x / 2.0))
    torch._dynamo.reset()


def test_senior15_compiler_disable_is_opaque_under_fullgraph():
    """[39] the harness's torch.compiler.disable'd vendor kernel makes fullgraph compilation fail."""
    @torch.compiler.disable
    def vendor(a):
        return np.tanh(a)

    torch._dynamo.reset()
    with pytest.raises(Exception, match="disable"):
        torch.compile(lambda x: torch.from_numpy(vendor(x.numpy())) * 2, backend="eager", fullgraph=True)(torch.randn(3))
    torch._dynamo.reset()


def test_senior15_cpu_then_numpy_shares_memory_on_cpu():
    """[41] Hint 2 of ex7: on the CPU x.detach().cpu().numpy() is a view of x, not a copy."""
    x = torch.zeros(3)
    a = x.detach().cpu().numpy()
    a[0] = 7.0
    assert x.cpu() is x and x[0].item() == 7.0
