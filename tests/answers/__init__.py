"""Known-wrong and alternative answers, one module per source notebook.

tests/answers/<tier>/<NN_name>.py defines, for every autograded solution cell (by grade_id):

    WRONG = {"ex1_grid": [("what the classic mistake is", "code that replaces the whole cell"), ...]}
    ALT = {"ex1_grid": "a different, correct way to write the whole cell"}

The suite substitutes them into the solved notebook: every WRONG answer must fail the test cell that
follows its solution cell, with a message; every ALT answer must pass everything.
"""

from __future__ import annotations

import copy
import importlib
from pathlib import Path

from nbformat import NotebookNode

from autograder.pipeline.cells import grade_id, kind


def load(source: Path) -> tuple[dict, dict]:
    mod = importlib.import_module(f"tests.answers.{source.parent.name}.{source.stem}")
    return getattr(mod, "WRONG", {}), getattr(mod, "ALT", {})


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
