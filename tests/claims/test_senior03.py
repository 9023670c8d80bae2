"""Claims senior/03_activation_memory makes about PyTorch, as code (cells by their 0-based index in the notebook)."""

from __future__ import annotations

import warnings

import pytest
import torch
import torch.nn as nn

from torch.utils.checkpoint import checkpoint, checkpoint_sequential


def _saved_bytes(fn, exclude=()):
    skip, seen, total = {p.data_ptr() for p in exclude}, set(), [0]

    def pack(t):
        if t.data_ptr() not in skip and t.data_ptr() not in seen:
            seen.add(t.data_ptr())
            total[0] += t.numel() * t.element_size()
        return t

    with torch.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
        out = fn()
    return total[0], out


def _blocks(n):
    torch.manual_seed(0)
    return nn.ModuleList(nn.Sequential(nn.Linear(64, 256), nn.ReLU(), nn.Linear(256, 64)) for _ in range(n))


def test_senior03_segment_optimum_is_k8_not_sqrt_n():
    """[15] the plotted total k * boundary + (16/k) * per_block is smallest at k = 8, since per_block = 5 boundaries."""
    block, x = _blocks(1)[0], torch.randn(32, 64)
    per_block, _ = _saved_bytes(lambda: block(x), list(block.parameters()))
    boundary = x.numel() * x.element_size()
    assert per_block == 5 * boundary
    totals = {k: k * boundary + (16 // k) * per_block for k in (1, 2, 4, 8, 16)}
    assert min(totals, key=totals.get) == 8
    assert [v // 1024 for v in totals.values()] == [648, 336, 192, 144, 168]


def test_senior03_reentrant_checkpoint_drops_parameter_grads():
    """[5] reentrant checkpoint silently gives its parameters no gradient when no input requires grad."""
    lin, head, x = nn.Linear(4, 4), nn.Linear(4, 1), torch.randn(2, 4)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        head(checkpoint(lin, x, use_reentrant=True)).sum().backward()
    assert lin.weight.grad is None and head.weight.grad is not None
    head(checkpoint(lin, x, use_reentrant=False)).sum().backward()
    assert lin.weight.grad is not None


def test_senior03_checkpoint_sequential_leaves_last_segment_plain():
    """[11] checkpoint_sequential runs its last segment without checkpointing: it saves more than k inputs."""
    blocks, x = _blocks(4), torch.randn(8, 64)
    params = list(blocks.parameters())
    got, _ = _saved_bytes(lambda: checkpoint_sequential(nn.Sequential(*blocks), 2, x, use_reentrant=False), params)
    boundary = x.numel() * x.element_size()
    assert got > 2 * boundary


@pytest.mark.parametrize("expr, want", [("a + c", 0), ("a * c", 8000), ("a.exp()", 4000), ("a.sum()", 0),
                                        ("torch.sigmoid(a)", 4000)])
def test_senior03_bytes_saved_per_op(expr, want):
    """[25] what add, mul, exp, sum and sigmoid save for backward on 1000-element float32 inputs."""
    a, c = torch.randn(1000, requires_grad=True), torch.randn(1000, requires_grad=True)
    got, _ = _saved_bytes(lambda: eval(expr, {"torch": torch, "a": a, "c": c}))
    assert got == want


def test_senior03_inplace_relu_saves_the_same_and_gelu_saves_its_input():
    """[22] follow-up: an in-place ReLU keeps the count; GELU stores its input, a second tensor per hidden layer."""
    x = torch.randn(3, 10)

    def mlp(act):
        torch.manual_seed(0)
        return nn.Sequential(nn.Linear(10, 20), act, nn.Linear(20, 5))

    counts = {}
    for name, act in {"relu": nn.ReLU(), "inplace": nn.ReLU(inplace=True), "gelu": nn.GELU()}.items():
        m = mlp(act)
        counts[name], _ = _saved_bytes(lambda m=m: m(x), list(m.parameters()))
    assert counts["relu"] == counts["inplace"] == 3 * (10 + 20) * 4
    assert counts["gelu"] == 3 * (10 + 20 + 20) * 4


def test_senior03_meta_to_refuses_and_to_empty_allocates():
    """[29] .to() refuses a meta tensor (no data to copy); to_empty() allocates storage."""
    with torch.device("meta"):
        lin = nn.Linear(3, 3)
    with pytest.raises(NotImplementedError):
        lin.to("cpu")
    lin.to_empty(device="cpu")
    assert lin.weight.device.type == "cpu"


def test_senior03_meta_build_then_reset_matches_normal_init():
    """[29] to_empty + reset_parameters with the same seed equals a normally built model."""
    torch.manual_seed(7)
    with torch.device("meta"):
        m = nn.Sequential(nn.Linear(6, 6), nn.ReLU(), nn.Linear(6, 6))
    m.to_empty(device="cpu")
    torch.manual_seed(7)
    for mod in m.modules():
        if hasattr(mod, "reset_parameters"):
            mod.reset_parameters()
    torch.manual_seed(7)
    ref = nn.Sequential(nn.Linear(6, 6), nn.ReLU(), nn.Linear(6, 6))
    for p, q in zip(m.parameters(), ref.parameters(), strict=True):
        assert torch.equal(p, q)


def test_senior03_lazy_parameter_materializes_in_place():
    """[34] the lazy weight object survives the first forward, so an Adam built before it updates the weight."""
    head = nn.Sequential(nn.Flatten(), nn.LazyLinear(10))
    w = head[1].weight
    opt = torch.optim.Adam(head.parameters(), lr=0.1)
    head(torch.randn(4, 3, 8, 8)).sum().backward()
    before = w.detach().clone()
    opt.step()
    assert w is head[1].weight and type(w) is nn.Parameter
    assert tuple(w.shape) == (10, 192) and not torch.equal(before, w.detach())


def test_senior03_adagrad_refuses_uninitialized_parameter():
    """[34] code that reads values or numel at build time raises on an UninitializedParameter (Adagrad, numel)."""
    with pytest.raises(ValueError, match="uninitialized parameter"):
        torch.optim.Adagrad(nn.LazyLinear(3).parameters())
    with pytest.raises(ValueError, match="uninitialized parameter"):
        sum(p.numel() for p in nn.LazyLinear(3).parameters())


def test_senior03_lazy_load_state_dict_materializes():
    """[40] follow-up answer: load_state_dict into an un-run lazy model works and takes the checkpoint's shapes."""
    src = nn.Linear(192, 10)
    lazy = nn.Sequential(nn.Flatten(), nn.LazyLinear(10))
    result = lazy.load_state_dict({"1.weight": src.weight.detach(), "1.bias": src.bias.detach()})
    assert not result.missing_keys and not result.unexpected_keys
    assert torch.equal(lazy[1].weight, src.weight)
