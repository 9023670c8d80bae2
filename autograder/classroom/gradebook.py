"""The nbgrader gradebook, written from the parent process only (SQLite is single-writer), so that formgrader,
`nbgrader generate_feedback` and `nbgrader export` see the class; and read back, so that a grader's points and
comments reach grades.csv and the feedback.

An assignment's structure (notebooks, grade, solution and source cells) is recorded by nbgrader's own
preprocessors, the ones `nbgrader generate_assignment` runs, over exactly the assignment's notebooks. Scores
follow nbgrader's autograde rules (SaveAutoGrades): a written answer needs a manual grade unless it was left
blank ("No response."); a grader's points are never overwritten.

A SQLite gradebook is written whole or not at all: the scores go into a copy, which replaces the original
with one rename. If someone else (formgrader) changed the original meanwhile, the copy is remade from it,
so their writes are never overwritten. Writing is idempotent: the same rows twice give the same book.

A student's folder name becomes their gradebook id, which formgrader shows in its pages and `nbgrader export`
writes into a CSV: a name that is not a plain id (letters, digits, `_ . @ + -` and inner spaces, not
starting with a formula character, at most 128 characters) stays out of the gradebook, said once on stderr;
its row in grades.csv keeps its grade."""

from __future__ import annotations

import os
import re
import shutil
import sys
import warnings
from pathlib import Path

from autograder.classroom import assignments, scores
from autograder.course import COURSE
from autograder.pipeline import cells


PLAIN_ID = re.compile(r"(?![=+@-])[\w.@+-](?:[\w.@+ -]{0,126}[\w.@+-])?")


def plain_id(student: str) -> bool:
    """Whether a student folder's name can be a gradebook id: shown by formgrader, exported by nbgrader."""
    return bool(PLAIN_ID.fullmatch(student))


class GradebookError(RuntimeError):
    """The gradebook cannot take these grades; the message says why and what to do."""


def _quiet() -> None:
    # nbgrader's models make SQLAlchemy warn about overlapping relationships on every new session: noise
    # for an instructor, nothing they can act on.
    from sqlalchemy.exc import SAWarning

    warnings.filterwarnings("ignore", category=SAWarning)


def _as_released(nb, release: Path):
    """Locked cells as the committed release has them (its collapsed helper cells carry a title, and their
    checksums are computed over it): what students hand in then matches the gradebook by construction, so
    nbgrader's own autograde finds no changed checksum."""
    if not release.exists():
        return nb
    released = {cells.grade_id(c): c for c in cells.read(release).cells if cells.grade_id(c)}
    for cell in nb.cells:
        theirs = released.get(cells.grade_id(cell))
        if theirs is not None and cells.kind(cell) == "readonly" and "checksum" in cells.nbg(theirs):
            cell.source = theirs.source
            cell.metadata["nbgrader"]["checksum"] = cells.nbg(theirs)["checksum"]
    return nb


def _structure(db_url: str, name: str, due) -> None:
    """What `nbgrader generate_assignment` records for an assignment, for exactly its notebooks."""
    from nbgrader.api import Gradebook
    from nbgrader.preprocessors import (CheckCellMetadata, ClearOutput, ClearSolutions, ComputeChecksums,
                                        LockCells, SaveCells)

    with Gradebook(db_url, course_id=COURSE) as gb:
        # a due date set in formgrader stays unless assignments.yaml sets one
        gb.update_or_create_assignment(name, **({"duedate": due} if due else {}))
    for path in assignments.sources(name):
        nb = cells.read(path)
        resources = {"nbgrader": {"notebook": path.stem, "assignment": name, "db_url": db_url}}
        for step in (LockCells(), ClearSolutions(), ClearOutput(), CheckCellMetadata(), ComputeChecksums()):
            nb, resources = step.preprocess(nb, resources)
        nb = _as_released(nb, assignments.course_dir() / "release" / path.parent.name / path.name)
        try:
            SaveCells().preprocess(nb, resources)
        except RuntimeError as e:
            raise GradebookError(f"{name}/{path.stem}: its graded cells changed since students handed it in, and "
                                 f"the gradebook refuses that ({e}). Grade into a new gradebook.") from None


