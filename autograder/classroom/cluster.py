"""Class grading on a Dask cluster: `python -m autograder grade SUBMITTED --scheduler tcp://HOST:PORT`.

One task per notebook, graded on a worker by the same `grade_one` as a local run (so in the worker's own
sandboxed kernels); rows come back to this process, which alone writes grades.csv, the feedback and the
gradebook (grade.grade_class, shared with the local path). A worker needs the course checkout and the
environment, nothing else: each task carries the notebook's bytes, and the reference reports, which this
process computes (or reads from its cache) once per source notebook before submitting anything.

Retries: when a worker dies, the scheduler gives its running task to another worker. Each task counts its
own starts on the scheduler (its metadata), so a notebook whose grading has already taken down two workers
gets a status instead of a third try. A scheduler configured to give up sooner (`allowed-failures`) raises
KilledWorker here, and the notebook is resubmitted under the same count.
"""

from __future__ import annotations

import hashlib
import sys
import tempfile
import uuid
from pathlib import Path

from distributed import WorkerPlugin

from autograder.classroom.whole_file import write_whole
from autograder.classroom.jobs import Job, grade_one
from autograder.classroom.jobs import row as status_row
from autograder.course import GradingInputError
from autograder.pipeline import handin

ATTEMPTS = "ptlab-grading-starts"  # scheduler metadata: {run: {job: starts}}
MAX_STARTS = 2
WINDOW = 64  # tasks in flight at least
KILLED = f"killed {MAX_STARTS} grading workers; not retried"


def connect(address: str):
    """A client of a running scheduler: an address (tcp://HOST:PORT), or a scheduler file (dask-jobqueue and
    `dask scheduler --scheduler-file` write one)."""
    from distributed import Client

    if Path(address).is_file():
        return Client(scheduler_file=address, timeout="60s")
    return Client(address, timeout="60s")


def references_for(jobs: list[Job], timeout: int | None = None) -> dict[Job, dict]:
    """For each job, {cache key: reports} of its source notebook, computed here once per source (from the
    cache when this machine has them). A job whose source is unknown or whose reference fails gets none: its
    worker meets the same error and reports it as a local run would."""

    from autograder.classroom.jobs import source_tier
    from autograder.pipeline import cells, expected
    from autograder.pipeline.sources import listed

    by_source: dict[Path, dict] = {}
    out = {}
    for job in jobs:
        try:  # from the folder and the file's name only: the hand-in is not read here (its worker checks it)
            source = listed(source_tier(job), job.path.stem)
        except GradingInputError:
            source = None
        if source is None:
            out[job] = {}
            continue
        if source not in by_source:
            ref = expected.Reference(source)
            try:
                by_source[source] = {ref.file.stem: ref.reports(cells.read(source), timeout)}
            except GradingInputError:
                by_source[source] = {}
        out[job] = by_source[source]
    return out


class WarmKernels(WorkerPlugin):
    """A worker plugin: a worker grades notebook after notebook, as a local pool worker does, so the next kernel
    starts while one runs (autograder/isolation/warm.py); the spare kernel goes when the worker closes."""

    name = "ptlab-warm-kernels"

    def setup(self, worker) -> None:
        from autograder.isolation import warm

        warm.enable()

    def teardown(self, worker) -> None:
        from autograder.isolation import warm

        warm._discard_all()


def run_task(student: str, tier: str, name: str, data: bytes, want_feedback: bool, timeout: int | None,
             references: dict, run: str, job_id: str, want_autograded: bool = False
             ) -> tuple[dict, str | None, str | None]:
    """Runs on a worker: grade one notebook from its bytes in a scratch folder laid out as nbgrader's.
    Returns the row, the feedback HTML and the autograded notebook (written by the grading process, not
    here)."""
    from distributed import get_client, get_worker

    # In the worker's own folder (--local-directory), which goes with the worker: a worker killed mid-task
    # leaves nothing in the machine's /tmp.
    with tempfile.TemporaryDirectory(prefix="ptlab-grade-", dir=get_worker().local_directory) as tmp:
        path = Path(tmp) / "submitted" / student / tier / name
        path.parent.mkdir(parents=True)
        path.write_bytes(data)
        client = get_client()
        starts = client.get_metadata([ATTEMPTS, run, job_id], 0)
        if starts >= MAX_STARTS:
            return status_row(student, tier, path, status=KILLED), None, None
        client.set_metadata([ATTEMPTS, run, job_id], starts + 1)
        feedback = Path(tmp) / "feedback" if want_feedback else None
        autograded = Path(tmp) / "autograded" if want_autograded else None
        row = grade_one(Job(student, tier, path), str(feedback) if feedback else None, timeout, references,
                        str(autograded) if autograded else None)
        html = feedback / student / tier / f"{path.stem}.html" if feedback else None
        nbs = sorted((autograded / student / tier).glob("*.ipynb")) if autograded else []
        return (row, html.read_text(encoding="utf-8") if html and html.exists() else None,
                nbs[0].read_text(encoding="utf-8") if nbs else None)


