"""Read the verdict of each graded cell of an executed notebook, with nbgrader's own rule."""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass

from nbformat import NotebookNode
from nbgrader.utils import determine_grade

from autograder.assemble import STUB_TEXT
from autograder.cells import grade_id, kind, points, topics

_ANSI = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")


@dataclass
class TestResult:
    grade_id: str
    points: float
    max_points: float
    passed: bool
    message: str
    topics: list[str]


@dataclass
class ManualItem:
    grade_id: str
    max_points: float
    answered: bool
    topics: list[str]


def first_line(text: str) -> str:
    lines = [ln.strip() for ln in _ANSI.sub("", text).splitlines() if ln.strip()]
    return lines[0] if lines else ""


def failure_message(cell: NotebookNode) -> str:
    """The first line a learner can act on. Only ename/evalue: the traceback would show hidden test code."""
    for out in cell.get("outputs", []):
        if out.get("output_type") == "error":
            ename = out.get("ename", "Error")
            evalue = first_line(out.get("evalue", ""))
            if ename in ("KeyboardInterrupt", "CellTimeoutError"):
                return "stopped: the cell ran longer than the per-cell time limit (an endless loop?)"
            if ename == "NotImplementedError" and not evalue:
                return "not answered yet (the answer cell still raises NotImplementedError)"
            return f"{ename}: {evalue}" if evalue else f"{ename} (a test without a message failed)"
    for out in cell.get("outputs", []):
        if out.get("output_type") == "stream" and out.get("name") == "stderr":
            return "printed to stderr, which nbgrader scores as a failure: " + first_line(out.get("text", ""))[:160]
    if cell.get("execution_count") is None:
        return "did not run: the notebook stopped before this cell (see the notes)"
    return ""


def score(nb: NotebookNode) -> tuple[list[TestResult], list[ManualItem]]:
    tests, manual = [], []
    for cell in nb.cells:
        k = kind(cell)
        if k == "test":
            got, max_points = determine_grade(cell)
            # nbgrader gives full marks to a test cell with no output: one that never ran must earn nothing.
            got = float(got or 0) if cell.get("execution_count") is not None else 0.0
            passed = got >= max_points
            tests.append(TestResult(grade_id(cell), got, max_points, passed,
                                    "" if passed else failure_message(cell) or "partial credit", topics(cell)))
        elif k == "manual":
            answer = (cell.get("source") or "").strip()
            answered = bool(answer) and answer != STUB_TEXT and "raise NotImplementedError" not in answer
            manual.append(ManualItem(grade_id(cell), points(cell), answered, topics(cell)))
    return tests, manual


def as_dicts(items) -> list[dict]:
    return [asdict(i) for i in items]
