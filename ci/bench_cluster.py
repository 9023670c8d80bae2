#!/usr/bin/env python
"""Class-grading throughput on Dask (issue 18): `autograder grade --scheduler` through a local scheduler with 1
and with 2 worker processes (one grading thread each), in notebooks per minute.

From ci/bench.py:  `from ci.bench_cluster import cluster_throughput; rates = cluster_throughput(course / "submitted")`
By hand:           `python ci/bench_cluster.py [SUBMITTED] [--students 4 --tier junior]`

The reference reports are computed before the first timing (the grading process would otherwise run them
inside the 1-worker figure only), and the scheduler and workers start before the clock does.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PY = sys.executable


@contextlib.contextmanager
def local_cluster(workers: int, env: dict | None = None, log=subprocess.DEVNULL):
    """A scheduler and `workers` worker processes (one thread each) on the loopback; yields the scheduler
    file, and stops every process it started (whole process groups) on the way out."""
    from distributed import Client

    env = dict(env or os.environ)
    threads = str(max(1, (os.cpu_count() or 2) // workers))  # as the local pool pins them
    env.update(OMP_NUM_THREADS=threads, MKL_NUM_THREADS=threads, OPENBLAS_NUM_THREADS=threads,
               DASK_LOGGING__DISTRIBUTED="error")
    with tempfile.TemporaryDirectory(prefix="ptlab-dask-") as tmp:
        sched_file = Path(tmp) / "scheduler.json"
        dask = [PY, "-m", "dask"]
        procs = [subprocess.Popen([*dask, "scheduler", "--host", "127.0.0.1", "--port", "0", "--no-dashboard",
                                   "--scheduler-file", str(sched_file)], cwd=ROOT, env=env, stdout=log, stderr=log,
                                  start_new_session=True)]
        try:
            deadline = time.monotonic() + 60
            while not sched_file.exists() and time.monotonic() < deadline:
                time.sleep(0.1)
            # One process per worker, without a nanny: stopped with SIGTERM, each closes gracefully and discards
            # its warm kernel (a nanny would end its worker without the exit handlers that do so).
            procs += [subprocess.Popen([*dask, "worker", "--no-nanny", "--nthreads", "1", "--no-dashboard",
                                        "--host", "127.0.0.1", "--scheduler-file", str(sched_file),
                                        "--local-directory", str(Path(tmp) / "dask")],
                                       cwd=ROOT, env=env, stdout=log, stderr=log, start_new_session=True)
                      for _ in range(workers)]
            with Client(scheduler_file=str(sched_file), timeout="60s") as client:
                client.wait_for_workers(workers, timeout=120)
            yield sched_file
        finally:
            stop_groups(reversed(procs), timeout=15)


def stop_groups(procs, timeout: float) -> None:
    """Each process's group, in order: asked to stop, killed if it has not within `timeout` seconds."""
    for proc in procs:
        for sig in (signal.SIGTERM, signal.SIGKILL):
            try:
                os.killpg(proc.pid, sig)
                proc.wait(timeout=timeout)
                break
            except ProcessLookupError:
                break
            except subprocess.TimeoutExpired:
                continue


def cluster_throughput(submitted: Path, worker_counts=(1, 2), env: dict | None = None) -> dict[int, float]:
    """Notebooks per minute of `grade SUBMITTED --scheduler` with each number of local worker processes."""
    from autograder.classroom.cluster import references_for
    from autograder.classroom.jobs import discover

    jobs, _ = discover(Path(submitted))
    references_for(jobs)  # warm: the reference reports, once, outside the timings
    rates = {}
    with tempfile.TemporaryDirectory(prefix="ptlab-bench-cluster-") as tmp:
        for workers in worker_counts:
            with local_cluster(workers, env) as sched_file:
                out = Path(tmp) / f"grades-{workers}.csv"
                t0 = time.perf_counter()
                done = subprocess.run([PY, "-m", "autograder", "grade", str(submitted), "--scheduler", str(sched_file),
                                       "--out", str(out)], cwd=ROOT, env=env, capture_output=True, text=True)
                secs = time.perf_counter() - t0
            if done.returncode != 0:
                raise RuntimeError(f"grade --scheduler failed with {workers} worker(s): {done.stderr[-2000:]}")
            rates[workers] = len(jobs) / secs * 60
    return rates


def main() -> int:
    import argparse

    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("submitted", nargs="?", help="a class in nbgrader's layout (default: a synthetic one)")
    ap.add_argument("--students", type=int, default=4)
    ap.add_argument("--tier", default="junior")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        submitted = Path(args.submitted) if args.submitted else None
        if submitted is None:
            sys.path.insert(0, str(ROOT))
            from ci.classes import synthetic_class

            synthetic_class(args.tier, args.students, Path(tmp))
            submitted = Path(tmp) / "submitted"
        for workers, rate in cluster_throughput(submitted).items():
            print(f"dask, {workers} worker process(es) through a scheduler: {rate:6.1f} notebooks/min")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
