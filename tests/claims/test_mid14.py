"""Claims mid/14_conv_and_recurrent_from_scratch makes about PyTorch, as code (cells by their 0-based index in the notebook)."""

from __future__ import annotations

import torch
import torch.nn as nn
import torch.nn.functional as F


def test_mid14_conv_output_size_formula():
    """[5] out = (n + 2p - d(k - 1) - 1) // s + 1, PyTorch's rounding."""
    for n, k, s, p, d in [(10, 3, 2, 1, 1), (11, 3, 1, 0, 2), (16, 3, 3, 1, 3), (9, 4, 2, 2, 2)]:
        got = F.conv1d(torch.zeros(1, 1, n), torch.zeros(1, 1, k), stride=s, padding=p, dilation=d).shape[-1]
        assert got == (n + 2 * p - d * (k - 1) - 1) // s + 1


def test_mid14_conv_is_cross_correlation():
    """[10] PyTorch's convolution does not flip the kernel: it is a cross-correlation."""
    x = torch.tensor([[[0.0, 1.0, 2.0, 3.0]]])
    w = torch.tensor([[[1.0, 0.0, -1.0]]])
    assert torch.equal(F.conv1d(x, w), torch.tensor([[[-2.0, -2.0]]]))  # x[i] - x[i + 2]: not flipped


def test_mid14_conv2d_is_unfold_then_matmul():
    """[10] conv2d equals the flattened weight times F.unfold's columns, reshaped row-major."""
    x, w = torch.randn(2, 3, 7, 6), torch.randn(4, 3, 3, 2)
    cols = F.unfold(x, (3, 2), dilation=2, padding=1, stride=2)
    want = F.conv2d(x, w, stride=2, padding=1, dilation=2)
    torch.testing.assert_close((w.reshape(4, -1) @ cols).reshape(want.shape), want)


def test_mid14_im2col_memory_is_nine_times_the_input():
    """[16] follow-up: a 3x3 im2col of a (64, 256, 56, 56) float32 activation takes about 1.8 GB (0.2 GB input)."""
    cols = 64 * 256 * 9 * 56 * 56 * 4
    assert 1.8e9 < cols < 1.9e9 and 0.2e9 < cols / 9 < 0.21e9


def test_mid14_conv_transpose_output_size_and_output_padding():
    """[9] follow-up answer: ConvTranspose2d(3, stride 2, padding 1) maps 7 to 13, and to 14 with output_padding=1."""
    x = torch.zeros(1, 1, 7, 7)
    assert nn.ConvTranspose2d(1, 1, 3, stride=2, padding=1)(x).shape[-1] == 13
    assert nn.ConvTranspose2d(1, 1, 3, stride=2, padding=1, output_padding=1)(x).shape[-1] == 14
    conv = nn.Conv2d(1, 1, 3, stride=2, padding=1)
    assert conv(torch.zeros(1, 1, 13, 13)).shape[-1] == conv(torch.zeros(1, 1, 14, 14)).shape[-1] == 7


def test_mid14_lstm_gate_order_is_ifgo():
    """[22] nn.LSTMCell's gates are i, f, g, o in the rows of weight_ih."""
    cell = nn.LSTMCell(3, 2)
    x, h, c = torch.randn(4, 3), torch.randn(4, 2), torch.randn(4, 2)
    gi, gf, gg, go = (x @ cell.weight_ih.T + cell.bias_ih + h @ cell.weight_hh.T + cell.bias_hh).chunk(4, -1)
    c2 = gf.sigmoid() * c + gi.sigmoid() * gg.tanh()
    h2, c2_ref = cell(x, (h, c))
    torch.testing.assert_close(c2, c2_ref)
    torch.testing.assert_close(go.sigmoid() * c2.tanh(), h2)


def test_mid14_lstm_biases_enter_as_a_sum():
    """[22] the LSTM has two bias vectors; only their sum matters."""
    a, b = nn.LSTMCell(3, 2), nn.LSTMCell(3, 2)
    b.load_state_dict(a.state_dict())
    with torch.no_grad():
        b.bias_ih += 0.7
        b.bias_hh -= 0.7
    x = torch.randn(4, 3)
    torch.testing.assert_close(a(x)[0], b(x)[0])


def test_mid14_gru_reset_gate_scales_hidden_term_with_its_bias():
    """[27] nn.GRUCell: n = tanh(x W_in + b_in + r * (h W_hn + b_hn)), gates r, z, n."""
    cell = nn.GRUCell(3, 2)
    x, h = torch.randn(4, 3), torch.randn(4, 2)
    i_r, i_z, i_n = (x @ cell.weight_ih.T + cell.bias_ih).chunk(3, -1)
    h_r, h_z, h_n = (h @ cell.weight_hh.T + cell.bias_hh).chunk(3, -1)
    r, z = (i_r + h_r).sigmoid(), (i_z + h_z).sigmoid()
    n = (i_n + r * h_n).tanh()
    torch.testing.assert_close((1 - z) * n + z * h, cell(x, h))


def test_mid14_packed_sequence_gives_last_real_state_unsorted():
    """[37] pack_padded_sequence(enforce_sorted=False) gives h_n in the batch's original order."""
    from torch.nn.utils.rnn import pack_padded_sequence

    lstm, lengths = nn.LSTM(3, 4, batch_first=True), torch.tensor([2, 5, 1])
    x = torch.randn(3, 5, 3)
    _, (h_n, _) = lstm(pack_padded_sequence(x, lengths, batch_first=True, enforce_sorted=False))
    alone = torch.cat([lstm(x[b:b + 1, :n])[1][0][-1] for b, n in enumerate(lengths.tolist())])
    torch.testing.assert_close(h_n[-1], alone)
