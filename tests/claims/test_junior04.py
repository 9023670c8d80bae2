"""Claims junior/04_losses_and_optimizers makes about PyTorch, as code (cells as tools/dump_notebook.py numbers them)."""

from __future__ import annotations

import math

import pytest
import torch
import torch.nn.functional as F

_BIG = [[1000.0, 0.0, -1000.0], [0.0, 999.0, 1000.0]]


def test_junior04_softmax_does_not_overflow_but_underflows():
    """[5]/[6] torch.softmax of logits in the thousands is finite, but log(softmax) gives -inf and nan gradients."""
    z = torch.tensor(_BIG, requires_grad=True)
    p = torch.softmax(z, dim=1)
    assert torch.isfinite(p).all() and (p == 0).any()
    loss = F.nll_loss(torch.log(p), torch.tensor([0, 1]))
    loss.backward()
    assert torch.isfinite(loss) and torch.isnan(z.grad).all()


def test_junior04_naive_exp_overflows():
    """[5] e^1000 is inf in float32: a hand-written softmax overflows."""
    assert torch.exp(torch.tensor(1000.0)).isinf()


def test_junior04_logsumexp_stays_finite():
    """[5] torch.logsumexp / F.log_softmax keep the loss and its gradient finite for logits in the thousands."""
    z = torch.tensor(_BIG, requires_grad=True)
    t = torch.tensor([0, 1])
    loss = (torch.logsumexp(z, 1) - z.gather(1, t[:, None]).squeeze(1)).mean()
    loss.backward()
    torch.testing.assert_close(loss, F.cross_entropy(z, t), atol=1e-3, rtol=1e-4)
    assert torch.isfinite(z.grad).all()


def test_junior04_long_one_hot_targets_raise():
    """[9] follow-up to ex1: cross_entropy takes class indices or float probabilities; long one-hot rows raise."""
    z, t = torch.randn(3, 4), torch.tensor([0, 2, 1])
    one_hot = F.one_hot(t, 4)
    with pytest.raises(RuntimeError):
        F.cross_entropy(z, one_hot)
    torch.testing.assert_close(F.cross_entropy(z, one_hot.float()), F.cross_entropy(z, t))


def test_junior04_double_softmax_loss_floor():
    """[10] with probabilities fed to cross_entropy the loss cannot go below -1 + log(e + 9) ~ 1.46 for 10 classes."""
    perfect = torch.eye(10)  # the sharpest probabilities there are
    floor = F.cross_entropy(perfect, torch.arange(10)).item()
    assert floor == pytest.approx(-1 + math.log(math.e + 9), rel=1e-5) and 1.46 < floor < 1.47


def test_junior04_bce_clamps_and_kills_the_gradient():
    """[19]/[21] BCE on sigmoid(-200) is clamped at 100 with gradient 0; BCE with logits gives 200 and -1."""
    y = torch.tensor([1.0])
    za = torch.tensor([-200.0], requires_grad=True)
    la = F.binary_cross_entropy(torch.sigmoid(za), y)
    la.backward()
    zb = torch.tensor([-200.0], requires_grad=True)
    lb = F.binary_cross_entropy_with_logits(zb, y)
    lb.backward()
    assert la.item() == pytest.approx(100.0) and za.grad.item() == 0.0
    assert lb.item() == pytest.approx(200.0) and zb.grad.item() == pytest.approx(-1.0)


@pytest.mark.parametrize("name, kink, want", [("clamp_min", lambda z: z.clamp_min(0), [1.0, 0.0, 0.75]),
                                              ("relu", torch.relu, [0.0, -1.0, -0.25]),
                                              ("maximum", lambda z: torch.maximum(z, torch.zeros_like(z)),
                                               [0.5, -0.5, 0.25])])
