"""The cells every notebook starts with. The builder writes them and the linter holds notebooks to them.

Long because the derived cell is code every notebook runs as it stands (on Colab too, with nothing of the course
installed): `_observe` and `_by_hand` are written out here in full, as the learner's kernel receives them."""

from __future__ import annotations

import re

from autograder.course import COLAB_OWNER, COLAB_REPO, COURSE, ROOT, colab_badge

# Import name -> pip name. On Colab these ship (torch, numpy, matplotlib, scikit-learn): nothing installs.
BASE_NEEDS = {"torch": "torch", "numpy": "numpy", "matplotlib": "matplotlib", "sklearn": "scikit-learn"}
EXTRA_PIP_NAMES = {"onnx": "onnx", "onnxscript": "onnxscript", "onnxruntime": "onnxruntime"}


def header(title: str, tier: str, stem: str, intro: str) -> str:
    text = f"# {title}\n\n{colab_badge(tier, stem)}\n"
    return text + (f"\n{intro.strip()}\n" if intro.strip() else "")


def setup(extra: list[str]) -> str:
    needs = dict(BASE_NEEDS, **{m: EXTRA_PIP_NAMES.get(m, m) for m in extra})
    pairs = ", ".join(f'"{k}": "{v}"' for k, v in needs.items())
    return f'''# Setup. Works in JupyterLab, in CI and on Colab: on Colab it installs only what is missing and never
# touches torch (reinstalling it would replace Colab's CUDA build). No version strings are parsed.
import importlib.util
import subprocess
import sys

NEEDS = {{{pairs}}}
missing = [pip for module, pip in NEEDS.items() if importlib.util.find_spec(module) is None]
if missing and "google.colab" in sys.modules and "torch" not in missing:
    subprocess.run([sys.executable, "-m", "pip", "install", "-q", *missing], check=True)
elif missing:
    raise ImportError("missing packages: " + " ".join(missing) + " (run `make setup`, or pip install them)")'''


PARAMETERS = '''DEVICE = "auto"  # "auto", "cpu" or "cuda"
FAST = False  # True in CI: smaller data and fewer steps, same checks
SEED = 0'''

