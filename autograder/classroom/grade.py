"""Grade a class in parallel: SUBMITTED/<student>/<assignment>/<notebook>.ipynb -> grades.csv (+ feedback,
nbgrader's autograded/ notebooks and gradebook).

nbgrader's autograde is sequential and its SQLite gradebook is not safe across processes, so each worker
grades whole notebooks through the same path as `check` and returns rows; only the parent writes the CSV
and the gradebook. The CSV is rewritten atomically after every notebook, so a killed batch resumes: a
re-run skips notebooks whose file hash already has a row (unless `force`). Each row keeps its per-cell
scores, so the gradebook is rebuilt from the CSV after every run, and what graders wrote there (points,
comments) comes back into the rows and the feedback, without regrading anything.

Names are data: one hand-in whose name no file, page or figure can take costs its own row a status, never the
batch (a worker's failure becomes that row's status), and every cell goes through scores.csv_cell.
"""

from __future__ import annotations

import csv
import os
import sys
from concurrent.futures import ProcessPoolExecutor, as_completed
from pathlib import Path

from autograder.classroom import assignments, exchange, late, scores, summary
from autograder.classroom import jobs as _jobs
from autograder.classroom.jobs import FIELDS, Job, discover, grade_one, sha
from autograder.course import GradingInputError, pin_threads

# The columns that make a CSV ours: anything else (nbgrader export's grades.csv, a spreadsheet) is kept.
OURS = {"student", "assignment", "notebook", "sha256", "cells"}


def _worker_init(threads: int) -> None:
    from autograder.isolation import warm

    pin_threads(threads)
    warm.enable()  # a worker grades notebook after notebook: the next kernel starts while one runs


def _read_ours(out: Path) -> list[dict] | None:
    """The rows of a CSV this command wrote; None for a file it did not write."""
    if not out.exists():
        return []
    try:
        with out.open(newline="") as f:
            reader = csv.DictReader(f)
            if not OURS <= set(reader.fieldnames or ()):
                return None
            return [{k: scores.from_csv_cell(v if v is not None else "") for k, v in r.items() if k in FIELDS}
                    for r in reader]
    except (OSError, UnicodeDecodeError, csv.Error):
        return None


def choose_output(out: Path) -> tuple[Path, list[dict]]:
    """Our CSV and its rows. A file of the same name that `grade` did not write is never touched: the grades
    go beside it, and the instructor is told so."""
    rows = _read_ours(out)
    if rows is not None:
        return out, rows
    other = out.with_name(f"{out.stem}.autograder{out.suffix or '.csv'}")
    print(f"grade: {out} was not written by `grade` (nbgrader export writes a grades.csv of its own?); it is "
          f"kept as it is, and these grades go to {other}", file=sys.stderr)
    rows = _read_ours(other)
    if rows is None:
        raise GradingInputError(f"{other}: not written by `grade` either; choose another file with --out")
    return other, rows


def _write_csv(out: Path, rows: list[dict]) -> None:
    rows = sorted(rows, key=_key)
    tmp = out.with_name(out.name + ".tmp")
    with tmp.open("w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=FIELDS, extrasaction="ignore")
        w.writeheader()
        w.writerows({k: scores.csv_cell(r.get(k, "")) for k in FIELDS} for r in rows)
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, out)


