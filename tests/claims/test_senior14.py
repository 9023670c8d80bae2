"""Claims senior/14_adapters_routing_and_preferences makes about PyTorch, as code (cells as tools/dump_notebook.py numbers them)."""

from __future__ import annotations

import torch
import torch.nn as nn
import torch.nn.functional as F


def _tied_router_grad(k):
    torch.manual_seed(0)
    x, router = torch.randn(16, 8), nn.Linear(8, 4)
    nn.init.zeros_(router.weight)
    nn.init.zeros_(router.bias)
    experts = [nn.Linear(8, 8) for _ in range(4)]
    vals, idx = router(x).topk(k, dim=-1)
    w = vals.softmax(-1)
    out = sum(w[:, j:j + 1] * torch.stack([experts[e](x[n]) for n, e in enumerate(idx[:, j].tolist())])
              for j in range(k))
    out.pow(2).sum().backward()
    return router.weight.grad.norm(dim=1), idx


def test_senior14_tied_router_top2_still_gets_gradient():
    """[26] with tied (zero) router logits and k = 2, the chosen experts' router rows get a gradient, the others none."""
    norms, idx = _tied_router_grad(2)
    chosen = set(idx.reshape(-1).tolist())
    assert len(chosen) == 2 and all(norms[e] > 0.1 for e in chosen)
    assert all(norms[e] == 0 for e in range(4) if e not in chosen)


def test_senior14_tied_router_top1_gets_no_gradient():
    """[26] with k = 1 the single gate weight is the constant 1: the router gets no gradient at all."""
    norms, _ = _tied_router_grad(1)
    assert float(norms.abs().max()) == 0.0


def test_senior14_dpo_reference_only_reweights_pairs():
    """[53] the reference log-probs change each pair's weight sigmoid(-beta m), not the gradient's direction."""
    pc, pr = torch.tensor([0.0, -2.0], requires_grad=True), torch.tensor([-1.0, -1.5], requires_grad=True)
    rc, rr = torch.tensor([0.0, -1.0]), torch.tensor([-3.0, -0.5])
    with_ref = torch.autograd.grad(-F.logsigmoid(0.5 * ((pc - rc) - (pr - rr))).mean(), (pc, pr))
    no_ref = torch.autograd.grad(-F.logsigmoid(0.5 * (pc - pr)).mean(), (pc, pr))
    for a, b in zip(with_ref, no_ref, strict=True):
        assert torch.equal(a.sign(), b.sign()) and not torch.allclose(a, b)
    torch.testing.assert_close(with_ref[0], -with_ref[1])  # chosen up, rejected down, by the same amount per pair


def test_senior14_full_softmax_then_topk_weights_do_not_sum_to_one():
    """[23] a softmax over all E logits then picking k gives weights that do not sum to 1; softmax over the k does."""
    logits = torch.tensor([[2.0, 0.5, -1.0, 1.0]])
    vals, idx = logits.topk(2, dim=-1)
    assert float(logits.softmax(-1).gather(-1, idx).sum()) < 0.95
    torch.testing.assert_close(vals.softmax(-1).sum(-1), torch.ones(1))


def test_senior14_lora_r8_on_4096_square_trains_65536_parameters():
    """[17] a LoRA pair adds r x (in + out) elements: 65,536 at r = 8 against 16,781,312 for the full projection."""
    lin = nn.Linear(4096, 4096, device="meta")
    a, b = torch.empty(8, lin.in_features, device="meta"), torch.empty(lin.out_features, 8, device="meta")
    assert a.numel() + b.numel() == 65536 and sum(p.numel() for p in lin.parameters()) == 16_781_312
