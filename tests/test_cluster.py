"""`grade --scheduler`: a class graded on a Dask cluster (a scheduler and two workers on the loopback, started
from this environment) gives the local run's rows, row for row, also when a worker dies mid-batch."""

import contextlib
import csv
import os
import signal
import subprocess
import sys
import time
import uuid

import nbformat
import psutil
import pytest

from ci.bench_cluster import stop_groups
from tests.tiny_course import ROOT, blank, cli, make_course, with_answer

pytestmark = pytest.mark.kernel
TAG = "PTLAB_TEST_CLUSTER"


def _rows(path):
    with path.open(newline="") as f:
        return {(r["student"], r["assignment"], r["notebook"]): r for r in csv.DictReader(f)}


def _tagged(tag):
    found = []
    for proc in psutil.process_iter():
        try:
            if proc.environ().get(TAG) == tag:
                found.append(proc)
        except (psutil.Error, OSError):
            continue
    return found


@pytest.fixture(scope="module")
def cluster(tmp_path_factory):
    from distributed import Client

    tmp = tmp_path_factory.mktemp("cluster")
    ref = nbformat.read(str(make_course(tmp)), 4)
    sub = tmp / "submitted"
    hand_ins = [("alice", "junior", ref), ("bob", "junior", blank(ref)), ("carol", "junior", "{ not json"),
                ("dave", "mid", ref), ("erin", "junior", with_answer(ref, "ex1_double", "def double(x):\n    return 3 * x"))]
    for student, folder, content in hand_ins:
        path = sub / student / folder / "01_tiny.ipynb"
        path.parent.mkdir(parents=True)
        path.write_text(content) if isinstance(content, str) else nbformat.write(content, str(path))
    (sub / "frank" / "junior" / "01_tiny.ipynb").mkdir(parents=True)  # unreadable: no task, the local status

    tag = uuid.uuid4().hex
    # The workers' temporary files in the test's folder: a test below kills a worker's processes outright,
    # its fork server too, which then cannot remove its folder.
    (tmp / "tmp").mkdir()
    env = dict(os.environ, TMPDIR=str(tmp / "tmp"), PTLAB_SOURCE_DIR=str(tmp / "notebooks"), OMP_NUM_THREADS="1", MKL_NUM_THREADS="1",
               DASK_LOGGING__DISTRIBUTED="error", DASK_TEMPORARY_DIRECTORY=str(tmp / "dask"), **{TAG: tag})
    sched_file, log = tmp / "scheduler.json", (tmp / "dask.log").open("w")
    dask = [sys.executable, "-m", "dask"]
    started = [subprocess.Popen([*dask, "scheduler", "--host", "127.0.0.1", "--port", "0", "--no-dashboard",
                                 "--scheduler-file", str(sched_file)], cwd=ROOT, env=env, stdout=log,
                                stderr=log, start_new_session=True)]
    client = None
    try:
        deadline = time.monotonic() + 60
        while not sched_file.exists() and time.monotonic() < deadline:
            time.sleep(0.1)
        workers = [subprocess.Popen([*dask, "worker", "--nthreads", "1", "--nworkers", "1", "--no-nanny",
                                     "--no-dashboard", "--host", "127.0.0.1", "--scheduler-file", str(sched_file),
                                     "--local-directory", str(tmp / "dask")],
                                    cwd=ROOT, env=env, stdout=log, stderr=log, start_new_session=True)
                   for _ in range(2)]
        started += workers
        client = Client(scheduler_file=str(sched_file), timeout="60s")
        client.wait_for_workers(2, timeout=90)
        local = tmp / "local.csv"
        done = cli(tmp, "grade", str(sub), "--workers", "2", "--out", str(local))
        assert done.returncode == 0, done.stderr
        yield tmp, sub, sched_file, client, workers, _rows(local)
    finally:
        if client is not None:
            client.close()
        stop_groups(reversed(started), timeout=10)  # the workers first, then their scheduler
        log.close()
        deadline = time.monotonic() + 15  # kernels of a killed worker notice their parent is gone
        while _tagged(tag) and time.monotonic() < deadline:
            time.sleep(0.5)
        left = [(p.pid, " ".join(p.cmdline())[:100]) for p in _tagged(tag)]
        for proc in _tagged(tag):
            with contextlib.suppress(psutil.Error):
                proc.kill()
        assert not left, f"processes left behind: {left}"


