"""The notebook conventions, as checks. Each problem names the file and the cell."""

from __future__ import annotations

import ast
import json
import re
from pathlib import Path

import nbformat
from nbformat import NotebookNode

from autograder.authoring import template
from autograder.course import COURSE, colab_badge, source_notebooks, syllabus
from autograder.pipeline.cells import grade_id, kind, nbg, topics

NAME = re.compile(r"^\d\d_[a-z0-9_]+\.ipynb$")
FORBIDDEN = [
    (re.compile(r"\.cuda\(\s*\)"), "bare .cuda(): use .to(device) so the notebook runs on CPU too"),
    (re.compile(r"torch\.(cuda|cpu)\.amp\b"), "torch.cuda.amp / torch.cpu.amp are deprecated: use torch.amp"),
    (re.compile(r"urlretrieve|requests\.get|download\s*=\s*True|\bwget\b|torch\.hub\.load|from_pretrained"),
     "downloads at run time are not allowed: ship or synthesize the data"),
    (re.compile(r"set_default_tensor_type"), "set_default_tensor_type is deprecated"),
]
SOLUTION_MARKERS = ("### BEGIN SOLUTION", "### END SOLUTION")
# Every notebook ends with the self-check cells (template.SELFCHECK_INTRO, template.SELFCHECK). Off until
# `python -m autograder refresh` has added them to every source notebook; then set True.
REQUIRE_SELFCHECK = True
HIDDEN_MARKERS = ("### BEGIN HIDDEN TESTS", "### END HIDDEN TESTS")


def _python(source: str) -> str:
    """Cell source with IPython magics and shell escapes blanked, so ast can parse it."""
    return "\n".join("" if ln.lstrip().startswith(("%", "!")) else ln for ln in source.splitlines())


def lint_notebook(path: Path) -> list[str]:
    path = Path(path)
    problems: list[str] = []

    def bad(where: str, msg: str) -> None:
        problems.append(f"{path}:{where}: {msg}")

    try:
        nb = nbformat.read(str(path), as_version=4)
        nbformat.validate(nb)
    except Exception as e:
        return [f"{path}: not a valid notebook: {str(e).splitlines()[0]}"]

    tier, stem = path.parent.name, path.stem
    if not NAME.match(path.name):
        bad("file", "name must look like NN_short_topic.ipynb")
    meta = nb.metadata
    if meta.get("kernelspec", {}).get("name") != "python3":
        bad("metadata", "kernelspec must be python3")
    if meta.get("accelerator") != "GPU" or not meta.get("colab", {}).get("gpuType"):
        bad("metadata", "needs accelerator: GPU and colab.gpuType so Colab opens it on a GPU runtime")
    ident = meta.get("ptlab", {})
    if (ident.get("course"), ident.get("tier"), ident.get("notebook")) != (COURSE, tier, stem):
        bad("metadata", f"ptlab identity must be course={COURSE}, tier={tier}, notebook={stem}")

    cells = nb.cells
    if not cells or cells[0].cell_type != "markdown" or not cells[0].source.startswith("# "):
        bad("cell 0", "the first cell must be a markdown title ('# ...')")
    elif colab_badge(tier, stem) not in cells[0].source:
        bad("cell 0", "the Open in Colab badge is missing or points elsewhere (python -m autograder badges)")

    ids = [grade_id(c) for c in cells if grade_id(c)]
    for dup in sorted({i for i in ids if ids.count(i) > 1}):
        bad("metadata", f"grade_id '{dup}' is used twice")

    _lint_fixed_cells(nb, bad)
    if REQUIRE_SELFCHECK:
        _lint_selfcheck(nb, bad)

    topic_ids = syllabus()
    open_solution: str | None = None
    for i, cell in enumerate(cells):
        where = f"cell {i}" + (f" ({grade_id(cell)})" if grade_id(cell) else "")
        if cell.cell_type == "code" and (cell.get("outputs") or cell.get("execution_count")):
            bad(where, "outputs must be stripped (make strip)")
        src = cell.source
        for rx, why in FORBIDDEN if cell.cell_type == "code" else ():  # prose may name what not to do
            if rx.search(src):
                bad(where, why)
        k = kind(cell)
        has_sol = any(m in src for m in SOLUTION_MARKERS)
        has_hidden = any(m in src for m in HIDDEN_MARKERS)
        if has_sol and k not in ("solution", "manual"):
            bad(where, "solution markers outside a solution cell")
        if has_hidden and k != "test":
            bad(where, "hidden-test markers outside a test cell")
        if k in ("solution", "manual") and not all(m in src for m in SOLUTION_MARKERS):
            bad(where, "a solution cell needs ### BEGIN SOLUTION / ### END SOLUTION")
        if has_hidden and not all(m in src for m in HIDDEN_MARKERS):
            bad(where, "unbalanced hidden-test markers")
        if k == "test" and "_observe(" not in src.partition(HIDDEN_MARKERS[0])[2]:
            bad(where, "a test cell must report answers with _observe(label, value) in its hidden tests, on inputs "
                       "the kernel never checks itself (see autograder/pipeline/observe.py)")
        if cell.cell_type == "code":
            try:
                tree = ast.parse(_python(src))
            except SyntaxError as e:
                bad(where, f"does not parse: {e.msg} (line {e.lineno})")
                tree = None
            if k == "solution" and any(ln.lstrip().startswith(("%", "!")) for ln in src.splitlines()):
                bad(where, "no magics in solution cells (nbgrader appends the stub inside them)")
            if k == "test" and tree and tree.body and isinstance(tree.body[-1], ast.Expr) \
                    and not _is_call(tree.body[-1]):
                bad(where, "a test cell must not end in a bare expression (nbgrader reads it as partial credit)")
        if k in ("test", "manual"):
            if not nbg(cell).get("points"):
                bad(where, "graded cell without points")
            tops = topics(cell)
            if not tops:
                bad(where, "graded cell without metadata.topics")
            for t in tops:
                if t not in topic_ids:
                    bad(where, f"unknown topic id {t} (see curriculum/topics.yaml)")
                elif topic_ids[t]["kind"] == "write" and k != "manual" and not any(
                        topic_ids[x]["kind"] == "code" for x in tops):
                    bad(where, f"{t} is a written topic: grade it with a manually graded answer cell")
        if k == "solution":
            if open_solution:
                bad(where, f"solution '{open_solution}' has no test cell after it")
            open_solution = grade_id(cell)
        elif k == "test":
            open_solution = None
    if open_solution:
        bad("end", f"solution '{open_solution}' has no test cell after it")
    if not any(kind(c) in ("test", "manual") for c in cells):
        bad("notebook", "no graded cells")
    if not any(c.cell_type == "markdown" and "follow-up" in c.source.lower() for c in cells):
        bad("notebook", "no follow-up ('what would break if...') prompt")
    return problems


