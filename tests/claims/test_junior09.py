"""Claims junior/09_embeddings_and_freezing makes about PyTorch, as code (cells as tools/dump_notebook.py numbers
them)."""

from __future__ import annotations

import inspect

import pytest
import torch
import torch.nn as nn
import torch.nn.functional as F


def test_junior09_embedding_shapes_and_float_index():
    """[5] nn.Embedding(10, 4) on a (2, 3) index gives (2, 3, 4), holds 40 numbers, and refuses float indices."""
    emb = nn.Embedding(10, 4)
    idx = torch.tensor([[1, 2, 3], [4, 5, 6]])
    assert emb(idx).shape == (2, 3, 4) and sum(p.numel() for p in emb.parameters()) == 40
    with pytest.raises(RuntimeError):
        emb(idx.float())


def test_junior09_embedding_index_out_of_range_raises():
    """[9] follow-up: index 10 in nn.Embedding(10, 4) raises IndexError on the CPU."""
    with pytest.raises(IndexError, match="index out of range"):
        nn.Embedding(10, 4)(torch.tensor([10]))


def test_junior09_embedding_is_a_one_hot_product():
    """[10] an embedding lookup equals one-hot rows (of width num_embeddings) times the weight."""
    w, idx = torch.randn(7, 3), torch.tensor([[0, 2], [6, 2]])
    torch.testing.assert_close(F.one_hot(idx, 7).to(w.dtype) @ w, F.embedding(idx, w))
    assert F.one_hot(idx, 7).dtype == torch.int64


def test_junior09_padding_idx_row_gets_no_gradient():
    """[17] the padding_idx row starts at zero and gets a zero gradient."""
    emb = nn.Embedding(5, 2, padding_idx=0)
    assert torch.equal(emb.weight[0].detach(), torch.zeros(2))
    emb(torch.tensor([0, 3, 3])).sum().backward()
    assert torch.equal(emb.weight.grad[0], torch.zeros(2)) and torch.equal(emb.weight.grad[3], torch.full((2,), 2.0))


def test_junior09_setting_requires_grad_on_a_module_is_a_trap():
    """[27] module.requires_grad = False only sets a Python attribute; requires_grad_(False) freezes."""
    m = nn.Linear(2, 2)
    m.requires_grad = False
    assert all(p.requires_grad for p in m.parameters())
    m.requires_grad_(False)
    assert not any(p.requires_grad for p in m.parameters())


def test_junior09_adam_skips_none_grads_but_moves_on_zero_grads():
    """[32] follow-up: after some steps a frozen parameter with grad None is skipped (zero_grad's 2.x default),
    while one with a zero gradient still moves (stored moments)."""
    p = nn.Parameter(torch.ones(2))
    opt = torch.optim.Adam([p], lr=0.1)
    for _ in range(3):
        opt.zero_grad()
        (p ** 2).sum().backward()
        opt.step()
    opt.zero_grad()
    assert p.grad is None
    before = p.detach().clone()
    opt.step()
    assert torch.equal(p.detach(), before)
    p.grad = torch.zeros(2)
    opt.step()
    assert not torch.equal(p.detach(), before)


def test_junior09_sparse_adam_has_no_weight_decay():
    """[21] follow-up: torch.optim.SparseAdam takes no weight_decay argument."""
    assert "weight_decay" not in inspect.signature(torch.optim.SparseAdam).parameters


def test_junior09_from_pretrained_freezes_by_default():
    """[37] follow-up: nn.Embedding.from_pretrained freezes the vectors unless freeze=False."""
    v = torch.randn(5, 3)
    assert not nn.Embedding.from_pretrained(v).weight.requires_grad
    assert nn.Embedding.from_pretrained(v, freeze=False).weight.requires_grad


def test_junior09_embedding_bag_mean_equals_mean_of_embeddings():
    """[37] follow-up: EmbeddingBag(mode="mean") is the mean of the bag's embeddings in one op."""
    bag = nn.EmbeddingBag(6, 3, mode="mean")
    idx = torch.tensor([[1, 2, 4], [0, 0, 5]])
    torch.testing.assert_close(bag(idx), F.embedding(idx, bag.weight).mean(dim=1))
