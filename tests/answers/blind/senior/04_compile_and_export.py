"""Blind set for notebooks/senior/04_compile_and_export.ipynb, written from release/ alone (issue 33)."""

WRONG = {
    "ex1_breaks": ("`>=` for `>` in the branch: a zero sum takes the wrong side", '''
def fused(x):
    y = torch.sin(x) * 2
    y = torch.where(y.sum() >= 0, y + 1, y - 1)
    return y / y.abs().max()
'''),
    "ex2_recompiles": ("thinks the default is dynamic from the first call", '''
N_COMPILES_STATIC = 5
N_COMPILES_DEFAULT = 1
N_COMPILES_DYNAMIC = 1
'''),
    "ex3_dynamic": ("the default dynamic=None: the second batch size recompiles", '''
def compile_batch_dynamic(fn, backend):
    return torch.compile(fn, backend=backend)
'''),
    "ex4_export": ("exports in training mode: dropout is captured into the graph", '''
def export_for_serving(model, example):
    return torch.export.export(model, (example,), dynamic_shapes={"x": {0: Dim("batch")}})
'''),
    "ex5_onnx": ("no dynamic_shapes: the ONNX input is fixed to the example's batch", '''
def export_onnx(model, example, path):
    model.eval()
    with warnings.catch_warnings(), contextlib.redirect_stdout(io.StringIO()):
        warnings.simplefilter("ignore")
        torch.onnx.export(model, (example,), path, dynamo=True)
'''),
}

ALT = {
    "ex1_breaks": '''
def fused(x):
    y = torch.sin(x) * 2
    sign = (y.sum() > 0).to(y.dtype) * 2 - 1  # +1 or -1, chosen inside the graph
    y = y + sign
    return y / y.abs().amax()
''',
    "ex2_recompiles": '''
def _compiles(**kw):
    dynamo.reset()
    counter = CompileCounter()
    g = torch.compile(lambda t: torch.relu(t * 3), backend=counter, **kw)
    for n in (2, 3, 4, 5, 6):
        g(torch.randn(n))
    dynamo.reset()
    return counter.frame_count


N_COMPILES_STATIC = _compiles(dynamic=False)
N_COMPILES_DEFAULT = _compiles()
N_COMPILES_DYNAMIC = _compiles(dynamic=True)
''',
    "ex3_dynamic": '''
def compile_batch_dynamic(fn, backend):
    compiled = torch.compile(fn, backend=backend)

    def serve(x):
        torch._dynamo.mark_dynamic(x, 0)
        return compiled(x)

    return serve
''',
    "ex4_export": '''
def export_for_serving(model, example):
    model.train(False)
    batch = Dim("batch", max=4096)
    return torch.export.export(model, (example,), dynamic_shapes=({0: batch},))
''',
    "ex5_onnx": '''
def export_onnx(model, example, path):
    model.train(False)
    with warnings.catch_warnings(), contextlib.redirect_stdout(io.StringIO()):
        warnings.simplefilter("ignore")
        program = torch.export.export(model, (example,), dynamic_shapes=({0: Dim("n")},))
        torch.onnx.export(program, (example,), path, dynamo=True)
''',
}
