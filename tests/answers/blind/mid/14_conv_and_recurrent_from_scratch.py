"""Blind set for notebooks/mid/14_conv_and_recurrent_from_scratch.ipynb, written from release/ alone (issue 33)."""

SHORTCUT = {
    "ex1_out_size": ("runs F.conv2d on zeros and reads the shape", '''
def conv_out_size(n, kernel_size, stride=1, padding=0, dilation=1):
    return F.conv2d(torch.zeros(1, 1, n, 1), torch.zeros(1, 1, kernel_size, 1), stride=(stride, 1),
                    padding=(padding, 0), dilation=(dilation, 1)).shape[2]


def same_padding(kernel_size, dilation=1):
    return dilation * (kernel_size - 1) // 2
'''),
    "ex2_conv_unfold": ("calls F.conv2d", '''
def conv2d_unfold(x, weight, bias=None, stride=1, padding=0, dilation=1):
    return F.conv2d(x, weight, bias, stride=stride, padding=padding, dilation=dilation)
'''),
    "ex3_receptive_field": ("measures it with F.conv1d and autograd", '''
def receptive_field(layers, length=256):
    x = torch.ones(1, 1, length, dtype=torch.float64, requires_grad=True)
    y = x
    for k, s, d in layers:
        y = F.conv1d(y, torch.ones(1, 1, k, dtype=torch.float64), stride=s, dilation=d)
    (g,) = torch.autograd.grad(y[0, 0, 0], x)
    return int(g[0, 0].nonzero().max()) + 1
'''),
    "ex4_lstm_cell": ("calls torch.lstm_cell", '''
def lstm_cell(x, h, c, w_ih, w_hh, b_ih, b_hh):
    return torch.lstm_cell(x, (h, c), w_ih, w_hh, b_ih, b_hh)
'''),
    "ex5_gru_cell": ("calls torch.gru_cell", '''
def gru_cell(x, h, w_ih, w_hh, b_ih, b_hh):
    return torch.gru_cell(x, h, w_ih, w_hh, b_ih, b_hh)
'''),
    "ex6_unroll": ("calls the nn.LSTM module itself", '''
def lstm_unroll(lstm, x, state=None):
    return lstm(x, state)
'''),
}

WRONG = {
    "ex1_out_size": ("forgets the dilation in the kernel span", '''
def conv_out_size(n, kernel_size, stride=1, padding=0, dilation=1):
    return (n + 2 * padding - kernel_size) // stride + 1


def same_padding(kernel_size, dilation=1):
    return dilation * (kernel_size - 1) // 2
'''),
    "ex2_conv_unfold": ("does not pass the dilation to F.unfold", '''
def conv2d_unfold(x, weight, bias=None, stride=1, padding=0, dilation=1):
    N, _, H, W = x.shape
    C_out, _, kH, kW = weight.shape
    H_out = (H + 2 * padding - dilation * (kH - 1) - 1) // stride + 1
    W_out = (W + 2 * padding - dilation * (kW - 1) - 1) // stride + 1
    cols = F.unfold(x, (kH, kW), padding=padding, stride=stride)
    out = weight.reshape(C_out, -1) @ cols
    if bias is not None:
        out = out + bias[None, :, None]
    return out.reshape(N, C_out, H_out, W_out)
'''),
    "ex3_receptive_field": ("multiplies the jump by a layer's stride before adding that layer's span", '''
def receptive_field(layers):
    rf, jump = 1, 1
    for k, s, d in layers:
        jump *= s
        rf += (d * (k - 1)) * jump
    return rf
'''),
    "ex4_lstm_cell": ("reads the gates in the order i, g, f, o", '''
def lstm_cell(x, h, c, w_ih, w_hh, b_ih, b_hh):
    gates = x @ w_ih.T + b_ih + h @ w_hh.T + b_hh
    i, g, f, o = gates.chunk(4, dim=-1)
    i, f, o, g = torch.sigmoid(i), torch.sigmoid(f), torch.sigmoid(o), torch.tanh(g)
    c2 = f * c + i * g
    return o * torch.tanh(c2), c2
'''),
    "ex5_gru_cell": ("fixes the reset gate but keeps z weighting the candidate", '''
def gru_cell(x, h, w_ih, w_hh, b_ih, b_hh):
    i_r, i_z, i_n = (x @ w_ih.T + b_ih).chunk(3, dim=-1)
    h_r, h_z, h_n = (h @ w_hh.T + b_hh).chunk(3, dim=-1)
    r = torch.sigmoid(i_r + h_r)
    z = torch.sigmoid(i_z + h_z)
    n = torch.tanh(i_n + r * h_n)
    return z * n + (1 - z) * h
'''),
    "ex6_unroll": ("feeds the initial state to every step", '''
def lstm_unroll(lstm, x, state=None):
    B, T, _ = x.shape
    H = lstm.hidden_size
    if state is None:
        state = (x.new_zeros(1, B, H), x.new_zeros(1, B, H))
    h0, c0 = state[0][0], state[1][0]
    outs = []
    for t in range(T):
        h, c = lstm_cell(x[:, t], h0, c0, lstm.weight_ih_l0, lstm.weight_hh_l0, lstm.bias_ih_l0, lstm.bias_hh_l0)
        outs.append(h)
    return torch.stack(outs, dim=1), (h[None], c[None])
'''),
    "ex7_packed": ("gathers the padded output at index lengths, one step too far", '''
def last_hidden(lstm, x_padded, lengths):
    out, _ = lstm(x_padded)
    idx = lengths.clamp(max=x_padded.shape[1] - 1).to(out.device)
    return out[torch.arange(out.shape[0], device=out.device), idx]
'''),
}

