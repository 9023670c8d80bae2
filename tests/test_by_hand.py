"""`_by_hand` (autograder/authoring/template.py, the derived cell): by hand means by hand. An answer that calls
the library equivalent its statement puts off limits fails with a message that names the exercise and the
call, whichever alias it used and even when it swallows the error; a by-hand answer passes; everything is as
it was once the block ends."""

from __future__ import annotations

import importlib.util

import numpy as np
import pytest
import torch
import torch.nn as nn
import torch.nn.functional as F

from autograder.authoring.template import DERIVED


@pytest.fixture(scope="module")
def ns():
    """The derived cell run as a notebook runs it: its names in a namespace of their own."""
    space = {"FAST": True, "DEVICE": "cpu", "SEED": 0, "__name__": "__main__"}
    exec(compile(DERIVED, "<derived cell>", "exec"), space)
    return space


def refused(ns, call, *args, **kwargs) -> str:
    """The by-hand message `call` gets inside `_by_hand(*args, **kwargs)`; fails when it gets none."""
    with pytest.raises(ns["ByHandError"]) as caught:
        with ns["_by_hand"](*args, **kwargs):
            call()
    return str(caught.value)


def allowed(ns, call, *args, **kwargs):
    with ns["_by_hand"](*args, **kwargs):
        return call()


X = torch.randn(4, 6, generator=torch.Generator().manual_seed(0))


def gelu_by_hand(x):
    return 0.5 * x * (1 + torch.erf(x / 2 ** 0.5))


def softmax_by_hand(x):
    e = (x - x.max(dim=-1, keepdim=True).values).exp()
    return e / e.sum(dim=-1, keepdim=True)


# ---- torch functions and modules, by name --------------------------------------------------------------------

GELU_SHORTCUTS = {
    "F.gelu": lambda: F.gelu(X),
    "torch._C._nn.gelu": lambda: torch._C._nn.gelu(X),
    "nn.GELU()": lambda: nn.GELU()(X),
    "F.gelu under a private name": lambda: (lambda g: g(X))(F.gelu),
    "torch.ops.aten.gelu": lambda: torch.ops.aten.gelu(X),
    "torch.ops.aten.gelu.default": lambda: torch.ops.aten.gelu.default(X),
}


@pytest.mark.parametrize("shortcut", GELU_SHORTCUTS, ids=list(GELU_SHORTCUTS))
def test_gelu_by_name_is_caught_whichever_alias(ns, shortcut):
    msg = refused(ns, GELU_SHORTCUTS[shortcut], "GELU", "gelu")
    assert msg.startswith("this exercise asks for GELU by hand: `gelu")
    assert msg.endswith("` was called (not allowed here: gelu)")


def test_the_message_names_the_task_the_call_and_what_is_off_limits(ns):
    msg = refused(ns, lambda: F.gelu(X), "GELU", "gelu", nn.GELU)
    assert msg == "this exercise asks for GELU by hand: `gelu` was called (not allowed here: gelu, nn.GELU)"
    assert isinstance(ns["ByHandError"](msg), AssertionError)  # a test failure like any other


def test_a_module_made_before_the_block_is_caught_when_named_as_a_class(ns):
    module = nn.GELU()
    assert "`nn.GELU` was called" in refused(ns, lambda: module(X), "GELU", nn.GELU)
    assert "`torch.nn.GELU` was called" in refused(ns, lambda: nn.GELU(), "GELU", "torch.nn.GELU")
    assert torch.equal(module(X), F.gelu(X))  # and works again after


SOFTMAX_SHORTCUTS = {
    "F.softmax": lambda: F.softmax(X, dim=-1),
    "torch.softmax": lambda: torch.softmax(X, -1),
    "Tensor.softmax": lambda: X.softmax(-1),
    "torch.Tensor.softmax unbound": lambda: torch.Tensor.softmax(X, -1),
    "torch.special.softmax": lambda: torch.special.softmax(X, -1),
    "torch._softmax": lambda: torch._softmax(X, -1, False),
    "nn.Softmax": lambda: nn.Softmax(dim=-1)(X),
}


@pytest.mark.parametrize("shortcut", SOFTMAX_SHORTCUTS, ids=list(SOFTMAX_SHORTCUTS))
def test_softmax_is_caught_through_f_torch_and_tensor(ns, shortcut):
    msg = refused(ns, SOFTMAX_SHORTCUTS[shortcut], "softmax", "softmax")
    assert msg.startswith("this exercise asks for softmax by hand: `") and "softmax` was called" in msg


