"""Blind set for notebooks/senior/10_inference_and_serving.ipynb, written from release/ alone (issue 33)."""

WRONG = {
    "ex1_predict_inference": ("thinks an inference tensor can feed a trainable layer outside inference mode", '''
ANSWERS = {"a_requires_grad": False, "a_is_inference": False, "b_is_inference": True,
           "b_into_training": True, "b_clone_into_training": True, "b_inplace_outside": False}
'''),
    "ex2_predict": ("puts the model back in train mode whatever mode it was in", '''
def predict(model: nn.Module, batch: torch.Tensor) -> torch.Tensor:
    model.eval()
    try:
        with torch.inference_mode():
            return model(batch).softmax(dim=-1)
    finally:
        model.train()
'''),
    "ex3_batched": ("drops the last, partial batch", '''
def batched_predict(model: nn.Module, requests: list, max_batch: int) -> torch.Tensor:
    outs = []
    with torch.inference_mode():
        for i in range(0, len(requests) - max_batch + 1, max_batch):
            outs.append(model(torch.stack(requests[i:i + max_batch])))
    return torch.cat(outs)
'''),
    "ex4_batcher": ("`<` for `<=`: a request arriving exactly at the deadline misses the batch", '''
def dynamic_batches(arrivals: list, max_batch: int, max_wait: float) -> list:
    out, i = [], 0
    while i < len(arrivals):
        deadline = arrivals[i] + max_wait
        idx = [i]
        i += 1
        while i < len(arrivals) and len(idx) < max_batch and arrivals[i] < deadline:
            idx.append(i)
            i += 1
        out.append((arrivals[idx[-1]] if len(idx) == max_batch else deadline, idx))
    return out
'''),
    "ex5_static": ("no shape check: copy_ broadcasts a wrong-shaped input instead of raising", '''
class StaticRunner:
    def __init__(self, model: nn.Module, example: torch.Tensor):
        self.model = model
        self.static_in = torch.empty_like(example)
        with torch.no_grad():
            self.static_out = torch.empty_like(model(example))

    def run(self, x: torch.Tensor) -> torch.Tensor:
        self.static_in.copy_(x)
        with torch.inference_mode():
            self.static_out.copy_(self.model(self.static_in))
        return self.static_out
'''),
    "ex6_graph_payoff": ("ignores the static-shape gate for variable-length inputs", '''
PAYS_OFF = {"llm_decode_bs1": True, "big_conv_training": False, "variable_length_nlp": True,
            "early_exit_with_item": False, "small_mlp_batch1": True, "medium_cnn_inference": False}
'''),
}

ALT = {
    "ex1_predict_inference": '''
def _try(fn):
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            fn()
        return True
    except RuntimeError:
        return False


_lin_probe = nn.Linear(4, 4)
_x_probe = torch.randn(3, 4)
with torch.no_grad():
    _a_probe = _lin_probe(_x_probe)
with torch.inference_mode():
    _b_probe = _lin_probe(_x_probe)
ANSWERS = {  # predicted, then checked by running each one
    "a_requires_grad": _a_probe.requires_grad,
    "a_is_inference": _a_probe.is_inference(),
    "b_is_inference": _b_probe.is_inference(),
    "b_into_training": _try(lambda: _lin_probe(_b_probe).sum().backward()),
    "b_clone_into_training": _try(lambda: _lin_probe(_b_probe.clone()).sum().backward()),
    "b_inplace_outside": _try(lambda: _b_probe.add_(1)),
}
''',
    "ex2_predict": '''
def predict(model: nn.Module, batch: torch.Tensor) -> torch.Tensor:
    modes = [(m, m.training) for m in model.modules()]  # every submodule's own flag, mixed modes included
    model.eval()
    try:
        with torch.no_grad():
            logits = model(batch)
        return F.softmax(logits, dim=-1)
    finally:
        for m, mode in modes:
            m.training = mode
''',
    "ex3_batched": '''
def batched_predict(model: nn.Module, requests: list, max_batch: int) -> torch.Tensor:
    chunks = torch.stack(requests).split(max_batch)  # full chunks of max_batch, the rest in the last one
    with torch.no_grad():
        return torch.cat([model(chunk) for chunk in chunks])
''',
    "ex4_batcher": '''
def dynamic_batches(arrivals: list, max_batch: int, max_wait: float) -> list:
    out, batch, deadline = [], [], None
    for i, t in enumerate(arrivals):
        if batch and t > deadline:  # the open batch timed out before this arrival
            out.append((deadline, batch))
            batch = []
        if not batch:
            deadline = t + max_wait
        batch.append(i)
        if len(batch) == max_batch:
            out.append((t, batch))
            batch = []
    if batch:
        out.append((deadline, batch))
    return out
''',
    "ex5_static": '''
class StaticRunner:
    def __init__(self, model: nn.Module, example: torch.Tensor):
        self.model = model
        self.static_in = example.new_zeros(example.shape)
        with torch.no_grad():
            probe = model(example)
        self.static_out = probe.new_zeros(probe.shape)

    def run(self, x: torch.Tensor) -> torch.Tensor:
        if tuple(x.shape) != tuple(self.static_in.shape):
            raise ValueError(f"input shape {tuple(x.shape)} != captured shape {tuple(self.static_in.shape)}")
        with torch.no_grad():
            self.static_in.copy_(x)
            self.static_out.copy_(self.model(self.static_in))
        return self.static_out
''',
    "ex6_graph_payoff": '''
_SCENARIOS = {"llm_decode_bs1": (400, 3, 8, True, False), "big_conv_training": (60, 900, 8, True, False),
              "variable_length_nlp": (200, 4, 8, False, False), "early_exit_with_item": (150, 3, 8, True, True),
              "small_mlp_batch1": (12, 2, 8, True, False), "medium_cnn_inference": (80, 10, 8, True, False)}
PAYS_OFF = {name: bool(static and not sync and n * max(c, k) >= 1.5 * (c + n * k))
            for name, (n, k, c, static, sync) in _SCENARIOS.items()}
''',
}
