"""The grader's layout: packages by audience, imports one way, no circles (autograder/__init__.py states the
rule; docs/architecture.md draws it). Read from the source with ast, lazy imports inside functions included:
an import that only runs later is still a dependency."""

from __future__ import annotations

import ast
from pathlib import Path

from autograder.course import ROOT

PACKAGES = ("learner", "classroom", "authoring", "pipeline", "isolation")
# Who may import whom. `notebook` is the two names a learner's notebook imports (autograder/selfcheck.py and
# autograder/progress.py): they forward to learner/ and nothing else.
ALLOWED = {
    "cli": {"learner", "classroom", "authoring", "pipeline", "isolation", "course"},
    "notebook": {"learner"},
    "learner": {"learner", "authoring", "pipeline", "isolation", "course"},
    "classroom": {"classroom", "pipeline", "isolation", "course"},
    "authoring": {"authoring", "pipeline", "course"},
    "pipeline": {"pipeline", "isolation", "course"},
    "isolation": {"isolation", "course"},
    "course": set(),
    "root": set(),
    "ci": {"ci", "cli", "learner", "classroom", "authoring", "pipeline", "isolation", "course"},
}
LONG = 300  # lines; a longer module says why at its top ("Long because ...")


def _modules() -> dict[str, Path]:
    out = {}
    for top in ("autograder", "ci"):
        for path in sorted((ROOT / top).rglob("*.py")):
            parts = list(path.relative_to(ROOT).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            out[".".join(parts)] = path
    return out


MODULES = _modules()


def layer(module: str) -> str:
    parts = module.split(".")
    if parts[0] == "ci":
        return "ci"
    if len(parts) == 1:
        return "root"
    if parts[1] in PACKAGES:
        return parts[1]
    return {"cli": "cli", "__main__": "cli", "course": "course", "selfcheck": "notebook",
            "progress": "notebook"}[parts[1]]


def imports_of(module: str, modules: dict[str, Path] = MODULES) -> list[tuple[str, int]]:
    """(imported module of ours, line) for every import statement in the module, wherever it stands."""
    path = modules[module]
    tree = ast.parse(path.read_text(), filename=str(path))
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                base = ".".join(package.split(".")[:len(package.split(".")) - node.level + 1] + ([base] if base else []))
            # `from pkg import mod` imports the module pkg.mod when there is one, else a name of pkg
            names = [f"{base}.{a.name}" if f"{base}.{a.name}" in modules else base for a in node.names]
        else:
            continue
        for name in names:
            while name and name not in modules:
                name = name.rpartition(".")[0]
            if name and name != module:
                found.append((name, node.lineno))
    return found


GRAPH = {m: imports_of(m) for m in MODULES}


def test_every_package_says_what_it_is_for_and_what_it_may_import():
    for pkg in PACKAGES:
        doc = ast.get_docstring(ast.parse((ROOT / "autograder" / pkg / "__init__.py").read_text()))
        assert doc and "import" in doc, f"autograder/{pkg}/__init__.py: a docstring saying what it is for and may import"


def test_only_cli_and_course_and_the_notebook_names_stay_at_the_top():
    top = sorted(p.name for p in (ROOT / "autograder").glob("*.py"))
    assert top == ["__init__.py", "__main__.py", "cli.py", "course.py", "progress.py", "selfcheck.py"], top


def upward_imports(graph: dict[str, list[tuple[str, int]]]) -> list[str]:
    """'module:line imports target' for every import against the layering."""
    wrong = []
    for module, found in graph.items():
        mine = layer(module)
        for target, line in found:
            theirs = layer(target)
            if theirs != mine and theirs not in ALLOWED[mine]:
                wrong.append(f"{module}:{line} imports {target} "
                             f"({mine} may import {', '.join(sorted(ALLOWED[mine])) or 'nothing of ours'})")
    return wrong


def circles(graph: dict[str, list[tuple[str, int]]]) -> list[list[str]]:
    """Import circles: Tarjan's strongly connected components of more than one module."""
    index, low, stack, on, found = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w, _ in graph.get(v, []):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                found.append(sorted(comp))

    for v in graph:
        if v not in index:
            visit(v)
    return found


def test_imports_run_one_way():
    wrong = upward_imports(GRAPH)
    assert wrong == [], "imports against the layering:\n" + "\n".join(wrong)


def test_no_import_circles():
    found = circles(GRAPH)
    assert found == [], f"import circles: {found}"


def test_the_checker_sees_lazy_and_relative_imports_an_upward_import_and_a_circle(tmp_path):
    """The rules above are only as good as the checker: planted files must be read and caught."""
    (tmp_path / "a.py").write_text("def f():\n    from autograder.learner import selfcheck\n")
    (tmp_path / "b.py").write_text("from . import a\n")
    (tmp_path / "c.py").write_text("from autograder.pipeline import b\n")
    planted = {"autograder.pipeline.a": tmp_path / "a.py", "autograder.pipeline.b": tmp_path / "b.py",
               "autograder.pipeline.c": tmp_path / "c.py"}
    modules = {**MODULES, **planted}
    graph = {m: imports_of(m, modules) for m in planted}
    assert ("autograder.learner.selfcheck", 2) in graph["autograder.pipeline.a"], "a lazy import was missed"
    assert ("autograder.pipeline.a", 1) in graph["autograder.pipeline.b"], "a relative import was missed"
    assert upward_imports(graph) == [
        "autograder.pipeline.a:2 imports autograder.learner.selfcheck (pipeline may import course, isolation, pipeline)"]
    assert circles(graph) == []
    graph["autograder.pipeline.a"].append(("autograder.pipeline.c", 3))
    assert circles(graph) == [["autograder.pipeline.a", "autograder.pipeline.b", "autograder.pipeline.c"]]


def test_no_module_is_long_without_a_reason():
    long = [f"{p.relative_to(ROOT)} ({n} lines)" for m, p in MODULES.items()
            if (n := len(p.read_text().splitlines())) > LONG
            and "Long because" not in (ast.get_docstring(ast.parse(p.read_text())) or "")]
    assert long == [], f"modules over {LONG} lines without a 'Long because ...' at their top: {long}"


def _imports_resolve(source: str) -> list[str]:
    """The `from X import Y` statements of a cell's source that do not work here."""
    import importlib

    broken = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("autograder"):
            module = importlib.import_module(node.module)
            broken += [f"from {node.module} import {a.name}" for a in node.names if not hasattr(module, a.name)]
    return broken


def test_the_names_a_learners_notebook_imports_still_work():
    """Notebooks already in learners' work/ folders import autograder.selfcheck (the self-check cell) and
    autograder.progress (the dashboard): the imports those cells run must keep working, whatever moves."""
    import json

    from autograder.authoring import template
    from autograder.learner.dashboard import DASHBOARD_CODE

    released = json.loads(next((ROOT / "release" / "junior").glob("01_*.ipynb")).read_text())
    selfcheck_cell = next(c for c in released["cells"] if c.get("id") == template.SELFCHECK_ID)
    for name, source in (("template.SELFCHECK", template.SELFCHECK), ("the dashboard cell", DASHBOARD_CODE),
                         ("a released notebook's self-check cell", "".join(selfcheck_cell["source"]))):
        assert "autograder" in source and _imports_resolve(source) == [], f"{name}: {_imports_resolve(source)}"