def test_junior04_kink_gradient_depends_on_the_primitive(name, kink, want):
    """[23] at z = 0 the textbook BCE's gradient is 1 - y with clamp_min, -y with relu, 0.5 - y with maximum."""
    z = torch.zeros(3, dtype=torch.float64, requires_grad=True)
    y = torch.tensor([0.0, 1.0, 0.25], dtype=torch.float64)
    (kink(z) - z * y + torch.log1p(torch.exp(-z.abs()))).sum().backward()
    assert z.grad.tolist() == want


def test_junior04_softplus_gradient_is_sigmoid_at_zero():
    """[23]/[24] softplus is smooth: (softplus(z) - z y) has gradient sigmoid(0) - y = 0.5 - y at z = 0."""
    z = torch.zeros(2, dtype=torch.float64, requires_grad=True)
    y = torch.tensor([0.0, 1.0], dtype=torch.float64)
    (F.softplus(z) - z * y).sum().backward()
    assert z.grad.tolist() == [0.5, -0.5]


def _one_step(make_opt, steps=1, scale=1.0):
    w = torch.tensor(1.0, requires_grad=True)
    u = torch.tensor(5.0, requires_grad=True)
    opt = make_opt([w, u])
    for _ in range(steps):
        opt.zero_grad()
        (scale * (w - 3) ** 2).backward()
        opt.step()
    return w.item(), u.item()


def test_junior04_step_predictions():
    """[28]/[30] SGD -> 1.4; two momentum steps -> 2.08; Adam's first step is lr whatever the scale; grad None skipped."""
    assert _one_step(lambda p: torch.optim.SGD(p, lr=0.1)) == pytest.approx((1.4, 5.0))
    assert _one_step(lambda p: torch.optim.SGD(p, lr=0.1, momentum=0.9), 2)[0] == pytest.approx(2.08)
    assert _one_step(lambda p: torch.optim.Adam(p, lr=0.1))[0] == pytest.approx(1.1)
    assert _one_step(lambda p: torch.optim.Adam(p, lr=0.1), scale=1000.0)[0] == pytest.approx(1.1)


def test_junior04_sgd_update_rule():
    """[34] torch.optim.SGD: d_p = grad + wd * p; buf = d_p first, then momentum * buf + d_p; p -= lr * buf."""
    p = torch.nn.Parameter(torch.tensor([2.0]))
    opt = torch.optim.SGD([p], lr=0.1, momentum=0.5, weight_decay=0.1)
    mine, buf = 2.0, None
    for _ in range(3):
        opt.zero_grad()
        (p ** 2).sum().backward()
        d_p = 2 * mine + 0.1 * mine
        buf = d_p if buf is None else 0.5 * buf + d_p
        mine -= 0.1 * buf
        opt.step()
        assert p.item() == pytest.approx(mine, rel=1e-6)


def test_junior04_adam_vs_adamw_weight_decay():
    """[38] follow-up: one step from w = 1 with weight_decay=0.5: Adam still lands on 1.1, AdamW on 1.05."""
    assert _one_step(lambda p: torch.optim.Adam(p, lr=0.1, weight_decay=0.5))[0] == pytest.approx(1.1)
    assert _one_step(lambda p: torch.optim.AdamW(p, lr=0.1, weight_decay=0.5))[0] == pytest.approx(1.05)


def test_junior04_adamw_default_weight_decay():
    """[38] follow-up: AdamW's default weight_decay is 0.01, Adam's is 0."""
    w = torch.nn.Parameter(torch.zeros(1))
    assert torch.optim.AdamW([w]).defaults["weight_decay"] == 0.01
    assert torch.optim.Adam([w]).defaults["weight_decay"] == 0


def test_junior04_pos_weight_scales_the_positive_term():
    """[27] follow-up: pos_weight multiplies the loss of positive examples only."""
    z, y = torch.tensor([0.3, -1.2]), torch.tensor([1.0, 0.0])
    per = F.binary_cross_entropy_with_logits(z, y, reduction="none")
    weighted = F.binary_cross_entropy_with_logits(z, y, pos_weight=torch.tensor([99.0]), reduction="none")
    torch.testing.assert_close(weighted, per * torch.tensor([99.0, 1.0]))