DERIVED = '''# Derived from the parameters above (papermill injects its values just before this cell).
import contextlib
import os
import random

import numpy as np
import torch

FAST = bool(FAST) or os.environ.get("PTLAB_FAST") == "1"
if DEVICE == "auto":
    DEVICE = "cuda" if torch.cuda.is_available() else "cpu"
if DEVICE == "cuda" and not torch.cuda.is_available():
    raise RuntimeError("DEVICE='cuda' was asked for, but this runtime has no CUDA device")
device = torch.device(DEVICE)


def seed_everything(seed: int) -> None:
    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)  # seeds every CUDA device too


seed_everything(SEED)
print(f"torch {torch.__version__} | device {device} | fast={FAST} | seed={SEED}")


def _observe(label, value, rtol=1e-4, atol=1e-6):
    """Hidden tests report answers here, and the grader compares them with the reference solution's answers
    outside this kernel, so no verdict rests on this kernel alone. It shows nothing in a notebook."""
    from IPython.display import display

    def plain(v):
        if v is None or isinstance(v, (bool, int, str)):
            return v
        if isinstance(v, float):
            return v if v == v and abs(v) != float("inf") else str(v)
        if isinstance(v, (list, tuple)):
            return [plain(x) for x in v]
        if isinstance(v, dict):
            return {str(k): plain(x) for k, x in v.items()}
        if isinstance(v, (torch.dtype, torch.device)):
            return str(v)
        try:
            t = torch.as_tensor(v).detach().to("cpu")
        except Exception:
            return f"<{type(v).__name__}>"
        flat = (torch.view_as_real(t) if t.is_complex() else t).double().flatten()
        return {"shape": list(t.shape), "l1": plain(flat.abs().sum().item()),  # no cancellation, unlike a sum
                "values": [plain(x) for x in flat[:: max(1, flat.numel() // 1024)].tolist()]}

    payload = {"label": label, "value": plain(value), "rtol": rtol, "atol": atol}
    display({"text/plain": "", "application/vnd.ptlab.observation+json": payload}, raw=True)


class ByHandError(AssertionError):
    """The exercise asks for the work by hand, and the answer used what its statement puts off limits."""


@contextlib.contextmanager
def _by_hand(task, *forbidden, autograd=False, launches=None):
    """Tests run a by-hand answer inside this block; the reference is computed outside it. Off limits here:
    a plain name ("gelu"): every torch function of that name (torch.X, F.X, Tensor.X, torch.special.X...);
    a dotted path or an object (a class, a function): it raises, and a torch op the mode below sees forbids its
    name too; any other function is matched as that very object, so forbidding torch.func.grad leaves
    torch.autograd.grad allowed; autograd=True: backward, autograd.grad,
    torch.func's transforms and grad mode; launches=(kernel, n): exactly n launches of that Triton kernel.
    Every violation is recorded, so an answer that catches the error still fails when the block ends."""
    import importlib
    import inspect
    import sys
    import types

    seen, undo, names, shown, planted = [], [], set(), [], {}  # planted: id(raiser) -> (raiser, original)
    spaces = {}  # package -> its modules' namespaces
    home = globals()  # the notebook's namespace: a learner's `from numpy.linalg import norm` binds here

    def bare(name):  # torch.special.erf is named "special_erf", torch.ops.aten.gelu.default "gelu.default"
        name = name.split(".")[0].strip("_")
        for prefix in ("special_", "linalg_", "fft_"):
            name = name[len(prefix):] if name.startswith(prefix) else name
        return name

    def fail(said):
        seen.append(f"this exercise asks for {task} by hand: {said} (not allowed here: {', '.join(shown)})")
        raise ByHandError(seen[-1])

    def refuse(said):
        def refused(*args, **kwargs):
            fail(said)
        return refused

    def swap(owner, attr, new):  # owner: a namespace dict, or an object whose attribute is replaced
        own = owner if isinstance(owner, dict) else vars(owner)
        undo.append((owner, attr, own.get(attr, undo)))  # `undo` marks "not its own attribute"
        if isinstance(owner, dict):
            planted[id(new)] = (new, owner[attr])
            owner[attr] = new
        else:
            setattr(owner, attr, new)

    def label(obj):  # its shortest public path: nn.GELU rather than torch.nn.modules.activation.GELU
        name, parts = getattr(obj, "__name__", repr(obj)), (getattr(obj, "__module__", None) or "").split(".")
        if vars(torch.nn.functional).get(name) is obj:
            return "F." + name
        for i in range(1, len(parts) + 1):
            if getattr(sys.modules.get(".".join(parts[:i])), "__dict__", {}).get(name) is obj:
                path = ".".join(parts[:i] + [name])
                return path.replace("torch.nn.functional.", "F.").replace("torch.nn.", "nn.")
        return name

    def resolve(path):  # None when its module is not installed here (sklearn, triton are optional)
        parts = path.split(".")
        for i in range(len(parts) - 1, 0, -1):
            try:
                obj = importlib.import_module(".".join(parts[:i]))
            except ImportError:
                continue
            for part in parts[i:]:
                obj = getattr(obj, part, None)
            return obj
        return None

    def forbid_class(cls, name):  # instances made before the block and subclasses too: patch the class
        swap(cls, "__init__", refuse(f"`{name}` was called"))
        if any("__call__" in vars(k) for k in cls.__mro__[:-1]):
            swap(cls, "__call__", refuse(f"`{name}` was called"))
        public = {a for k in cls.__mro__[:-1] for a, v in vars(k).items()  # forward, step, fit, sample...
                  if isinstance(v, types.FunctionType) and not a.startswith("_")}
        for attr in sorted(public):
            swap(cls, attr, refuse(f"`{name}.{attr}` was called"))

    def package(top):  # the namespaces of a package's loaded modules, looked up once per block
        if top not in spaces:
            spaces[top] = [m.__dict__ for k, m in list(sys.modules.items())
                           if (k == top or k.startswith(top + ".")) and isinstance(m, types.ModuleType)]
        return spaces[top]

    def forbid_names():  # torch's own callers too: nn.MultiheadAttention calls F.scaled_dot_product_attention
        keys = {k for n in names for k in (n, "_" + n, n + "_")}  # the mode sees every other alias
        for space in package("torch") if names else ():
            for key in keys:
                if callable(space.get(key)) and not isinstance(space[key], type):
                    swap(space, key, refuse(f"`{key}` was called"))
        originals = {id(old): old.__name__ for _, old in planted.values()
                     if bare(getattr(old, "__name__", "")) in names}
        for key in [k for k, v in home.items() if id(v) in originals]:  # `from torch import softmax as sm`
            swap(home, key, refuse(f"`{originals[id(home[key])]}` was called"))

    def watched(fn):  # the mode sees builtins and the Python functions that hand their call over to it
        code = getattr(inspect.unwrap(fn), "__code__", None)
        return code is None or "handle_torch_function" in code.co_names

    def forbid_function(fn, said, by_name=True):  # wherever it is bound: its package's modules, the notebook
        name, top = getattr(fn, "__name__", ""), (getattr(fn, "__module__", None) or "").split(".")[0]
        seen_by_mode = top in ("torch", "") and watched(fn)
        if by_name and seen_by_mode:
            names.add(bare(name))  # the mode below sees every alias of a torch op; others share names by chance
        for space in package(top) if top else ():  # get_total_norm's __name__ is _get_total_norm: look by value
            for key in [name] if seen_by_mode or not by_name else [k for k, v in space.items() if v is fn]:
                if space.get(key) is fn:
                    swap(space, key, refuse(said))
        for key in [k for k, v in home.items() if v is fn]:
            swap(home, key, refuse(said))

    class Watch(torch.overrides.TorchFunctionMode):
        """Sees every torch function, Tensor method and module's inner call (nested calls run with the mode
        popped, so a function is matched by name, whichever alias the learner called)."""

        def __torch_function__(self, func, kinds, args=(), kwargs=None):
            name = getattr(func, "__name__", "")
            if bare(name) in names:
                fail(f"`{name}` was called")
            if autograd and torch.is_grad_enabled():
                fail("autograd (grad mode was switched on) was used")
            return func(*args, **(kwargs or {}))

    class NoEngine:
        """Stands in for autograd's engine, which every backward pass goes through, however it was reached."""

        def __getattr__(self, attr):
            fail("autograd (`backward`) was called")

    grad_was, modules_before = torch.is_grad_enabled(), set(sys.modules)
    failed = False
    try:
        for item in forbidden:
            shown.append(item if isinstance(item, str) else label(item))
            if isinstance(item, str) and "." not in item:
                names.add(bare(item))
                continue
            obj = resolve(item) if isinstance(item, str) else item
            if isinstance(obj, type):
                forbid_class(obj, shown[-1])
            elif callable(obj):
                forbid_function(obj, f"`{shown[-1]}` was called")
            elif obj is not None:  # None: not installed here
                raise TypeError(f"_by_hand cannot forbid {item!r}: name a function, a class or a torch name")
        if autograd:
            shown.append("autograd")
            torch._C._set_grad_enabled(False)
            real_set = torch._C._set_grad_enabled

            def set_grad(mode):
                if mode:
                    fail("autograd (`enable_grad` / `set_grad_enabled(True)`) was called")
                return real_set(mode)

            swap(torch._C, "_set_grad_enabled", set_grad)
            swap(torch.autograd.variable.Variable, "_execution_engine", NoEngine())
            swap(torch.Tensor, "backward", refuse("autograd (`backward`) was called"))
            paths = ["torch.autograd." + f for f in "backward grad".split()]
            paths += ["torch.autograd.functional." + f for f in "jacobian hessian vjp jvp hvp vhp".split()]
            paths += ["torch.func." + f for f in "grad grad_and_value vjp jvp jacrev jacfwd hessian linearize"
                      .split()]
            for path in paths:
                fn = resolve(path)
                if fn is not None:
                    forbid_function(fn, f"autograd (`{path.rsplit('.', 1)[1]}`) was called", by_name=False)
        if launches is not None:
            kernel, want = launches  # an autotuned kernel's name is its .fn's
            inner = getattr(kernel, "fn", None)
            kernel_name = getattr(kernel, "__name__", None) or getattr(inner, "__name__", "the kernel")
            if not callable(getattr(kernel, "run", None)):
                raise ByHandError(f"this exercise asks for a Triton kernel, `{kernel_name}`: it is not one "
                                  "(decorate it with @triton.jit)")
            count, real_run = [0], kernel.run

            def run(*args, **kwargs):  # kernel[grid](...) calls kernel.run(..., warmup=False) too
                if not kwargs.get("warmup"):
                    count[0] += 1
                return real_run(*args, **kwargs)

            swap(kernel, "run", run)
        forbid_names()
        with Watch() if names or autograd else contextlib.nullcontext():
            yield
    except BaseException:
        failed = True
        raise
    finally:
        for owner, attr, old in reversed(undo):
            if old is undo:
                delattr(owner, attr)
            elif isinstance(owner, dict):
                owner[attr] = old
            else:
                setattr(owner, attr, old)
        # A module first imported inside the block may have bound a raiser (`from torch import softmax`): put
        # the original back there too, so nothing outside the block ever meets one.
        for space in [home] + [vars(m) for k, m in list(sys.modules.items()) if k not in modules_before
                               and isinstance(m, types.ModuleType)]:
            for key in [k for k, v in space.items() if id(v) in planted and planted[id(v)][0] is v]:
                space[key] = planted[id(space[key])][1]
        torch._C._set_grad_enabled(grad_was)
        if seen:
            raise ByHandError(seen[0])
        if launches is not None and not failed and count[0] != want:
            times = "one launch" if want == 1 else f"{want} launches"
            raise ByHandError(f"this exercise asks for {times} of `{kernel_name}`: it was launched "
                              f"{count[0]} time{'' if count[0] == 1 else 's'}")'''