def _is_call(node: ast.Expr) -> bool:
    return isinstance(node.value, ast.Call)


def _lint_fixed_cells(nb: NotebookNode, bad) -> None:
    by_id = {grade_id(c): (i, c) for i, c in enumerate(nb.cells) if grade_id(c)}
    if "setup" not in by_id or kind(by_id["setup"][1]) != "readonly":
        bad("setup", "a locked setup cell (grade_id 'setup') is required")
    else:
        src = by_id["setup"][1].source
        found = re.search(r"NEEDS = \{(.*)\}", src)
        extra = [n for n in re.findall(r'"(\w+)":', found.group(1)) if n not in template.BASE_NEEDS] if found else []
        if src != template.setup(extra):
            bad(f"cell {by_id['setup'][0]} (setup)", "differs from the course's setup cell (rebuild it)")
    params = [i for i, c in enumerate(nb.cells) if "parameters" in c.metadata.get("tags", [])]
    if len(params) != 1:
        bad("parameters", "exactly one cell must be tagged 'parameters'")
        return
    p = nb.cells[params[0]]
    names = {t.id for node in ast.parse(p.source).body if isinstance(node, ast.Assign) for t in node.targets
             if isinstance(t, ast.Name)}
    if not {"DEVICE", "FAST", "SEED"} <= names:
        bad(f"cell {params[0]} (parameters)", "must set DEVICE, FAST and SEED")
    nxt = nb.cells[params[0] + 1] if params[0] + 1 < len(nb.cells) else None
    if nxt is None or grade_id(nxt) != "derived":
        bad(f"cell {params[0] + 1}", "the cell after 'parameters' must be the course's derived cell")
    elif nxt.source != template.DERIVED:  # it holds the helpers the tests use (_observe, _by_hand)
        bad(f"cell {params[0] + 1} (derived)", "differs from the course's derived cell (python -m autograder refresh)")


def _lint_selfcheck(nb: NotebookNode, bad) -> None:
    from autograder.authoring.build import selfcheck_cells

    want = [(c.cell_type, c.source, grade_id(c)) for c in selfcheck_cells()]
    if [(c.cell_type, c.source, grade_id(c)) for c in nb.cells[-2:]] != want:
        bad("end", "the last two cells must be the course's self-check cells (python -m autograder refresh)")


def lint_paths(paths: list[Path] | None = None) -> list[str]:
    return [p for path in (paths or source_notebooks()) for p in lint_notebook(path)]


def coverage() -> dict[str, dict]:
    """Topic id -> {graded cells, notebooks} over the source notebooks."""
    got: dict[str, dict] = {t: {"cells": 0, "notebooks": set()} for t in syllabus()}
    for path in source_notebooks():
        nb = json.loads(Path(path).read_text())
        for c in nb["cells"]:
            if c.get("metadata", {}).get("nbgrader", {}).get("grade"):
                for t in c.get("metadata", {}).get("topics", []):
                    if t in got:
                        got[t]["cells"] += 1
                        got[t]["notebooks"].add(path.stem)
    return got
