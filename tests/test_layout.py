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


def imports_of(module: str) -> list[tuple[str, int]]:
    """(imported module of ours, line) for every import statement in the module, wherever it stands."""
    path = MODULES[module]
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
            names = [f"{base}.{a.name}" if f"{base}.{a.name}" in MODULES else base for a in node.names]
        else:
            continue
        for name in names:
            while name and name not in MODULES:
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


def test_imports_run_one_way():
    wrong = []
    for module, found in GRAPH.items():
        mine = layer(module)
        for target, line in found:
            theirs = layer(target)
            if theirs != mine and theirs not in ALLOWED[mine]:
                wrong.append(f"{MODULES[module].relative_to(ROOT)}:{line} imports {target} "
                             f"({mine} may import {', '.join(sorted(ALLOWED[mine])) or 'nothing of ours'})")
    assert wrong == [], "imports against the layering:\n" + "\n".join(wrong)


def test_no_import_circles():
    # Tarjan's strongly connected components: any component of more than one module is a circle.
    index, low, stack, on, circles = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w, _ in GRAPH[v]:
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
                circles.append(sorted(comp))

    for v in GRAPH:
        if v not in index:
            visit(v)
    assert circles == [], f"import circles: {circles}"


def test_the_checker_sees_a_circle_and_an_upward_import(tmp_path):
    """The rules above are only as good as the import reader: it must see lazy and relative imports."""
    global MODULES
    saved = dict(MODULES)
    try:
        (tmp_path / "a.py").write_text("def f():\n    from autograder.learner import selfcheck\n")
        (tmp_path / "b.py").write_text("from . import a\n")
        MODULES = {**saved, "autograder.pipeline.a": tmp_path / "a.py", "autograder.pipeline.b": tmp_path / "b.py"}
        assert ("autograder.learner.selfcheck", 2) in imports_of("autograder.pipeline.a")
        assert ("autograder.pipeline.a", 1) in imports_of("autograder.pipeline.b")
    finally:
        MODULES = saved


def test_no_module_is_long_without_a_reason():
    long = [f"{p.relative_to(ROOT)} ({n} lines)" for m, p in MODULES.items()
            if (n := len(p.read_text().splitlines())) > LONG
            and "Long because" not in (ast.get_docstring(ast.parse(p.read_text())) or "")]
    assert long == [], f"modules over {LONG} lines without a 'Long because ...' at their top: {long}"


def test_the_names_a_learners_notebook_imports_still_work():
    """Notebooks already in learners' work/ folders import autograder.selfcheck (the self-check cell) and
    autograder.progress (the dashboard): those names must keep working, whatever moves below them."""
    from autograder.authoring import template
    from autograder.learner.dashboard import DASHBOARD_CODE
    from autograder.progress import show
    from autograder.selfcheck import check_this_notebook

    assert callable(show) and callable(check_this_notebook)
    assert "from autograder.selfcheck import check_this_notebook" in template.SELFCHECK
    assert "from autograder.progress import show" in DASHBOARD_CODE
    released = next((ROOT / "release" / "junior").glob("01_*.ipynb")).read_text()
    assert "from autograder.selfcheck import check_this_notebook" in released
