"""One hand-in graded: a Job (student, assignment, file), the jobs found in nbgrader's layout, and the CSV row a
graded (or ungradable) hand-in becomes. Shared by the local pool (grade.py) and the Dask path (cluster.py);
`grade_one` never raises: every failure becomes a status."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path

from autograder.course import TIERS, GradingInputError

FIELDS = ["student", "assignment", "notebook", "score", "max_score", "status", "manual_pending", "sha256", "failed",
          "raw_score", "flags", "cells"]


@dataclass(frozen=True)
class Job:
    student: str
    tier: str
    path: Path


def discover(submitted: Path) -> tuple[list[Job], list[dict]]:
    """Jobs in nbgrader's layout, and rows for whatever does not fit it."""
    if not submitted.is_dir():
        raise GradingInputError(f"{submitted}: not a directory of submissions")
    jobs, strays = [], []
    for student in sorted(p for p in submitted.iterdir() if p.is_dir() and not p.name.startswith(".")):
        for item in sorted(student.rglob("*.ipynb")):
            rel = item.relative_to(student)
            if ".ipynb_checkpoints" in rel.parts:
                continue
            if len(rel.parts) == 2 and rel.parts[0] in TIERS:
                jobs.append(Job(student.name, rel.parts[0], item))
            else:
                strays.append(row(student.name, rel.parts[0] if len(rel.parts) > 1 else "", item,
                                   status=f"not in <student>/<tier>/<notebook>.ipynb layout: {rel}"))
    return jobs, strays


def sha(path: Path) -> str:
    try:
        return hashlib.sha256(path.read_bytes()).hexdigest()[:16]
    except OSError:
        return ""


def row(student, tier, path, score=0.0, max_score=0.0, status="ok", manual=0, failed="", flags=(),
         cells="") -> dict:
    # A notebook flagged for tampering earns nothing until a person has looked; raw_score keeps what the
    # tests said, so the instructor can restore it.
    return {"student": student, "assignment": tier, "notebook": Path(path).stem,
            "score": f"{0 if flags else score:g}", "max_score": f"{max_score:g}",
            "status": f"flagged for review: {flags[0]}"[:200] if flags else status, "manual_pending": manual,
            "sha256": sha(Path(path)), "failed": failed, "raw_score": f"{score:g}", "flags": " | ".join(flags),
            "cells": cells}


def grade_one(job: Job, feedback_dir: str | None, timeout: int | None, references: dict | None = None) -> dict:
    """Runs in a worker. Never raises: every failure becomes a status. `references`: reference reports
    computed by the grading process (cluster.py), by cache key; without them, the local cache as in `check`."""
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
    source_tier = Path(report.source).parts[1]
    if source_tier != job.tier:
        return row(job.student, job.tier, job.path, status=f"a {source_tier} notebook in the {job.tier} folder")
    failed = " ".join(t.grade_id for t in report.tests if not t.passed)
    per_cell = " ".join(f"{t.grade_id}={0 if report.flags else t.points:g}" for t in report.tests)
    graded = row(job.student, job.tier, job.path, report.score, report.max_score, faults.status(report.faults),
                 sum(1 for m in report.manual if m.answered), failed, report.flags, per_cell)
    if feedback_dir:
        from autograder.classroom.feedback import redact, write_html

        summary = (f"**Feedback for {job.student}: {job.tier}/{job.path.stem}**, score {report.score:g} / "
                   f"{report.max_score:g} (autograded cells; written answers are graded by hand)."
                   + "".join(f"\n\n*Flagged for review:* {f}" for f in report.flags))
        write_html(redact(report.executed, summary),
                   Path(feedback_dir) / job.student / job.tier / f"{job.path.stem}.html")
    return graded
