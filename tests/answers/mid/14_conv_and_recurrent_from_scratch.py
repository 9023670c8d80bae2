"""Known-wrong and alternative answers for notebooks/mid/14_conv_and_recurrent_from_scratch.ipynb."""

WRONG = {
    "ex1_out_size": [
        ("ignores dilation: uses the kernel size instead of its span", '''\
def conv_out_size(n, kernel_size, stride=1, padding=0, dilation=1):
    return (n + 2 * padding - kernel_size) // stride + 1


def same_padding(kernel_size, dilation=1):
    return (kernel_size - 1) // 2
'''),
        ("forgets the + 1 (counts strides, not positions) and rounds up", '''\
def conv_out_size(n, kernel_size, stride=1, padding=0, dilation=1):
    span = dilation * (kernel_size - 1) + 1
    return -(-(n + 2 * padding - span) // stride)


def same_padding(kernel_size, dilation=1):
    return dilation * (kernel_size - 1) // 2
'''),
    ],
    "ex2_conv_unfold": [
        ("unfolds without dilation: the patches are not what the dilated kernel sees", '''\
def conv2d_unfold(x, weight, bias=None, stride=1, padding=0, dilation=1):
    n, _, h, w = x.shape
    c_out, _, kh, kw = weight.shape
    cols = F.unfold(x, (kh, kw), padding=padding, stride=stride)
    out = weight.reshape(c_out, -1) @ cols
    if bias is not None:
        out = out + bias.reshape(1, c_out, 1)
    h_out = (h + 2 * padding - dilation * (kh - 1) - 1) // stride + 1
    w_out = (w + 2 * padding - dilation * (kw - 1) - 1) // stride + 1
    return out.reshape(n, c_out, h_out, w_out)
'''),
        ("computes (N, L, C_out) and reshapes it to (N, C_out, H, W) without a permute", '''\
def conv2d_unfold(x, weight, bias=None, stride=1, padding=0, dilation=1):
    n, _, h, w = x.shape
    c_out, _, kh, kw = weight.shape
    cols = F.unfold(x, (kh, kw), dilation=dilation, padding=padding, stride=stride)
    out = cols.transpose(1, 2) @ weight.reshape(c_out, -1).T
    if bias is not None:
        out = out + bias
    h_out = (h + 2 * padding - dilation * (kh - 1) - 1) // stride + 1
    w_out = (w + 2 * padding - dilation * (kw - 1) - 1) // stride + 1
    return out.reshape(n, c_out, h_out, w_out)
'''),
    ],
    "ex3_receptive_field": [
        ("adds each kernel span in input pixels, ignoring the strides before it", '''\
def receptive_field(layers):
    rf = 1
    for k, s, d in layers:
        rf += d * (k - 1)
    return rf
'''),
        ("ignores dilation", '''\
def receptive_field(layers):
    rf, jump = 1, 1
    for k, s, d in layers:
        rf += (k - 1) * jump
        jump *= s
    return rf
'''),
    ],
    "ex4_lstm_cell": [
        ("gate order i, f, o, g instead of PyTorch's i, f, g, o", '''\
def lstm_cell(x, h, c, w_ih, w_hh, b_ih, b_hh):
    gates = x @ w_ih.T + b_ih + h @ w_hh.T + b_hh
    i, f, o, g = gates.chunk(4, dim=-1)
    c_new = torch.sigmoid(f) * c + torch.sigmoid(i) * torch.tanh(g)
    return torch.sigmoid(o) * torch.tanh(c_new), c_new
'''),
        ("h' = o * c' (forgets the tanh on the cell state)", '''\
def lstm_cell(x, h, c, w_ih, w_hh, b_ih, b_hh):
    gates = x @ w_ih.T + b_ih + h @ w_hh.T + b_hh
    i, f, g, o = gates.chunk(4, dim=-1)
    c_new = torch.sigmoid(f) * c + torch.sigmoid(i) * torch.tanh(g)
    return torch.sigmoid(o) * c_new, c_new
'''),
    ],
    "ex5_gru_cell": [
        ("fixes the interpolation, but the reset gate still scales the input term", '''\
def gru_cell(x, h, w_ih, w_hh, b_ih, b_hh):
    i_r, i_z, i_n = (x @ w_ih.T + b_ih).chunk(3, dim=-1)
    h_r, h_z, h_n = (h @ w_hh.T + b_hh).chunk(3, dim=-1)
    r = torch.sigmoid(i_r + h_r)
    z = torch.sigmoid(i_z + h_z)
    n = torch.tanh(r * i_n + h_n)
    return (1 - z) * n + z * h
'''),
        ("fixes the reset gate, but z weights the candidate instead of the old state", '''\
def gru_cell(x, h, w_ih, w_hh, b_ih, b_hh):
    i_r, i_z, i_n = (x @ w_ih.T + b_ih).chunk(3, dim=-1)
    h_r, h_z, h_n = (h @ w_hh.T + b_hh).chunk(3, dim=-1)
    r = torch.sigmoid(i_r + h_r)
    z = torch.sigmoid(i_z + h_z)
    n = torch.tanh(i_n + r * h_n)
    return z * n + (1 - z) * h
'''),
        ("the paper's form: resets h before the matrix product", '''\
def gru_cell(x, h, w_ih, w_hh, b_ih, b_hh):
    hs = h.shape[-1]
    i_r, i_z, i_n = (x @ w_ih.T + b_ih).chunk(3, dim=-1)
    h_r, h_z, _ = (h @ w_hh.T + b_hh).chunk(3, dim=-1)
    r = torch.sigmoid(i_r + h_r)
    z = torch.sigmoid(i_z + h_z)
    n = torch.tanh(i_n + (r * h) @ w_hh[2 * hs:].T + b_hh[2 * hs:])
    return (1 - z) * n + z * h
'''),
    ],
    "ex6_unroll": [
        ("feeds the initial state to every step", '''\
def lstm_unroll(lstm, x, state=None):
    batch, steps, _ = x.shape
    if state is None:
        h0 = x.new_zeros(batch, lstm.hidden_size)
        c0 = x.new_zeros(batch, lstm.hidden_size)
    else:
        h0, c0 = state[0][0], state[1][0]
    outputs = []
    for t in range(steps):
        h, c = lstm_cell(x[:, t], h0, c0, lstm.weight_ih_l0, lstm.weight_hh_l0, lstm.bias_ih_l0, lstm.bias_hh_l0)
        outputs.append(h)
    return torch.stack(outputs, dim=1), (h.unsqueeze(0), c.unsqueeze(0))
'''),
        ("stacks the outputs time-major (T, B, H) although batch_first=True", '''\
def lstm_unroll(lstm, x, state=None):
    batch, steps, _ = x.shape
    h = x.new_zeros(batch, lstm.hidden_size) if state is None else state[0][0]
    c = x.new_zeros(batch, lstm.hidden_size) if state is None else state[1][0]
    outputs = []
    for t in range(steps):
        h, c = lstm_cell(x[:, t], h, c, lstm.weight_ih_l0, lstm.weight_hh_l0, lstm.bias_ih_l0, lstm.bias_hh_l0)
        outputs.append(h)
    return torch.stack(outputs), (h.unsqueeze(0), c.unsqueeze(0))
'''),
    ],
    "ex7_packed": [
        ("takes output[:, -1] of the padded run", '''\
def last_hidden(lstm, x_padded, lengths):
    out, _ = lstm(x_padded)
    return out[:, -1]
'''),
        ("sorts by length to pack, never restores the original order", '''\
def last_hidden(lstm, x_padded, lengths):
    order = lengths.argsort(descending=True)
    packed = pack_padded_sequence(x_padded[order], lengths[order], batch_first=True)
    _, (h_n, _) = lstm(packed)
    return h_n[-1]
'''),
    ],
}

