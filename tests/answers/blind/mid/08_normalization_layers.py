"""Blind set for notebooks/mid/08_normalization_layers.ipynb, written from release/ alone (issue 33)."""

# What the statement fixes (signature, submodules), shared by several answers of a cell.
_EX1_BN_HEAD = '''
class MyBatchNorm2d(nn.Module):
    def __init__(self, num_features, eps=1e-5, momentum=0.1):
        super().__init__()
        self.eps, self.momentum = eps, momentum
        self.weight = nn.Parameter(torch.ones(num_features))
        self.bias = nn.Parameter(torch.zeros(num_features))
        self.register_buffer("running_mean", torch.zeros(num_features))
        self.register_buffer("running_var", torch.ones(num_features))

    def forward(self, x):
'''

SHORTCUT = {
    "ex1_bn": ("calls F.batch_norm with the running buffers", _EX1_BN_HEAD + '''        return F.batch_norm(x, self.running_mean, self.running_var, self.weight, self.bias, self.training,
                            self.momentum, self.eps)
'''),
    "ex2_ln": ("calls F.layer_norm", '''
def layer_norm(x, normalized_shape, weight=None, bias=None, eps=1e-5):
    return F.layer_norm(x, tuple(normalized_shape), weight, bias, eps)
'''),
    "ex3_gn": ("calls F.group_norm", '''
def group_norm(x, num_groups, weight=None, bias=None, eps=1e-5):
    return F.group_norm(x, num_groups, weight, bias, eps)
'''),
}

WRONG = {
    "ex1_bn": ("feeds the biased batch variance into running_var", _EX1_BN_HEAD + '''        if self.training:
            mean = x.mean(dim=(0, 2, 3))
            var = x.var(dim=(0, 2, 3), correction=0)
            with torch.no_grad():
                self.running_mean.mul_(1 - self.momentum).add_(self.momentum * mean)
                self.running_var.mul_(1 - self.momentum).add_(self.momentum * var)
        else:
            mean, var = self.running_mean, self.running_var
        x_hat = (x - mean.view(1, -1, 1, 1)) / torch.sqrt(var.view(1, -1, 1, 1) + self.eps)
        return x_hat * self.weight.view(1, -1, 1, 1) + self.bias.view(1, -1, 1, 1)
'''),
    "ex2_ln": ("uses the unbiased variance", '''
def layer_norm(x, normalized_shape, weight=None, bias=None, eps=1e-5):
    dims = tuple(range(-len(normalized_shape), 0))
    mean = x.mean(dim=dims, keepdim=True)
    var = x.var(dim=dims, keepdim=True)
    y = (x - mean) / torch.sqrt(var + eps)
    if weight is not None:
        y = y * weight
    if bias is not None:
        y = y + bias
    return y
'''),
    "ex3_gn": ("groups channels 0, G, 2G... (reshape to (N, C // G, G, ...))", '''
def group_norm(x, num_groups, weight=None, bias=None, eps=1e-5):
    N, C = x.shape[:2]
    g = x.reshape(N, C // num_groups, num_groups, -1)
    mean = g.mean(dim=(1, 3), keepdim=True)
    var = g.var(dim=(1, 3), keepdim=True, correction=0)
    y = ((g - mean) / torch.sqrt(var + eps)).reshape(x.shape)
    shape = (1, C) + (1,) * (x.dim() - 2)
    if weight is not None:
        y = y * weight.view(shape)
    if bias is not None:
        y = y + bias.view(shape)
    return y
'''),
    "ex4_predict": ("thinks GroupNorm depends on the batch too", '''
BATCH_DEPENDENT = {"batchnorm", "groupnorm"}
BN_BATCH_OF_ONE = "error"
'''),
    "ex5_block": ("projects only when the channels change, not when only the stride does", '''
class ResidualBlock(nn.Module):
    def __init__(self, in_ch, out_ch, stride=1):
        super().__init__()
        self.conv1 = nn.Conv2d(in_ch, out_ch, 3, stride=stride, padding=1, bias=False)
        self.bn1 = nn.BatchNorm2d(out_ch)
        self.conv2 = nn.Conv2d(out_ch, out_ch, 3, padding=1, bias=False)
        self.bn2 = nn.BatchNorm2d(out_ch)
        if in_ch != out_ch:
            self.shortcut = nn.Sequential(nn.Conv2d(in_ch, out_ch, 1, stride=stride, bias=False),
                                          nn.BatchNorm2d(out_ch))
        else:
            self.shortcut = nn.Identity()

    def forward(self, x):
        out = self.bn2(self.conv2(torch.relu(self.bn1(self.conv1(x)))))
        return torch.relu(out + self.shortcut(x))
'''),
    "ex6_predict": ("counts BatchNorm's running buffers as parameters", '''
LARGER_FIRST_GRAD = "residual"
PROJ_PARAMS = 64 * 128 + 4 * 128
'''),
}

