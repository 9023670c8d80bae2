"""Claims junior/01_tensors_and_memory makes about PyTorch, as code (cells as tools/dump_notebook.py numbers them)."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import torch
import torch.nn.functional as F


def _shares(a, b):
    return a.untyped_storage().data_ptr() == b.untyped_storage().data_ptr()


def test_junior01_default_float_dtypes_differ_from_numpy():
    """[4] torch.tensor([1.0]) is float32, NumPy's default float is float64."""
    assert torch.tensor([1.0]).dtype == torch.float32
    assert np.zeros(3).dtype == np.float64


def test_junior01_from_numpy_shares_and_keeps_dtype():
    """[4]/[6] from_numpy and as_tensor share the array's memory and dtype; tensor and a dtype change copy."""
    a = np.zeros(3)
    t_from, t_copy, t_as = torch.from_numpy(a), torch.tensor(a), torch.as_tensor(a)
    t_as32 = torch.as_tensor(a, dtype=torch.float32)
    a[0] = 7.0
    assert t_from.dtype == torch.float64
    assert [float(t[0]) for t in (t_from, t_copy, t_as, t_as32)] == [7.0, 0.0, 7.0, 0.0]


def test_junior01_numpy_refuses_a_tensor_that_requires_grad():
    """[9] t.numpy() refuses a tensor that requires grad: detach first."""
    t = torch.ones(2, requires_grad=True)
    with pytest.raises(RuntimeError, match="requires grad"):
        t.numpy()
    assert t.detach().cpu().numpy().dtype == np.float32


def test_junior01_numpy_force_detaches_for_you():
    """[9] t.numpy(force=True) is the one-call spelling: it works on a tensor that requires grad."""
    t = torch.ones(2, 3, requires_grad=True)
    out = t.numpy(force=True)
    assert isinstance(out, np.ndarray) and out.shape == (2, 3) and out.dtype == np.float32


def test_junior01_bfloat16_has_no_numpy_dtype():
    """[9] .numpy() raises on bfloat16; .float() first works."""
    t = torch.ones(2, dtype=torch.bfloat16)
    with pytest.raises(TypeError, match="BFloat16"):
        t.numpy()
    assert t.float().numpy().dtype == np.float32


def test_junior01_backward_frees_saved_activations():
    """[13] follow-up to ex2: after backward() the graph's saved tensors are freed; only its nodes remain."""
    w = torch.randn(4, requires_grad=True)
    loss = w.exp().sum()
    loss.backward()
    exp_node = loss.grad_fn.next_functions[0][0]
    with pytest.raises(RuntimeError, match="freed"):
        exp_node._saved_result  # noqa: B018


def test_junior01_legacy_tensor_constructor_takes_a_size():
    """[8] follow-up: torch.Tensor(3) is an uninitialised float32 (3,) tensor, torch.tensor(3) a 0-d int64 3."""
    assert torch.Tensor(3).shape == (3,) and torch.Tensor(3).dtype == torch.float32
    t = torch.tensor(3)
    assert t.shape == () and t.dtype == torch.int64 and t.item() == 3


def test_junior01_broadcast_predictions():
    """[14]/[16] (5,1,4)+(3,1) -> (5,3,4); (8,1)*(8,) -> (8,8); (2,3)+(2,) raises; (4,3,2)-(3,1) -> (4,3,2)."""
    assert torch.broadcast_shapes((5, 1, 4), (3, 1)) == (5, 3, 4)
    assert (torch.zeros(8, 1) * torch.zeros(8)).shape == (8, 8)
    assert torch.broadcast_shapes((4, 3, 2), (3, 1)) == (4, 3, 2)
    with pytest.raises(RuntimeError):
        torch.zeros(2, 3) + torch.zeros(2)


def test_junior01_mse_loss_broadcasts_with_only_a_warning():
    """[18] F.mse_loss on (N, 1) against (N,) broadcasts to (N, N) and only warns."""
    pred, target = torch.tensor([[1.0], [2.0], [3.0]]), torch.tensor([1.0, 2.0, 3.0])
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        loss = F.mse_loss(pred, target)
    assert any("broadcast" in str(w.message) for w in caught)
    torch.testing.assert_close(loss, ((pred - target) ** 2).mean())
    assert loss.item() > 0  # the matched pairs alone would give 0


