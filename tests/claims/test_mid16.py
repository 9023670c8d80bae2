"""Claims mid/16_llama_block_and_tiny_lm makes about PyTorch, as code (cells by their 0-based index in the notebook)."""

from __future__ import annotations

import inspect
import math

import torch
import torch.nn as nn
import torch.nn.functional as F


def _hidden(d, multiple_of=256, multiplier=None):
    hidden = int(2 * 4 * d / 3)
    if multiplier is not None:
        hidden = int(multiplier * hidden)
    return multiple_of * ((hidden + multiple_of - 1) // multiple_of)


def test_mid16_llama7b_hidden_size_is_11008():
    """[6] int(8 * 4096 / 3) rounded up to a multiple of 256 is 11008 (LLaMA-7B)."""
    assert _hidden(4096) == 11008


def test_mid16_llama3_8b_hidden_size_is_14336():
    """[6] with ffn_dim_multiplier 1.3 and multiple_of 1024, d_model 4096 gives 14336 (LLaMA-3-8B)."""
    assert _hidden(4096, 1024, 1.3) == 14336


def test_mid16_swiglu_two_thirds_keeps_8d2_weights():
    """[6] three matrices of d x (2/3 * 4d) hold 8 d^2 weights, like the classic d -> 4d -> d MLP."""
    d = 96
    assert 3 * d * (2 * 4 * d // 3) == 8 * d * d


def test_mid16_adamw_default_weight_decay_is_0_01():
    """[31] AdamW's default weight_decay is 0.01, so the statement's 0 must be passed explicitly."""
    assert inspect.signature(torch.optim.AdamW).parameters["weight_decay"].default == 1e-2


def test_mid16_data_assignment_shares_storage_and_steps_keep_it_equal():
    """[25] follow-up: .data assignment shares one storage; Adam steps keep the two Parameters equal."""
    emb, head = nn.Embedding(10, 4), nn.Linear(4, 10, bias=False)
    head.weight.data = emb.weight.data
    assert emb.weight.data_ptr() == head.weight.data_ptr() and emb.weight is not head.weight
    opt = torch.optim.Adam([emb.weight, head.weight], lr=0.1)
    for _ in range(3):
        opt.zero_grad()
        head(emb(torch.tensor([1, 2, 3]))).square().sum().backward()
        opt.step()
    assert torch.equal(emb.weight, head.weight)


def test_mid16_data_tied_weights_split_after_a_dtype_move():
    """[25] follow-up: a later .double() (or .to(device)) gives each Parameter its own copy."""
    emb, head = nn.Embedding(10, 4), nn.Linear(4, 10, bias=False)
    head.weight.data = emb.weight.data
    model = nn.ModuleDict({"e": emb, "h": head}).double()
    assert model["e"].weight.data_ptr() != model["h"].weight.data_ptr()


def test_mid16_parameter_tying_is_one_parameter():
    """[25] assigning the Parameter ties for real: parameters() lists it once and it gets the summed gradient."""
    emb, head = nn.Embedding(10, 4), nn.Linear(4, 10, bias=False)
    head.weight = emb.weight
    model = nn.ModuleDict({"e": emb, "h": head})
    assert len(list(model.parameters())) == 1


def test_mid16_cross_entropy_ignores_minus_100_by_default():
    """[38] F.cross_entropy's default ignore_index is -100."""
    assert inspect.signature(F.cross_entropy).parameters["ignore_index"].default == -100
    logits, labels = torch.randn(3, 5), torch.tensor([1, -100, 2])
    torch.testing.assert_close(F.cross_entropy(logits, labels), F.cross_entropy(logits[[0, 2]], labels[[0, 2]]))


def test_mid16_uniform_guess_loss_is_ln_vocab():
    """[31] a model that knows nothing about 16 tokens scores ln(16) = 2.77 nats; the best is ln(3)/11 = 0.10."""
    assert abs(F.cross_entropy(torch.zeros(4, 16), torch.tensor([0, 3, 5, 15])).item() - math.log(16)) < 1e-6
    assert round(math.log(3) / 11, 2) == 0.10


def test_mid16_rmsnorm_module_matches_formula():
    """[16] nn.RMSNorm(d, eps) is x / sqrt(mean(x^2) + eps) * weight."""
    norm, x = nn.RMSNorm(6, eps=1e-5), torch.randn(3, 6)
    with torch.no_grad():
        norm.weight.uniform_(0.5, 1.5)
    torch.testing.assert_close(norm(x), x / torch.sqrt(x.square().mean(-1, keepdim=True) + 1e-5) * norm.weight)