def test_a_library_function_that_calls_the_forbidden_one_inside_is_caught(ns):
    """Nested calls are hidden from a TorchFunctionMode; torch's own modules are patched too."""
    mha = nn.MultiheadAttention(6, 2, batch_first=True)
    q = X[None]
    msg = refused(ns, lambda: mha(q, q, q, need_weights=False), "attention", "scaled_dot_product_attention")
    assert "`scaled_dot_product_attention` was called" in msg
    assert "`cross_entropy` was called" in refused(ns, lambda: nn.CrossEntropyLoss()(X, torch.tensor([0, 1, 2, 3])),
                                                  "cross-entropy", "cross_entropy")
    assert "`layer_norm` was called" in refused(ns, lambda: nn.LayerNorm(6)(X), "layer norm", "layer_norm")
    assert "was called" in refused(ns, lambda: F.one_hot(torch.tensor([0, 2]), 3), "one-hot", "one_hot")
    assert "was called" in refused(ns, lambda: torch.cdist(X, X), "distances", "cdist")


def test_a_by_hand_answer_passes_and_matches_the_reference_computed_outside(ns):
    ref = F.gelu(X)
    out = allowed(ns, lambda: gelu_by_hand(X), "GELU", "gelu", nn.GELU)
    torch.testing.assert_close(out, ref)
    ref = torch.softmax(X, -1)
    out = allowed(ns, lambda: softmax_by_hand(X), "softmax", "softmax", "log_softmax", nn.Softmax)
    torch.testing.assert_close(out, ref)


# ---- classes and functions by dotted path or by object ------------------------------------------------------


def test_an_optimizer_class_is_caught_by_path_by_object_and_on_an_instance_made_before(ns):
    p = nn.Parameter(torch.ones(3))
    msg = refused(ns, lambda: torch.optim.Adam([p]), "Adam", "torch.optim.Adam")
    assert msg == ("this exercise asks for Adam by hand: `torch.optim.Adam` was called "
                   "(not allowed here: torch.optim.Adam)")
    assert "`torch.optim.Adam` was called" in refused(ns, lambda: torch.optim.Adam([p]), "Adam", torch.optim.Adam)
    opt = torch.optim.Adam([p])
    assert "`torch.optim.Adam.step` was called" in refused(ns, lambda: opt.step(), "Adam", torch.optim.Adam)

    class MyAdam(torch.optim.Adam):
        pass

    assert "`torch.optim.Adam` was called" in refused(ns, lambda: MyAdam([p]), "Adam", torch.optim.Adam)
    sgd = allowed(ns, lambda: torch.optim.SGD([p], lr=0.1), "Adam", torch.optim.Adam)  # others are fine
    assert isinstance(sgd, torch.optim.SGD)


def test_scikit_learn_is_caught_by_dotted_path(ns):
    pytest.importorskip("sklearn")
    from sklearn.neighbors import KNeighborsClassifier

    fit = lambda: KNeighborsClassifier(1).fit([[0.0], [1.0]], [0, 1])
    msg = refused(ns, fit, "k-NN", "sklearn.neighbors.KNeighborsClassifier")
    assert "`sklearn.neighbors.KNeighborsClassifier` was called" in msg
    knn = fit()
    assert "KNeighborsClassifier.predict` was called" in refused(
        ns, lambda: knn.predict([[0.2]]), "k-NN", "sklearn.neighbors.KNeighborsClassifier")
    assert list(knn.predict([[0.9]])) == [1]


def test_a_numpy_function_is_caught_by_path_and_through_an_alias_in_the_notebook(ns):
    v = np.ones(3)
    msg = refused(ns, lambda: np.linalg.norm(v), "the norm", "numpy.linalg.norm")
    assert msg == ("this exercise asks for the norm by hand: `numpy.linalg.norm` was called "
                   "(not allowed here: numpy.linalg.norm)")
    ns["npnorm"] = np.linalg.norm  # a learner's `from numpy.linalg import norm as npnorm`
    try:
        assert "was called" in refused(ns, lambda: ns["npnorm"](v), "the norm", "numpy.linalg.norm")
        assert ns["npnorm"] is np.linalg.norm
    finally:
        del ns["npnorm"]
    assert allowed(ns, lambda: float(np.sqrt((v * v).sum())), "the norm", "numpy.linalg.norm") == pytest.approx(3 ** 0.5)


def test_a_distribution_is_caught(ns):
    msg = refused(ns, lambda: torch.distributions.Normal(0.0, 1.0).sample((3,)), "sampling",
                  "torch.distributions.Normal")
    assert "`torch.distributions.Normal` was called" in msg
    normal = torch.distributions.Normal(0.0, 1.0)
    assert "log_prob" in refused(ns, lambda: normal.log_prob(X), "the log-density", torch.distributions.Normal)


