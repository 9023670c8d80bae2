"""Known-wrong and alternative answers for senior/04_compile_and_export."""

_FUSED_ITEM = '''
def fused(x):
    y = torch.sin(x) * 2
    y = torch.where(y.sum() > 0, y + 1, y - 1)
    return y / y.abs().max().item()
'''

_FUSED_IF = '''
def fused(x):
    y = torch.sin(x) * 2
    y = y + 1 if y.sum() > 0 else y - 1
    return y / y.abs().max()
'''

_FUSED_ALT = '''
def fused(x):
    y = torch.sin(x) * 2
    sign = (y.sum() > 0).to(y.dtype) * 2 - 1     # +1 or -1, as a tensor
    y = y + sign
    return y * torch.reciprocal(torch.amax(torch.abs(y)))
'''

_COUNTS = "N_COMPILES_STATIC = {s}\nN_COMPILES_DEFAULT = {d}\nN_COMPILES_DYNAMIC = 1\n"

_DYN_DEFAULT = '''
def compile_batch_dynamic(fn, backend):
    return torch.compile(fn, backend=backend)
'''

_DYN_STATIC = '''
def compile_batch_dynamic(fn, backend):
    return torch.compile(fn, backend=backend, dynamic=False)
'''

_DYN_ALT = '''
def compile_batch_dynamic(fn, backend):
    compiled = torch.compile(fn, backend=backend)

    def run(x):
        torch._dynamo.mark_dynamic(x, 0)   # declare the batch dim symbolic before the first compile
        return compiled(x)
    return run
'''

_EXPORT_TRAIN = '''
def export_for_serving(model, example):
    return torch.export.export(model, (example,), dynamic_shapes={"x": {0: Dim("batch")}})
'''

_EXPORT_STATIC = '''
def export_for_serving(model, example):
    model.eval()
    return torch.export.export(model, (example,))
'''

_EXPORT_ALT = '''
def export_for_serving(model, example):
    model.train(False)
    n = torch.export.Dim("n", min=1, max=4096)
    return torch.export.export(model, args=(example,), dynamic_shapes=({0: n},))
'''

_ONNX_STATIC = '''
def export_onnx(model, example, path):
    model.eval()
    with warnings.catch_warnings(), contextlib.redirect_stdout(io.StringIO()):
        warnings.simplefilter("ignore")
        torch.onnx.export(model, (example,), path, dynamo=True, verbose=False)
'''

_ONNX_LEGACY = '''
def export_onnx(model, example, path):
    model.eval()
    with warnings.catch_warnings(), contextlib.redirect_stdout(io.StringIO()), \\
            contextlib.redirect_stderr(io.StringIO()):
        warnings.simplefilter("ignore")
        torch.onnx.export(model, (example,), path, dynamo=False)   # legacy exporter, no dynamic_axes
'''

_ONNX_ALT = '''
def export_onnx(model, example, path):
    model.train(False)
    with warnings.catch_warnings(), contextlib.redirect_stdout(io.StringIO()):
        warnings.simplefilter("ignore")
        program = torch.onnx.export(model, (example,), dynamo=True,
                                    dynamic_shapes=({0: torch.export.Dim("n", max=4096)},))
    program.save(path)
'''

WRONG = {
    "ex1_breaks": [
        ("keeps .item() for the scale", _FUSED_ITEM),
        ("keeps a Python branch on a tensor value", _FUSED_IF),
    ],
    "ex2_recompiles": [
        ("thinks the default compiles once per shape", _COUNTS.format(s=5, d=5)),
        ("thinks static shapes compile once", _COUNTS.format(s=1, d=2)),
    ],
    "ex3_dynamic": [
        ("default torch.compile recompiles once before going dynamic", _DYN_DEFAULT),
        ("dynamic=False compiles every batch size", _DYN_STATIC),
    ],
    "ex4_export": [
        ("exports in training mode (dropout baked in)", _EXPORT_TRAIN),
        ("no dynamic_shapes: the batch size is fixed", _EXPORT_STATIC),
    ],
    "ex5_onnx": [
        ("no dynamic_shapes: ONNX input has a fixed batch", _ONNX_STATIC),
        ("legacy exporter without dynamic axes", _ONNX_LEGACY),
    ],
}

ALT = {
    "ex1_breaks": _FUSED_ALT,
    "ex2_recompiles": "sizes = range(2, 7)\nN_COMPILES_STATIC = len(sizes)\nN_COMPILES_DEFAULT = 1 + 1\nN_COMPILES_DYNAMIC = 1\n",
    "ex3_dynamic": _DYN_ALT,
    "ex4_export": _EXPORT_ALT,
    "ex5_onnx": _ONNX_ALT,
}

# issue 33 (blind set): leaky's branch is `y.sum() > 0`; at a sum of exactly 0 it takes the else branch.
WRONG["ex1_breaks"].append(("`>=` for `>`: a sum of exactly 0 takes the wrong branch", '''
def fused(x):
    y = torch.sin(x) * 2
    y = torch.where(y.sum() >= 0, y + 1, y - 1)
    return y / y.abs().max()
'''))
