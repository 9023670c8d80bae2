"""Known-wrong and alternative answers for notebooks/junior/03_modules.ipynb."""

_STD_HEAD = ""

WRONG = {
    "ex1_standardize": [
        ("keeps the statistics as plain tensor attributes: not saved, not moved by .to()",
         _STD_HEAD + "class Standardize(nn.Module):\n    def __init__(self, mean, std):\n        super().__init__()\n"
         "        self.mean = mean.clone().float()\n        self.std = std.clone().float()\n"
         "        self.gain = nn.Parameter(torch.ones_like(self.mean))\n\n"
         "    def forward(self, x):\n        return (x - self.mean.to(x.device)) / self.std.to(x.device) * self.gain\n"),
        ("makes the statistics Parameters: the optimizer would train them",
         _STD_HEAD + "class Standardize(nn.Module):\n    def __init__(self, mean, std):\n        super().__init__()\n"
         "        self.mean = nn.Parameter(mean.clone().float())\n        self.std = nn.Parameter(std.clone().float())\n"
         "        self.gain = nn.Parameter(torch.ones_like(mean, dtype=torch.float32))\n\n"
         "    def forward(self, x):\n        return (x - self.mean) / self.std * self.gain\n"),
    ],
    "ex2_state_dict_predict": [
        ("forgets BatchNorm's buffers and counts every buffer as a key",
         "N_PARAM_TENSORS = 6\nN_PARAMS_TOTAL = 62\nN_STATE_DICT_KEYS = 8\n"
         "SECOND_LINEAR_WEIGHT_KEY = 'body.2.weight'\nCACHE_IN_STATE_DICT = True\n"),
        ("numbers Sequential children by Linear layers only",
         "N_PARAM_TENSORS = 6\nN_PARAMS_TOTAL = 62\nN_STATE_DICT_KEYS = 10\n"
         "SECOND_LINEAR_WEIGHT_KEY = 'body.1.weight'\nCACHE_IN_STATE_DICT = False\n"),
    ],
    "ex3_mlp": [
        ("keeps the layers in a plain Python list",
         "class MLP(nn.Module):\n    def __init__(self, sizes):\n        super().__init__()\n"
         "        self.layers = [nn.Linear(a, b) for a, b in zip(sizes[:-1], sizes[1:])]\n\n"
         "    def forward(self, x):\n        for i, layer in enumerate(self.layers):\n            x = layer(x)\n"
         "            if i < len(self.layers) - 1:\n                x = torch.relu(x)\n        return x\n"),
        ("registers only the last layer as an attribute",
         "class MLP(nn.Module):\n    def __init__(self, sizes):\n        super().__init__()\n"
         "        self._hidden = [nn.Linear(a, b) for a, b in zip(sizes[:-2], sizes[1:-1])]\n"
         "        self.out = nn.Linear(sizes[-2], sizes[-1])\n\n"
         "    def forward(self, x):\n        for layer in self._hidden:\n            x = torch.relu(layer(x))\n"
         "        return self.out(x)\n"),
    ],
    "ex4_multihead": [
        ("keeps the heads in a plain dict",
         "class MultiHead(nn.Module):\n    def __init__(self, in_dim, hidden, heads):\n        super().__init__()\n"
         "        self.trunk = nn.Sequential(nn.Linear(in_dim, hidden), nn.ReLU())\n"
         "        self.heads = {k: nn.Linear(hidden, v) for k, v in heads.items()}\n\n"
         "    def forward(self, x, task):\n        return self.heads[task].to(x.device)(self.trunk(x))\n"),
        ("builds the head inside forward",
         "class MultiHead(nn.Module):\n    def __init__(self, in_dim, hidden, heads):\n        super().__init__()\n"
         "        self.trunk = nn.Sequential(nn.Linear(in_dim, hidden), nn.ReLU())\n        self.sizes = heads\n"
         "        self.heads = nn.ModuleDict({k: nn.Linear(hidden, v) for k, v in heads.items()})\n\n"
         "    def forward(self, x, task):\n"
         "        return nn.Linear(self.trunk[0].out_features, self.sizes[task]).to(x.device)(self.trunk(x))\n"),
    ],
    "ex5_functional_predict": [
        ("thinks eval() switches off F.dropout too",
         "A_EVAL_IS_IDENTITY = True\nB_EVAL_IS_IDENTITY = True\nC_NUM_PARAMS = 0\nC_REPEATABLE = False\n"),
        ("thinks a layer built in forward is registered",
         "A_EVAL_IS_IDENTITY = False\nB_EVAL_IS_IDENTITY = True\nC_NUM_PARAMS = 2\nC_REPEATABLE = True\n"),
    ],
    "ex6_functional_forward": [
        ("F.dropout without training=: dropout stays on in eval",
         "def functional_forward(x, params, p_drop, training):\n"
         "    h = F.linear(x, params['0.weight'], params['0.bias'])\n"
         "    h = F.layer_norm(h, (h.shape[-1],), params['1.weight'], params['1.bias'])\n"
         "    h = F.dropout(F.gelu(h), p=p_drop)\n"
         "    return F.linear(h, params['4.weight'], params['4.bias'])\n"),
        ("layer_norm without the learned weight and bias",
         "def functional_forward(x, params, p_drop, training):\n"
         "    h = F.linear(x, params['0.weight'], params['0.bias'])\n"
         "    h = F.layer_norm(h, (h.shape[-1],))\n"
         "    h = F.dropout(F.gelu(h), p=p_drop, training=training)\n"
         "    return F.linear(h, params['4.weight'], params['4.bias'])\n"),
    ],
}