def _workers_status(client) -> str:
    def probe() -> str:
        from autograder.isolation import sandbox

        return sandbox.status()

    try:
        seen = client.run(probe)
    except Exception as e:  # a worker that cannot import the course: its tasks will say so
        return f"workers not probed ({type(e).__name__})"
    kinds = sorted(set(seen.values()))
    return f"{len(seen)} worker(s); on the workers: " + " | ".join(kinds) if seen else "no workers yet (waiting)"


def grade_on_cluster(address: str, todo: list[Job], feedback: Path | None, timeout: int | None,
                     autograded: Path | None = None):
    """Rows as the cluster finishes them; feedback files and autograded notebooks are written here as each
    row arrives."""
    from distributed import KilledWorker, as_completed

    if not todo:
        return
    references = references_for(todo, timeout)
    run = uuid.uuid4().hex[:12]
    with connect(address) as client:
        print(f"cluster {address}: {_workers_status(client)}", file=sys.stderr)
        client.register_plugin(WarmKernels(), name=WarmKernels.name)
        jobs = {}

        unreadable = []  # graded here, as the local path does: a status, no kernel

        def submit(job: Job, attempt: int):
            try:  # never through a link, never a file over the size limit (pipeline.handin)
                data = handin.read_bytes(job.path)
            except (OSError, GradingInputError):
                unreadable.append(grade_one(job, None, timeout))
                return None
            # A hash of the names: one that is not UTF-8 would break the scheduler's messages, every task's
            job_id = hashlib.sha256(f"{job.student}/{job.tier}/{job.path.name}".encode("utf-8", "surrogatepass")
                                    ).hexdigest()[:32]
            key = f"ptlab-grade-{run}-{job_id}-{attempt}"
            fut = client.submit(run_task, job.student, job.tier, job.path.name, data, feedback is not None,
                                timeout, references[job], run, job_id, autograded is not None, key=key, pure=False)
            jobs[fut.key] = (job, job_id, attempt)
            return fut

        # A bounded window in flight: each task carries its notebook's bytes, and a class can be 40,000 of them.
        window = max(WINDOW, 4 * sum(client.nthreads().values()))
        queue, pending = iter(todo), as_completed()

        def top_up(count: int) -> None:
            for job in queue:
                if (new := submit(job, 0)) is not None:
                    pending.add(new)
                    count -= 1
                if count <= 0:
                    return

        top_up(window)
        try:
            for fut in pending:
                while unreadable:
                    yield unreadable.pop()
                top_up(1)
                job, job_id, attempt = jobs.pop(fut.key)
                try:
                    row, html, notebook = fut.result()
                except KilledWorker:  # the scheduler gave up on it (its allowed-failures): our own count decides
                    if client.get_metadata([ATTEMPTS, run, job_id], 0) < MAX_STARTS:
                        if (again := submit(job, attempt + 1)) is not None:
                            pending.add(again)
                            continue
                    row, html, notebook = status_row(job.student, job.tier, job.path, status=KILLED), None, None
                except Exception as e:  # a task that could not run at all must not stop the batch
                    row = status_row(job.student, job.tier, job.path, status=f"grading error: {type(e).__name__}")
                    html = notebook = None
                fut.release()
                if html and feedback:
                    write_whole(html, feedback / job.student / job.tier / f"{job.path.stem}.html")
                if notebook and autograded:
                    write_whole(notebook, autograded / job.student / job.tier / f"{row['notebook']}.ipynb")
                yield row
            while unreadable:
                yield unreadable.pop()
        finally:
            try:
                client.set_metadata([ATTEMPTS, run], {})  # the counts are this run's only
            except Exception:
                pass
