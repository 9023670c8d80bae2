"""Claims senior/02_mixed_precision makes about PyTorch, as code (cells by their 0-based index in the notebook)."""

from __future__ import annotations

import warnings

import pytest
import torch
import torch.nn as nn
import torch.nn.functional as F


def test_senior02_cpu_bf16_autocast_output_dtypes():
    """[7] CPU bf16 autocast: matmul bf16, fp32 add stays fp32, mixed add promotes, sum of bf16 stays bf16, CE fp32."""
    a, b, bias, t = torch.randn(4, 8), torch.randn(8, 3), torch.randn(3), torch.tensor([0, 2, 1, 0])
    with torch.autocast("cpu", dtype=torch.bfloat16):
        h = a @ b
        got = [h.dtype, (a.sum() + bias).dtype, (h + bias).dtype, h.sum().dtype, F.cross_entropy(h, t).dtype]
    assert got == [torch.bfloat16, torch.float32, torch.float32, torch.bfloat16, torch.float32]


def test_senior02_cpu_bf16_autocast_leaves_softmax_in_input_dtype():
    """[9] the CPU bf16 list leaves softmax and exp to follow their input (CUDA fp16 forces them to fp32)."""
    h = torch.randn(4, 3, dtype=torch.bfloat16)
    with torch.autocast("cpu", dtype=torch.bfloat16):
        assert torch.softmax(h, -1).dtype == torch.bfloat16 and h.exp().dtype == torch.bfloat16


def test_senior02_fp16_half_ulp_near_one_is_about_5e_4():
    """[11] follow-up: fp16 spacing near 1.0 is 2**-10; an update below half of it (about 4.9e-4) rounds away."""
    one = torch.tensor(1.0, dtype=torch.float16)
    assert torch.finfo(torch.float16).eps == 2.0 ** -10
    assert (one + torch.tensor(4.5e-4, dtype=torch.float16)).item() == 1.0
    assert (one + torch.tensor(5.2e-4, dtype=torch.float16)).item() > 1.0


def test_senior02_autocast_keeps_parameters_and_grads_fp32():
    """[12] autocast never casts parameters in place; their gradients stay float32."""
    net = nn.Linear(4, 2)
    with torch.autocast("cpu", dtype=torch.bfloat16):
        out = net(torch.randn(3, 4))
    out.float().sum().backward()
    assert out.dtype == torch.bfloat16 and net.weight.dtype == torch.float32 and net.weight.grad.dtype == torch.float32


def test_senior02_backward_inside_autocast_gives_the_same_gradients():
    """[16] follow-up: backward ops run in the dtype their forward chose, so backward inside autocast changes nothing."""
    grads = []
    for inside in (False, True):
        torch.manual_seed(0)
        net, x = nn.Linear(4, 2), torch.randn(3, 4)
        with torch.autocast("cpu", dtype=torch.bfloat16):
            loss = net(x).float().square().sum()
            if inside:
                loss.backward()
        if not inside:
            loss.backward()
        grads.append(net.weight.grad)
    assert torch.equal(grads[0], grads[1])


def test_senior02_fp16_gradient_of_1e_8_underflows_to_zero():
    """[17] 1e-8 is below fp16's smallest subnormal (about 6e-8): it is stored as exactly 0."""
    assert torch.finfo(torch.float16).smallest_normal > 6e-5
    assert torch.tensor(1e-8).half().item() == 0.0
    assert torch.tensor(6e-8).half().item() > 0.0


def test_senior02_fp16_unscale_underflows_again():
    """[22] follow-up answer: dividing a scaled fp16 gradient by 2**14 in fp16 gives 0; in fp32 it gives 1e-8."""
    g = torch.tensor(1e-8 * 2 ** 14, dtype=torch.float16)
    assert (g / 2 ** 14).item() == 0.0
    assert abs((g.float() / 2 ** 14).item() - 1e-8) < 1e-10


def test_senior02_scale_2_16_overflows_fp16():
    """[22] 65536 is above fp16's maximum 65504: a fp16 value of 2**16 is inf."""
    assert torch.finfo(torch.float16).max == 65504.0
    assert torch.isinf(torch.tensor(2.0 ** 16).half())