# The last two cells of every notebook: the self-check. Locked (the grader restores them from the source, and
# the tamper scan skips locked cells). The grader sets PTLAB_GRADING in every process it runs a notebook in,
# so the cell never starts a grader inside a grader.
SELFCHECK_INTRO_ID = "selfcheck_intro"
SELFCHECK_ID = "selfcheck"
SELFCHECK_IDS = (SELFCHECK_INTRO_ID, SELFCHECK_ID)

SELFCHECK_INTRO = '''## Check your work

Run the cell below to grade this notebook against all of its tests, the visible ones and the hidden ones, in a
fresh kernel of its own (a few seconds; the first check of a notebook takes about twice as long). It grades
the file **as saved**: save first (Ctrl+S), unsaved edits are not graded. Your progress over every notebook is
in `00_progress.ipynb` at the top of your work folder.'''

def course_version() -> str:
    """The course's version (pyproject.toml): the tag a release pushes as v<version>, which Colab installs."""
    return re.search(r'^version = "([^"]+)"', (ROOT / "pyproject.toml").read_text(), re.M).group(1)


# On Colab the check cell installs the grader from the repository at this notebook's version (editable: the
# course's source notebooks, syllabus and settings sit beside the package, where autograder/course.py finds them;
# a wheel would put the package alone in site-packages). PTLAB_GRADER names another copy (a local checkout, for
# the offline tests; pip's own PIP_NO_INDEX and PIP_FIND_LINKS then keep the install off the network).
GRADER = (f"git+https://github.com/{COLAB_OWNER}/{COLAB_REPO}@v{course_version()}#egg={COURSE}")