ALT = {
    "ex1_out_size": '''
import math


def conv_out_size(n, kernel_size, stride=1, padding=0, dilation=1):
    span = dilation * (kernel_size - 1) + 1
    return int(math.floor((n + 2 * padding - span) / stride)) + 1


def same_padding(kernel_size, dilation=1):
    span = dilation * (kernel_size - 1) + 1
    return (span - 1) // 2
''',
    "ex2_conv_unfold": '''
def conv2d_unfold(x, weight, bias=None, stride=1, padding=0, dilation=1):
    N, _, H, W = x.shape
    C_out, _, kH, kW = weight.shape
    H_out = (H + 2 * padding - dilation * (kH - 1) - 1) // stride + 1
    W_out = (W + 2 * padding - dilation * (kW - 1) - 1) // stride + 1
    xp = F.pad(x, (padding, padding, padding, padding))
    out = x.new_zeros(N, C_out, H_out, W_out)
    for a in range(kH):
        for b in range(kW):
            r0, c0 = a * dilation, b * dilation
            patch = xp[:, :, r0:r0 + stride * (H_out - 1) + 1:stride, c0:c0 + stride * (W_out - 1) + 1:stride]
            out = out + torch.einsum("nchw,oc->nohw", patch, weight[:, :, a, b])
    if bias is not None:
        out = out + bias.view(1, -1, 1, 1)
    return out
''',
    "ex3_receptive_field": '''
def receptive_field(layers):
    rf = 1
    for k, s, d in reversed(layers):
        rf = (rf - 1) * s + d * (k - 1) + 1
    return rf
''',
    "ex4_lstm_cell": '''
def lstm_cell(x, h, c, w_ih, w_hh, b_ih, b_hh):
    H = h.shape[-1]
    pre = torch.addmm(b_ih + b_hh, x, w_ih.t()) + torch.mm(h, w_hh.t())
    i = torch.sigmoid(pre[:, 0:H])
    f = torch.sigmoid(pre[:, H:2 * H])
    g = torch.tanh(pre[:, 2 * H:3 * H])
    o = torch.sigmoid(pre[:, 3 * H:4 * H])
    c_new = torch.addcmul(f * c, i, g)
    return o * torch.tanh(c_new), c_new
''',
    "ex5_gru_cell": '''
def gru_cell(x, h, w_ih, w_hh, b_ih, b_hh):
    H = h.shape[-1]
    gi = F.linear(x, w_ih, b_ih)
    gh = F.linear(h, w_hh, b_hh)
    r = torch.sigmoid(gi[:, :H] + gh[:, :H])
    z = torch.sigmoid(gi[:, H:2 * H] + gh[:, H:2 * H])
    n = torch.tanh(gi[:, 2 * H:] + r * gh[:, 2 * H:])
    return n + z * (h - n)
''',
    "ex6_unroll": '''
def lstm_unroll(lstm, x, state=None):
    B = x.shape[0]
    H = lstm.hidden_size
    h = x.new_zeros(B, H) if state is None else state[0].squeeze(0)
    c = x.new_zeros(B, H) if state is None else state[1].squeeze(0)
    weights = (lstm.weight_ih_l0, lstm.weight_hh_l0, lstm.bias_ih_l0, lstm.bias_hh_l0)
    hs = []
    for xt in x.unbind(dim=1):
        h, c = lstm_cell(xt, h, c, *weights)
        hs.append(h)
    return torch.stack(hs, dim=1), (h.unsqueeze(0), c.unsqueeze(0))
''',
    "ex7_packed": '''
def last_hidden(lstm, x_padded, lengths):
    out, _ = lstm(x_padded)
    idx = (lengths - 1).to(out.device)
    return out[torch.arange(out.shape[0], device=out.device), idx]
''',
}
