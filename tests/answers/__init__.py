"""Known-wrong and alternative answers, one module per source notebook.

tests/answers/<tier>/<NN_name>.py defines, for every autograded solution cell (by grade_id):

    WRONG = {"ex1_grid": [("what the classic mistake is", "code that replaces the whole cell"), ...]}
    ALT = {"ex1_grid": "a different, correct way to write the whole cell"}

The suite substitutes them into the solved notebook: every WRONG answer must fail the test cell that
follows its solution cell, with a message; every ALT answer must pass everything.

A wrong answer is best written as the slip it names: `edited(reference("senior/15_...", "ex1_grid"), old, new)`
(or an edit of the ALT answer), so that it differs from a correct one by exactly that slip.
"""

from __future__ import annotations

import copy
import functools
import importlib
from pathlib import Path

import nbformat

from nbformat import NotebookNode

from autograder.pipeline.cells import grade_id, kind


NOTEBOOKS = Path(__file__).resolve().parents[2] / "notebooks"


def edited(answer: str, old: str, new: str = "") -> str:
    """`answer` with its one occurrence of `old` replaced: a known-wrong answer that differs from a correct one by
    exactly the slip it names (a stale `old` fails here, not as a wrong answer that passes for the wrong reason)."""
    assert answer.count(old) == 1, f"{old!r} occurs {answer.count(old)} times"
    return answer.replace(old, new)


@functools.lru_cache(maxsize=None)
def _solutions(notebook: str) -> dict[str, str]:
    nb = nbformat.read(str(NOTEBOOKS / f"{notebook}.ipynb"), as_version=4)
    return {grade_id(c): c.source for c in nb.cells if kind(c) == "solution"}


def reference(notebook: str, cell_id: str) -> str:
    """The reference solution of answer cell `cell_id` in notebooks/<notebook>.ipynb ("senior/07_profiling"),
    as a learner would write it: the cell without its solution markers."""
    lines = _solutions(notebook)[cell_id].split("\n")
    return "\n".join(line for line in lines if line.strip() not in ("### BEGIN SOLUTION", "### END SOLUTION"))


def load(source: Path) -> tuple[dict, dict]:
    mod = importlib.import_module(f"tests.answers.{source.parent.name}.{source.stem}")
    return getattr(mod, "WRONG", {}), getattr(mod, "ALT", {})


BLIND = Path(__file__).resolve().parent / "blind"


def load_blind(source: Path) -> tuple[dict, dict]:
    """The blind set of a notebook (tests/answers/blind/<tier>/<NN_name>.py), written from the student release
    alone by someone who had not read its tests:

        SHORTCUT = {"ex1_gelu": ("calls F.gelu", "code")}   # only where the statement asks for the work by hand
        WRONG = {"ex1_gelu": ("the classic slip", "code")}
        ALT = {"ex1_gelu": "a different, correct way"}

    Returned as load's (WRONG as lists, the shortcut first) so that the same rounds grade them; ({}, {}) when
    the notebook has none yet."""
    if not (BLIND / source.parent.name / f"{source.stem}.py").exists():
        return {}, {}
    mod = importlib.import_module(f"tests.answers.blind.{source.parent.name}.{source.stem}")
    wrong: dict[str, list] = {}
    for table in (getattr(mod, "SHORTCUT", {}), getattr(mod, "WRONG", {})):
        for sid, entry in table.items():
            wrong.setdefault(sid, []).append(entry)
    return wrong, dict(getattr(mod, "ALT", {}))


def test_cell_of(nb: NotebookNode) -> dict[str, str]:
    """solution grade_id -> grade_id of the test cell that grades it (the next test cell)."""
    out, pending = {}, []
    for cell in nb.cells:
        if kind(cell) == "solution":
            pending.append(grade_id(cell))
        elif kind(cell) == "test":
            for sid in pending:
                out[sid] = grade_id(cell)
            pending = []
    return out


def substitute(nb: NotebookNode, answers: dict[str, str]) -> NotebookNode:
    nb = copy.deepcopy(nb)
    for cell in nb.cells:
        if grade_id(cell) in answers:
            cell.source = answers[grade_id(cell)]
    return nb


def through(nb: NotebookNode, test_ids: set[str]) -> NotebookNode:
    """The notebook up to and including the last of these test cells: a test cell's verdict depends only on
    the cells above it, so the rest need not run to prove a wrong answer fails."""
    last = max(i for i, cell in enumerate(nb.cells) if grade_id(cell) in test_ids)
    nb = copy.deepcopy(nb)
    nb.cells = nb.cells[:last + 1]
    return nb


def wrong_verdicts(source: Path, wrong: dict):
    """(cell, why, verdict of the test cell grading it) for each wrong answer in `wrong` (cell -> [(why, code)]),
    graded in rounds: round r puts every cell's r-th wrong answer in at once. Each round is the pipeline of
    grade_submission (assemble, execute in the sandbox, score against the reference), stopped after the last
    test cell it is about."""
    from autograder.pipeline import cells, expected
    from autograder.pipeline.assemble import assemble
    from autograder.pipeline.execute import execute
    from autograder.pipeline.score import score

    nb = cells.read(source)
    graded_by = test_cell_of(nb)
    reference = expected.Reference(source).reports(nb)
    for r in range(max((len(v) for v in wrong.values()), default=0)):
        picked = {sid: variants[r] for sid, variants in wrong.items() if len(variants) > r}
        run, _ = assemble(substitute(nb, {s: code for s, (_, code) in picked.items()}), nb)
        executed, _ = execute(through(run, {graded_by[s] for s in picked}))
        by_id = {t.grade_id: t for t in score(executed, reference)[0]}
        for sid, (why, _) in picked.items():
            yield sid, why, by_id[graded_by[sid]]
