"""Known-wrong and alternative answers for notebooks/mid/08_normalization_layers.ipynb."""

_BN_INIT = (
    "class MyBatchNorm2d(nn.Module):\n"
    "    def __init__(self, num_features, eps=1e-5, momentum=0.1):\n"
    "        super().__init__()\n"
    "        self.eps, self.momentum = eps, momentum\n"
    "        self.weight = nn.Parameter(torch.ones(num_features))\n"
    "        self.bias = nn.Parameter(torch.zeros(num_features))\n"
    "        self.register_buffer('running_mean', torch.zeros(num_features))\n"
    "        self.register_buffer('running_var', torch.ones(num_features))\n"
    "\n"
    "    def forward(self, x):\n"
)
_BN_TAIL = (
    "        s = (1, -1, 1, 1)\n"
    "        return (x - mean.view(s)) / torch.sqrt(var.view(s) + self.eps) * self.weight.view(s) + self.bias.view(s)\n"
)

_BLOCK_INIT = (
    "class ResidualBlock(nn.Module):\n"
    "    def __init__(self, in_ch, out_ch, stride=1):\n"
    "        super().__init__()\n"
    "        self.conv1 = nn.Conv2d(in_ch, out_ch, 3, stride=stride, padding=1, bias=False)\n"
    "        self.bn1 = nn.BatchNorm2d(out_ch)\n"
    "        self.conv2 = nn.Conv2d(out_ch, out_ch, 3, padding=1, bias=False)\n"
    "        self.bn2 = nn.BatchNorm2d(out_ch)\n"
)

WRONG = {
    "ex1_bn": [
        ("updates running_var with the biased batch variance",
         _BN_INIT +
         "        if self.training:\n"
         "            mean, var = x.mean(dim=(0, 2, 3)), x.var(dim=(0, 2, 3), correction=0)\n"
         "            with torch.no_grad():\n"
         "                self.running_mean.mul_(1 - self.momentum).add_(self.momentum * mean)\n"
         "                self.running_var.mul_(1 - self.momentum).add_(self.momentum * var)\n"
         "        else:\n"
         "            mean, var = self.running_mean, self.running_var\n"
         + _BN_TAIL),
        ("Keras momentum convention: keeps momentum of the new batch instead of (1 - momentum)",
         _BN_INIT +
         "        if self.training:\n"
         "            mean, var = x.mean(dim=(0, 2, 3)), x.var(dim=(0, 2, 3), correction=0)\n"
         "            n = x.numel() // x.shape[1]\n"
         "            with torch.no_grad():\n"
         "                self.running_mean.mul_(self.momentum).add_((1 - self.momentum) * mean)\n"
         "                self.running_var.mul_(self.momentum).add_((1 - self.momentum) * var * n / (n - 1))\n"
         "        else:\n"
         "            mean, var = self.running_mean, self.running_var\n"
         + _BN_TAIL),
    ],
    "ex2_ln": [
        ("normalizes over the batch dimension (that is BatchNorm's axis)",
         "def layer_norm(x, normalized_shape, weight=None, bias=None, eps=1e-5):\n"
         "    mean = x.mean(dim=0, keepdim=True)\n"
         "    var = x.var(dim=0, keepdim=True, correction=0)\n"
         "    out = (x - mean) / torch.sqrt(var + eps)\n"
         "    if weight is not None:\n"
         "        out = out * weight\n"
         "    if bias is not None:\n"
         "        out = out + bias\n"
         "    return out\n"),
        ("uses the unbiased variance",
         "def layer_norm(x, normalized_shape, weight=None, bias=None, eps=1e-5):\n"
         "    dims = tuple(range(-len(normalized_shape), 0))\n"
         "    mean = x.mean(dim=dims, keepdim=True)\n"
         "    var = x.var(dim=dims, keepdim=True)\n"
         "    out = (x - mean) / torch.sqrt(var + eps)\n"
         "    if weight is not None:\n"
         "        out = out * weight\n"
         "    if bias is not None:\n"
         "        out = out + bias\n"
         "    return out\n"),
    ],
    "ex3_gn": [
        ("interleaved groups: reshape(N, C // G, G, ...) puts channels 0, G, 2G... together",
         "def group_norm(x, num_groups, weight=None, bias=None, eps=1e-5):\n"
         "    N, C = x.shape[:2]\n"
         "    g = x.reshape(N, C // num_groups, num_groups, -1).transpose(1, 2).reshape(N, num_groups, -1)\n"
         "    mean, var = g.mean(-1, keepdim=True), g.var(-1, keepdim=True, correction=0)\n"
         "    g = (g - mean) / torch.sqrt(var + eps)\n"
         "    out = g.reshape(N, num_groups, C // num_groups, -1).transpose(1, 2).reshape(x.shape)\n"
         "    shape = (1, C) + (1,) * (x.dim() - 2)\n"
         "    if weight is not None:\n"
         "        out = out * weight.view(shape)\n"
         "    if bias is not None:\n"
         "        out = out + bias.view(shape)\n"
         "    return out\n"),
        ("normalizes each channel separately (InstanceNorm), ignoring num_groups",
         "def group_norm(x, num_groups, weight=None, bias=None, eps=1e-5):\n"
         "    N, C = x.shape[:2]\n"
         "    g = x.reshape(N, C, -1)\n"
         "    mean, var = g.mean(-1, keepdim=True), g.var(-1, keepdim=True, correction=0)\n"
         "    out = ((g - mean) / torch.sqrt(var + eps)).reshape(x.shape)\n"
         "    shape = (1, C) + (1,) * (x.dim() - 2)\n"
         "    if weight is not None:\n"
         "        out = out * weight.view(shape)\n"
         "    if bias is not None:\n"
         "        out = out + bias.view(shape)\n"
         "    return out\n"),
    ],
    "ex4_predict": [
        ("thinks GroupNorm uses batch statistics too",
         "BATCH_DEPENDENT = {'batchnorm', 'groupnorm'}\nBN_BATCH_OF_ONE = 'zeros'\n"),
    ],
    "ex5_block": [
        ("always uses a projection, even when the shape is kept",
         _BLOCK_INIT +
         "        self.shortcut = nn.Sequential(nn.Conv2d(in_ch, out_ch, 1, stride=stride, bias=False),\n"
         "                                      nn.BatchNorm2d(out_ch))\n"
         "\n"
         "    def forward(self, x):\n"
         "        out = self.bn2(self.conv2(F.relu(self.bn1(self.conv1(x)))))\n"
         "        return F.relu(out + self.shortcut(x))\n"),
        ("projects only when the channels change, not when only the stride does (found by the blind set)",
         _BLOCK_INIT +
         "        if in_ch != out_ch:\n"
         "            self.shortcut = nn.Sequential(nn.Conv2d(in_ch, out_ch, 1, stride=stride, bias=False),\n"
         "                                          nn.BatchNorm2d(out_ch))\n"
         "        else:\n"
         "            self.shortcut = nn.Identity()\n"
         "\n"
         "    def forward(self, x):\n"
         "        out = self.bn2(self.conv2(F.relu(self.bn1(self.conv1(x)))))\n"
         "        return F.relu(out + self.shortcut(x))\n"),
        ("applies the last ReLU inside the branch and forgets the one after the addition",
         _BLOCK_INIT +
         "        if stride != 1 or in_ch != out_ch:\n"
         "            self.shortcut = nn.Sequential(nn.Conv2d(in_ch, out_ch, 1, stride=stride, bias=False),\n"
         "                                          nn.BatchNorm2d(out_ch))\n"
         "        else:\n"
         "            self.shortcut = nn.Identity()\n"
         "\n"
         "    def forward(self, x):\n"
         "        out = F.relu(self.bn2(self.conv2(F.relu(self.bn1(self.conv1(x))))))\n"
         "        return out + self.shortcut(x)\n"),
    ],
    "ex6_predict": [
        ("expects the plain network to have the larger early gradients",
         "LARGER_FIRST_GRAD = 'plain'\nPROJ_PARAMS = 64 * 128\n"),
    ],
}