def test_a_path_whose_module_is_not_installed_is_skipped(ns):
    assert allowed(ns, lambda: 3, "x", "no_such_package_here.thing", "torch.no_such_name") == 3


def test_what_cannot_be_forbidden_is_the_author_s_error(ns):
    with pytest.raises(TypeError, match="cannot forbid"):
        allowed(ns, lambda: 3, "x", torch.nn.functional)
    with pytest.raises(TypeError, match="cannot forbid"):
        allowed(ns, lambda: 3, "x", "torch.nn.functional")
    assert F.gelu(X).shape == X.shape


def test_every_public_method_of_a_forbidden_class_raises(ns):
    pytest.importorskip("sklearn")
    from sklearn.neighbors import KNeighborsClassifier

    knn = KNeighborsClassifier(1).fit([[0.0], [1.0]], [0, 1])
    before = dict(vars(KNeighborsClassifier))
    for use in (lambda: knn.kneighbors([[0.2]]), lambda: knn.predict_proba([[0.2]]), lambda: knn.get_params()):
        assert "`sklearn.neighbors.KNeighborsClassifier." in refused(
            ns, use, "k-NN", "sklearn.neighbors.KNeighborsClassifier")
    assert knn.get_params()["n_neighbors"] == 1 and dict(vars(KNeighborsClassifier)) == before


# ---- autograd -------------------------------------------------------------------------------------------------

W = torch.randn(3, requires_grad=True)


def _enable_grad_backward():
    with torch.enable_grad():
        (W * W).sum().backward()


AUTOGRAD_SHORTCUTS = {
    "backward": (lambda: (W * W).sum().backward(), "autograd (`backward`) was called"),
    "enable_grad then backward": (_enable_grad_backward, "autograd (`enable_grad`"),
    "set_grad_enabled(True)": (lambda: torch.set_grad_enabled(True), "autograd (`enable_grad`"),
    "torch._C._set_grad_enabled(True)": (lambda: torch._C._set_grad_enabled(True), "autograd (`enable_grad`"),
    "autograd.grad": (lambda: torch.autograd.grad((W * W).sum(), W), "autograd ("),
    "autograd.backward": (lambda: torch.autograd.backward((W * W).sum()), "autograd ("),
    "torch.func.grad": (lambda: torch.func.grad(lambda t: (t * t).sum())(X), "autograd (`grad`) was called"),
    "torch.func.jacrev": (lambda: torch.func.jacrev(lambda t: t * t)(X[0]), "autograd (`jacrev`) was called"),
    "autograd.functional.jacobian": (lambda: torch.autograd.functional.jacobian(lambda t: t * t, X[0]),
                                     "autograd (`jacobian`) was called"),
}


@pytest.mark.parametrize("shortcut", AUTOGRAD_SHORTCUTS, ids=list(AUTOGRAD_SHORTCUTS))
def test_autograd_is_caught_in_a_by_hand_gradient(ns, shortcut):
    call, said = AUTOGRAD_SHORTCUTS[shortcut]
    msg = refused(ns, call, "the gradient", autograd=True)
    assert msg.startswith("this exercise asks for the gradient by hand: ") and said in msg, msg
    assert torch.is_grad_enabled()
    W.grad = None


def test_a_transform_built_before_the_block_is_caught(ns):
    grad_fn = torch.func.grad(lambda t: (t * t).sum())
    assert "autograd" in refused(ns, lambda: grad_fn(X), "the gradient", autograd=True)


def test_a_by_hand_gradient_passes_and_runs_without_grad_mode(ns):
    def grad_by_hand(x):
        assert not torch.is_grad_enabled()
        return 2 * x

    with torch.enable_grad():
        x = X.clone().requires_grad_()
        (x * x).sum().backward()
        ref = x.grad  # the reference, outside
    out = allowed(ns, lambda: grad_by_hand(X), "the gradient", autograd=True)
    torch.testing.assert_close(out, ref)
    assert torch.is_grad_enabled()


# ---- swallowed violations, nesting, restoration ---------------------------------------------------------------


def test_a_violation_the_answer_swallows_still_fails(ns):
    def sneaky():
        try:
            return F.gelu(X)
        except Exception:
            return gelu_by_hand(X)

    assert "`gelu` was called" in refused(ns, sneaky, "GELU", "gelu")

    def sneaky_adam():
        try:
            torch.optim.Adam([nn.Parameter(torch.ones(1))])
        except BaseException:
            pass

    assert "`torch.optim.Adam` was called" in refused(ns, sneaky_adam, "Adam", "torch.optim.Adam")


