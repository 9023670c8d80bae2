"""Grade a class in parallel: SUBMITTED/<student>/<tier>/<notebook>.ipynb -> grades.csv (+ feedback, gradebook).

nbgrader's autograde is sequential and its SQLite gradebook is not safe across processes, so each worker
grades whole notebooks through the same path as `check` and returns rows; only the parent writes the CSV
and the gradebook. The CSV is rewritten atomically after every notebook, so a killed batch resumes: a
re-run skips notebooks whose file hash already has a row. Each row keeps its per-cell scores, so the
gradebook is rebuilt from the CSV after every run: a batch killed before its gradebook write loses nothing.
"""

from __future__ import annotations

import csv
import os
import sys
from concurrent.futures import ProcessPoolExecutor, as_completed
from pathlib import Path

from autograder.classroom.jobs import FIELDS, Job, discover, grade_one, sha
from autograder.course import pin_threads


def _worker_init(threads: int) -> None:
    from autograder.isolation import warm

    pin_threads(threads)
    warm.enable()  # a worker grades notebook after notebook: the next kernel starts while one runs


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

    from autograder.isolation import sandbox

    jobs, strays = discover(submitted)
    print(sandbox.status(), file=sys.stderr)  # once per batch, plainly, whatever is missing
    previous = _load_previous(out)
    done: dict[tuple, dict] = {}
    todo = []
    for job in jobs:
        key = (job.student, job.tier, job.path.stem, sha(job.path))
        if key in previous:
            done[key[:3]] = previous[key]
        else:
            todo.append(job)
    rows = {**{(r["student"], r["assignment"], r["notebook"]): r for r in strays}, **done}
    if done:
        print(f"resuming: {len(done)} notebook(s) already graded, {len(todo)} to go", file=sys.stderr)
    if scheduler:
        from autograder.classroom.cluster import grade_on_cluster

        results = grade_on_cluster(scheduler, todo, feedback, timeout)
    else:
        results = _grade_locally(todo, workers, feedback, timeout)
    for row in tqdm(results, total=len(todo), desc="grading", unit="nb", file=sys.stderr):
        rows[(row["student"], row["assignment"], row["notebook"])] = row
        _write_csv(out, list(rows.values()))
    _write_csv(out, list(rows.values()))
    records = gradebook_records(rows.values())
    if gradebook and records:
        from autograder.classroom.gradebook import record_grades

        record_grades(gradebook, records)
    bad = sum(1 for r in rows.values() if r["status"] != "ok")
    print(f"graded {len(rows)} notebook(s) -> {out}" + (f"; {bad} could not be graded (see status)" if bad else ""),
          file=sys.stderr)
    return 0