ALT = {
    "ex1_bn": (
        "class MyBatchNorm2d(nn.Module):\n"
        "    def __init__(self, num_features, eps=1e-5, momentum=0.1):\n"
        "        super().__init__()\n"
        "        self.eps, self.momentum = eps, momentum\n"
        "        self.weight = nn.Parameter(torch.ones(num_features))\n"
        "        self.bias = nn.Parameter(torch.zeros(num_features))\n"
        "        self.register_buffer('running_mean', torch.zeros(num_features))\n"
        "        self.register_buffer('running_var', torch.ones(num_features))\n"
        "        self.register_buffer('num_batches_tracked', torch.tensor(0))\n"
        "\n"
        "    def forward(self, x):\n"
        "        C = x.shape[1]\n"
        "        flat = x.transpose(0, 1).reshape(C, -1)\n"
        "        if self.training:\n"
        "            var, mean = torch.var_mean(flat, dim=1, correction=0)\n"
        "            n = flat.shape[1]\n"
        "            with torch.no_grad():\n"
        "                self.running_mean.lerp_(mean, self.momentum)\n"
        "                self.running_var.lerp_(var * (n / (n - 1)), self.momentum)\n"
        "                self.num_batches_tracked += 1\n"
        "        else:\n"
        "            mean, var = self.running_mean, self.running_var\n"
        "        scale = self.weight * torch.rsqrt(var + self.eps)\n"
        "        shift = self.bias - mean * scale\n"
        "        return x * scale[None, :, None, None] + shift[None, :, None, None]\n"),
    "ex2_ln": (
        "def layer_norm(x, normalized_shape, weight=None, bias=None, eps=1e-5):\n"
        "    k = len(normalized_shape)\n"
        "    flat = x.reshape(*x.shape[:x.dim() - k], -1)\n"
        "    var, mean = torch.var_mean(flat, dim=-1, keepdim=True, correction=0)\n"
        "    out = ((flat - mean) * torch.rsqrt(var + eps)).reshape(x.shape)\n"
        "    if weight is not None:\n"
        "        out = torch.addcmul(bias if bias is not None else torch.zeros_like(weight), out, weight)\n"
        "    elif bias is not None:\n"
        "        out = out + bias\n"
        "    return out\n"),
    "ex3_gn": (
        "def group_norm(x, num_groups, weight=None, bias=None, eps=1e-5):\n"
        "    parts = []\n"
        "    for chunk in x.chunk(num_groups, dim=1):\n"
        "        dims = tuple(range(1, x.dim()))\n"
        "        m = chunk.mean(dim=dims, keepdim=True)\n"
        "        v = ((chunk - m) ** 2).mean(dim=dims, keepdim=True)\n"
        "        parts.append((chunk - m) / (v + eps).sqrt())\n"
        "    out = torch.cat(parts, dim=1)\n"
        "    shape = [1, x.shape[1]] + [1] * (x.dim() - 2)\n"
        "    if weight is not None:\n"
        "        out = out * weight.reshape(shape)\n"
        "    if bias is not None:\n"
        "        out = out + bias.reshape(shape)\n"
        "    return out\n"),
    "ex4_predict": "BATCH_DEPENDENT = ['BatchNorm']\nBN_BATCH_OF_ONE = 'Error'\n",
    "ex5_block": (
        "class ResidualBlock(nn.Module):\n"
        "    def __init__(self, in_ch, out_ch, stride=1):\n"
        "        super().__init__()\n"
        "        self.conv1 = nn.Conv2d(in_ch, out_ch, kernel_size=3, stride=stride, padding=1, bias=False)\n"
        "        self.bn1 = nn.BatchNorm2d(out_ch)\n"
        "        self.conv2 = nn.Conv2d(out_ch, out_ch, kernel_size=3, padding=1, bias=False)\n"
        "        self.bn2 = nn.BatchNorm2d(out_ch)\n"
        "        self.shortcut = nn.Sequential()\n"
        "        if stride != 1 or in_ch != out_ch:\n"
        "            self.shortcut.add_module('proj', nn.Conv2d(in_ch, out_ch, kernel_size=1, stride=stride, bias=False))\n"
        "            self.shortcut.add_module('bn', nn.BatchNorm2d(out_ch))\n"
        "\n"
        "    def forward(self, x):\n"
        "        identity = self.shortcut(x)\n"
        "        out = self.conv1(x)\n"
        "        out = self.bn1(out).relu()\n"
        "        out = self.bn2(self.conv2(out))\n"
        "        out = out + identity\n"
        "        return out.relu()\n"),
    "ex6_predict": "LARGER_FIRST_GRAD = 'Residual'\nPROJ_PARAMS = 8448\n",
}

