"""Blind set for notebooks/junior/11_first_cnn.ipynb, written from release/ alone (issue 33)."""

WRONG = {
    "ex1_predict_shapes": ("ignores the dilation of E: a 3x3 kernel taken to span 3 pixels", """
SHAPES = dict.fromkeys("ABCDEF")
SHAPES["A"] = (4, 16, 30, 30)
SHAPES["B"] = (4, 16, 32, 32)
SHAPES["C"] = (4, 8, 16, 16)
SHAPES["D"] = (4, 3, 16, 16)
SHAPES["E"] = (4, 4, 30, 30)
SHAPES["F"] = (4, 3, 15, 15)
"""),
    "ex2_conv_out": ("forgets the dilation", """
def conv_out(h, k, s=1, p=0, d=1):
    return (h + 2 * p - k) // s + 1
"""),
    "ex3_param_counts": ("one bias per input channel", """
def conv2d_params(c_in, c_out, k, bias=True):
    return c_out * c_in * k * k + (c_in if bias else 0)


def linear_params(n_in, n_out, bias=True):
    return n_out * n_in + (n_in if bias else 0)
"""),
    "ex4_to_nchw": ("reshape instead of permute: right shape, scrambled pixels", """
def to_nchw(images):
    t = torch.as_tensor(images, dtype=torch.float32)
    if t.dim() == 3:
        t = t[..., None]
    n, h, w, c = t.shape
    return t.reshape(n, c, h, w).contiguous().to(device)
"""),
    "ex5_small_cnn": ("the Linear's input size counts only one of the two poolings", """
class SmallCNN(nn.Module):
    def __init__(self, image_size=8, n_classes=10):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 16, 3, padding=1)
        self.conv2 = nn.Conv2d(16, 32, 3, padding=1)
        self.pool = nn.MaxPool2d(2)
        self.fc = nn.Linear(32 * (image_size // 2) ** 2, n_classes)

    def forward(self, x):
        x = self.pool(F.relu(self.conv1(x)))
        x = self.pool(F.relu(self.conv2(x)))
        return self.fc(torch.flatten(x, 1))
"""),
    "ex6_train_cnn": ("appends the loss tensor, not a float, to the history", """
EPOCHS = 4 if FAST else 8
torch.manual_seed(SEED)
cnn, cnn_history = SmallCNN().to(device), []
_opt = torch.optim.Adam(cnn.parameters(), lr=1e-2)
_loader = DataLoader(TensorDataset(X_train_img, y_train_img), batch_size=64, shuffle=True)
for _epoch in range(EPOCHS):
    cnn.train()
    _total, _n = 0.0, 0
    for _xb, _yb in _loader:
        _opt.zero_grad()
        _loss = F.cross_entropy(cnn(_xb), _yb)
        _loss.backward()
        _opt.step()
        _total = _total + _loss.detach() * len(_xb)
        _n += len(_xb)
    cnn_history.append(_total / _n)
"""),
    "ex7_stack_out": ("a pool with stride 1 instead of its kernel size", """
def stack_out(h, layers):
    for layer in layers:
        if layer[0] == "conv":
            _, k, s, p = layer
            h = (h + 2 * p - k) // s + 1
        else:
            h = h - layer[1] + 1
    return h
"""),
}

ALT = {
    "ex1_predict_shapes": """
SHAPES = {"A": [4, 16, 30, 30], "B": [4, 16, 32, 32], "C": [4, 8, 16, 16],
          "D": [4, 3, 16, 16], "E": [4, 4, 28, 28], "F": [4, 3, 15, 15]}
""",
    "ex2_conv_out": """
def conv_out(h, k, s=1, p=0, d=1):
    span = d * (k - 1) + 1
    return len(range(0, h + 2 * p - span + 1, s))
""",
    "ex3_param_counts": """
def conv2d_params(c_in, c_out, k, bias=True):
    return math.prod((c_out, c_in, k, k)) + c_out * int(bool(bias))


def linear_params(n_in, n_out, bias=True):
    return math.prod((n_out, n_in)) + n_out * int(bool(bias))
""",
    "ex4_to_nchw": """
def to_nchw(images):
    a = np.asarray(images)
    if a.ndim == 3:
        a = np.expand_dims(a, -1)
    a = np.ascontiguousarray(np.transpose(a, (0, 3, 1, 2)), dtype=np.float32)
    return torch.from_numpy(a).to(device)
""",
    "ex5_small_cnn": """
class SmallCNN(nn.Module):
    def __init__(self, image_size=8, n_classes=10):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(1, 16, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
            nn.Conv2d(16, 32, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2), nn.Flatten())
        with torch.no_grad():
            n_flat = self.features(torch.zeros(1, 1, image_size, image_size)).shape[1]
        self.classifier = nn.Linear(n_flat, n_classes)

    def forward(self, x):
        return self.classifier(self.features(x))
""",
    "ex6_train_cnn": """
EPOCHS = 6 if FAST else 10  # a little longer than the reference: at 4 epochs this schedule ended at 0.950
torch.manual_seed(SEED)
cnn = SmallCNN().to(device)
cnn_history = []
_opt = torch.optim.Adam(cnn.parameters(), lr=1e-2)
_loss_fn = nn.CrossEntropyLoss(reduction="sum")
for _epoch in range(EPOCHS):
    cnn.train()
    _order = torch.randperm(len(X_train_img), device=X_train_img.device)
    _sum = 0.0
    for _start in range(0, len(_order), 64):
        _i = _order[_start:_start + 64]
        _opt.zero_grad()
        _loss = _loss_fn(cnn(X_train_img[_i]), y_train_img[_i])
        (_loss / len(_i)).backward()
        _opt.step()
        _sum += _loss.item()
    cnn_history.append(_sum / len(_order))
""",
    "ex7_stack_out": """
def stack_out(h, layers):
    # let PyTorch do the arithmetic: the meta device computes shapes without data
    mods = [nn.Conv2d(1, 1, l[1], stride=l[2], padding=l[3], device="meta") if l[0] == "conv"
            else nn.MaxPool2d(l[1]) for l in layers]
    return int(nn.Sequential(*mods)(torch.empty(1, 1, h, h, device="meta")).shape[-1])
""",
}