ALT = {
    "ex1_out_size": '''\
import math


def conv_out_size(n, kernel_size, stride=1, padding=0, dilation=1):
    return math.floor((n + 2 * padding - dilation * (kernel_size - 1) - 1) / stride + 1)


def same_padding(kernel_size, dilation=1):
    span = dilation * (kernel_size - 1) + 1
    return (span - 1) // 2
''',
    "ex2_conv_unfold": '''\
def conv2d_unfold(x, weight, bias=None, stride=1, padding=0, dilation=1):
    c_out, _, kh, kw = weight.shape
    h_out = conv_out_size(x.shape[2], kh, stride, padding, dilation)
    w_out = conv_out_size(x.shape[3], kw, stride, padding, dilation)
    cols = F.unfold(x, kernel_size=(kh, kw), dilation=dilation, padding=padding, stride=stride)
    out = torch.einsum("nkl,ok->nlo", cols, weight.flatten(1))
    if bias is not None:
        out = out + bias
    return out.permute(0, 2, 1).reshape(x.shape[0], c_out, h_out, w_out)
''',
    "ex3_receptive_field": '''\
def receptive_field(layers):
    rf = 1
    for idx, (k, _, d) in enumerate(layers):
        jump = 1
        for _, s, _ in layers[:idx]:
            jump *= s
        rf += jump * (d * (k - 1) + 1 - 1)
    return rf
''',
    "ex4_lstm_cell": '''\
def lstm_cell(x, h, c, w_ih, w_hh, b_ih, b_hh):
    hs = h.shape[-1]
    z = F.linear(x, w_ih, b_ih) + F.linear(h, w_hh, b_hh)
    i = z[:, :hs].sigmoid()
    f = z[:, hs:2 * hs].sigmoid()
    g = z[:, 2 * hs:3 * hs].tanh()
    o = z[:, 3 * hs:].sigmoid()
    c2 = torch.addcmul(f * c, i, g)
    return o * c2.tanh(), c2
''',
    "ex5_gru_cell": '''\
def gru_cell(x, h, w_ih, w_hh, b_ih, b_hh):
    hs = h.shape[-1]
    gi = F.linear(x, w_ih, b_ih)
    gh = F.linear(h, w_hh, b_hh)
    r = (gi[:, :hs] + gh[:, :hs]).sigmoid()
    z = (gi[:, hs:2 * hs] + gh[:, hs:2 * hs]).sigmoid()
    n = (gi[:, 2 * hs:] + r * gh[:, 2 * hs:]).tanh()
    return n + z * (h - n)
''',
    "ex6_unroll": '''\
def lstm_unroll(lstm, x, state=None):
    weights = (lstm.weight_ih_l0, lstm.weight_hh_l0, lstm.bias_ih_l0, lstm.bias_hh_l0)
    zeros = torch.zeros(x.shape[0], lstm.hidden_size, device=x.device, dtype=x.dtype)
    hc = (zeros, zeros) if state is None else (state[0].squeeze(0), state[1].squeeze(0))
    hs = []
    for xt in x.unbind(1):
        hc = lstm_cell(xt, *hc, *weights)
        hs.append(hc[0])
    return torch.stack(hs, 1), (hc[0][None], hc[1][None])
''',
    "ex7_packed": '''\
def last_hidden(lstm, x_padded, lengths):
    out, _ = lstm(x_padded)
    idx = (lengths.to(out.device) - 1).view(-1, 1, 1).expand(-1, 1, out.shape[-1])
    return out.gather(1, idx).squeeze(1)
''',
}


