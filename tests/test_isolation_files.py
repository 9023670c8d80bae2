"""Grading isolation, third round: hand-ins that are not what they seem.

- a symbolic link (to the solved source, to another student's hand-in, a linked tier folder, a linked
  student folder, a link to a named pipe) gets 0 and `a symbolic link; not graded`, and nothing is read
  through it (a pipe opened for reading would hang the grader), locally and with `--scheduler`;
- a hand-in over PTLAB_MAX_NOTEBOOK_MB is not parsed, a nesting bomb and a named pipe get plain statuses,
  and reading them costs the grader no memory;
- `from IPython.display import display, HTML, Markdown` in an answer is no reach into the kernel; real
  reach still is.

A control student in each batch is graded normally.
"""

import csv
import os
import subprocess
import sys
import time
import tracemalloc
import uuid

import nbformat
import pytest

from autograder.classroom.jobs import sha
from autograder.course import GradingInputError
from autograder.pipeline import handin
from autograder.pipeline.tamper import scan
from tests.tiny_course import ROOT, cli, hand_ins, make_course, with_answer

REFERENCE_EX1 = "def double(x):\n    return 2 * x\n"
LINK = "a symbolic link; not graded"


def _rows(path):
    with path.open() as f:
        return {(r["student"], r["notebook"]): r for r in csv.DictReader(f)}


def _linked_class(tmp):
    sub = hand_ins(tmp, {"control": REFERENCE_EX1})
    control = sub / "control" / "junior" / "01_tiny.ipynb"
    source = tmp / "notebooks" / "junior" / "01_tiny.ipynb"  # the solved notebook: full marks if followed
    links = {"to_source": source, "to_peer": control}
    for student, target in links.items():
        (sub / student / "junior").mkdir(parents=True)
        (sub / student / "junior" / "01_tiny.ipynb").symlink_to(target)
    (sub / "linked_tier").mkdir()
    (sub / "linked_tier" / "junior").symlink_to(control.parent)  # a tier folder that is a link
    (sub / "linked_student").symlink_to(sub / "control")  # a whole student folder that is a link
    pipe = tmp / "pipe"
    os.mkfifo(pipe)  # opened for reading, it blocks until a writer comes: none does
    (sub / "to_pipe" / "junior").mkdir(parents=True)
    (sub / "to_pipe" / "junior" / "01_tiny.ipynb").symlink_to(pipe)
    return sub


def _assert_links_refused(rows):
    assert (rows[("control", "01_tiny")]["score"], rows[("control", "01_tiny")]["status"]) == ("5", "ok")
    for student in ("to_source", "to_peer", "linked_tier", "linked_student", "to_pipe"):
        row = rows[(student, "01_tiny")]
        assert (row["score"], row["status"], row["sha256"]) == ("0", LINK, ""), (student, row)


@pytest.mark.kernel
def test_a_symbolic_link_is_never_followed(tmp_path):
    sub = _linked_class(tmp_path)
    out = tmp_path / "grades.csv"
    done = cli(tmp_path, "grade", str(sub), "--out", str(out), "--workers", "1")
    assert done.returncode == 0, done.stderr
    _assert_links_refused(_rows(out))


@pytest.mark.kernel
def test_a_symbolic_link_is_never_followed_on_a_cluster(tmp_path):
    sub = _linked_class(tmp_path)
    env = dict(os.environ, PTLAB_SOURCE_DIR=str(tmp_path / "notebooks"), DASK_LOGGING__DISTRIBUTED="error",
               PTLAB_TEST_MARK=uuid.uuid4().hex, DASK_TEMPORARY_DIRECTORY=str(tmp_path / "dask"))
    sched_file, log = tmp_path / "scheduler.json", (tmp_path / "dask.log").open("w")
    dask = [sys.executable, "-m", "dask"]
    started = [subprocess.Popen([*dask, "scheduler", "--host", "127.0.0.1", "--port", "0", "--no-dashboard",
                                 "--scheduler-file", str(sched_file)], cwd=ROOT, env=env, stdout=log, stderr=log,
                                start_new_session=True)]
    try:
        deadline = time.monotonic() + 60
        while not sched_file.exists():
            assert time.monotonic() < deadline, "the scheduler did not start"
            time.sleep(0.1)
        started.append(subprocess.Popen([*dask, "worker", "--nthreads", "1", "--no-nanny", "--no-dashboard",
                                         "--host", "127.0.0.1", "--scheduler-file", str(sched_file),
                                         "--local-directory", str(tmp_path / "dask")],
                                        cwd=ROOT, env=env, stdout=log, stderr=log, start_new_session=True))
        out = tmp_path / "grades.csv"
        done = cli(tmp_path, "grade", str(sub), "--out", str(out), "--scheduler", str(sched_file))
        assert done.returncode == 0, done.stderr
        _assert_links_refused(_rows(out))
    finally:
        for proc in reversed(started):  # the worker first (it closes its kernels), then the scheduler
            proc.terminate()
            try:
                proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
        log.close()


