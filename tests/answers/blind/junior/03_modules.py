"""Blind set for notebooks/junior/03_modules.ipynb, written from release/ alone (issue 33)."""

WRONG = {
    "ex1_standardize": ("statistics kept as plain tensor attributes: not saved, not moved", """
class Standardize(nn.Module):
    def __init__(self, mean: torch.Tensor, std: torch.Tensor):
        super().__init__()
        self.mean = mean
        self.std = std
        self.gain = nn.Parameter(torch.ones_like(mean))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return (x - self.mean) / self.std * self.gain
"""),
    "ex2_state_dict_predict": ("forgets that the ReLU takes index 1 in the Sequential", """
N_PARAM_TENSORS = 6
N_PARAMS_TOTAL = 62
N_STATE_DICT_KEYS = 10
SECOND_LINEAR_WEIGHT_KEY = "body.1.weight"
CACHE_IN_STATE_DICT = False
"""),
    "ex3_mlp": ("a ReLU after the last layer too", """
class MLP(nn.Module):
    def __init__(self, sizes: list[int]):
        super().__init__()
        self.layers = nn.ModuleList(nn.Linear(a, b) for a, b in zip(sizes[:-1], sizes[1:]))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        for layer in self.layers:
            x = torch.relu(layer(x))
        return x
"""),
    "ex4_multihead": ("a plain dict of heads: never registered", """
class MultiHead(nn.Module):
    def __init__(self, in_dim: int, hidden: int, heads: dict[str, int]):
        super().__init__()
        self.trunk = nn.Sequential(nn.Linear(in_dim, hidden), nn.ReLU())
        self.heads = {name: nn.Linear(hidden, out) for name, out in heads.items()}

    def forward(self, x: torch.Tensor, task: str) -> torch.Tensor:
        return self.heads[task](self.trunk(x))
"""),
    "ex5_functional_predict": ("thinks eval() also switches F.dropout off", """
A_EVAL_IS_IDENTITY = True
B_EVAL_IS_IDENTITY = True
C_NUM_PARAMS = 0
C_REPEATABLE = False
"""),
    "ex6_functional_forward": ("F.dropout without training=: eval mode still drops units", """
def functional_forward(x: torch.Tensor, params: dict[str, torch.Tensor], p_drop: float,
                       training: bool) -> torch.Tensor:
    h = F.linear(x, params["0.weight"], params["0.bias"])
    h = F.layer_norm(h, (h.shape[-1],), params["1.weight"], params["1.bias"])
    h = F.dropout(F.gelu(h), p=p_drop)
    return F.linear(h, params["4.weight"], params["4.bias"])
"""),
}

ALT = {
    "ex1_standardize": """
class Standardize(nn.Module):
    def __init__(self, mean: torch.Tensor, std: torch.Tensor):
        super().__init__()
        self.register_buffer("mean", mean.detach().clone())
        self.register_buffer("std", std.detach().clone())
        self.register_parameter("gain", nn.Parameter(torch.ones(mean.shape, dtype=mean.dtype)))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return (x - self.mean) * self.std.reciprocal() * self.gain
""",
    "ex2_state_dict_predict": """
N_PARAM_TENSORS = 2 + 2 + 2
N_PARAMS_TOTAL = (4 * 8 + 8) + (8 * 2 + 2) + (2 + 2)
N_STATE_DICT_KEYS = N_PARAM_TENSORS + 3 + 1
SECOND_LINEAR_WEIGHT_KEY = "body." + str(2) + ".weight"
CACHE_IN_STATE_DICT = False
""",
    "ex3_mlp": """
class MLP(nn.Module):
    def __init__(self, sizes: list[int]):
        super().__init__()
        parts = []
        for a, b in zip(sizes[:-1], sizes[1:]):
            parts += [nn.Linear(a, b), nn.ReLU()]
        self.net = nn.Sequential(*parts[:-1])

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.net(x)
""",
    "ex4_multihead": """
class MultiHead(nn.Module):
    def __init__(self, in_dim: int, hidden: int, heads: dict[str, int]):
        super().__init__()
        self.trunk = nn.Sequential()
        self.trunk.add_module("fc", nn.Linear(in_dim, hidden))
        self.trunk.add_module("act", nn.ReLU())
        self.heads = nn.ModuleDict()
        for name, out in heads.items():
            self.heads[name] = nn.Linear(hidden, out)

    def forward(self, x: torch.Tensor, task: str) -> torch.Tensor:
        return self.heads[task](self.trunk(x))
""",
    "ex5_functional_predict": """
A_EVAL_IS_IDENTITY = not True
B_EVAL_IS_IDENTITY = not False
C_NUM_PARAMS = len([])
C_REPEATABLE = False
""",
    "ex6_functional_forward": """
import math


def functional_forward(x: torch.Tensor, params: dict[str, torch.Tensor], p_drop: float,
                       training: bool) -> torch.Tensor:
    h = x @ params["0.weight"].T + params["0.bias"]
    mu = h.mean(-1, keepdim=True)
    var = ((h - mu) ** 2).mean(-1, keepdim=True)
    h = (h - mu) / torch.sqrt(var + 1e-5) * params["1.weight"] + params["1.bias"]
    h = 0.5 * h * (1 + torch.erf(h / math.sqrt(2.0)))
    h = F.dropout(h, p=p_drop, training=training)
    return h @ params["4.weight"].T + params["4.bias"]
""",
}
