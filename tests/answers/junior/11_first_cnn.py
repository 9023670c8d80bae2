"""Known-wrong and alternative answers for notebooks/junior/11_first_cnn.ipynb."""

WRONG = {
    "ex7_stack_out": [
        ("gives MaxPool2d(k) a stride of 1",
         "def stack_out(h, layers):\n    for layer in layers:\n        if layer[0] == 'conv':\n"
         "            _, k, s, p = layer\n            h = (h + 2 * p - k) // s + 1\n        else:\n"
         "            h = h - layer[1] + 1\n    return h\n"),
        ("forgets the padding",
         "def stack_out(h, layers):\n    for layer in layers:\n        if layer[0] == 'conv':\n"
         "            _, k, s, p = layer\n            h = (h - k) // s + 1\n        else:\n"
         "            h = h // layer[1]\n    return h\n"),
    ],
    "ex1_predict_shapes": [
        ("off by one: forgets the + 1 of the output-size formula", '''
SHAPES = dict.fromkeys("ABCDEF")
SHAPES["A"] = (4, 16, 29, 29)
SHAPES["B"] = (4, 16, 31, 31)
SHAPES["C"] = (4, 8, 15, 15)
SHAPES["D"] = (4, 3, 15, 15)
SHAPES["E"] = (4, 4, 27, 27)
SHAPES["F"] = (4, 3, 14, 14)
'''),
        ("right for plain layers, but pooling stride taken as 1 and dilation ignored", '''
SHAPES = dict.fromkeys("ABCDEF")
SHAPES["A"] = (4, 16, 30, 30)
SHAPES["B"] = (4, 16, 32, 32)
SHAPES["C"] = (4, 8, 16, 16)
SHAPES["D"] = (4, 3, 31, 31)
SHAPES["E"] = (4, 4, 30, 30)
SHAPES["F"] = (4, 3, 30, 30)
'''),
        ("gets the first three right but ignores dilation and pooling's default stride in the rest", '''
SHAPES = dict.fromkeys("ABCDEF")
SHAPES["A"] = (4, 16, 30, 30)
SHAPES["B"] = (4, 16, 32, 32)
SHAPES["C"] = (4, 8, 16, 16)
SHAPES["D"] = (4, 3, 16, 16)
SHAPES["E"] = (4, 4, 30, 30)
SHAPES["F"] = (4, 3, 30, 30)
'''),
    ],
    "ex2_conv_out": [
        ("off by one: forgets the + 1 for the first window", '''
def conv_out(h, k, s=1, p=0, d=1):
    return (h + 2 * p - d * (k - 1) - 1) // s
'''),
        ("ignores dilation", '''
def conv_out(h, k, s=1, p=0, d=1):
    return (h + 2 * p - k) // s + 1
'''),
        ("rounds up instead of down when the stride does not divide evenly", '''
def conv_out(h, k, s=1, p=0, d=1):
    return math.ceil((h + 2 * p - d * (k - 1) - 1) / s) + 1
'''),
    ],
    "ex3_param_counts": [
        ("counts the weights but forgets the bias", '''
def conv2d_params(c_in, c_out, k, bias=True):
    return c_out * c_in * k * k


def linear_params(n_in, n_out, bias=True):
    return n_out * n_in
'''),
        ("counts one bias per input channel or unit", '''
def conv2d_params(c_in, c_out, k, bias=True):
    return c_out * c_in * k * k + (c_in if bias else 0)


def linear_params(n_in, n_out, bias=True):
    return n_out * n_in + (n_in if bias else 0)
'''),
        ("forgets that every output channel has one filter per input channel", '''
def conv2d_params(c_in, c_out, k, bias=True):
    return c_out * k * k + (c_out if bias else 0)


def linear_params(n_in, n_out, bias=True):
    return n_out * n_in + (n_out if bias else 0)
'''),
    ],
    "ex4_to_nchw": [
        ("reshape instead of permute: right shape, scrambled pixels", '''
def to_nchw(images):
    x = torch.from_numpy(np.asarray(images)).float()
    if x.dim() == 3:
        x = x.unsqueeze(-1)
    n, h, w, c = x.shape
    return x.reshape(n, c, h, w).to(device)
'''),
        ("forgets the channel axis of grayscale batches", '''
def to_nchw(images):
    x = torch.from_numpy(np.asarray(images)).float()
    return x.permute(0, 3, 1, 2).contiguous().to(device)
'''),
        ("moves the channels but swaps height and width", '''
def to_nchw(images):
    x = torch.from_numpy(np.asarray(images)).float()
    if x.dim() == 3:
        x = x.unsqueeze(-1)
    return x.permute(0, 3, 2, 1).contiguous().to(device)
'''),
    ],
    "ex5_small_cnn": [
        ("hard-codes the flatten size for 8x8 images", '''
class SmallCNN(nn.Module):
    def __init__(self, image_size=8, n_classes=10):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 16, 3, padding=1)
        self.conv2 = nn.Conv2d(16, 32, 3, padding=1)
        self.pool = nn.MaxPool2d(2)
        self.fc = nn.Linear(32 * 2 * 2, n_classes)

    def forward(self, x):
        x = self.pool(F.relu(self.conv1(x)))
        x = self.pool(F.relu(self.conv2(x)))
        return self.fc(x.view(x.size(0), -1))
'''),
        ("computes the size but flattens the batch away with view(-1)", '''
class SmallCNN(nn.Module):
    def __init__(self, image_size=8, n_classes=10):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 16, 3, padding=1)
        self.conv2 = nn.Conv2d(16, 32, 3, padding=1)
        self.pool = nn.MaxPool2d(2)
        side = image_size // 2 // 2
        self.fc = nn.Linear(32 * side * side, n_classes)

    def forward(self, x):
        x = self.pool(F.relu(self.conv1(x)))
        x = self.pool(F.relu(self.conv2(x)))
        return self.fc(x.view(-1))
'''),
        ("computes the flatten size but forgets the two poolings", '''
class SmallCNN(nn.Module):
    def __init__(self, image_size=8, n_classes=10):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 16, 3, padding=1)
        self.conv2 = nn.Conv2d(16, 32, 3, padding=1)
        self.pool = nn.MaxPool2d(2)
        self.fc = nn.Linear(32 * image_size * image_size, n_classes)

    def forward(self, x):
        x = self.pool(F.relu(self.conv1(x)))
        x = self.pool(F.relu(self.conv2(x)))
        return self.fc(torch.flatten(x, 1))
'''),
    ],
    "ex6_train_cnn": [
        ("never calls optimizer.step()", '''
EPOCHS = 4 if FAST else 8
cnn, cnn_history = None, []
torch.manual_seed(SEED)
cnn = SmallCNN().to(device)
_opt = torch.optim.Adam(cnn.parameters(), lr=1e-2)
_loader = DataLoader(TensorDataset(X_train_img, y_train_img), batch_size=64, shuffle=True)
for _epoch in range(EPOCHS):
    cnn.train()
    _total, _n = 0.0, 0
    for _xb, _yb in _loader:
        _opt.zero_grad()
        _loss = F.cross_entropy(cnn(_xb), _yb)
        _loss.backward()
        _total += _loss.item() * len(_xb)
        _n += len(_xb)
    cnn_history.append(_total / _n)
'''),
        ("feeds (B, 8, 8) batches without the channel axis", '''
EPOCHS = 4 if FAST else 8
cnn, cnn_history = None, []
torch.manual_seed(SEED)
cnn = SmallCNN().to(device)
_opt = torch.optim.Adam(cnn.parameters(), lr=1e-2)
_flat = X_train_img.reshape(-1, 8, 8)
_loader = DataLoader(TensorDataset(_flat, y_train_img), batch_size=64, shuffle=True)
try:
    for _epoch in range(EPOCHS):
        for _xb, _yb in _loader:
            _opt.zero_grad()
            _loss = F.cross_entropy(cnn(_xb), _yb)
            _loss.backward()
            _opt.step()
        cnn_history.append(_loss.item())
except RuntimeError as _e:
    print("training failed:", str(_e).splitlines()[0])
'''),
        ("a learning rate far too small for this budget", '''
EPOCHS = 4 if FAST else 8
cnn, cnn_history = None, []
torch.manual_seed(SEED)
cnn = SmallCNN().to(device)
_opt = torch.optim.Adam(cnn.parameters(), lr=1e-5)
_loader = DataLoader(TensorDataset(X_train_img, y_train_img), batch_size=64, shuffle=True)
for _epoch in range(EPOCHS):
    cnn.train()
    _total, _n = 0.0, 0
    for _xb, _yb in _loader:
        _opt.zero_grad()
        _loss = F.cross_entropy(cnn(_xb), _yb)
        _loss.backward()
        _opt.step()
        _total += _loss.item() * len(_xb)
        _n += len(_xb)
    cnn_history.append(_total / _n)
'''),
    ],
}

