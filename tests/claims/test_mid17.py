"""Claims mid/17_tokenization_and_retrieval makes about PyTorch, as code (cells by their 0-based index in the notebook)."""

from __future__ import annotations

import torch
import torch.nn.functional as F


def test_mid17_normalised_matmul_is_cosine_similarity():
    """[28] after normalising both sides to unit length, one matrix product gives every cosine similarity."""
    q, e = torch.randn(3, 5, dtype=torch.float64), torch.randn(7, 5, dtype=torch.float64)
    want = F.cosine_similarity(q[:, None, :], e[None, :, :], dim=-1)
    torch.testing.assert_close(F.normalize(q, dim=-1) @ F.normalize(e, dim=-1).T, want)


def test_mid17_topk_is_descending_with_int64_indices():
    """[28] torch.topk returns the k largest values in descending order, with int64 indices."""
    values, indices = torch.topk(torch.tensor([0.1, 0.9, -0.3, 0.5]), 3)
    assert values.tolist() == [0.8999999761581421, 0.5, 0.10000000149011612] and indices.tolist() == [1, 3, 0]
    assert indices.dtype == torch.int64


def test_mid17_no_grad_results_do_not_require_grad():
    """[28] a search run under torch.no_grad returns scores that do not require grad, even for inputs that do."""
    q = torch.randn(2, 4, requires_grad=True)
    with torch.no_grad():
        scores, _ = torch.topk(q @ q.T, 1)
    assert not scores.requires_grad and scores.grad_fn is None


def test_mid17_slice_past_the_end_is_shorter_and_a_view():
    """[23] tokens[start:start + size] past the end is a shorter window, and a view of tokens."""
    tokens = torch.arange(11)
    window = tokens[8:12]
    assert window.tolist() == [8, 9, 10] and window.untyped_storage().data_ptr() == tokens.untyped_storage().data_ptr()


def test_mid17_raw_dot_product_prefers_long_vectors():
    """[31] a raw dot product picks the long row (10, 10) for query (1, 0.1); cosine picks (1, 0)."""
    e, q = torch.tensor([[1.0, 0.0], [10.0, 10.0]]), torch.tensor([1.0, 0.1])
    assert (e @ q).argmax().item() == 1
    assert (F.normalize(e, dim=-1) @ F.normalize(q, dim=0)).argmax().item() == 0


def test_mid17_utf8_bytes_are_the_base_vocabulary():
    """[0] byte-level BPE starts from the UTF-8 bytes 0..255: a non-ASCII character is several ids."""
    ids = list("né".encode("utf-8"))
    assert ids == [110, 195, 169] and bytes(ids).decode("utf-8") == "né"