def test_the_cluster_grades_as_the_local_run_does(cluster):
    tmp, sub, sched_file, _client, _workers, local = cluster
    out, fb = tmp / "cluster.csv", tmp / "feedback"
    done = cli(tmp, "grade", str(sub), "--scheduler", str(sched_file), "--out", str(out), "--feedback", str(fb),
               "--autograded", str(tmp / "autograded"))
    assert done.returncode == 0, done.stderr
    assert (tmp / "autograded" / "alice" / "junior" / "01_tiny.ipynb").exists(), "formgrader's notebooks, too"
    assert "cluster" in done.stderr and "2 worker(s)" in done.stderr
    assert _rows(out) == local
    assert local[("alice", "junior", "01_tiny")]["score"] == "5" and local[("bob", "junior", "01_tiny")]["score"] == "0"
    assert "directory" in local[("frank", "junior", "01_tiny")]["status"]
    html = (fb / "alice" / "junior" / "01_tiny.html").read_text()
    assert "double(2) should be 4" in html and "SECRET_HIDDEN_CHECK" not in html

    before = out.read_text()
    again = cli(tmp, "grade", str(sub), "--scheduler", str(sched_file), "--out", str(out))
    assert "0 to go" in again.stderr and out.read_text() == before


def test_a_notebook_that_took_down_two_workers_gets_a_status(cluster):
    from autograder.classroom.cluster import ATTEMPTS, KILLED, run_task

    tmp, sub, _, client, *_ = cluster
    client.set_metadata([ATTEMPTS, "test-run", "alice"], 2)  # as if two workers had died grading it
    data = (sub / "alice" / "junior" / "01_tiny.ipynb").read_bytes()
    row, html, notebook = client.submit(run_task, "alice", "junior", "01_tiny.ipynb", data, False, None, {}, "test-run",
                              "alice", pure=False).result(timeout=60)
    assert row["status"] == KILLED and row["score"] == "0" and html is None and notebook is None


def test_a_worker_killed_mid_batch_loses_nothing(cluster):
    tmp, sub, sched_file, client, workers, local = cluster
    out = tmp / "killed.csv"
    env = dict(os.environ, PTLAB_SOURCE_DIR=str(tmp / "notebooks"))
    batch = subprocess.Popen([sys.executable, "-m", "autograder", "grade", str(sub), "--scheduler", str(sched_file),
                              "--out", str(out)], cwd=ROOT, env=env, stdout=subprocess.DEVNULL,
                             stderr=subprocess.PIPE, text=True)
    # The first row waits for workers and the reference: minutes on a loaded machine. The wait ends on the event
    # (a row written while a notebook is being graded) or on the batch's end, whichever comes first.
    victim, deadline = None, time.monotonic() + 600
    while victim is None and time.monotonic() < deadline and batch.poll() is None:
        busy = [addr for addr, keys in client.processing().items() if keys]
        if busy and out.exists():  # mid-batch: a row written, and a notebook being graded
            victim = busy[0]
        time.sleep(0.2)
    assert victim, ("the batch ended before a worker could be killed mid-batch" if batch.poll() is not None
                    else "no row was written while a notebook was being graded within 600 s")
    pid = client.run(os.getpid, workers=[victim])[victim]
    proc = next(w for w in workers if w.pid == pid)
    orphans = psutil.Process(pid).children(recursive=True)  # its kernel, which the worker's death leaves running
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()
    for p in orphans:
        with contextlib.suppress(psutil.Error):
            p.kill()
    _, stderr = batch.communicate(timeout=180)
    assert batch.returncode == 0, stderr
    assert _rows(out) == local, "the notebook on the dead worker must be regraded elsewhere, with the same row"