def test_a_violation_wins_over_the_error_it_caused(ns):
    def breaks():
        try:
            F.gelu(X)
        except AssertionError:
            pass
        raise ValueError("the learner's own bug, after the shortcut")

    assert "`gelu` was called" in refused(ns, breaks, "GELU", "gelu")


def test_blocks_nest(ns):
    by_hand, error = ns["_by_hand"], ns["ByHandError"]
    with pytest.raises(error, match="`gelu` was called"):
        with by_hand("the block", "gelu"):
            with by_hand("softmax", "softmax"):
                softmax_by_hand(X)
                try:
                    F.gelu(X)  # the outer block's, seen through the inner one
                except error:
                    pass
    with pytest.raises(error, match="`softmax` was called"):
        with by_hand("the block", "gelu"):
            with by_hand("softmax", "softmax"):
                torch.softmax(X, -1)


def _state():
    return {"F.gelu": F.gelu, "torch.softmax": torch.softmax, "F.softmax": F.softmax,
            "Adam.__init__": torch.optim.Adam.__init__, "Adam.step": torch.optim.Adam.step,
            "Adam has own __call__": "__call__" in vars(torch.optim.Adam),
            "np.linalg.norm": np.linalg.norm, "Tensor.backward": torch.Tensor.backward,
            "autograd.grad": torch.autograd.grad, "func.grad": torch.func.grad,
            "engine": torch.autograd.variable.Variable._execution_engine,
            "set_grad": torch._C._set_grad_enabled, "GELU.__init__": nn.GELU.__init__,
            "GELU own __call__": "__call__" in vars(nn.GELU), "Normal.__init__": torch.distributions.Normal.__init__,
            "grad mode": torch.is_grad_enabled(), "modes": torch.overrides._get_current_function_mode_stack(),
            "own attributes": [dict(vars(c)) for c in (torch.optim.Adam, torch.optim.Optimizer, nn.GELU, nn.Module,
                                                       torch.distributions.Normal, torch.Tensor)]}


EVERYTHING = ("gelu", "softmax", nn.GELU, "torch.optim.Adam", "numpy.linalg.norm", "torch.distributions.Normal")


@pytest.mark.parametrize("ending", ["normally", "by a violation", "by another error"])
def test_everything_is_restored_however_the_block_ends(ns, ending):
    before = _state()
    ref = F.gelu(X)
    with pytest.raises(Exception) if ending != "normally" else _nothing():
        with ns["_by_hand"]("everything", *EVERYTHING, autograd=True):
            if ending == "by a violation":
                F.gelu(X)
            elif ending == "by another error":
                raise KeyError("not a by-hand error")
    assert _state() == before
    torch.testing.assert_close(F.gelu(X), ref)  # the reference code is untouched
    assert nn.GELU()(X).shape == X.shape and torch.optim.Adam([nn.Parameter(torch.ones(1))])


def test_another_error_passes_through_unchanged(ns):
    with pytest.raises(KeyError):
        with ns["_by_hand"]("GELU", "gelu"):
            raise KeyError("the learner's bug")


class _nothing:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


# ---- kernel launches ------------------------------------------------------------------------------------------


class FakeKernel:
    """Launches like a Triton JIT function: kernel[grid](...) calls kernel.run(..., grid=, warmup=False)."""

    def __init__(self, name="softmax_kernel"):
        self.__name__ = name
        self.launched = 0

    def run(self, *args, grid, warmup, **kwargs):
        self.launched += not warmup

    def __getitem__(self, grid):
        return lambda *args, **kwargs: self.run(*args, grid=grid, warmup=False, **kwargs)


def test_exactly_the_launches_the_statement_asks_for(ns):
    k = FakeKernel()
    allowed(ns, lambda: k[(4,)](X), "softmax", launches=(k, 1))
    allowed(ns, lambda: k.run(X, grid=(1,), warmup=False), "softmax", launches=(k, 1))
    allowed(ns, lambda: (k[(1,)](X), k[(2,)](X)), "softmax", launches=(k, 2))
    assert k.launched == 4 and "run" not in vars(k)  # counted, and the instance is as it was
    msg = refused(ns, lambda: torch.softmax(X, -1), "softmax", launches=(k, 1))
    assert msg == "this exercise asks for one launch of `softmax_kernel`: it was launched 0 times"
    msg = refused(ns, lambda: (k[(1,)](X), k[(1,)](X)), "softmax", launches=(k, 1))
    assert msg == "this exercise asks for one launch of `softmax_kernel`: it was launched 2 times"
    assert "launched 1 time" in refused(ns, lambda: k[(1,)](X), "softmax", launches=(k, 2))
    assert "launched 0 times" in refused(ns, lambda: k.run(X, grid=(1,), warmup=True), "softmax", launches=(k, 1))