WRONG["ex1_bn"].append((
    "shortcut: forward calls F.batch_norm on its own buffers (the statement asks for it by hand)",
    "class MyBatchNorm2d(nn.Module):\n"
    "    def __init__(self, num_features, eps=1e-5, momentum=0.1):\n"
    "        super().__init__()\n"
    "        self.eps, self.momentum = eps, momentum\n"
    "        self.weight = nn.Parameter(torch.ones(num_features))\n"
    "        self.bias = nn.Parameter(torch.zeros(num_features))\n"
    "        self.register_buffer('running_mean', torch.zeros(num_features))\n"
    "        self.register_buffer('running_var', torch.ones(num_features))\n"
    "\n"
    "    def forward(self, x):\n"
    "        return F.batch_norm(x, self.running_mean, self.running_var, self.weight, self.bias,\n"
    "                            self.training, self.momentum, self.eps)\n"))
WRONG["ex2_ln"].append((
    "shortcut: calls F.layer_norm (the statement asks for it by hand)",
    "def layer_norm(x, normalized_shape, weight=None, bias=None, eps=1e-5):\n"
    "    return F.layer_norm(x, tuple(normalized_shape), weight, bias, eps)\n"))
WRONG["ex3_gn"].append((
    "shortcut: F.layer_norm over each reshaped group, then the per-channel affine",
    "def group_norm(x, num_groups, weight=None, bias=None, eps=1e-5):\n"
    "    N, C = x.shape[:2]\n"
    "    g = x.reshape(N, num_groups, -1)\n"
    "    out = F.layer_norm(g, g.shape[-1:], eps=eps).reshape(x.shape)\n"
    "    shape = (1, C) + (1,) * (x.dim() - 2)\n"
    "    if weight is not None:\n"
    "        out = out * weight.view(shape)\n"
    "    if bias is not None:\n"
    "        out = out + bias.view(shape)\n"
    "    return out\n"))
