"""Known-wrong and alternative answers for senior/10_inference_and_serving."""

from tests.answers.senior import edited, reference

NB = "senior/10_inference_and_serving"

EX1_WRONG_LIKE_NO_GRAD = '''
ANSWERS = {
    "a_requires_grad": False,
    "a_is_inference": False,
    "b_is_inference": False,
    "b_into_training": True,
    "b_clone_into_training": True,
    "b_inplace_outside": True,
}
'''

EX1_WRONG_REQUIRES_GRAD = '''
ANSWERS = {
    "a_requires_grad": True,
    "a_is_inference": False,
    "b_is_inference": True,
    "b_into_training": False,
    "b_clone_into_training": False,
    "b_inplace_outside": False,
}
'''

# A different correct approach: run the experiment instead of predicting it.
EX1_ALT = '''
def _try(fn):
    try:
        fn()
        return True
    except RuntimeError:
        return False


_l = nn.Linear(4, 4)
_i = torch.randn(3, 4)
with torch.no_grad():
    _na = _l(_i)
with torch.inference_mode():
    _nb = _l(_i)
ANSWERS = {
    "a_requires_grad": _na.requires_grad,
    "a_is_inference": _na.is_inference(),
    "b_is_inference": _nb.is_inference(),
    "b_into_training": _try(lambda: _l(_nb).sum().backward()),
    "b_clone_into_training": _try(lambda: _l(_nb.clone()).sum().backward()),
    "b_inplace_outside": _try(lambda: _nb.add_(1)),
}
'''

EX2_ALT = '''
@torch.no_grad()
def predict(model, batch):
    mode = model.training
    model.train(False)
    logits = model(batch)
    model.train(mode)
    return F.softmax(logits, dim=1)
'''

EX2_WRONG_NO_EVAL = edited(EX2_ALT, "    model.train(False)\n")

EX2_WRONG_NO_RESTORE = edited(EX2_ALT, "    model.train(mode)\n")

EX3 = reference(NB, "ex3_batched")

EX3_WRONG_DROP_LAST = edited(EX3, "range(0, len(requests), max_batch)", "range(0, len(requests) - max_batch + 1, max_batch)")

EX3_ALT = '''
def batched_predict(model, requests, max_batch):
    with torch.no_grad():
        stacked = torch.stack(requests)
        return torch.cat([model(chunk) for chunk in torch.split(stacked, max_batch)])
'''

EX3_WRONG_ONE_BY_ONE = edited(EX3_ALT, "torch.split(stacked, max_batch)", "torch.split(stacked, 1)")

EX4 = reference(NB, "ex4_batcher")

EX4_WRONG_RESET_TIMER = edited(edited(edited(
    EX4, "        j = i\n", "        j = i + 1\n"),
    "arrivals[j] <= deadline", "arrivals[j] <= arrivals[j - 1] + max_wait"),
    "else deadline", "else arrivals[j - 1] + max_wait")

EX4_WRONG_ONLY_FULL = '''
def dynamic_batches(arrivals, max_batch, max_wait):
    batches = []
    for start in range(0, len(arrivals), max_batch):
        idx = list(range(start, min(start + max_batch, len(arrivals))))
        batches.append((arrivals[idx[-1]], idx))
    return batches
'''

EX4_ALT = '''
def dynamic_batches(arrivals, max_batch, max_wait):
    out, current, deadline = [], [], None
    for i, t in enumerate(arrivals):
        if current and t > deadline:
            out.append((deadline, current))
            current = []
        if not current:
            deadline = t + max_wait
        current.append(i)
        if len(current) == max_batch:
            out.append((t, current))
            current = []
    if current:
        out.append((deadline, current))
    return out
'''

EX5 = reference(NB, "ex5_static")

EX5_WRONG_FRESH_OUTPUT = edited(EX5, "self.static_out.copy_(self.model(self.static_in))", "self.static_out = self.model(self.static_in)")

EX5_WRONG_REBIND_INPUT = edited(EX5, "self.static_in.copy_(x)", "self.static_in = x")