ALT = {
    "ex1_bn": '''
class MyBatchNorm2d(nn.Module):
    def __init__(self, num_features, eps=1e-5, momentum=0.1):
        super().__init__()
        self.num_features, self.eps, self.momentum = num_features, eps, momentum
        self.weight = nn.Parameter(torch.ones(num_features))
        self.bias = nn.Parameter(torch.zeros(num_features))
        self.register_buffer("running_mean", torch.zeros(num_features))
        self.register_buffer("running_var", torch.ones(num_features))

    def forward(self, x):
        C = x.shape[1]
        flat = x.transpose(0, 1).reshape(C, -1)
        if self.training:
            n = flat.shape[1]
            mean = flat.sum(dim=1) / n
            var = ((flat - mean[:, None]) ** 2).sum(dim=1) / n
            with torch.no_grad():
                self.running_mean.lerp_(mean.detach(), self.momentum)
                self.running_var.lerp_(var.detach() * n / (n - 1), self.momentum)
        else:
            mean, var = self.running_mean, self.running_var
        scale = self.weight * torch.rsqrt(var + self.eps)
        shift = self.bias - mean * scale
        return x * scale[None, :, None, None] + shift[None, :, None, None]
''',
    "ex2_ln": '''
def layer_norm(x, normalized_shape, weight=None, bias=None, eps=1e-5):
    shape = tuple(normalized_shape) if not isinstance(normalized_shape, int) else (normalized_shape,)
    lead = x.shape[: x.dim() - len(shape)]
    flat = x.reshape(*lead, -1)
    var, mean = torch.var_mean(flat, dim=-1, keepdim=True, correction=0)
    y = ((flat - mean) * torch.rsqrt(var + eps)).reshape(x.shape)
    if weight is not None:
        y = torch.mul(y, weight)
    if bias is not None:
        y = torch.add(y, bias)
    return y
''',
    "ex3_gn": '''
def group_norm(x, num_groups, weight=None, bias=None, eps=1e-5):
    C = x.shape[1]
    g = x.unflatten(1, (num_groups, C // num_groups))
    dims = tuple(range(2, g.dim()))
    mean = g.mean(dim=dims, keepdim=True)
    var = (g - mean).pow(2).mean(dim=dims, keepdim=True)
    y = ((g - mean) / (var + eps).sqrt()).flatten(1, 2)
    view = [1, C] + [1] * (x.dim() - 2)
    if weight is not None:
        y = y * weight.reshape(view)
    if bias is not None:
        y = y + bias.reshape(view)
    return y
''',
    "ex4_predict": '''
BATCH_DEPENDENT = ["BatchNorm "]
BN_BATCH_OF_ONE = "error"
''',
    "ex5_block": '''
class ResidualBlock(nn.Module):
    def __init__(self, in_ch, out_ch, stride=1):
        super().__init__()
        self.conv1 = nn.Conv2d(in_ch, out_ch, kernel_size=3, stride=stride, padding=1, bias=False)
        self.bn1 = nn.BatchNorm2d(out_ch)
        self.conv2 = nn.Conv2d(out_ch, out_ch, kernel_size=3, stride=1, padding=1, bias=False)
        self.bn2 = nn.BatchNorm2d(out_ch)
        keep = stride == 1 and in_ch == out_ch
        self.shortcut = nn.Sequential() if keep else nn.Sequential(
            nn.Conv2d(in_ch, out_ch, kernel_size=1, stride=stride, bias=False), nn.BatchNorm2d(out_ch))

    def forward(self, x):
        identity = self.shortcut(x)
        h = F.relu(self.bn1(self.conv1(x)))
        h = self.bn2(self.conv2(h))
        return F.relu(h + identity)
''',
    "ex6_predict": '''
LARGER_FIRST_GRAD = "Residual"
PROJ_PARAMS = 128 * 64 * 1 * 1 + 128 + 128
''',
}
