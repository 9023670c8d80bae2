"""Flag learner code that reaches into the machinery that grades it.

Tests run in the learner's own kernel, so a hostile answer can patch what judges it: assert helpers,
builtins, IPython's error display, the kernel's replies. Every such attack needs one of a few kinds of
reach, and those are what this scan looks for in the cells a learner wrote (answer cells and added cells):

- rebinding a builtin name, or assigning to an attribute of an imported module or of a builtin;
- the interpreter's and the kernel's hooks and internals (sys.modules, excepthook, settrace, IPython,
  ipykernel, zmq, jupyter_client, gc, ctypes, frames);
- dynamic code and names that hide the above from a reader (exec, eval, compile, __import__, importlib,
  getattr/setattr/delattr with a computed name on a module);
- the course's own test helpers from the derived cell (_observe, _by_hand, ByHandError): rebinding, patching or
  deleting them, and switching off the torch function modes that _by_hand watches torch calls with.

A flagged notebook keeps its autograded score but is marked for review, in `check`, in the CSV and in the
feedback, with the line and the reason. The scan is static, so it never runs student code.
"""

from __future__ import annotations

import ast
import builtins

from nbformat import NotebookNode

from autograder.pipeline.cells import grade_id, kind

BUILTIN_NAMES = set(dir(builtins))
REACH_MODULES = {"IPython", "ipykernel", "zmq", "jupyter_client", "comm", "gc", "ctypes", "importlib",
                 "builtins", "traceback", "signal", "faulthandler", "sys_monitoring"}
SYS_ATTRS = {"modules", "excepthook", "displayhook", "settrace", "setprofile", "_getframe", "meta_path",
             "path_hooks", "stdout", "stderr", "audit", "addaudithook", "monitoring", "exit"}
DISPLAY_MODULES = {"IPython.display"}  # what an answer may import from IPython (see _displays_only)
DYNAMIC = {"exec", "eval", "compile", "__import__", "globals", "get_ipython", "breakpoint"}
OK_OWNERS = {"self", "cls", "ctx"}
# What the derived cell (authoring/template.py) gives the tests; an answer may call them, never replace them.
HELPERS = {"_observe", "_by_hand", "ByHandError"}
# What switches off or unwinds the TorchFunctionMode _by_hand watches torch calls with.
MODE_OFF = {"DisableTorchFunction", "_disable_torch_function", "_pop_torch_function_stack", "_pop_mode",
            "_pop_mode_temporarily", "_set_torch_function_mode"}
# Settings an answer may legitimately change (reproducibility, determinism).
OK_TARGETS = ("torch.backends.", "os.environ")


def _displays_only(node: ast.AST) -> bool:
    """`from IPython.display import display, HTML, Markdown`: how a learner shows a result, not a reach into
    the kernel (the names are bound as they are; using them to patch anything is still flagged)."""
    return (isinstance(node, ast.ImportFrom) and node.module in DISPLAY_MODULES and node.level == 0
            and all(a.name != "*" and not a.name.startswith("_") for a in node.names))


def _scan(tree: ast.AST) -> list[tuple[int, str]]:
    found: list[tuple[int, str]] = []
    modules: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else [node.module or ""]
            for a in node.names:
                modules.add((a.asname or a.name).split(".")[0])
            if _displays_only(node):
                continue
            for n in names:
                if n.split(".")[0] in REACH_MODULES:
                    found.append((node.lineno, f"imports {n}, which reaches into the kernel or interpreter"))
    modules |= {"torch", "np", "numpy", "nn", "F", "sys", "os", "math", "random", "contextlib"}
    found += _helpers(tree)
    for node in ast.walk(tree):
        if isinstance(node, (ast.Assign, ast.AugAssign, ast.AnnAssign, ast.Delete)):
            targets = node.targets if isinstance(node, (ast.Assign, ast.Delete)) else [node.target]
            for t in targets:
                if isinstance(t, ast.Name) and t.id in BUILTIN_NAMES:
                    found.append((node.lineno, f"rebinds the builtin name {t.id!r}"))
                root = t
                while isinstance(root, (ast.Attribute, ast.Subscript)):
                    root = root.value
                if isinstance(t, (ast.Attribute, ast.Subscript)) and isinstance(root, ast.Name) \
                        and (root.id in modules or root.id in BUILTIN_NAMES) and root.id not in OK_OWNERS \
                        and not ast.unparse(t).startswith(OK_TARGETS):
                    found.append((node.lineno, f"assigns into the module or builtin {root.id!r}"))
        elif isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "sys" \
                and node.attr in SYS_ATTRS:
            found.append((node.lineno, f"uses sys.{node.attr}"))
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
            name = node.func.id
            if name in DYNAMIC:
                found.append((node.lineno, f"calls {name}()"))
            elif name in ("setattr", "delattr", "getattr") and node.args:
                owner = node.args[0]
                computed = len(node.args) > 1 and not isinstance(node.args[1], ast.Constant)
                on_module = isinstance(owner, ast.Name) and (owner.id in modules or owner.id in BUILTIN_NAMES)
                if name != "getattr" and on_module:
                    found.append((node.lineno, f"calls {name}() on the module {owner.id!r}"))
                elif name == "getattr" and on_module and computed and owner.id in ("sys", "builtins"):
                    found.append((node.lineno, f"looks up a computed name on {owner.id!r}"))
    return found


