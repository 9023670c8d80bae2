"""Blind set for notebooks/senior/03_activation_memory.ipynb, written from release/ alone (issue 33)."""

WRONG = {
    "ex1_ckpt": ("uses the reentrant checkpoint, which gives the parameters no gradient when x needs none", '''
def run_checkpointed(blocks, x):
    for block in blocks:
        x = checkpoint(block, x, use_reentrant=True)
    return x
'''),
    "ex2_segments": ("a closure captures the loop variable, so the backward recompute runs the last segment", '''
def run_segments(blocks, x, k):
    n = len(blocks) // k
    for i in range(k):
        x = checkpoint(lambda h: run_plain(blocks[i * n:(i + 1) * n], h), x, use_reentrant=False)
    return x
'''),
    "ex3_formula": ("hard-codes 4 bytes per element", '''
def mlp_activation_bytes(batch, widths, bytes_per_element=4):
    return batch * sum(widths[:-1]) * 4
'''),
    "ex4_saved": ("thinks sum saves its input", '''
SAVED = {"a + c": 0, "a * c": 8000, "a.exp()": 4000, "a.sum()": 4000, "torch.sigmoid(a)": 4000}
'''),
    "ex5_meta": ("allocates with to_empty but never re-initializes: the weights are garbage", '''
def build_on_meta(width, depth):
    with torch.device("meta"):
        return make_mlp(width, depth)


def materialize(model, device):
    return model.to_empty(device=device)
'''),
    "ex6_lazy": ("takes in_features from the last input dim before flattening", '''
LAZY_WEIGHT_SHAPE = (10, 8)
LAZY_N_PARAMS = 10 * 8 + 10
'''),
}

ALT = {
    "ex1_ckpt": '''
import functools


def run_checkpointed(blocks, x):
    return functools.reduce(lambda h, block: checkpoint(block, h, use_reentrant=False), blocks, x)
''',
    "ex2_segments": '''
def run_segments(blocks, x, k):
    size = len(blocks) // k
    segments = [nn.Sequential(*blocks[start:start + size]) for start in range(0, len(blocks), size)]
    for segment in segments:
        x = checkpoint(segment, x, use_reentrant=False)
    return x
''',
    "ex3_formula": '''
def mlp_activation_bytes(batch, widths, bytes_per_element=4):
    saved = {}  # tensor name -> width; a ReLU output and the next Linear's input are one tensor
    for i in range(len(widths) - 1):
        saved[f"input of Linear {i}"] = widths[i]
        if i < len(widths) - 2:
            saved[f"input of Linear {i + 1}"] = widths[i + 1]  # the ReLU's output
    return sum(saved.values()) * batch * bytes_per_element
''',
    "ex4_saved": '''
_a = torch.randn(1000, requires_grad=True)
_c = torch.randn(1000, requires_grad=True)
SAVED = {name: saved_tensor_bytes(f)[0] for name, f in {
    "a + c": lambda: _a + _c, "a * c": lambda: _a * _c, "a.exp()": lambda: _a.exp(),
    "a.sum()": lambda: _a.sum(), "torch.sigmoid(a)": lambda: torch.sigmoid(_a)}.items()}
''',
    "ex5_meta": '''
def build_on_meta(width, depth):
    before = torch.get_default_device()
    torch.set_default_device("meta")
    try:
        return make_mlp(width, depth)
    finally:
        torch.set_default_device(before)


def materialize(model, device):
    model.to_empty(device=device)
    with torch.no_grad():
        model.apply(lambda m: m.reset_parameters() if hasattr(m, "reset_parameters") else None)
    return model
''',
    "ex6_lazy": '''
LAZY_WEIGHT_SHAPE = [10, 3 * 8 * 8]
LAZY_N_PARAMS = LAZY_WEIGHT_SHAPE[0] * LAZY_WEIGHT_SHAPE[1] + LAZY_WEIGHT_SHAPE[0]
''',
}