ALT = {
    "ex7_stack_out": (
        "def stack_out(h, layers):\n    # let PyTorch do the arithmetic on the meta device: no data, only shapes\n"
        "    mods = [nn.Conv2d(1, 1, l[1], stride=l[2], padding=l[3], device='meta') if l[0] == 'conv'\n"
        "            else nn.MaxPool2d(l[1]) for l in layers]\n"
        "    return int(nn.Sequential(*mods)(torch.empty(1, 1, h, h, device='meta')).shape[-1])\n"
    ),
    "ex1_predict_shapes": '''
SHAPES = {"A": [4, 16, 30, 30], "B": [4, 16, 32, 32], "C": [4, 8, 16, 16],
          "D": [4, 3, 16, 16], "E": [4, 4, 28, 28], "F": [4, 3, 15, 15]}
''',
    "ex2_conv_out": '''
def conv_out(h, k, s=1, p=0, d=1):
    span = d * (k - 1) + 1          # pixels covered by one dilated window
    return len(range(0, h + 2 * p - span + 1, s))   # count the window start positions
''',
    "ex3_param_counts": '''
def conv2d_params(c_in, c_out, k, bias=True):
    per_filter = c_in * k * k + int(bool(bias))
    return c_out * per_filter


def linear_params(n_in, n_out, bias=True):
    return (n_in + int(bool(bias))) * n_out
''',
    "ex4_to_nchw": '''
def to_nchw(images):
    arr = np.asarray(images)
    if arr.ndim == 3:
        arr = np.expand_dims(arr, axis=-1)
    arr = np.ascontiguousarray(np.transpose(arr, (0, 3, 1, 2)), dtype=np.float32)
    return torch.tensor(arr, device=device)
''',
    "ex5_small_cnn": '''
class SmallCNN(nn.Module):
    def __init__(self, image_size=8, n_classes=10):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(1, 16, kernel_size=3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
            nn.Conv2d(16, 32, kernel_size=3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
        )
        with torch.no_grad():
            n_flat = self.features(torch.zeros(1, 1, image_size, image_size)).numel()
        self.head = nn.Sequential(nn.Flatten(), nn.Linear(n_flat, n_classes))

    def forward(self, x):
        return self.head(self.features(x))
''',
    "ex6_train_cnn": '''
EPOCHS = 4 if FAST else 8
torch.manual_seed(SEED)
cnn = SmallCNN().to(device)
_opt = torch.optim.Adam(cnn.parameters(), lr=5e-3)
_loss_fn = nn.CrossEntropyLoss()
_g = torch.Generator().manual_seed(SEED + 1)
cnn_history = []
for _epoch in range(EPOCHS):
    cnn.train()
    _order = torch.randperm(len(X_train_img), generator=_g).to(device)
    _losses = []
    for _i in range(0, len(_order), 32):
        _idx = _order[_i:_i + 32]
        _loss = _loss_fn(cnn(X_train_img[_idx]), y_train_img[_idx])
        _opt.zero_grad(set_to_none=True)
        _loss.backward()
        _opt.step()
        _losses.append(_loss.item() * len(_idx))
    cnn_history.append(sum(_losses) / len(_order))
''',
}
