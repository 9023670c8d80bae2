"""Read the verdict of each graded cell of an executed notebook: nbgrader's own rule, and then the
reference's reports (observe.py), so that no verdict rests on the learner's kernel alone."""

from __future__ import annotations

from dataclasses import asdict, dataclass

from nbformat import NotebookNode
from nbgrader.utils import determine_grade

from autograder.pipeline import causes, observe
from autograder.pipeline.assemble import STUB_TEXT
from autograder.pipeline.causes import first_line
from autograder.pipeline.cells import grade_id, kind, points, topics


@dataclass
class TestResult:
    grade_id: str
    points: float
    max_points: float
    passed: bool
    message: str
    topics: list[str]
    cause: str = ""  # the answer cell whose error made this test fail, named first in the message


@dataclass
class ManualItem:
    grade_id: str
    max_points: float
    answered: bool
    topics: list[str]


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
        return "did not run: the notebook stopped before this cell (see the faults)"
    return ""


def score(nb: NotebookNode, reference: dict[str, list[dict]] | None = None
          ) -> tuple[list[TestResult], list[ManualItem]]:
    """reference: the reference solution's reports per test cell; None reads the kernel's verdict alone
    (used for the reference run itself)."""
    tests, manual = [], []
    for index, cell in enumerate(nb.cells):
        k = kind(cell)
        if k == "test":
            got, max_points = determine_grade(cell)
            # nbgrader gives full marks to a test cell with no output: one that never ran must earn nothing.
            got = float(got or 0) if cell.get("execution_count") is not None else 0.0
            message = "" if got >= max_points else failure_message(cell) or "partial credit"
            culprit = causes.cause(nb, index, message) if got < max_points else None
            if culprit:
                message = causes.first(*culprit, message)
            disagreement = observe.disagreement((reference or {}).get(grade_id(cell), []), observe.collect(cell))
            if got > 0 and disagreement:
                got, message = 0.0, disagreement
            tests.append(TestResult(grade_id(cell), got, max_points, got >= max_points, message, topics(cell),
                                    culprit[0] if culprit else ""))
        elif k == "manual":
            answer = (cell.get("source") or "").strip()
            answered = bool(answer) and answer != STUB_TEXT and "raise NotImplementedError" not in answer
            manual.append(ManualItem(grade_id(cell), points(cell), answered, topics(cell)))
    return tests, manual


def as_dicts(items) -> list[dict]:
    return [asdict(i) for i in items]