def _grade_locally(todo: list[Job], workers: int, feedback: Path | None, timeout: int | None,
                   autograded: Path | None):
    """Rows as this machine's process pool finishes them."""
    threads = max(1, (os.cpu_count() or 2) // max(1, workers))
    # No max_tasks_per_child: on Python 3.11 the pool hangs once the workers have been replaced (a
    # 200-student load run stopped at exactly 2 x max_tasks_per_child notebooks).
    with ProcessPoolExecutor(max_workers=max(1, workers), initializer=_worker_init, initargs=(threads,)) as pool:
        futures = {pool.submit(grade_one, job, str(feedback) if feedback else None, timeout,
                               None, str(autograded) if autograded else None): job for job in todo}
        for fut in as_completed(futures):
            try:
                yield fut.result()
            except Exception as e:  # the worker failed past grade_one's own handling (a file it wrote): this row only
                job = futures[fut]
                yield _jobs.row(job.student, job.tier, job.path, status=f"grading error: {type(e).__name__}")


def _key(r: dict) -> tuple:
    """A row's identity, as the CSV holds it (a name that was not UTF-8 reads back escaped)."""
    return tuple(scores.as_text(r[k]) for k in ("student", "assignment", "notebook"))


def _job_key(job: Job) -> tuple:
    return tuple(scores.as_text(v) for v in (job.student, job.tier, job.path.stem))


def _shown(r: dict) -> tuple:
    """What a feedback page shows beyond the autograder's run: when it changes, the page is written again."""
    return tuple(r.get(k, "") for k in ("score", "max_score", "manual", "comments", "late_penalty", "submitted_at",
                                        "seconds_late"))


def _refresh_feedback(rows: dict, shown: dict, feedback: Path, autograded: Path | None) -> int:
    """Feedback pages written again from the autograded notebooks where the grader's points, comments, the
    lateness or a late penalty changed what they must show."""
    import nbformat

    from autograder.classroom.feedback import page
    from autograder.classroom.whole_file import write_whole

    n = 0
    for key, r in rows.items():
        nb_path = autograded / r["student"] / r["assignment"] / f"{r['notebook']}.ipynb" if autograded else None
        if shown.get(key) == _shown(r) or nb_path is None or not nb_path.exists():
            continue
        flags = [f for f in (r.get("flags") or "").split(" | ") if f]
        try:
            write_whole(page(nbformat.read(str(nb_path), 4), r, flags),
                        feedback / r["student"] / r["assignment"] / f"{r['notebook']}.html")
        except Exception as e:  # one page that cannot be written again keeps its last version
            print(f"feedback: {summary.printable(r['student'])}/{summary.printable(r['notebook'])}: not "
                  f"rewritten ({type(e).__name__})", file=sys.stderr)
            continue
        n += 1
    return n


def grade_class(submitted: Path, workers: int = 2, out: Path = Path("grades.csv"), feedback: Path | None = None,
                gradebook: str | None = None, timeout: int | None = None, scheduler: str | None = None,
                assignment: str | None = None, students: list[str] | None = None, force: bool = False,
                autograded: Path | None = None, roster: Path | None = None) -> int:
    """Grades locally in a process pool, or with `scheduler` (a Dask address) one task per notebook on a
    cluster (cluster.py); either way this process alone writes the CSV and the gradebook. `assignment`,
    `students`: only these hand-ins (the CSV keeps every other row); `force`: regrade them even unchanged.
    `autograded`: nbgrader's autograded/ folder (default with a gradebook: beside `submitted`); `roster`: the
    class list whose names formgrader shows (lms.roster_names)."""
    from tqdm import tqdm

    from autograder.isolation import sandbox

    known = assignments.load()
    if assignment and assignment not in known:
        raise GradingInputError(f"no assignment {assignment!r} (the course has: {', '.join(known)}; "
                                f"assignments.yaml defines more)")
    if autograded is None and gradebook:
        autograded = submitted.parent / "autograded"
    jobs, strays = discover(submitted, {assignment} if assignment else None, set(students) if students else None)
    if students and not jobs and not strays:
        raise GradingInputError(f"{submitted}: no hand-in of {', '.join(students)}")
    print(sandbox.status(), file=sys.stderr)  # once per batch, plainly, whatever is missing
    out, previous = choose_output(out)
    by_hash = {(*_key(r), r["sha256"]): r for r in previous}
    rows = {_key(r): r for r in previous}
    selected = {_job_key(j) for j in jobs} | {_key(r) for r in strays}
    for key in [k for k in rows if k not in selected and _in_scope(k, assignment, students)]:
        del rows[key]  # a hand-in that is gone, within what this run looks at
    skipped, todo = 0, []
    for job in jobs:
        key = (*_job_key(job), sha(job.path))
        if key in by_hash and not force:
            skipped += 1
        else:
            rows.pop(key[:3], None)
            todo.append(job)
    rows.update({_key(r): r for r in strays})
    if skipped:
        print(f"resuming: {skipped} notebook(s) already graded, {len(todo)} to go", file=sys.stderr)
    shown = {k: _shown(r) for k, r in rows.items()}
    if scheduler:
        from autograder.classroom.cluster import grade_on_cluster

        results = grade_on_cluster(scheduler, todo, feedback, timeout, autograded)
    else:
        results = _grade_locally(todo, workers, feedback, timeout, autograded)
    graded = []
    for row in tqdm(results, total=len(todo), desc="grading", unit="nb", file=sys.stderr, disable=not todo):
        rows[_key(row)] = row
        shown[_key(row)] = _shown(row)
        graded.append(row)
        _write_csv(out, list(rows.values()))
    names = None
    if roster and gradebook:
        from autograder.classroom.lms import roster_names

        names = roster_names(roster, {r["student"] for r in rows.values()})
    _settle(rows, submitted, gradebook, names)
    _write_csv(out, list(rows.values()))
    if feedback:
        _refresh_feedback(rows, shown, feedback, autograded)
    for student, name, folder in sorted({(j.student, j.tier, j.path.parent) for j in jobs}):
        exchange.carry(folder, *(d / student / name if d else None for d in (feedback, autograded)))
    print(summary.text(graded, skipped, rows.values(), out, len(strays)), file=sys.stderr)
    return 0


def _in_scope(key: tuple, assignment: str | None, students: list[str] | None) -> bool:
    return (not assignment or key[1] == assignment) and (not students or key[0] in students)


def _settle(rows: dict, submitted: Path, gradebook: str | None, names: dict | None = None) -> None:
    """Times and lateness from timestamp.txt and the due dates; then, with a gradebook, the grades go in and
    the graders' points and comments come back; the totals follow."""
    due = assignments.due_dates()
    penalize = late.course_penalize()
    for r in rows.values():
        if r.get("cells") or r.get("manual"):
            try:
                late.stamp(r, submitted / r["student"] / r["assignment"] / f"{r['notebook']}.ipynb",
                           due.get(r["assignment"]))
            except (OSError, ValueError):  # a name no path can take: no time, as for a missing timestamp
                r["submitted_at"], r["seconds_late"] = "", ""
    recorded = lambda r: False  # noqa: E731
    if gradebook:
        from autograder.classroom.gradebook import plain_id, record_grades

        record_grades(gradebook, list(rows.values()), due, penalize, names=names)
        recorded = lambda r: plain_id(r["student"])  # noqa: E731  the gradebook settled these
    for r in rows.values():
        if (r.get("cells") or r.get("manual")) and not recorded(r):
            penalize(r)
            scores.settle(r)