def test_a_wrapper_that_calls_torch_instead_of_its_kernel_fails_on_both_counts(ns):
    k = FakeKernel()
    msg = refused(ns, lambda: torch.softmax(X, -1), "softmax", "softmax", launches=(k, 1))
    assert "`softmax` was called" in msg


def test_a_real_triton_kernel_is_counted(ns, monkeypatch):
    if importlib.util.find_spec("triton") is None:
        pytest.skip("triton is not installed")
    if not torch.cuda.is_available():
        monkeypatch.setenv("TRITON_INTERPRET", "1")  # read when a kernel is decorated
    import triton
    import triton.language as tl

    @triton.jit
    def double_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
        offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        mask = offs < n
        tl.store(y_ptr + offs, 2 * tl.load(x_ptr + offs, mask=mask), mask=mask)

    dev = "cuda" if torch.cuda.is_available() else "cpu"
    x = torch.arange(10.0, device=dev)
    y = torch.empty_like(x)
    allowed(ns, lambda: double_kernel[(1,)](x, y, 10, BLOCK=16), "doubling", "mul", launches=(double_kernel, 1))
    torch.testing.assert_close(y, 2 * x)
    msg = refused(ns, lambda: x * 2, "doubling", launches=(double_kernel, 1))
    assert msg == "this exercise asks for one launch of `double_kernel`: it was launched 0 times"
    assert "run" not in vars(double_kernel)


# ---- where it lives -------------------------------------------------------------------------------------------


def test_the_derived_cell_defines_it_with_torch_alone():
    assert "class ByHandError(AssertionError)" in DERIVED and "def _by_hand(task, *forbidden" in DERIVED
    assert "import sklearn" not in DERIVED and "import triton" not in DERIVED  # named, imported lazily


@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA device")
def test_cuda_tensors_are_watched_too(ns):
    x = torch.randn(64, 128, device="cuda")
    ref = torch.softmax(x, -1)
    out = allowed(ns, lambda: softmax_by_hand(x), "softmax", "softmax")
    torch.testing.assert_close(out, ref)
    assert "`softmax` was called" in refused(ns, lambda: x.softmax(-1), "softmax", "softmax")
    assert "autograd" in refused(ns, lambda: (x.requires_grad_() * 2).sum().backward(), "the gradient",
                                 autograd=True)


def test_refresh_brings_a_stale_derived_cell_up_to_date_and_lint_then_passes_it(tmp_path):
    import nbformat

    from autograder.authoring.build import build, refresh, refresh_file
    from autograder.authoring.lint import lint_notebook
    from tests.tiny_course import HERE

    nb = build((HERE / "fixtures" / "tiny.py").read_text(), "01_tiny")
    derived = next(c for c in nb.cells if c.get("id") == "derived")
    meta = dict(derived.metadata)
    derived.source = DERIVED.partition("\n\n\nclass ByHandError")[0]  # a notebook from before _by_hand
    path = tmp_path / "junior" / "01_tiny.ipynb"
    path.parent.mkdir()
    nbformat.write(nb, str(path))
    assert any("differs from the course's derived cell" in p for p in lint_notebook(path))
    assert refresh_file(path) and not refresh_file(path)
    fresh = nbformat.read(str(path), 4)
    cell = next(c for c in fresh.cells if c.get("id") == "derived")
    assert cell.source == DERIVED and cell.metadata == meta
    assert not [p for p in lint_notebook(path) if "derived" in p]
    assert not refresh(fresh)


# ---- the tamper scan: an answer may call the helpers, never replace them ---------------------------------------

TAMPERS = [
    "_by_hand = lambda *a, **k: contextlib.nullcontext()",
    "def _by_hand(*args, **kwargs):\n    pass",
    "class ByHandError(Exception):\n    pass",
    "from contextlib import nullcontext as _by_hand",
    "global _observe\n_observe = print",
    "del _by_hand",
    "_by_hand.__wrapped__ = None",
    "ByHandError.__init__ = None",
    "setattr(_by_hand, '__wrapped__', None)",
    "for _observe in []:\n    pass",
    "with open('x') as _by_hand:\n    pass",
    "try:\n    pass\nexcept Exception as ByHandError:\n    pass",
    "vars()['_by_hand'] = None",
    "with torch._C.DisableTorchFunction():\n    y = torch.softmax(x, -1)",
    "from torch._C import DisableTorchFunction",
    "torch.overrides._pop_mode()",
    "contextlib.contextmanager = None",
]
FINE = [
    "try:\n    y = f(x)\nexcept ByHandError:\n    y = 0",
    "with _by_hand('x', 'gelu'):\n    y = 1",
    "_observe('a', 1)",
    "by_hand = 3\nobserve = 2",
    "class MyError(ByHandError):\n    pass",
    "with torch._C.DisableTorchFunctionSubclass():\n    pass",
]