EX5_WRONG_GRAPH = edited(EX5, """
        with torch.no_grad():
            self.static_out.copy_(self.model(self.static_in))""", """
        self.static_out.copy_(self.model(self.static_in))  # records a graph on every call""")

EX5_ALT = '''
class StaticRunner:
    def __init__(self, model, example):
        self.model = model
        self.static_in = example.detach().clone()
        with torch.inference_mode():
            shape = model(self.static_in).shape
        self.static_out = torch.zeros(shape, device=example.device, dtype=example.dtype)

    def run(self, x):
        if tuple(x.shape) != tuple(self.static_in.shape):
            raise ValueError("this runner was built for one input shape")
        with torch.inference_mode():
            self.static_in[...] = x
            self.static_out[...] = self.model(self.static_in)
        return self.static_out
'''

EX6_WRONG_ALWAYS = '''
PAYS_OFF = {
    "llm_decode_bs1": True,
    "big_conv_training": True,
    "variable_length_nlp": True,
    "early_exit_with_item": True,
    "small_mlp_batch1": True,
    "medium_cnn_inference": True,
}
'''

EX6_WRONG_BIG_ONLY = '''
PAYS_OFF = {
    "llm_decode_bs1": False,
    "big_conv_training": True,
    "variable_length_nlp": False,
    "early_exit_with_item": False,
    "small_mlp_batch1": False,
    "medium_cnn_inference": True,
}
'''

EX6_ALT = '''
_table = {
    "llm_decode_bs1": (400, 3, 8, True, False),
    "big_conv_training": (60, 900, 8, True, False),
    "variable_length_nlp": (200, 4, 8, False, False),
    "early_exit_with_item": (150, 3, 8, True, True),
    "small_mlp_batch1": (12, 2, 8, True, False),
    "medium_cnn_inference": (80, 10, 8, True, False),
}
PAYS_OFF = {name: bool(static and not sync and n * max(c, k) >= 1.5 * (c + n * k))
            for name, (n, k, c, static, sync) in _table.items()}
'''

WRONG = {
    "ex1_predict_inference": [("treats inference tensors like no_grad outputs", EX1_WRONG_LIKE_NO_GRAD),
                              ("thinks no_grad outputs require grad", EX1_WRONG_REQUIRES_GRAD)],
    "ex2_predict": [("no_grad without eval(): dropout still active", EX2_WRONG_NO_EVAL),
                    ("eval() without restoring the caller's mode", EX2_WRONG_NO_RESTORE)],
    "ex3_batched": [("drops the last partial batch", EX3_WRONG_DROP_LAST),
                    ("no batching at all", EX3_WRONG_ONE_BY_ONE)],
    "ex4_batcher": [("timer restarts at every arrival", EX4_WRONG_RESET_TIMER),
                    ("waits for full batches, ignores the deadline", EX4_WRONG_ONLY_FULL)],
    "ex5_static": [("returns a freshly allocated output", EX5_WRONG_FRESH_OUTPUT),
                   ("rebinds the input instead of copying into it", EX5_WRONG_REBIND_INPUT),
                   ("runs the model with grad tracking: static_out carries a graph", EX5_WRONG_GRAPH)],
    "ex6_graph_payoff": [("graphs always help", EX6_WRONG_ALWAYS),
                         ("thinks big kernels benefit most", EX6_WRONG_BIG_ONLY)],
}

ALT = {
    "ex1_predict_inference": EX1_ALT,
    "ex2_predict": EX2_ALT,
    "ex3_batched": EX3_ALT,
    "ex4_batcher": EX4_ALT,
    "ex5_static": EX5_ALT,
    "ex6_graph_payoff": EX6_ALT,
}

# issue 33 (blind set): the statement asks for full chunks of max_batch (the last one holding what is left); balanced
# chunks make the same number of calls but smaller batches, which the size of each call shows.
WRONG["ex3_batched"].append(("balanced chunks instead of full ones of max_batch", '''
def batched_predict(model: nn.Module, requests: list, max_batch: int) -> torch.Tensor:
    n_calls = -(-len(requests) // max_batch)
    with torch.inference_mode():
        return torch.cat([model(chunk) for chunk in torch.stack(requests).tensor_split(n_calls)])
'''))