def _record_cells(gb, r: dict, nb_name: str):
    """One row's autograded scores into the gradebook, then the grader's points and comments out of it;
    returns its submitted notebook."""
    student, name = r["student"], r["assignment"]
    auto = scores.cell_points(r)
    man = scores.manual(r)
    back_manual, back_comments = {}, {}
    for gid, pts in auto.items():
        grade = gb.find_grade(gid, nb_name, name, student)
        if grade.auto_score != pts:
            grade.auto_score = pts
            grade.needs_manual_grade = grade.manual_score is not None
        if grade.manual_score is not None:
            back_manual[gid] = (f"{grade.manual_score:g}", grade.max_score)
    for gid, (value, top) in man.items():
        if gid in auto:
            continue
        grade = gb.find_grade(gid, nb_name, name, student)
        answered = value != scores.UNANSWERED
        grade.auto_score = None if answered else 0.0
        if grade.manual_score is None:
            grade.needs_manual_grade = answered
        back_manual[gid] = ((f"{grade.manual_score:g}" if grade.manual_score is not None
                             else scores.PENDING if answered else scores.UNANSWERED), top)
    nb = gb.find_submission_notebook(nb_name, name, student)
    for comment in nb.comments:
        gid = comment.cell.name
        if gid in man:
            comment.auto_comment = "No response." if man[gid][0] == scores.UNANSWERED else None
        if comment.manual_comment:
            back_comments[gid] = comment.manual_comment
    nb.flagged = bool(r.get("flags"))
    r["manual"] = scores.format_manual(back_manual)
    r["comments"] = scores.format_comments(back_comments)
    return nb


def _write(db_url: str, rows: list[dict], due: dict, late, names: dict | None = None) -> None:
    from nbgrader.api import Gradebook, MissingEntry
    from nbgrader.utils import parse_utc

    _quiet()
    graded = [r for r in rows if (r.get("cells") or r.get("manual")) and plain_id(r["student"])]
    left_out = sorted({r["student"] for r in rows if (r.get("cells") or r.get("manual")) and not plain_id(r["student"])})
    if left_out:
        from autograder.classroom.summary import printable

        print(f"gradebook: {len(left_out)} student name(s) are not plain ids, so they stay out of the gradebook "
              f"(their grades are in the CSV): {', '.join(printable(s)[:80] for s in left_out)}", file=sys.stderr)
    known = assignments.load()
    for name in sorted({r["assignment"] for r in graded}):
        _structure(db_url, name, due.get(name))
    with Gradebook(db_url, course_id=COURSE) as gb:
        for r in graded:
            name, student = r["assignment"], r["student"]
            if assignments.notebook_id(*_tier_stem(r, known)) not in known.get(name, []):
                continue  # a renamed copy: graded, but not under a name nbgrader knows
            gb.update_or_create_student(student, **(names or {}).get(student, {}))  # formgrader's names
            stamp = parse_utc(r["submitted_at"]) if r.get("submitted_at") else None
            try:
                sub = gb.find_submission(name, student)
            except MissingEntry:
                sub = gb.add_submission(name, student)
            if stamp and sub.timestamp != stamp:
                sub.timestamp = stamp
            if stamp and sub.duedate:  # nbgrader's own reckoning: its due date and the student's extension
                r["seconds_late"] = f"{sub.total_seconds_late:g}"
            nb = _record_cells(gb, r, r["notebook"])
            if late:
                late(r)
            scores.settle(r)
            penalty = float(r.get("late_penalty") or 0)
            nb.late_submission_penalty = penalty or None
        gb.db.commit()


def _tier_stem(r: dict, known: dict) -> tuple[str, str]:
    for nid in known.get(r["assignment"], []):
        tier, stem = nid.split("/")
        if stem == r["notebook"]:
            return tier, stem
    return "", r["notebook"]


def _stamp(path: Path) -> tuple:
    return (path.stat().st_mtime_ns, path.stat().st_size) if path.exists() else ()


def record_grades(db_url: str, rows: list[dict], due: dict | None = None, late=None, attempts: int = 3,
                  names: dict | None = None) -> None:
    """Graded rows into the gradebook, and each row's manual and comments columns, and its totals, back from
    it (rows change in place). `due`: {assignment: due date}; `late(row)`: sets the row's late penalty;
    `names`: {student: {first_name, last_name, email}} from a roster, what formgrader shows."""
    # nbgrader creates a new database by running the `alembic` script, found on PATH: make it the
    # one beside this interpreter even when the venv is not activated.
    bindir = os.path.dirname(sys.executable)
    if bindir not in os.environ.get("PATH", "").split(os.pathsep):
        os.environ["PATH"] = bindir + os.pathsep + os.environ.get("PATH", "")
    if not db_url.startswith("sqlite:///"):
        _write(db_url, rows, due or {}, late, names)  # a database server: its transactions are the atomicity
        return
    path = Path(db_url[len("sqlite:///"):])
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    for _ in range(attempts):
        before = _stamp(path)
        tmp.unlink(missing_ok=True)
        if before:
            shutil.copy2(path, tmp)
        try:
            _write(f"sqlite:///{tmp}", rows, due or {}, late, names)
            with open(tmp, "rb+") as f:
                os.fsync(f.fileno())
            if _stamp(path) == before:
                os.replace(tmp, path)
                return
        finally:
            tmp.unlink(missing_ok=True)
    raise RuntimeError(f"{path}: the gradebook kept changing while scores were recorded; run grade again")
