"""Claims mid/11_tensor_algorithms makes about PyTorch, as code (cells as tools/dump_notebook.py numbers them)."""

from __future__ import annotations

import warnings

import torch


def test_mid11_unfold_is_a_view_of_overlapping_windows():
    """[5]/[9] Tensor.unfold(-1, k, 1) gives the n - k + 1 windows as a view (no copy)."""
    x = torch.arange(10.0)
    w = x.unfold(-1, 4, 1)
    assert w.shape == (7, 4) and w.untyped_storage().data_ptr() == x.untyped_storage().data_ptr()
    assert w.stride() == (1, 1)
    assert torch.equal(w.amax(-1), torch.arange(3.0, 10.0))


def test_mid11_kthvalue_counts_from_the_smallest():
    """[10]/[11] kthvalue counts from the smallest: the k-th largest is the (n - k + 1)-th smallest."""
    x = torch.tensor([[5.0, 1.0, 9.0, 3.0, 9.0]])
    assert torch.kthvalue(x, 1).values.item() == 1.0
    assert torch.topk(x, 2).values[0, -1].item() == 9.0 == torch.kthvalue(x, 5 - 2 + 1).values.item()


def test_mid11_index_add_sums_where_index_copy_overwrites():
    """[26]/[29] index_add_ sums rows with the same id; index_copy_ keeps one of them."""
    ids, vals = torch.tensor([0, 0, 1]), torch.tensor([[1.0], [2.0], [5.0]])
    assert torch.equal(torch.zeros(2, 1).index_add_(0, ids, vals), torch.tensor([[3.0], [5.0]]))
    assert torch.zeros(2, 1).index_copy_(0, ids, vals)[0].item() in (1.0, 2.0)


def test_mid11_bincount_minlength_gives_trailing_empty_groups_a_slot():
    """[26] bincount(ids, minlength=n) has a slot (0) for every trailing empty group."""
    assert torch.bincount(torch.tensor([0, 2, 2]), minlength=5).tolist() == [1, 0, 2, 0, 0]


def test_mid11_sparse_coo_with_check_invariants_false_is_silent():
    """[35] torch.sparse_coo_tensor with check_invariants=False builds a COO tensor without warning."""
    i = torch.tensor([[0, 1], [1, 0]])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        a = torch.sparse_coo_tensor(i, torch.ones(2), (2, 2), check_invariants=False)
    assert a.layout == torch.sparse_coo
    torch.testing.assert_close(torch.sparse.mm(a, torch.eye(2)), torch.tensor([[0.0, 1.0], [1.0, 0.0]]))


def test_mid11_coalesce_sums_duplicates():
    """[36] coalesce() sums duplicate entries of a COO tensor."""
    a = torch.sparse_coo_tensor(torch.tensor([[0, 0], [1, 1]]), torch.tensor([2.0, 3.0]), (2, 2),
                                check_invariants=False).coalesce()
    assert a._nnz() == 1 and a.values().item() == 5.0


def test_mid11_degree_zero_gives_inf():
    """[34] without self-loops an isolated node has degree 0 and 0 ** -0.5 is inf."""
    assert torch.isinf(torch.zeros(1).rsqrt()).all()


def test_mid11_roll_brings_the_oldest_row_to_the_front():
    """[21] torch.roll along dim 0 by -pos brings the row at pos to the front."""
    buf = torch.tensor([[3.0], [4.0], [1.0], [2.0]])  # oldest at pos 2
    assert torch.roll(buf, -2, dims=0).flatten().tolist() == [1.0, 2.0, 3.0, 4.0]
