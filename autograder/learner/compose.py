"""One notebook made of exercises from several course notebooks: an interview or a review session.

Two notebooks come out of a composition. The *composed source* holds the reference solutions, the hidden tests,
the follow-ups' model answers and all grading metadata; it is kept in the course's cache
(.ptlab-cache/composed/<id>.ipynb, hidden from student kernels) and grading takes tests and metadata from it,
never from the learner's file (pipeline/sources.source_of). The *learner's notebook* is its student version,
made by nbgrader's own ClearSolutions and ClearHiddenTests, and names the composition in its metadata.

leaks.py is the lint that proves a learner's notebook gives nothing away.
"""

from __future__ import annotations

import copy
import json
import os
import re
import secrets
import time
from pathlib import Path

from nbformat import NotebookNode
from nbformat.v4 import new_notebook

from autograder.authoring import template
from autograder.authoring.build import _cell
from autograder.course import COURSE
from autograder.learner.exercises import DETAILS, Exercise
from autograder.pipeline.assemble import STUB_CODE
from autograder.pipeline import cells
from autograder.pipeline.cells import composed_id, grade_id, kind  # noqa: F401  (composed_id: for session.py)

CHECK_INTRO_ID, CHECK_ID, FINISH_ID = "composed_check_intro", "composed_check", "composed_finish"

CHECK_CODE = '''# {what}: grades the saved file in a separate, sandboxed process against the hidden tests of this session,
# kept by the course (never this file's copy of them). This kernel never sees a hidden test.
import importlib.util
import os

if os.environ.get("PTLAB_GRADING"):
    pass  # the grader is running this notebook: nothing to check here
elif importlib.util.find_spec("autograder") is None:
    print("The course's grader is not installed here: clone the course and run `make lab`.")
else:
    from autograder.learner.interview_cell import check_this_session

    check_this_session(finish={finish})'''


# "(see Hint 2)" in a test's message or a statement: an interview has no hints to see.
HINT_REF = re.compile(r"\s*\((?:see |open )?Hints? \d(?:(?:[-,]| and )\s*\d)*\)|[;,:?]\s*(?:see )?Hints? \d(?:(?:[-,]| and )\s*\d)*")


def new_id(mode: str) -> str:
    return f"{mode}-{time.strftime('%Y%m%d-%H%M%S')}-{secrets.token_hex(3)}"


def _renamed(cell: NotebookNode, prefix: str) -> NotebookNode:
    c = copy.deepcopy(cell)
    if grade_id(c):
        c.metadata["nbgrader"]["grade_id"] = f"{prefix}_{grade_id(c)}"
    if c.cell_type == "code":
        c.outputs, c.execution_count = [], None
    return c


def _statement(ex: Exercise, number: int, total: int, cells: list[NotebookNode] | None = None) -> str:
    text = "\n\n".join(DETAILS.sub("", c.source).strip() for c in (ex.statement if cells is None else cells)).strip()
    text = re.sub(r"^#+\s*(\d+[a-z]?\.\s*)?", "### ", text, count=1, flags=re.M) if text.startswith("#") else text
    return (f"## Exercise {number} of {total} ({ex.points:g} point{'s' if ex.points != 1 else ''}; "
            f"from {ex.tier}/{ex.notebook})\n\n{text}")


def follow_up_id(ex: Exercise) -> str:
    return f"{ex.prefix}_{ex.test_id}_follow_up"


def compose(exercises: list[Exercise], header: str, mode: str, hints: bool, finish: bool) -> NotebookNode:
    """The composed source: fixed cells, then per exercise its statement, (hints), context, answer, tests and
    follow-up (a written answer holding the model answer), then the check cells. An exercise whose statement
    shows code (exercises.Exercise.layout) gets its context first, then that code where its statement has it,
    then its hints."""
    extra = sorted({n for ex in exercises for n in ex.needs})
    cells = [_cell("header", header, "header"), _cell("readonly", template.setup(extra), "setup"),
             _cell("code", template.PARAMETERS, tags=["parameters"]), _cell("readonly", template.DERIVED, "derived")]
    taken: set[tuple[str, str]] = set()
    for n, ex in enumerate(exercises, 1):
        shown = [c for c in ex.layout if c.cell_type == "code"]
        first = ex.layout.index(shown[0]) if shown else len(ex.statement)
        statement = _statement(ex, n, len(exercises), ex.layout[:first] if shown else None)
        statement = statement if hints else HINT_REF.sub("", statement)
        head, _, intro = statement.rpartition("\n\n") if shown and ex.context else ("", "", "")
        if head and intro:  # the context runs first; the paragraph that introduces the shown code stays by it
            statement = head
        cells.append(_cell("markdown", statement))
        if hints and not shown:
            cells += [copy.deepcopy(h) for h in ex.hints]
        for c in ex.context:
            mark = (f"{ex.tier}/{ex.notebook}", c.source)
            if mark not in taken:  # two exercises of one notebook may share a data cell
                taken.add(mark)
                cells.append(_renamed(c, ex.prefix))
        if head and intro:
            cells.append(_cell("markdown", intro))
        # the rest of the statement as its notebook shows it: the code it refers to, in place, then its text
        for c in ex.layout[first:] if shown else []:
            mark = (f"{ex.tier}/{ex.notebook}", c.source)
            if c.cell_type == "code" and mark not in taken:  # taken: already above, as an earlier one's context
                taken.add(mark)
                cells.append(_renamed(c, ex.prefix))
            elif c.cell_type == "markdown" and DETAILS.sub("", c.source).strip():
                text = DETAILS.sub("", c.source).strip()
                cells.append(_cell("markdown", text if hints else HINT_REF.sub("", text)))
        if hints and shown:
            cells += [copy.deepcopy(h) for h in ex.hints]
        body = [_renamed(c, ex.prefix) for c in ex.body]
        if not hints:
            for c in body:
                c.source = HINT_REF.sub("", c.source)
        cells += body
        if ex.follow_up:
            cells.append(_cell("markdown", ex.follow_up + "\n\nAnswer in the cell below, in a few sentences."))
            answer = _cell("manual", ex.follow_up_answer or "(no model answer in the course)", follow_up_id(ex), 0,
                           list(ex.topics))
            cells.append(answer)
    what = "Interview check" if mode == "interview" else "Review check"
    cells.append(_cell("header", _check_intro(mode), CHECK_INTRO_ID))
    cells.append(_cell("readonly", CHECK_CODE.format(what=what, finish=False), CHECK_ID))
    if finish:
        cells.append(_cell("readonly", CHECK_CODE.format(what="Finish the interview", finish=True), FINISH_ID))
    for i, cell in enumerate(cells):  # before the notebook is made: cells of two notebooks share ids
        cell["id"] = grade_id(cell) or f"c{i:03d}"
    return new_notebook(cells=cells)