@pytest.mark.parametrize("code", TAMPERS)
def test_the_tamper_scan_flags_an_answer_that_replaces_a_test_helper(code):
    import ast

    from autograder.pipeline.tamper import _scan

    assert _scan(ast.parse(code)), code


@pytest.mark.parametrize("code", FINE)
def test_the_tamper_scan_lets_an_answer_use_the_helpers(code):
    import ast

    from autograder.pipeline.tamper import _scan

    assert _scan(ast.parse(code)) == [], code


# ---- end to end: a by-hand exercise graded by the course's grader ---------------------------------------------

BY_HAND_NOTEBOOK = '''# ---
# title: A tiny by-hand notebook
# tier: junior
# ---
# %% [markdown]
# One exercise that asks for the work by hand.
# %% [markdown]
# **Exercise 1.** Write GELU by hand, from its formula, without calling `F.gelu` or `nn.GELU`.
# %% [solution] id=ex1_gelu
import math

import torch


def gelu_by_hand(x):
    ### BEGIN SOLUTION
    return 0.5 * x * (1 + torch.erf(x / math.sqrt(2)))
    ### END SOLUTION
# %% [test] id=ex1_gelu_test points=2 topics=J01
import torch.nn.functional as F

x = torch.linspace(-3, 3, 13)
ref = F.gelu(x)  # the reference, outside the block
with _by_hand("GELU", "gelu", torch.nn.GELU):
    out = gelu_by_hand(x)
assert torch.allclose(out, ref, atol=1e-6), "gelu_by_hand should match GELU's formula"
### BEGIN HIDDEN TESTS
x2 = torch.randn(5, 7, generator=torch.Generator().manual_seed(1))
with _by_hand("GELU", "gelu", torch.nn.GELU):
    out2 = gelu_by_hand(x2)
_observe("gelu by hand on new inputs", out2)
### END HIDDEN TESTS
# %% [markdown]
# **Follow-up.** What would break if `x` were an integer tensor?
'''

BY_HAND_ANSWERS = {
    "shortcut": "import torch.nn.functional as F\n\ndef gelu_by_hand(x):\n    return F.gelu(x)\n",
    "shortcut behind a try": """import math
import torch
from torch.nn.functional import gelu as _g

def gelu_by_hand(x):
    try:
        return _g(x)
    except Exception:
        return 0.5 * x * (1 + torch.erf(x / math.sqrt(2)))
""",
    "module": "import torch\n\ndef gelu_by_hand(x):\n    return torch.nn.GELU()(x)\n",
    "by hand, another way": """import math
import torch

def gelu_by_hand(x):
    return x * 0.5 * torch.erfc(-x / math.sqrt(2))
""",
}


@pytest.fixture(scope="module")
def by_hand_course(tmp_path_factory):
    import nbformat

    from autograder.authoring.build import build

    src = tmp_path_factory.mktemp("byhand") / "notebooks" / "junior" / "01_tiny_by_hand.ipynb"
    src.parent.mkdir(parents=True)
    nbformat.write(build(BY_HAND_NOTEBOOK, src.stem), str(src))
    return src, nbformat.read(str(src), 4)


@pytest.mark.kernel
def test_the_by_hand_reference_earns_full_marks(by_hand_course):
    from autograder.pipeline.check import grade_submission, render_table

    src, source = by_hand_course
    report = grade_submission(source, src, "reference")
    assert report.score == report.max_score == 2, render_table(report)


@pytest.mark.kernel
@pytest.mark.parametrize("answer", BY_HAND_ANSWERS, ids=list(BY_HAND_ANSWERS))
def test_a_shortcut_scores_nothing_with_the_by_hand_message_and_a_by_hand_answer_scores_full(by_hand_course,
                                                                                           answer):
    from autograder.pipeline.check import grade_submission, render_table
    from tests.tiny_course import with_answer

    src, source = by_hand_course
    report = grade_submission(with_answer(source, "ex1_gelu", BY_HAND_ANSWERS[answer]), src, answer)
    table = render_table(report)
    if answer == "by hand, another way":
        assert report.score == report.max_score and report.flags == [], table
    else:
        assert report.score == 0, table
        message = report.tests[0].message
        assert "this exercise asks for GELU by hand: `" in message and "was called" in message, table


