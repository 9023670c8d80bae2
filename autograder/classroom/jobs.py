"""One hand-in graded: a Job (student, assignment, file), the jobs found in nbgrader's layout, and the CSV row a
graded (or ungradable) hand-in becomes (its cell columns: scores.py). Shared by the local pool (grade.py) and the Dask path (cluster.py);
`grade_one` never raises: every failure becomes a status."""

from __future__ import annotations

import hashlib
import os
import stat
from dataclasses import dataclass
from pathlib import Path

from autograder.classroom import assignments, scores
from autograder.course import SOURCE_DIR, TIERS, GradingInputError
from autograder.pipeline.handin import LINK

# Columns are only ever added at the end: platform adapters and instructors' scripts read them by name.
FIELDS = ["student", "assignment", "notebook", "score", "max_score", "status", "manual_pending", "sha256", "failed",
          "raw_score", "flags", "cells", "auto_max", "manual", "comments", "submitted_at", "seconds_late",
          "late_penalty"]


@dataclass(frozen=True)
class Job:
    student: str
    tier: str  # the assignment: its folder in nbgrader's layout (a tier, or an assignment of assignments.yaml)
    path: Path


def discover(submitted: Path, only: set[str] | None = None, students: set[str] | None = None
             ) -> tuple[list[Job], list[dict]]:
    """Jobs in nbgrader's layout <student>/<assignment>/<notebook>.ipynb, and rows for whatever does not fit
    it. `only`: these assignments; `students`: these students. A symbolic link (to a notebook or a folder) is
    never followed: what it would bring in gets a row of its own, unread (pipeline.handin)."""
    if not submitted.is_dir():
        raise GradingInputError(f"{submitted}: not a directory of submissions")
    known = assignments.load()
    jobs, strays = [], []
    for student in sorted(p for p in submitted.iterdir() if not p.name.startswith(".")):
        if students and student.name not in students:
            continue
        if student.is_symlink():
            strays += [row(student.name, tier, path, status=LINK) for tier, path in _behind_link(student, 1)
                       if not only or tier in only]
            continue
        if not student.is_dir():
            continue
        for folder, dirs, files in os.walk(student):  # never into a linked folder
            here = Path(folder)
            dirs[:] = sorted(d for d in dirs if d != ".ipynb_checkpoints")
            for d in [d for d in dirs if (here / d).is_symlink()]:
                dirs.remove(d)
                top = (here / d).relative_to(student).parts[0]
                if only and top not in only:
                    continue
                strays += [row(student.name, tier or top, path, status=LINK)
                           for tier, path in _behind_link(here / d, 0)]
            named = [d for d in dirs if d.endswith(".ipynb")]  # a folder named as a notebook gets its status
            dirs[:] = [d for d in dirs if d not in named]
            for name in sorted([f for f in files if f.endswith(".ipynb")] + named):
                item = here / name
                rel = item.relative_to(student)
                tier = rel.parts[0] if len(rel.parts) > 1 else ""
                if only and rel.parts[0] not in only:
                    continue
                if item.is_symlink():
                    strays.append(row(student.name, tier, item, status=LINK))
                elif len(rel.parts) == 2 and rel.parts[0] in known:
                    jobs.append(Job(student.name, rel.parts[0], item))
                else:
                    strays.append(row(student.name, tier, item,
                                      status=f"not in <student>/<assignment>/<notebook>.ipynb layout: {rel}"))
    return jobs, strays


def _behind_link(link: Path, depth: int) -> list[tuple[str, Path]]:
    """(tier, path) of the notebooks a linked folder would bring in, by name only: `depth` levels of folders
    (tiers) above the notebooks. Nothing is opened through the link; no link inside it is followed."""
    if link.name.endswith(".ipynb"):
        return [("", link)]
    found = []
    try:
        entries = sorted(os.scandir(link), key=lambda e: e.name)[:1000]
    except OSError:
        return [("", link)]
    for entry in entries:
        if entry.name.endswith(".ipynb") and depth == 0:
            found.append((link.name, link / entry.name))
        elif depth > 0 and entry.is_dir(follow_symlinks=False) and entry.name in TIERS:
            found += [(entry.name, p) for _, p in _behind_link(link / entry.name, depth - 1)]
    return found or [("", link)]


def sha(path: Path) -> str:
    """A hash of the file as it is, streamed (a hand-in may be large) and never through a link."""
    try:
        with open(os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK), "rb") as f:
            if not stat.S_ISREG(os.fstat(f.fileno()).st_mode):  # a pipe would never end
                return ""
            return hashlib.file_digest(f, "sha256").hexdigest()[:16]
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
           "sha256": "" if status == LINK else sha(Path(path)),  # nothing is read through a link
           "failed": failed, "raw_score": f"{score:g}", "flags": " | ".join(flags),
           "cells": cells, "auto_max": f"{max_score:g}", "manual": written, "comments": "", "submitted_at": "",
           "seconds_late": "", "late_penalty": ""}
    return scores.settle(out) if cells or written else out


def source_tier(job: Job) -> str:
    """The tier of the source a job is graded against: its folder's, or for an assignment of assignments.yaml the
    tier of its notebook named as the file is. Never read from the hand-in."""
    if job.tier in TIERS:
        return job.tier
    stem = Path(job.path).stem
    hits = [i.split("/")[0] for i in assignments.load().get(job.tier, []) if i.split("/", 1)[1] == stem]
    if not hits:
        raise GradingInputError(f"{job.path}: {stem} is not a notebook of assignment {job.tier}")
    return hits[0]


def grade_one(job: Job, feedback_dir: str | None, timeout: int | None, references: dict | None = None,
              autograded_dir: str | None = None) -> dict:
    """Runs in a worker. Never raises: every failure becomes a status. `references`: reference reports
    computed by the grading process (cluster.py), by cache key; without them, the local cache as in `check`.
    `autograded_dir`: where nbgrader keeps autograded notebooks (formgrader shows them to the grader)."""
    from autograder.isolation import warm
    from autograder.pipeline import faults
    from autograder.pipeline.check import grade_notebook

    try:
        # The folder and the file's name say the source; the hand-in's metadata may only agree (handin.source_of).
        tier = source_tier(job)
        # warm.take gives the kernel started while the last notebook ran (a grading worker enables it)
        report = grade_notebook(job.path, timeout=timeout, references=references, kernels=warm.take, tier=tier)
    except GradingInputError as e:
        return row(job.student, job.tier, job.path, status=str(e).split(": ", 1)[-1][:120])
    except Exception as e:  # a crashing kernel or a broken notebook must not stop the batch
        return row(job.student, job.tier, job.path, status=f"grading error: {type(e).__name__}")
    src_tier, stem = Path(report.source).parts[1], Path(report.source).stem
    if job.tier in TIERS and src_tier != job.tier:
        return row(job.student, job.tier, job.path, status=f"a {src_tier} notebook in the {job.tier} folder")
    if assignments.notebook_id(src_tier, stem) not in assignments.load().get(job.tier, []):
        return row(job.student, job.tier, job.path,
                   status=f"{src_tier}/{stem} is not a notebook of assignment {job.tier}")
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
        from autograder.classroom.feedback import page
        from autograder.classroom.whole_file import write_whole

        from autograder.classroom.late import as_shown

        write_whole(page(report.executed, as_shown(graded, job.path), report.flags),
                    Path(feedback_dir) / job.student / job.tier / f"{job.path.stem}.html")
    return graded