def _check_intro(mode: str) -> str:
    if mode == "interview":
        return ("## Check\n\nSave (Ctrl+S), then run the first cell below: it grades your answers against all the "
                "tests, visible and hidden, and tells how much time is left. Run it as often as you like. The "
                "second cell **finishes** the interview: it writes your scorecard and shows the follow-ups' model "
                "answers (so run it last).")
    return ("## Check\n\nSave (Ctrl+S), then run the cell below: it grades your answers against all the tests and "
            "moves each exercise in your review schedule (a first-try pass pushes it further out).")


def student_version(source: NotebookNode, ident: str, mode: str) -> NotebookNode:
    """What the learner gets: nbgrader's student version, with the session's id in the metadata."""
    from nbgrader.preprocessors import ClearHiddenTests, ClearSolutions

    from autograder.authoring.release import finish, stamp_python

    nb = copy.deepcopy(source)
    ClearSolutions(code_stub={"python": STUB_CODE}).preprocess(nb, {})
    ClearHiddenTests().preprocess(nb, {})
    for cell in nb.cells:
        if kind(cell) == "manual":
            cell.source = "YOUR ANSWER HERE"  # a follow-up's model answer is the whole cell, markers or not
    nb.metadata = {"ptlab": {"course": COURSE, "composed": ident, "mode": mode}}
    for cell in nb.cells:
        if grade_id(cell) in (CHECK_ID, FINISH_ID):  # run, not read: collapsed as the self-check is
            cell.metadata["jupyter"] = {"source_hidden": True}
    nb = finish(nb)
    stamp_python(nb)
    return nb


def store(ident: str, source: NotebookNode, meta: dict) -> Path:
    import nbformat

    cells.COMPOSED_DIR.mkdir(parents=True, exist_ok=True)
    path = cells.COMPOSED_DIR / f"{ident}.ipynb"
    source.metadata = {"kernelspec": dict(template_kernelspec()), "ptlab": {"course": COURSE, "composed": ident}}
    nbformat.write(source, str(path))
    save_meta(ident, meta)
    return path


def prepare(path: Path) -> None:
    """Run a stored composed source's reference now, so that the learner's first check does not wait for it."""
    from autograder.pipeline import expected
    from autograder.pipeline.cells import read

    expected.Reference(path).reports(read(path))


def template_kernelspec() -> dict:
    from autograder.authoring.release import KERNELSPEC

    return KERNELSPEC


def meta_path(ident: str) -> Path:
    return cells.COMPOSED_DIR / f"{ident}.json"


def load_meta(ident: str) -> dict | None:
    try:
        return json.loads(meta_path(ident).read_text())
    except (OSError, ValueError):
        return None


def save_meta(ident: str, meta: dict) -> None:
    cells.COMPOSED_DIR.mkdir(parents=True, exist_ok=True)
    tmp = meta_path(ident).with_name(f"{ident}.{os.getpid()}.tmp")
    tmp.write_text(json.dumps(meta, indent=1))
    os.replace(tmp, meta_path(ident))


def all_meta(mode: str | None = None) -> list[dict]:
    if not cells.COMPOSED_DIR.is_dir():
        return []
    out = []
    for p in sorted(cells.COMPOSED_DIR.glob("*.json")):
        m = load_meta(p.stem)
        if m and (mode is None or m.get("mode") == mode):
            out.append(m)
    return sorted(out, key=lambda m: m.get("started", 0))


def answer_ids(source: NotebookNode) -> dict[str, list[str]]:
    """test grade_id -> the answer cells before it (since the previous test)."""
    out, pending = {}, []
    for c in source.cells:
        if kind(c) == "solution":
            pending.append(grade_id(c))
        elif kind(c) == "test":
            out[grade_id(c)], pending = pending, []
    return out


def describe(exercises: list[Exercise], source) -> list[dict]:
    answers = answer_ids(source)
    out = []
    for ex in exercises:
        test = f"{ex.prefix}_{ex.test_id}"
        out.append({"key": ex.key, "title": ex.title, "test": test, "answers": answers.get(test, []),
                    "points": ex.points, "topics": list(ex.topics), "follow_up": ex.follow_up,
                    "follow_up_id": follow_up_id(ex) if ex.follow_up else None,
                    "model_answer": ex.follow_up_answer})
    return out


def write(nb, target: Path) -> None:
    import nbformat

    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = target.with_name(f".{target.name}.tmp")
    nbformat.write(nb, str(tmp))
    os.replace(tmp, target)