# issue 33: "from scratch" means the library's convolutions and recurrent layers are off limits (exercises 1-6).
WRONG["ex1_out_size"].append(("shortcut: measures the size with F.conv1d on zeros", '''
def conv_out_size(n, kernel_size, stride=1, padding=0, dilation=1):
    return F.conv1d(torch.zeros(1, 1, n), torch.zeros(1, 1, kernel_size), stride=stride, padding=padding,
                    dilation=dilation).shape[-1]


def same_padding(kernel_size, dilation=1):
    return dilation * (kernel_size - 1) // 2
'''))
WRONG["ex2_conv_unfold"].append(("shortcut: calls F.conv2d", '''
def conv2d_unfold(x, weight, bias=None, stride=1, padding=0, dilation=1):
    return F.conv2d(x, weight, bias, stride=stride, padding=padding, dilation=dilation)
'''))
WRONG["ex3_receptive_field"].append(("shortcut: measures the field with F.conv1d and autograd", '''
def receptive_field(layers):
    x = torch.ones(1, 1, 512, dtype=torch.float64, requires_grad=True)
    y = x
    for k, s, d in layers:
        y = F.conv1d(y, torch.ones(1, 1, k, dtype=torch.float64), stride=s, dilation=d)
    (g,) = torch.autograd.grad(y[0, 0, 0], x)
    return int(g[0, 0].nonzero().max()) + 1
'''))
WRONG["ex4_lstm_cell"].append(("shortcut: calls torch.lstm_cell", '''
def lstm_cell(x, h, c, w_ih, w_hh, b_ih, b_hh):
    return torch.lstm_cell(x, (h, c), w_ih, w_hh, b_ih, b_hh)
'''))
WRONG["ex5_gru_cell"].append(("shortcut: calls torch.gru_cell", '''
def gru_cell(x, h, w_ih, w_hh, b_ih, b_hh):
    return torch.gru_cell(x, h, w_ih, w_hh, b_ih, b_hh)
'''))
WRONG["ex6_unroll"].append(("shortcut: calls the nn.LSTM module itself", '''
def lstm_unroll(lstm, x, state=None):
    return lstm(x, state)
'''))
