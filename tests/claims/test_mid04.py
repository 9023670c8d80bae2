"""Claims mid/04_custom_losses makes about PyTorch, as code (cells as tools/dump_notebook.py numbers them)."""

from __future__ import annotations

import pytest
import torch
import torch.nn as nn
import torch.nn.functional as F


def test_mid04_label_smoothing_spreads_eps_over_all_k_classes():
    """[5] label_smoothing=eps is (1 - eps) * NLL + eps * mean_k(-log p_k), the true class included."""
    torch.manual_seed(0)
    z, t = torch.randn(6, 5), torch.randint(0, 5, (6,))
    logp = F.log_softmax(z, -1)
    mine = (0.9 * -logp.gather(-1, t[:, None]).squeeze(-1) + 0.1 * -logp.mean(-1)).mean()
    torch.testing.assert_close(mine, F.cross_entropy(z, t, label_smoothing=0.1))


def test_mid04_smoothed_loss_floor_is_the_target_entropy():
    """[9] with eps=0.1 and 5 classes the smoothed loss cannot go below about 0.39 nats; a margin of 100 gives 8."""
    q = torch.full((5,), 0.02)
    q[0] = 0.92
    floor = -(q * q.log()).sum()
    assert abs(floor.item() - 0.39) < 0.005
    t = torch.tensor([0])
    assert abs(F.cross_entropy(q.log()[None], t, label_smoothing=0.1).item() - floor.item()) < 1e-5
    conf = torch.tensor([[50.0, -50, -50, -50, -50]])
    assert abs(F.cross_entropy(conf, t, label_smoothing=0.1).item() - 8.0) < 1e-4


def test_mid04_softmax_log_underflows_where_log_softmax_does_not():
    """[5]/[16] softmax(...).log() gives -inf for confident logits; log_softmax stays finite."""
    z = torch.tensor([[200.0, 0.0]])
    assert torch.isinf(torch.softmax(z, -1).log()).any() and torch.isfinite(F.log_softmax(z, -1)).all()
    assert torch.softmax(torch.tensor([20.0, 0.0], dtype=torch.float16), 0)[1] == 0  # fp16 underflow


def test_mid04_mean_reduction_divides_by_non_ignored_and_by_weight_sum():
    """[17] ignore_index's mean divides by the non-ignored count, weight's by the sum of the targets' weights."""
    torch.manual_seed(0)
    z = torch.randn(4, 5)
    ti = torch.tensor([0, -100, 2, -100])
    torch.testing.assert_close(F.cross_entropy(z, ti), F.cross_entropy(z, ti, reduction="none").sum() / 2)
    w, tw = torch.tensor([1.0, 2, 3, 4, 5]), torch.tensor([0, 4, 4, 1])
    torch.testing.assert_close(F.cross_entropy(z, tw, weight=w),
                               F.cross_entropy(z, tw, weight=w, reduction="none").sum() / w[tw].sum())


def test_mid04_focal_with_gamma0_is_cross_entropy():
    """[10] focal loss with gamma = 0 and no alpha is plain cross-entropy."""
    torch.manual_seed(0)
    z, t = torch.randn(6, 5), torch.randint(0, 5, (6,))
    logp_t = F.log_softmax(z, -1).gather(-1, t[:, None]).squeeze(-1)
    torch.testing.assert_close(-((1 - logp_t.exp()) ** 0.0 * logp_t).mean(), F.cross_entropy(z, t))


def test_mid04_a_fresh_requires_grad_tensor_cuts_the_graph():
    """[22] torch.tensor(x.item(), requires_grad=True) makes backward() run, but no gradient reaches the input."""
    x = torch.randn(3, requires_grad=True)
    loss = torch.tensor(1 - torch.sigmoid(x).mean().item(), requires_grad=True)
    loss.backward()
    assert x.grad is None and loss.grad_fn is None


def test_mid04_meta_refuses_cpu_tensors_and_cannot_be_copied_out():
    """[0]/[27]/[30] a meta tensor does not mix with a CPU tensor (like CUDA) and cannot be copied to the CPU."""
    with pytest.raises(RuntimeError):
        torch.ones(2, device="meta") + torch.ones(2)
    with pytest.raises(NotImplementedError):
        torch.ones(2, device="meta").cpu()


def test_mid04_module_to_moves_buffers_not_plain_attributes():
    """[34]/[35] .to() moves and converts buffers, not plain tensor attributes; buffers are not parameters."""
    m = nn.Module()
    m.register_buffer("w", torch.ones(2))
    m.plain = torch.ones(2)
    m.to(torch.float64)
    assert m.w.dtype == torch.float64 and m.plain.dtype == torch.float32 and not list(m.parameters())
    assert "w" in m.state_dict() and "plain" not in m.state_dict()


def test_mid04_non_persistent_buffer_is_not_saved():
    """[38] register_buffer(..., persistent=False) moves with the module but stays out of the state_dict."""
    m = nn.Module()
    m.register_buffer("table", torch.ones(3), persistent=False)
    assert "table" not in m.state_dict() and m.to(torch.float64).table.dtype == torch.float64