SELFCHECK = f'''# Self-check: grades the saved file in a separate, sandboxed process. This kernel never sees the hidden tests.
import importlib.util
import os
import sys

GRADER = "{GRADER}"
on_colab = "google.colab" in sys.modules
if os.environ.get("PTLAB_GRADING"):
    pass  # the grader is running this notebook: nothing to check here
elif importlib.util.find_spec("autograder") is None and not on_colab:
    print("The course's grader is not installed here: the visible tests above are what runs. "
          "For the hidden tests too, clone the course and run `make lab`.")
else:
    if importlib.util.find_spec("autograder") is None:  # Colab: once per runtime, this course's version
        import site
        import subprocess
        import sysconfig
        import tempfile
        import time

        from IPython.display import display

        log, started = tempfile.TemporaryFile(), time.monotonic()
        pip = subprocess.Popen([sys.executable, "-m", "pip", "install", "-q", "--src", os.path.expanduser("~/.ptlab"),
                                "-e", os.environ.get("PTLAB_GRADER", GRADER)], stdout=log, stderr=log)
        line = display({{"text/plain": "Installing the course's grader ..."}}, raw=True, display_id=True)
        while pip.poll() is None:
            time.sleep(1)
            line.update({{"text/plain": f"Installing the course's grader ... {{time.monotonic() - started:.0f}} s"}}, raw=True)
        log.seek(0)
        said = log.read().decode(errors="replace").strip().splitlines()
        line.update({{"text/plain": "Installed the course's grader." if pip.returncode == 0 else
                     "Could not install the course's grader, so only the visible tests above ran: " + (said or ["?"])[-1]}}, raw=True)
        site.addsitedir(sysconfig.get_path("purelib"))  # pip's editable install is found through a .pth file
    if importlib.util.find_spec("autograder") is not None:
        from autograder.selfcheck import check_on_colab, check_this_notebook

        check_on_colab() if on_colab else check_this_notebook()'''
