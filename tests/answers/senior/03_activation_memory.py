"""Known-wrong and alternative answers for senior/03_activation_memory."""

_CKPT_REENTRANT = '''
def run_checkpointed(blocks, x):
    for block in blocks:
        x = checkpoint(block, x, use_reentrant=True)
    return x
'''

_CKPT_NO_GRAD = '''
def run_checkpointed(blocks, x):
    with torch.no_grad():   # "saves memory": and every gradient with it
        for block in blocks:
            x = block(x)
    return x
'''

_CKPT_ALT = '''
def run_checkpointed(blocks, x):
    def make_fn(block):
        return lambda t: block(t)
    fns = [make_fn(b) for b in blocks]
    out = x
    for fn in fns:
        out = checkpoint(fn, out, use_reentrant=False, preserve_rng_state=False)
    return out
'''

_SEG_SEQUENTIAL = '''
def run_segments(blocks, x, k):
    from torch.utils.checkpoint import checkpoint_sequential
    return checkpoint_sequential(nn.Sequential(*blocks), k, x, use_reentrant=False)
'''

_SEG_SIZE_K = '''
def run_segments(blocks, x, k):
    def run_range(start, t):
        for block in blocks[start:start + k]:
            t = block(t)
        return t
    for start in range(0, len(blocks), k):   # segments of k blocks, not k segments
        x = checkpoint(run_range, start, x, use_reentrant=False)
    return x
'''

_SEG_ALT = '''
def run_segments(blocks, x, k):
    n = len(blocks)
    segments = [nn.Sequential(*blocks[i * n // k:(i + 1) * n // k]) for i in range(k)]
    for seg in segments:
        x = checkpoint(seg, x, use_reentrant=False)
    return x
'''

_FORMULA_ALL = '''
def mlp_activation_bytes(batch, widths, bytes_per_element=4):
    return batch * sum(widths) * bytes_per_element
'''

_FORMULA_DOUBLE = '''
def mlp_activation_bytes(batch, widths, bytes_per_element=4):
    # counts every ReLU output separately from the next Linear's input
    return batch * (widths[0] + 2 * sum(widths[1:-1])) * bytes_per_element
'''

_FORMULA_ALT = '''
def mlp_activation_bytes(batch, widths, bytes_per_element=4):
    total = 0
    for fan_in in widths[:-1]:          # each Linear keeps its input; ReLU's output is that same tensor
        total += batch * fan_in
    return total * bytes_per_element
'''

_SAVED = 'SAVED = {{"a + c": {add}, "a * c": {mul}, "a.exp()": 4000, "a.sum()": {sum}, "torch.sigmoid(a)": 4000}}\n'

_META_TO = '''
def build_on_meta(width, depth):
    with torch.device("meta"):
        return make_mlp(width, depth)


def materialize(model, device):
    return model.to(device)
'''

_META_NO_RESET = '''
def build_on_meta(width, depth):
    with torch.device("meta"):
        return make_mlp(width, depth)


def materialize(model, device):
    return model.to_empty(device=device)
'''

_META_FIXED_DEVICE = '''
def build_on_meta(width, depth):
    with torch.device("meta"):
        return make_mlp(width, depth)


def materialize(model, device):
    model.to_empty(device="cuda" if torch.cuda.is_available() else "cpu")
    for module in model.modules():
        if hasattr(module, "reset_parameters"):
            module.reset_parameters()
    return model
'''

_META_ALT = '''
def build_on_meta(width, depth):
    previous = torch.get_default_device()
    torch.set_default_device("meta")
    try:
        return make_mlp(width, depth)
    finally:
        torch.set_default_device(previous)


def materialize(model, device):
    model = model.to_empty(device=device)
    model.apply(lambda m: m.reset_parameters() if hasattr(m, "reset_parameters") else None)
    return model
'''

WRONG = {
    "ex1_ckpt": [
        ("reentrant checkpoint: parameters get no gradient when no input requires grad", _CKPT_REENTRANT),
        ("runs the blocks under no_grad", _CKPT_NO_GRAD),
    ],
    "ex2_segments": [
        ("checkpoint_sequential leaves the last segment unchecked", _SEG_SEQUENTIAL),
        ("segments of k blocks instead of k segments", _SEG_SIZE_K),
    ],
    "ex3_formula": [
        ("counts the output layer as saved", _FORMULA_ALL),
        ("counts ReLU outputs and Linear inputs twice", _FORMULA_DOUBLE),
    ],
    "ex4_saved": [
        ("thinks add saves its inputs", _SAVED.format(add=8000, mul=8000, sum=0)),
        ("thinks sum saves its input", _SAVED.format(add=0, mul=8000, sum=4000)),
    ],
    "ex5_meta": [
        ("uses .to(device) on a meta model", _META_TO),
        ("to_empty without reset_parameters leaves garbage", _META_NO_RESET),
        ("ignores the device argument", _META_FIXED_DEVICE),
    ],
    "ex6_lazy": [
        ("takes the channel count as in_features", "LAZY_WEIGHT_SHAPE = (10, 3)\nLAZY_N_PARAMS = 40\n"),
        ("forgets the bias", "LAZY_WEIGHT_SHAPE = (10, 192)\nLAZY_N_PARAMS = 1920\n"),
    ],
}

ALT = {
    "ex1_ckpt": _CKPT_ALT,
    "ex2_segments": _SEG_ALT,
    "ex3_formula": _FORMULA_ALT,
    "ex4_saved": ("N, F32 = 1000, 4\nSAVED = dict(zip(['a + c', 'a * c', 'a.exp()', 'a.sum()', 'torch.sigmoid(a)'],\n"
                  "                  [0, 2 * N * F32, N * F32, 0, N * F32]))\n"),
    "ex5_meta": _META_ALT,
    "ex6_lazy": "in_features = 3 * 8 * 8\nLAZY_WEIGHT_SHAPE = torch.Size([10, in_features])\nLAZY_N_PARAMS = 10 * (in_features + 1)\n",
}