ALT = {
    "ex1_standardize": (
        _STD_HEAD + "class Standardize(nn.Module):\n    def __init__(self, mean, std):\n        super().__init__()\n"
        "        self.register_buffer('mean', torch.as_tensor(mean, dtype=torch.float32))\n"
        "        self.register_buffer('std', torch.as_tensor(std, dtype=torch.float32))\n"
        "        self.register_parameter('gain', nn.Parameter(torch.ones(len(mean))))\n\n"
        "    def forward(self, x):\n        return (x - self.mean) * (self.gain / self.std)\n"
    ),
    "ex2_state_dict_predict": (
        "class _N(nn.Module):\n    def __init__(self):\n        super().__init__()\n"
        "        self.body = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 2))\n"
        "        self.bn = nn.BatchNorm1d(2)\n"
        "        self.register_buffer('step', torch.zeros((), dtype=torch.long))\n"
        "        self.register_buffer('cache', torch.zeros(3), persistent=False)\n\n\n"
        "_sd = _N().state_dict()\nN_PARAM_TENSORS = len(list(_N().parameters()))\n"
        "N_PARAMS_TOTAL = sum(p.numel() for p in _N().parameters())\nN_STATE_DICT_KEYS = len(_sd)\n"
        "SECOND_LINEAR_WEIGHT_KEY = [k for k in _sd if k.endswith('weight') and _sd[k].shape == (2, 8)][0]\n"
        "CACHE_IN_STATE_DICT = 'cache' in _sd\n"
    ),
    "ex3_mlp": (
        "class MLP(nn.Module):\n    def __init__(self, sizes):\n        super().__init__()\n        layers = []\n"
        "        for a, b in zip(sizes[:-1], sizes[1:]):\n            layers += [nn.Linear(a, b), nn.ReLU()]\n"
        "        self.net = nn.Sequential(*layers[:-1])\n\n    def forward(self, x):\n        return self.net(x)\n"
    ),
    "ex4_multihead": (
        "class MultiHead(nn.Module):\n    def __init__(self, in_dim, hidden, heads):\n        super().__init__()\n"
        "        self.trunk = nn.Sequential(nn.Linear(in_dim, hidden), nn.ReLU())\n        self.heads = nn.ModuleDict()\n"
        "        for name, out in heads.items():\n            self.heads[name] = nn.Linear(hidden, out)\n\n"
        "    def forward(self, x, task):\n        h = self.trunk(x)\n        return self.heads[task](h)\n"
    ),
    "ex5_functional_predict": (
        "A_EVAL_IS_IDENTITY = bool(torch.equal(F.dropout(torch.ones(1000), p=0.5), torch.ones(1000)))\n"
        "B_EVAL_IS_IDENTITY = torch.equal(nn.Dropout(0.5).eval()(torch.ones(10)), torch.ones(10))\n"
        "C_NUM_PARAMS = 0\nC_REPEATABLE = False\n"
    ),
    "ex6_functional_forward": (
        "import math\n\n\ndef functional_forward(x, params, p_drop, training):\n"
        "    h = x @ params['0.weight'].T + params['0.bias']\n"
        "    mu = h.mean(-1, keepdim=True)\n    var = h.var(-1, correction=0, keepdim=True)\n"
        "    h = (h - mu) / torch.sqrt(var + 1e-5) * params['1.weight'] + params['1.bias']\n"
        "    h = 0.5 * h * (1 + torch.erf(h / math.sqrt(2)))\n"
        "    h = F.dropout(h, p_drop, training)\n"
        "    return h @ params['4.weight'].T + params['4.bias']\n"
    ),
}