@pytest.mark.kernel
def test_oversized_and_deeply_nested_hand_ins_get_plain_statuses(tmp_path):
    sub = hand_ins(tmp_path, {"control": REFERENCE_EX1, "big": REFERENCE_EX1})
    big = sub / "big" / "junior" / "01_tiny.ipynb"
    nb = nbformat.read(str(big), 4)
    nb.cells[0].source += "\n" + "x" * (2 << 20)  # a valid notebook of 2 MB
    nbformat.write(nb, str(big))
    (sub / "bomb" / "junior").mkdir(parents=True)
    (sub / "bomb" / "junior" / "01_tiny.ipynb").write_text("[" * 200_000 + "]" * 200_000)
    (sub / "pipe" / "junior").mkdir(parents=True)
    os.mkfifo(sub / "pipe" / "junior" / "01_tiny.ipynb")  # read, it would never end
    out = tmp_path / "grades.csv"
    done = cli(tmp_path, "grade", str(sub), "--out", str(out), "--workers", "1", PTLAB_MAX_NOTEBOOK_MB="1")
    assert done.returncode == 0, done.stderr
    rows = _rows(out)
    assert (rows[("control", "01_tiny")]["score"], rows[("control", "01_tiny")]["status"]) == ("5", "ok")
    assert (rows[("big", "01_tiny")]["score"], rows[("big", "01_tiny")]["status"]) == \
        ("0", "larger than 1 MB; not graded")
    assert (rows[("bomb", "01_tiny")]["score"], rows[("bomb", "01_tiny")]["status"]) == \
        ("0", "not valid JSON: nested too deeply")
    assert (rows[("pipe", "01_tiny")]["score"], rows[("pipe", "01_tiny")]["status"]) == \
        ("0", "not a regular file; not graded")


def test_reading_a_huge_or_nested_file_costs_the_grader_no_memory(tmp_path):
    huge = tmp_path / "huge.ipynb"
    with huge.open("wb") as f:
        f.truncate(300 << 20)  # 300 MB (sparse: the test itself writes nothing)
    bomb = tmp_path / "bomb.ipynb"
    bomb.write_text("{\"a\":" * 200_000 + "1" + "}" * 200_000)
    tracemalloc.start()
    try:
        with pytest.raises(GradingInputError, match="larger than 20 MB; not graded"):
            handin.read(huge)
        digest = sha(huge)  # the hash that resumes a batch reads in chunks
        with pytest.raises(GradingInputError, match="not valid JSON: nested too deeply"):
            handin.read(bomb)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert digest
    assert peak < 64 << 20, f"reading them took {peak >> 20} MB (the big file alone is 300 MB)"


def test_showing_results_with_ipython_display_is_not_reach_into_the_kernel(tmp_path):
    source = nbformat.read(str(make_course(tmp_path)), 4)
    shows = ("from IPython.display import display, HTML, Markdown\n"
             "def double(x):\n    display(Markdown(f'**{x}**'), HTML('<b>2x</b>'))\n    return 2 * x\n")
    assert scan(with_answer(source, "ex1_double", shows), source) == []
    for reach in ("from IPython import get_ipython\n", "import IPython\n",
                  "from IPython.display import _safe_get_formatter_method\n",
                  "from IPython.display import display\ndisplay.__code__ = None\n",
                  "from IPython.core.interactiveshell import InteractiveShell\n"):
        assert scan(with_answer(source, "ex1_double", reach + REFERENCE_EX1), source), reach
