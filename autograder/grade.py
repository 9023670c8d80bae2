"""Grade a class in parallel: SUBMITTED/<student>/<tier>/<notebook>.ipynb -> grades.csv (+ feedback, gradebook).

nbgrader's autograde is sequential and its SQLite gradebook is not safe across processes, so each worker
grades whole notebooks through the same path as `check` and returns rows; only the parent writes the CSV
and the gradebook. The CSV is rewritten atomically after every notebook, so a killed batch resumes: a
re-run skips notebooks whose file hash already has a row. Each row keeps its per-cell scores, so the
gradebook is rebuilt from the CSV after every run: a batch killed before its gradebook write loses nothing.
"""

from __future__ import annotations

import csv
import hashlib
import os
import sys
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import dataclass
from pathlib import Path

from autograder.course import TIERS, GradingInputError, pin_threads

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
                strays.append(_row(student.name, rel.parts[0] if len(rel.parts) > 1 else "", item,
                                   status=f"not in <student>/<tier>/<notebook>.ipynb layout: {rel}"))
    return jobs, strays


def _sha(path: Path) -> str:
    try:
        return hashlib.sha256(path.read_bytes()).hexdigest()[:16]
    except OSError:
        return ""


def _row(student, tier, path, score=0.0, max_score=0.0, status="ok", manual=0, failed="", flags=(),
         cells="") -> dict:
    # A notebook flagged for tampering earns nothing until a person has looked; raw_score keeps what the
    # tests said, so the instructor can restore it.
    return {"student": student, "assignment": tier, "notebook": Path(path).stem,
            "score": f"{0 if flags else score:g}", "max_score": f"{max_score:g}",
            "status": f"flagged for review: {flags[0]}"[:200] if flags else status, "manual_pending": manual,
            "sha256": _sha(Path(path)), "failed": failed, "raw_score": f"{score:g}", "flags": " | ".join(flags),
            "cells": cells}



def _worker_init(threads: int) -> None:
    from autograder import warm

    pin_threads(threads)
    warm.enable()  # a worker grades notebook after notebook: the next kernel starts while one runs


def grade_one(job: Job, feedback_dir: str | None, timeout: int | None, references: dict | None = None) -> dict:
    """Runs in a worker. Never raises: every failure becomes a status. `references`: reference reports
    computed by the grading process (cluster.py), by cache key; without them, the local cache as in `check`."""
    from autograder import faults
    from autograder.check import grade_notebook

    try:
        report = grade_notebook(job.path, timeout=timeout, references=references)
    except GradingInputError as e:
        return _row(job.student, job.tier, job.path, status=str(e).split(": ", 1)[-1][:120])
    except Exception as e:  # a crashing kernel or a broken notebook must not stop the batch
        return _row(job.student, job.tier, job.path, status=f"grading error: {type(e).__name__}")
    source_tier = Path(report.source).parts[1]
    if source_tier != job.tier:
        return _row(job.student, job.tier, job.path, status=f"a {source_tier} notebook in the {job.tier} folder")
    failed = " ".join(t.grade_id for t in report.tests if not t.passed)
    per_cell = " ".join(f"{t.grade_id}={0 if report.flags else t.points:g}" for t in report.tests)
    row = _row(job.student, job.tier, job.path, report.score, report.max_score, faults.status(report.faults),
               sum(1 for m in report.manual if m.answered), failed, report.flags, per_cell)
    if feedback_dir:
        from autograder.feedback import redact, write_html

        summary = (f"**Feedback for {job.student}: {job.tier}/{job.path.stem}**, score {report.score:g} / "
                   f"{report.max_score:g} (autograded cells; written answers are graded by hand)."
                   + "".join(f"\n\n*Flagged for review:* {f}" for f in report.flags))
        write_html(redact(report.executed, summary),
                   Path(feedback_dir) / job.student / job.tier / f"{job.path.stem}.html")
    return row


def gradebook_records(rows) -> list[dict]:
    """Per-cell scores of every graded row: what the gradebook must hold, this run's or an earlier one's."""
    records = []
    for r in rows:
        if r.get("cells"):
            scores = {gid: float(pts) for gid, _, pts in (item.partition("=") for item in r["cells"].split())}
            records.append({"student": r["student"], "tier": r["assignment"], "notebook": r["notebook"],
                            "scores": scores})
    return records


def _load_previous(out: Path) -> dict[tuple, dict]:
    if not out.exists():
        return {}
    with out.open(newline="") as f:
        return {(r["student"], r["assignment"], r["notebook"], r["sha256"]): r for r in csv.DictReader(f)}


def _write_csv(out: Path, rows: list[dict]) -> None:
    rows = sorted(rows, key=lambda r: (r["student"], r["assignment"], r["notebook"]))
    tmp = out.with_name(out.name + ".tmp")
    with tmp.open("w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=FIELDS)
        w.writeheader()
        w.writerows(rows)
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, out)


def _grade_locally(todo: list[Job], workers: int, feedback: Path | None, timeout: int | None):
    """Rows as this machine's process pool finishes them."""
    threads = max(1, (os.cpu_count() or 2) // max(1, workers))
    # No max_tasks_per_child: on Python 3.11 the pool hangs once the workers have been replaced (a
    # 200-student load run stopped at exactly 2 x max_tasks_per_child notebooks).
    with ProcessPoolExecutor(max_workers=max(1, workers), initializer=_worker_init, initargs=(threads,)) as pool:
        futures = [pool.submit(grade_one, job, str(feedback) if feedback else None, timeout) for job in todo]
        for fut in as_completed(futures):
            yield fut.result()


def grade_class(submitted: Path, workers: int = 2, out: Path = Path("grades.csv"), feedback: Path | None = None,
                gradebook: str | None = None, timeout: int | None = None, scheduler: str | None = None) -> int:
    """Grades locally in a process pool, or with `scheduler` (a Dask address) one task per notebook on a
    cluster (cluster.py); either way this process alone writes the CSV and the gradebook."""
    from tqdm import tqdm

    from autograder import sandbox

    jobs, strays = discover(submitted)
    print(sandbox.status(), file=sys.stderr)  # once per batch, plainly, whatever is missing
    previous = _load_previous(out)
    done: dict[tuple, dict] = {}
    todo = []
    for job in jobs:
        key = (job.student, job.tier, job.path.stem, _sha(job.path))
        if key in previous:
            done[key[:3]] = previous[key]
        else:
            todo.append(job)
    rows = {**{(r["student"], r["assignment"], r["notebook"]): r for r in strays}, **done}
    if done:
        print(f"resuming: {len(done)} notebook(s) already graded, {len(todo)} to go", file=sys.stderr)
    if scheduler:
        from autograder.cluster import grade_on_cluster

        results = grade_on_cluster(scheduler, todo, feedback, timeout)
    else:
        results = _grade_locally(todo, workers, feedback, timeout)
    for row in tqdm(results, total=len(todo), desc="grading", unit="nb", file=sys.stderr):
        rows[(row["student"], row["assignment"], row["notebook"])] = row
        _write_csv(out, list(rows.values()))
    _write_csv(out, list(rows.values()))
    records = gradebook_records(rows.values())
    if gradebook and records:
        from autograder.gradebook import record_grades

        record_grades(gradebook, records)
    bad = sum(1 for r in rows.values() if r["status"] != "ok")
    print(f"graded {len(rows)} notebook(s) -> {out}" + (f"; {bad} could not be graded (see status)" if bad else ""),
          file=sys.stderr)
    return 0