def test_a_module_first_imported_inside_the_block_keeps_no_raiser(ns, tmp_path, monkeypatch):
    import sys

    (tmp_path / "bh_late_module.py").write_text("from torch.nn.functional import softmax\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    with pytest.raises(ns["ByHandError"]):
        with ns["_by_hand"]("softmax", "softmax"):
            import bh_late_module

            bh_late_module.softmax(X, -1)
    try:
        assert sys.modules["bh_late_module"].softmax is F.softmax
    finally:
        del sys.modules["bh_late_module"]


def test_a_torch_alias_in_the_notebook_is_caught_and_put_back(ns):
    ns["sm"] = torch.nn.functional.softmax  # a learner's `from torch.nn.functional import softmax as sm`
    try:
        assert "softmax` was called" in refused(ns, lambda: ns["sm"](X, -1), "softmax", "softmax")
        assert ns["sm"] is F.softmax
    finally:
        del ns["sm"]


def test_a_kernel_that_is_not_a_triton_kernel_gets_a_message(ns):
    def softmax_kernel(x):
        return x

    msg = refused(ns, lambda: softmax_kernel(X), "softmax", launches=(softmax_kernel, 1))
    assert msg == ("this exercise asks for a Triton kernel, `softmax_kernel`: it is not one "
                   "(decorate it with @triton.jit)")


def test_vmap_of_a_grad_built_before_the_block_is_caught(ns):
    per_row = torch.func.vmap(torch.func.grad(lambda t: (t * t).sum()))
    assert "autograd" in refused(ns, lambda: per_row(X), "the gradient", autograd=True)
    torch.testing.assert_close(per_row(X), 2 * X)  # and works again after


# ---- a Python function torch's mode never sees is matched as itself, not by its name ---------------------------


def _hvp_double_backward(f, x, v):
    x = x.detach().requires_grad_(True)
    (g,) = torch.autograd.grad(f(x), x, create_graph=True)
    return torch.autograd.grad(g, x, grad_outputs=v)[0]


def _hvp_nested_func_grad(f, x, v):
    return torch.func.grad(lambda z: torch.func.grad(f)(z) @ v)(x)


def _cubic(z):
    return (z ** 3).sum()


@pytest.mark.parametrize("how", ["by path", "by object"])
def test_torch_func_grad_is_off_while_torch_autograd_grad_stays_allowed(ns, how):
    off = "torch.func.grad" if how == "by path" else torch.func.grad
    x, v = X[0].double(), X[1].double()
    msg = refused(ns, lambda: _hvp_nested_func_grad(_cubic, x, v), "an HVP", off)
    assert msg == "this exercise asks for an HVP by hand: `torch.func.grad` was called (not allowed here: " \
                  "torch.func.grad)"
    got = allowed(ns, lambda: _hvp_double_backward(_cubic, x, v), "an HVP", off)
    torch.testing.assert_close(got, 6 * x * v, msg="torch.autograd.grad must still work beside it")
    assert torch.func.grad.__module__ == "torch.func" and torch.autograd.grad.__module__ == "torch.autograd"


@pytest.mark.parametrize("ending", ["normally", "by a violation", "by another error"])
def test_a_name_imported_before_the_block_is_caught_and_put_back_however_it_ends(ns, ending):
    import torch._functorch.apis as apis

    before = (torch.func.grad, apis.grad, torch.autograd.grad)
    ns["grad"] = torch.func.grad  # a learner's `from torch.func import grad` at the top of a cell
    x, v = X[0].double(), X[1].double()
    try:
        if ending == "by a violation":
            msg = refused(ns, lambda: ns["grad"](lambda z: ns["grad"](_cubic)(z) @ v)(x), "an HVP",
                          "torch.func.grad")
            assert "`torch.func.grad` was called" in msg
        else:
            with pytest.raises(KeyError) if ending == "by another error" else _nothing():
                with ns["_by_hand"]("an HVP", "torch.func.grad"):
                    _hvp_double_backward(_cubic, x, v)
                    if ending == "by another error":
                        raise KeyError("the learner's bug")
        assert ns["grad"] is torch.func.grad and (torch.func.grad, apis.grad, torch.autograd.grad) == before
        torch.testing.assert_close(_hvp_nested_func_grad(_cubic, x, v), 6 * x * v)  # and works again after
    finally:
        del ns["grad"]


# ---- a forbidden package that is not installed here: torchvision, through a stand-in ---------------------------

_BOXES = '''
import torch


def box_iou(boxes1, boxes2):
    area1 = (boxes1[:, 2] - boxes1[:, 0]) * (boxes1[:, 3] - boxes1[:, 1])
    area2 = (boxes2[:, 2] - boxes2[:, 0]) * (boxes2[:, 3] - boxes2[:, 1])
    lt = torch.max(boxes1[:, None, :2], boxes2[:, :2])
    rb = torch.min(boxes1[:, None, 2:], boxes2[:, 2:])
    wh = (rb - lt).clamp(min=0)
    inter = wh[:, :, 0] * wh[:, :, 1]
    return inter / (area1[:, None] + area2 - inter)
'''


@pytest.fixture
def stand_in_torchvision(monkeypatch):
    """torchvision is not installed here, and must not be; Colab has it. A stand-in laid out as the real one
    (torchvision.ops re-exports torchvision.ops.boxes.box_iou, a correct IoU), on sys.modules for this test
    only, proves what junior/12 ex6's test cell does where the real package is installed."""
    import sys
    import types

    boxes = types.ModuleType("torchvision.ops.boxes")
    exec(compile(_BOXES, "<stand-in torchvision/ops/boxes.py>", "exec"), vars(boxes))
    ops = types.ModuleType("torchvision.ops")
    ops.boxes, ops.box_iou = boxes, boxes.box_iou
    top = types.ModuleType("torchvision")
    top.ops = ops
    for module in (top, ops, boxes):
        monkeypatch.setitem(sys.modules, module.__name__, module)
    return top


def _run_test_cell(notebook, before, solution, answer):
    """The notebook's cells `before` (by id), `answer` in place of the solution cell, then the test cell that
    follows it, in one namespace after the derived cell: the kernel's order, without a kernel."""
    import nbformat

    from autograder.pipeline.cells import grade_id
    from tests import answers

    nb = nbformat.read(str(answers.NOTEBOOKS / f"{notebook}.ipynb"), as_version=4)
    by_id = {grade_id(c) or c.get("id"): c.source for c in nb.cells}
    space = {"FAST": True, "DEVICE": "cpu", "SEED": 0, "__name__": "__main__"}
    exec(compile(DERIVED, "<derived cell>", "exec"), space)
    space["_observe"] = lambda *args, **kwargs: None  # no kernel to display to; the verdict here is the assert
    for source in [by_id[c] for c in before] + [answer, by_id[answers.test_cell_of(nb)[solution]]]:
        exec(compile(source, f"<{notebook}>", "exec"), space)
    return space


def _shortcut(notebook, solution, why):
    import importlib

    wrong = importlib.import_module(f"tests.answers.{notebook.replace('/', '.')}").WRONG[solution]
    return next(code for said, code in wrong if said.startswith(why))


J12 = ("junior/12_activations_and_metrics", ["setup_imports", "c33"], "ex6_box_iou")


def test_box_iou_from_torchvision_fails_with_the_by_hand_message_where_torchvision_is_installed(
        stand_in_torchvision):
    notebook, before, solution = J12
    a = torch.tensor([[0.0, 0.0, 4.0, 4.0], [1.0, 1.0, 3.0, 5.0]])
    b = torch.tensor([[2.0, 2.0, 6.0, 6.0], [-3.0, 1.0, 1.0, 2.0]])
    real = stand_in_torchvision.ops.box_iou
    torch.testing.assert_close(real(a, b), torch.tensor([[4 / 28, 1 / 19], [3 / 21, 0.0]]),
                               msg="the stand-in's IoU is right, so only the by-hand rule can fail the shortcut")
    code = _shortcut(notebook, solution, "shortcut: calls torchvision.ops.box_iou")
    with pytest.raises(AssertionError) as caught:
        _run_test_cell(notebook, before, solution, code)
    assert str(caught.value).startswith("this exercise asks for box IoU by hand: `torchvision.ops.box_iou` was "
                                        "called"), str(caught.value)
    assert stand_in_torchvision.ops.box_iou is real and stand_in_torchvision.ops.boxes.box_iou is real


def test_box_iou_by_hand_passes_where_torchvision_is_installed(stand_in_torchvision):
    from tests import answers

    notebook, before, solution = J12
    _run_test_cell(notebook, before, solution, answers.reference(notebook, solution))


def test_a_function_bound_under_another_name_than_its_own_is_caught(ns):
    """torch.nn.utils.get_total_norm's __name__ is _get_total_norm: matched as the object, under either name."""
    import importlib

    grads = [torch.ones(3)]
    for call in (lambda: torch.nn.utils.get_total_norm(grads),
                 lambda: importlib.import_module("torch.nn.utils.clip_grad")._get_total_norm(grads)):
        assert "`torch.nn.utils.get_total_norm` was called" in refused(ns, call, "the norm",
                                                                       "torch.nn.utils.get_total_norm")
    torch.testing.assert_close(torch.nn.utils.get_total_norm(grads), torch.tensor(3 ** 0.5))
