"""One hand-in graded: a Job (student, assignment, file), the jobs found in nbgrader's layout, and the CSV row a
graded (or ungradable) hand-in becomes (its cell columns: scores.py). Shared by the local pool (grade.py) and the Dask path (cluster.py);
`grade_one` never raises: every failure becomes a status."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path

from autograder.classroom import assignments, scores
from autograder.course import SOURCE_DIR, TIERS, GradingInputError

# Columns are only ever added at the end: platform adapters and instructors' scripts read them by name.
FIELDS = ["student", "assignment", "notebook", "score", "max_score", "status", "manual_pending", "sha256", "failed",
          "raw_score", "flags", "cells", "auto_max", "manual", "comments", "submitted_at", "seconds_late",
          "late_penalty"]


@dataclass(frozen=True)
class Job:
    student: str
    tier: str  # the assignment: its folder in nbgrader's layout (a tier, or an assignment of assignments.yaml)
    path: Path

    @property
    def assignment(self) -> str:
        return self.tier


def discover(submitted: Path, only: set[str] | None = None, students: set[str] | None = None
             ) -> tuple[list[Job], list[dict]]:
    """Jobs in nbgrader's layout <student>/<assignment>/<notebook>.ipynb, and rows for whatever does not fit
    it. `only`: these assignments; `students`: these students."""
    if not submitted.is_dir():
        raise GradingInputError(f"{submitted}: not a directory of submissions")
    known = assignments.load()
    jobs, strays = [], []
    for student in sorted(p for p in submitted.iterdir() if p.is_dir() and not p.name.startswith(".")):
        if students and student.name not in students:
            continue
        for item in sorted(student.rglob("*.ipynb")):
            rel = item.relative_to(student)
            if ".ipynb_checkpoints" in rel.parts or (only and rel.parts[0] not in only):
                continue
            if len(rel.parts) == 2 and rel.parts[0] in known:
                jobs.append(Job(student.name, rel.parts[0], item))
            else:
                strays.append(row(student.name, rel.parts[0] if len(rel.parts) > 1 else "", item,
                                   status=f"not in <student>/<assignment>/<notebook>.ipynb layout: {rel}"))
    return jobs, strays


def sha(path: Path) -> str:
    try:
        return hashlib.sha256(path.read_bytes()).hexdigest()[:16]
    except OSError:
        return ""


def row(student, tier, path, score=0.0, max_score=0.0, status="ok", manual=0, failed="", flags=(),
         cells="", written="") -> dict:
    """`written`: the manual column (scores.py); the totals then include the written answers."""
    # A notebook flagged for tampering earns nothing until a person has looked; raw_score keeps what the
    # tests said, so the instructor can restore it.
    out = {"student": student, "assignment": tier, "notebook": Path(path).stem,
           "score": f"{0 if flags else score:g}", "max_score": f"{max_score:g}",
           "status": f"flagged for review: {flags[0]}"[:200] if flags else status, "manual_pending": manual,
           "sha256": sha(Path(path)), "failed": failed, "raw_score": f"{score:g}", "flags": " | ".join(flags),
           "cells": cells, "auto_max": f"{max_score:g}", "manual": written, "comments": "", "submitted_at": "",
           "seconds_late": "", "late_penalty": ""}
    return scores.settle(out) if cells or written else out


def grade_one(job: Job, feedback_dir: str | None, timeout: int | None, references: dict | None = None,
              autograded_dir: str | None = None) -> dict:
    """Runs in a worker. Never raises: every failure becomes a status. `references`: reference reports
    computed by the grading process (cluster.py), by cache key; without them, the local cache as in `check`.
    `autograded_dir`: where nbgrader keeps autograded notebooks (formgrader shows them to the grader)."""
    from autograder.isolation import warm
    from autograder.pipeline import faults
    from autograder.pipeline.check import grade_notebook

    try:
        # warm.take gives the kernel started while the last notebook ran (a grading worker enables it)
        report = grade_notebook(job.path, timeout=timeout, references=references, kernels=warm.take)
    except GradingInputError as e:
        return row(job.student, job.tier, job.path, status=str(e).split(": ", 1)[-1][:120])
    except Exception as e:  # a crashing kernel or a broken notebook must not stop the batch
        return row(job.student, job.tier, job.path, status=f"grading error: {type(e).__name__}")
    source_tier, stem = Path(report.source).parts[1], Path(report.source).stem
    if job.tier in TIERS and source_tier != job.tier:
        return row(job.student, job.tier, job.path, status=f"a {source_tier} notebook in the {job.tier} folder")
    if assignments.notebook_id(source_tier, stem) not in assignments.load().get(job.tier, []):
        return row(job.student, job.tier, job.path,
                   status=f"{source_tier}/{stem} is not a notebook of assignment {job.tier}")
    failed = " ".join(t.grade_id for t in report.tests if not t.passed)
    per_cell = " ".join(f"{t.grade_id}={0 if report.flags else t.points:g}" for t in report.tests)
    written = scores.format_manual({m.grade_id: (scores.PENDING if m.answered else scores.UNANSWERED, m.max_points)
                                    for m in report.manual})
    graded = row(job.student, job.tier, job.path, report.score, report.max_score, faults.status(report.faults),
                 sum(1 for m in report.manual if m.answered), failed, report.flags, per_cell, written)
    if autograded_dir:
        from autograder.classroom.autograded import save

        save(report.executed, SOURCE_DIR.parent / report.source, Path(autograded_dir) / job.student / job.tier / f"{stem}.ipynb")
    if feedback_dir:
        from autograder.classroom.feedback import page, save_html

        save_html(page(report.executed, graded, report.flags),
                  Path(feedback_dir) / job.student / job.tier / f"{job.path.stem}.html")
    return graded
