"""The reference solution of an exercise, for comparing once it is passed: never before (the file as it is now
must pass every test of the exercise), never while a notebook is being graded, never a written answer's model.

    python -m autograder solution NB EXERCISE          (EXERCISE: ex3, ex3_bce or ex3_bce_test)

and from a notebook cell, `from autograder.learner.reveal import show_solution; show_solution("ex3")`, which
asks the command above in a separate process, as the self-check does, and shows its answer.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

from autograder.course import GRADING_ENV


class Refused(Exception):
    """Why the solution is not shown (yet)."""


def _verdicts(path: Path) -> dict[str, bool]:
    """test id -> passed, for the file as it is now: the last check's, or a check now."""
    from autograder.learner.progress import cached, content_key, record
    from autograder.pipeline.cells import read
    from autograder.pipeline.sources import source_of

    raw = json.loads(path.read_text(encoding="utf-8"))
    entry = cached(content_key(raw, source_of(path, read(path))))
    if entry is not None:
        return {c["grade_id"]: bool(c["passed"]) for c in entry["cells"]}
    from autograder.pipeline.check import grade_notebook

    report = grade_notebook(path)
    record(path, report)
    return {t.grade_id: t.passed for t in report.tests}


def _without_markers(source: str) -> str:
    marks = ("### BEGIN SOLUTION", "### END SOLUTION")
    return "\n".join(ln for ln in source.splitlines() if ln.strip() not in marks)


def solution(path: Path, exercise: str) -> str:
    """The reference answer cells of a passed exercise. Raises Refused, ValueError (no such exercise) or
    GradingInputError (not a notebook of the course)."""
    from autograder.learner.exercise_names import find
    from autograder.pipeline.cells import grade_id, read
    from autograder.pipeline.sources import source_of

    if os.environ.get(GRADING_ENV):
        raise Refused("not while a notebook is being graded")
    path = Path(path)
    source = read(source_of(path, read(path)))
    ex = find(source, exercise)
    if not ex.tests:
        raise Refused(f"{ex.name} is a written answer: a person grades it, and its model answer stays with them")
    verdicts = _verdicts(path)
    failing = [t for t in ex.tests if not verdicts.get(t)]
    if failing:
        raise Refused(f"{ex.answers[0]} is not passed yet ({', '.join(failing)} fails in the file as saved): "
                      "the reference is shown only once your own answer passes")
    cells = {grade_id(c): c for c in source.cells}
    return "\n\n".join(f"# reference: {gid}\n{_without_markers(cells[gid].source)}" for gid in ex.answers)


def show_solution(exercise: str, session: str | None = None) -> None:
    """In a notebook: show the reference of a passed exercise of this notebook (as saved) under the cell, with a
    live line while the grader makes sure it passes (a check, when the file changed since its last one)."""
    import time

    from autograder.learner import live_line
    from autograder.learner.selfcheck import notebook_path

    if os.environ.get(GRADING_ENV):
        return  # the grader runs this notebook: nothing to show, nothing to ask
    path = notebook_path(session)
    if path is None:
        print("show_solution: this kernel was not started by JupyterLab for a saved notebook. From a terminal: "
              "python -m autograder solution path/to/notebook.ipynb EXERCISE")
        return
    started = time.monotonic()

    def line() -> str:
        return (f"show_solution: checking that {exercise} passes in {path.name} as saved ... "
                f"{live_line.seconds(started)}")

    live = live_line.Notebook(line())
    try:
        done = live_line.run([sys.executable, "-m", "autograder", "solution", str(path), exercise],
                             lambda: live.show(line()), limit=1800)
    except KeyboardInterrupt:  # the kernel's stop button: one line, never a traceback
        live.end({"text/plain": f"show_solution stopped: you interrupted it; {exercise} is not shown."})
        return
    if done.code is None:
        live.end({"text/plain": "show_solution: the grader took longer than 1800 s and was stopped; try again"})
        return
    if done.code != 0:
        live.end({"text/plain": ([ln for ln in done.err if ln.strip()] or ["no answer from the grader"])[-1]})
        return
    code = "\n".join(done.out).rstrip()
    live.end({"text/markdown": f"```python\n{code}\n```", "text/plain": code})