def _helpers(tree: ast.AST) -> list[tuple[int, str]]:
    """Rebinding, patching or deleting a test helper (HELPERS), or switching torch function modes off."""
    found: list[tuple[int, str]] = []

    def root(node: ast.AST) -> ast.AST:
        while isinstance(node, (ast.Attribute, ast.Subscript)):
            node = node.value
        return node

    for node in ast.walk(tree):
        names: list[str] = []
        if isinstance(node, ast.Name) and isinstance(node.ctx, (ast.Store, ast.Del)):
            names = [node.id]  # =, +=, for, with ... as, :=, del, comprehension targets
        elif isinstance(node, (ast.Attribute, ast.Subscript)) and isinstance(node.ctx, (ast.Store, ast.Del)) \
                and isinstance(root(node), ast.Name):
            names = [root(node).id]  # _by_hand.__wrapped__ = ..., del ByHandError.__init__
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names = [node.name]
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            names = [(a.asname or a.name).split(".")[0] for a in node.names]
        elif isinstance(node, (ast.Global, ast.Nonlocal)):
            names = node.names
        elif isinstance(node, ast.ExceptHandler) and node.name:
            names = [node.name]
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.args \
                and node.func.id in ("setattr", "delattr") and isinstance(node.args[0], ast.Name):
            names = [node.args[0].id]
        if isinstance(node, ast.Subscript) and isinstance(node.ctx, (ast.Store, ast.Del)) \
                and isinstance(node.value, ast.Call) and isinstance(node.value.func, ast.Name) \
                and node.value.func.id in ("vars", "locals") and not node.value.args:
            found.append((node.lineno, f"writes into {node.value.func.id}() (the notebook's namespace)"))
        for name in sorted(set(names) & HELPERS):
            found.append((node.lineno, f"rebinds or patches {name}, which the tests use"))
        if isinstance(node, ast.Attribute) and node.attr in MODE_OFF or isinstance(node, ast.Name) \
                and node.id in MODE_OFF or isinstance(node, ast.alias) and node.name.split(".")[-1] in MODE_OFF:
            found.append((node.lineno, "switches off torch function modes, which the tests watch calls with"))
    return found


def scan(nb: NotebookNode, source: NotebookNode) -> list[str]:
    """Findings in the code the learner wrote: answer cells and any code cell that is not the source's."""
    known = {c.source for c in source.cells if c.cell_type == "code"}
    findings = []
    for cell in nb.cells:
        if cell.cell_type != "code" or cell.source in known:
            continue
        if kind(cell) not in ("solution", "plain"):
            continue  # test and locked cells come from the source (assemble.py)
        where = f"cell '{grade_id(cell)}'" if grade_id(cell) else "an added or edited cell"
        lines = cell.source.splitlines()
        if any(ln.lstrip().startswith(("%", "!")) for ln in lines):
            findings.append(f"{where}: uses an IPython magic or shell escape")
        text = "\n".join("" if ln.lstrip().startswith(("%", "!")) else ln for ln in lines)
        try:
            tree = ast.parse(text)
        except SyntaxError:
            continue  # it fails on its own
        findings += [f"{where}, line {line}: {why}" for line, why in _scan(tree)]
    return findings
