"""Claims mid/02_checkpoint_resume makes about PyTorch, as code (cells as tools/dump_notebook.py numbers them)."""

from __future__ import annotations

import io
import pickle

import numpy as np
import pytest
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset


def _roundtrip(obj, **kw):
    buf = io.BytesIO()
    torch.save(obj, buf)
    buf.seek(0)
    return torch.load(buf, **kw)


def test_mid02_torch_load_refuses_a_pickled_module_by_default():
    """[15]/[16] torch.load defaults to weights_only=True and refuses a pickled nn.Module; a state_dict loads."""
    with pytest.raises(pickle.UnpicklingError):
        _roundtrip(nn.Linear(2, 2))
    assert set(_roundtrip(nn.Linear(2, 2).state_dict())) == {"weight", "bias"}


def test_mid02_numpy_rng_state_needs_weights_only_false():
    """[5]/[6] NumPy's RNG state (a tuple holding an array) is refused by weights_only=True."""
    state = {"np": np.random.get_state()}
    with pytest.raises(pickle.UnpicklingError):
        _roundtrip(state)
    assert _roundtrip(state, weights_only=False)["np"][0] == "MT19937"


def test_mid02_learning_rate_lives_in_the_optimizer_state_dict():
    """[11] the current lr is in optimizer.param_groups, which the optimizer's state_dict carries."""
    p = nn.Parameter(torch.ones(1))
    opt = torch.optim.SGD([p], lr=0.1)
    opt.param_groups[0]["lr"] = 0.0125
    fresh = torch.optim.SGD([p], lr=0.1)
    fresh.load_state_dict(opt.state_dict())
    assert fresh.param_groups[0]["lr"] == 0.0125


def test_mid02_forgotten_scheduler_restarts_from_base_lr():
    """[10]/[12] resuming LambdaLR(0.5 ** e) without its state: 0.0125 for one epoch, then 0.05."""
    def build():
        p = nn.Parameter(torch.ones(1))
        opt = torch.optim.SGD([p], lr=0.1)
        return p, opt, torch.optim.lr_scheduler.LambdaLR(opt, lambda e: 0.5 ** e)
    p, opt, sched = build()
    for _ in range(3):
        opt.step()
        sched.step()
    saved = opt.state_dict()
    p2, opt2, sched2 = build()
    opt2.load_state_dict(saved)
    first = opt2.param_groups[0]["lr"]
    opt2.step()
    sched2.step()
    assert abs(first - 0.0125) < 1e-12 and abs(opt2.param_groups[0]["lr"] - 0.05) < 1e-12


def test_mid02_strict_false_skips_every_mismatched_key_silently():
    """[22]/[26] load_state_dict(strict=False) with prefixed keys loads nothing and raises nothing."""
    src, dst = nn.Linear(2, 2), nn.Linear(2, 2)
    report = dst.load_state_dict({"module." + k: v for k, v in src.state_dict().items()}, strict=False)
    assert sorted(report.missing_keys) == ["bias", "weight"] and not torch.equal(dst.weight, src.weight)


def test_mid02_shuffle_order_comes_from_the_global_rng_without_a_generator():
    """[27] DataLoader(shuffle=True) without a generator follows the global RNG; with one, only its seed."""
    ds = TensorDataset(torch.arange(20))

    def order(**kw):
        return torch.cat([b[0] for b in DataLoader(ds, batch_size=5, shuffle=True, **kw)]).tolist()
    torch.manual_seed(0)
    a = order()
    torch.manual_seed(0)
    torch.randn(1)
    assert order() != a
    torch.manual_seed(1)
    b = order(generator=torch.Generator().manual_seed(7))
    torch.manual_seed(2)
    assert order(generator=torch.Generator().manual_seed(7)) == b


def test_mid02_deterministic_algorithms_flag_can_be_read_and_restored():
    """[32]/[33] are_deterministic_algorithms_enabled reads the flag use_deterministic_algorithms sets."""
    before = torch.are_deterministic_algorithms_enabled()
    try:
        torch.use_deterministic_algorithms(True)
        assert torch.are_deterministic_algorithms_enabled()
    finally:
        torch.use_deterministic_algorithms(before)
    assert torch.are_deterministic_algorithms_enabled() == before
