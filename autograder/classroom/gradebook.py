"""Record autograded scores in an nbgrader gradebook, from the parent process only (SQLite is single-writer),
so formgrader, `nbgrader generate_feedback` and `nbgrader export` see the class.

A SQLite gradebook is written whole or not at all: the scores go into a copy, which replaces the original
with one rename. If someone else (formgrader) changed the original meanwhile, the copy is remade from it,
so their writes are never overwritten. Writing is idempotent: the same records twice give the same book."""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path

from nbgrader.api import Gradebook, MissingEntry

from autograder.course import COURSE, source_notebooks
from autograder.pipeline import cells


def _ensure_assignment(gb: Gradebook, tier: str) -> None:
    gb.update_or_create_assignment(tier)
    for path in source_notebooks(tier):
        gb.update_or_create_notebook(path.stem, tier)
        for cell in cells.read(path).cells:
            if cells.kind(cell) in ("test", "manual"):
                gb.update_or_create_grade_cell(cells.grade_id(cell), path.stem, tier,
                                               max_score=cells.points(cell), cell_type=cell.cell_type)


def _write(db_url: str, records: list[dict]) -> None:
    with Gradebook(db_url, course_id=COURSE) as gb:
        for tier in sorted({r["tier"] for r in records}):
            _ensure_assignment(gb, tier)
        for r in records:
            gb.update_or_create_student(r["student"])
            try:
                gb.find_submission(r["tier"], r["student"])
            except MissingEntry:
                gb.add_submission(r["tier"], r["student"])
            for gid, pts in r["scores"].items():
                grade = gb.find_grade(gid, r["notebook"], r["tier"], r["student"])
                grade.auto_score = pts
        gb.db.commit()


def _stamp(path: Path) -> tuple:
    return (path.stat().st_mtime_ns, path.stat().st_size) if path.exists() else ()


def record_grades(db_url: str, records: list[dict], attempts: int = 3) -> None:
    # nbgrader creates a new database by running the `alembic` script, found on PATH: make it the
    # one beside this interpreter even when the venv is not activated.
    bindir = os.path.dirname(sys.executable)
    if bindir not in os.environ.get("PATH", "").split(os.pathsep):
        os.environ["PATH"] = bindir + os.pathsep + os.environ.get("PATH", "")
    if not db_url.startswith("sqlite:///"):
        _write(db_url, records)  # a database server: its transactions are the atomicity
        return
    path = Path(db_url[len("sqlite:///"):])
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    for _ in range(attempts):
        before = _stamp(path)
        tmp.unlink(missing_ok=True)
        if before:
            shutil.copy2(path, tmp)
        try:
            _write(f"sqlite:///{tmp}", records)
            with open(tmp, "rb+") as f:
                os.fsync(f.fileno())
            if _stamp(path) == before:
                os.replace(tmp, path)
                return
        finally:
            tmp.unlink(missing_ok=True)
    raise RuntimeError(f"{path}: the gradebook kept changing while scores were recorded; run grade again")