def test_junior01_float_mask_cannot_index():
    """[28] indexing with a float tensor raises (only integer, bool or byte tensors index)."""
    x, mask = torch.arange(4.0), torch.tensor([1.0, 0.0, 1.0, 0.0])
    with pytest.raises(IndexError):
        x[mask]
    assert x[mask.bool()].tolist() == [0.0, 2.0]


def test_junior01_stack_adds_a_dim_cat_grows_one():
    """[29]/[31] stack of four (2, 3) -> (4, 2, 3), cat -> (8, 3), stack(dim=-1) -> (2, 3, 4), cat(dim=1) -> (2, 12)."""
    ts = [torch.zeros(2, 3) for _ in range(4)]
    assert torch.stack(ts).shape == (4, 2, 3) and torch.cat(ts).shape == (8, 3)
    assert torch.stack(ts, dim=-1).shape == (2, 3, 4) and torch.cat(ts, dim=1).shape == (2, 12)


def test_junior01_view_of_permuted_batch_raises():
    """[37] follow-up to ex7: a permuted batch is not contiguous, so .view(N, -1) raises; reshape copies."""
    b = torch.zeros(2, 3, 4, 5).permute(0, 3, 1, 2)
    with pytest.raises(RuntimeError, match="view size is not compatible"):
        b.view(2, -1)
    assert not _shares(b.reshape(2, -1), b)


def test_junior01_bare_squeeze_drops_every_size_one_dim():
    """[38] squeeze() without an argument turns a (1, 1) output into a 0-d tensor; squeeze(0) keeps (1,)."""
    out = torch.zeros(1, 1)
    assert out.squeeze().shape == () and out.squeeze(0).shape == (1,)


def test_junior01_transpose_strides_and_sharing():
    """[42]/[44] x.t() has strides (1, 4), is not contiguous, cannot view(12); reshape copies; x[:, 1] shares;
    x[[0, 2]] copies."""
    x = torch.arange(12).reshape(3, 4)
    y = x.t()
    assert y.stride() == (1, 4) and not y.is_contiguous()
    with pytest.raises(RuntimeError):
        y.view(12)
    assert not _shares(y.reshape(12), x)
    assert _shares(x[:, 1], x) and not _shares(x[[0, 2]], x)


def test_junior01_data_ptr_includes_the_offset():
    """[46] follow-up to ex9: x[1:] shares x's storage but its data_ptr() differs (storage offset)."""
    x = torch.arange(12).reshape(3, 4)
    assert x[1:].data_ptr() != x.data_ptr() and _shares(x[1:], x)


def test_junior01_expand_is_a_stride0_view_repeat_copies():
    """[46] follow-up: expand gives stride 0 and shares memory, repeat copies; in-place into expand raises."""
    x = torch.arange(3).reshape(3, 1)
    e, r = x.expand(3, 4), x.repeat(1, 4)
    assert e.stride() == (1, 0) and _shares(e, x)
    assert r.stride() == (4, 1) and not _shares(r, x)
    with pytest.raises(RuntimeError, match="single memory location"):
        e.add_(1)


def test_junior01_reshape_is_a_view_on_contiguous_input():
    """[47] flatten_batch: reshape returns a view of a contiguous batch and copies a permuted one."""
    b = torch.zeros(2, 3, 4, 5)
    assert _shares(b.reshape(2, -1), b)


def test_junior01_view_merges_strided_dims():
    """[51] follow-up to ex10: z = arange(24).reshape(2,3,4)[:, :2, :] (strides (12,4,1)) views as (2, 8), not 16."""
    z = torch.arange(24).reshape(2, 3, 4)[:, :2, :]
    assert z.stride() == (12, 4, 1) and not z.is_contiguous()
    assert z.view(2, 8).stride() == (12, 1)
    with pytest.raises(RuntimeError, match="view size is not compatible"):
        z.view(16)


def test_junior01_every_dim_of_a_step2_slice_lines_up():
    """[51] arange(24).reshape(2,3,4)[:, :, ::2] (strides (12,4,2)) views as 12 elements with stride 2."""
    z = torch.arange(24).reshape(2, 3, 4)[:, :, ::2]
    assert z.stride() == (12, 4, 2)
    flat = z.view(12)
    assert flat.stride() == (2,) and flat.tolist() == list(range(0, 24, 2))