def test_senior02_gradscaler_default_init_scale_is_2_16():
    """[22] GradScaler's default init_scale is exactly 2**16, the value the toy shows overflowing."""
    assert torch.amp.GradScaler("cpu").get_scale() == 2.0 ** 16


def _scaled(seed=3):
    torch.manual_seed(seed)
    m = nn.Linear(5, 1)
    return m, torch.optim.SGD(m.parameters(), lr=0.01), torch.amp.GradScaler("cpu", init_scale=2.0 ** 10)


def test_senior02_unscale_twice_raises():
    """[29] follow-up: a second unscale_ before update() raises."""
    m, opt, scaler = _scaled()
    scaler.scale(m(torch.randn(4, 5)).sum()).backward()
    scaler.unscale_(opt)
    with pytest.raises(RuntimeError, match="unscale_"):
        scaler.unscale_(opt)


def test_senior02_gradscaler_skips_inf_step_and_halves_scale():
    """[26] an inf gradient: scaler.step skips the update and update() halves the scale."""
    m, opt, scaler = _scaled()
    before = m.weight.detach().clone()
    x = torch.randn(4, 5)
    x[0, 0] = float("inf")
    scaler.scale(F.mse_loss(m(x), torch.zeros(4, 1))).backward()
    scaler.step(opt)
    scaler.update()
    assert torch.equal(before, m.weight) and scaler.get_scale() == 2.0 ** 9


def test_senior02_clipping_before_unscale_clips_to_max_norm_over_scale():
    """[29] follow-up: clipping scaled gradients leaves true gradients of norm max_norm / scale."""
    m, opt, scaler = _scaled()
    scaler.scale(F.mse_loss(m(torch.randn(32, 5) * 10), torch.randn(32, 1) * 10)).backward()
    torch.nn.utils.clip_grad_norm_(m.parameters(), 1.0)
    scaler.unscale_(opt)
    norm = torch.sqrt(sum((p.grad ** 2).sum() for p in m.parameters())).item()
    assert abs(norm - 1.0 / 2 ** 10) < 1e-6


def test_senior02_fp16_and_bf16_range_and_precision():
    """[34] 70000 overflows fp16 not bf16; bf16 rounds 1 + 1/256 to 1; fp16's smallest normal is far larger."""
    assert torch.isinf(torch.tensor(70000.0).half()) and torch.isfinite(torch.tensor(70000.0).bfloat16())
    assert torch.tensor(1 + 1 / 256).bfloat16().item() == 1.0 and torch.tensor(1 + 1 / 256).half().item() > 1.0
    assert torch.finfo(torch.float16).tiny > 1e-30 > torch.finfo(torch.bfloat16).tiny


def test_senior02_bf16_half_ulp_near_one_is_about_0_4_percent():
    """[36] follow-up answer: bf16 updates smaller than about 0.4% of a weight near 1 round away."""
    one = torch.tensor(1.0, dtype=torch.bfloat16)
    assert (one + torch.tensor(0.0035, dtype=torch.bfloat16)).item() == 1.0
    assert (one + torch.tensor(0.0045, dtype=torch.bfloat16)).item() > 1.0


def test_senior02_cuda_amp_gradscaler_is_deprecated():
    """[0] torch.cuda.amp.GradScaler is deprecated (FutureWarning): the notebook uses torch.amp.GradScaler."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        torch.cuda.amp.GradScaler(enabled=False)
    assert any(issubclass(w.category, FutureWarning) for w in caught)


@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs CUDA")
def test_senior02_cuda_fp16_autocast_forces_softmax_and_sum_to_fp32():
    """[9] on CUDA fp16 autocast, softmax and sum are autocast to float32."""
    a, b = torch.randn(4, 8, device="cuda"), torch.randn(8, 3, device="cuda")
    with torch.autocast("cuda", dtype=torch.float16):
        h = a @ b
        assert h.dtype == torch.float16
        assert torch.softmax(h, -1).dtype == torch.float32 and h.sum().dtype == torch.float32
