"""Grading isolation, tried as a hostile student would, with submissions that otherwise earn full marks:

- processes a submission detaches (a double-forked sleeper in a new session, a daemon) do not outlive its
  notebook: the kernel's PID namespace takes them down with it;
- a submission cannot read another student's hand-in, the grades or feedback written so far, or the course,
  by absolute path: its file system is built from an allow-list; its scratch directory works;
- a fork loop ends its own submission with a status, and the rest of the batch is graded normally;
- a grader killed in the middle of a notebook leaves no kernel behind;
- where namespaces are missing, grading says so once and goes on.

Each fixture submission answers ex1 with the reference `double` only when its attack was seen to fail (or,
for the detacher, its processes were seen running), so full marks prove the attack ran and came to nothing.
"""

import csv
import os
import subprocess
import sys
import time
import uuid

import pytest

from autograder.course import CACHE_DIR, ROOT
from autograder.isolation import sandbox
from tests.tiny_course import alive, cli, hand_ins

NO_NAMESPACES = "no user namespaces here: limits only"
pytestmark = [pytest.mark.kernel, pytest.mark.skipif(not sandbox.namespaces_work(), reason=NO_NAMESPACES)]

REFERENCE_EX1 = "def double(x):\n    return 2 * x\n"

DETACHER = '''import os, subprocess, sys, time
MARK = os.environ["PTLAB_TEST_MARK"]
SLEEP = [sys.executable, "-c", "import time; time.sleep(300)"]
if os.fork() == 0:  # a double fork: the sleeper's parent exits, and the sleeper starts a session of its own
    if os.fork() == 0:
        os.setsid()
        os.execv(SLEEP[0], [*SLEEP, "ptlab-orphan-" + MARK])
    os._exit(0)
os.wait()
subprocess.Popen([*SLEEP, "ptlab-daemon-" + MARK], start_new_session=True, stdin=subprocess.DEVNULL,
                 stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
time.sleep(1)
running = 0
for pid in filter(str.isdigit, os.listdir("/proc")):
    try:
        running += MARK.encode() in open(f"/proc/{pid}/cmdline", "rb").read()
    except OSError:
        pass
def double(x):
    return 2 * x if running == 2 else 0
'''

BOMBER = "import os\nwhile True:\n    os.fork()\n"


def _snooper(tmp) -> str:
    secrets = [tmp / "submitted" / "control" / "junior" / "01_tiny.ipynb",  # another student's hand-in
               tmp / "submitted",  # the class's folder
               tmp / "grades.csv", tmp / "feedback" / "control" / "junior" / "01_tiny.html",
               tmp / "notebooks" / "junior" / "01_tiny.ipynb",  # the course source the grader uses
               ROOT / "notebooks", ROOT / "tests" / "answers", ROOT / "README.md", CACHE_DIR,
               ROOT.parent / "shared"]
    return f'''import os
leaked = []
for path in {[str(p) for p in secrets]!r}:
    try:
        os.listdir(path) if os.path.isdir(path) else open(path, "rb").read(1)
        leaked.append(path)
    except OSError:
        pass
    leaked += [path] if os.path.exists(path) else []
with open("mine.txt", "w") as f:
    f.write("my own scratch")
scratch_works = open(os.path.join(os.getcwd(), "mine.txt")).read() == "my own scratch"
def double(x):
    return 2 * x if scratch_works and not leaked else 0
'''


def _grade(tmp, students: dict[str, str], *args, **env):
    sub = hand_ins(tmp, students)
    out, mark = tmp / "grades.csv", uuid.uuid4().hex
    done = cli(tmp, "grade", str(sub), "--out", str(out), "--feedback", str(tmp / "feedback"), *args,
               PTLAB_TEST_MARK=mark, **env)
    assert done.returncode == 0, done.stderr
    with out.open() as f:
        return {r["student"]: r for r in csv.DictReader(f)}, done.stderr, mark


@pytest.fixture(scope="module")
def hostile_class(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("hostile")
    # one worker: the batch runs in this order, so the snooper (last) runs when the grades CSV and the
    # control's feedback already exist
    rows, stderr, mark = _grade(tmp, {"control": REFERENCE_EX1, "detacher": DETACHER, "forkbomb": BOMBER,
                                      "zz_snooper": _snooper(tmp)}, "--workers", "1", "--timeout", "30")
    return tmp, rows, stderr, mark


def test_detached_processes_die_with_their_notebook(hostile_class):
    _, rows, _, mark = hostile_class
    assert (rows["detacher"]["score"], rows["detacher"]["status"]) == ("5", "ok"), \
        "the detacher's sleeper and daemon should have been running while its notebook ran"
    assert not alive(mark), "a process started by a submission outlived the batch"


def test_a_submission_sees_neither_the_class_nor_the_course(hostile_class):
    tmp, rows, _, _ = hostile_class
    for secret in (tmp / "grades.csv", tmp / "feedback" / "control" / "junior" / "01_tiny.html"):
        assert secret.exists(), f"{secret} should exist while the snooper runs, or the test proves nothing"
    assert (rows["zz_snooper"]["score"], rows["zz_snooper"]["status"]) == ("5", "ok"), \
        "the snooper read something outside its scratch directory (or could not use its scratch directory)"


def test_a_fork_loop_ends_its_own_submission_with_a_status(hostile_class):
    _, rows, stderr, _ = hostile_class
    assert rows["forkbomb"]["score"] == "0"
    assert rows["forkbomb"]["status"].startswith("too many processes"), rows["forkbomb"]["status"]
    assert (rows["control"]["score"], rows["control"]["status"]) == ("5", "ok")
    assert "Traceback" not in stderr, f"the grader's terminal shows a traceback:\n{stderr[-2000:]}"


def test_without_namespaces_grading_says_so_once_and_goes_on(tmp_path):
    # no `unshare` on the PATH: the sandbox keeps its limits only
    rows, stderr, mark = _grade(tmp_path, {"control": REFERENCE_EX1}, "--workers", "1", PATH="/nonexistent")
    assert (rows["control"]["score"], rows["control"]["status"]) == ("5", "ok")
    assert stderr.count("sandbox: resource limits only") == 1, stderr
    assert not alive(mark)


GRADER = """
import sys
from nbformat.v4 import new_code_cell, new_notebook
from autograder.pipeline.execute import execute
nb = new_notebook(cells=[new_code_cell(sys.argv[1]), new_code_cell("import time; time.sleep(300)")])
nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
execute(nb, timeout=600)
"""


def _running(word: str) -> bool:
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                if word.encode() in f.read():
                    return True
        except OSError:
            continue
    return False


def test_a_grader_killed_mid_notebook_leaves_nothing_behind():
    mark = uuid.uuid4().hex
    # the daemon's name is made in the kernel: the grader's own argv must not match it
    daemon = ("import os, subprocess, sys\n"
              "subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(300)', "
              "'ptlab-daemon-' + os.environ['PTLAB_TEST_MARK']], start_new_session=True)\n")
    grader = subprocess.Popen([sys.executable, "-c", GRADER, daemon], cwd=ROOT, stdin=subprocess.DEVNULL,
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                              env=dict(os.environ, PTLAB_TEST_MARK=mark))
    try:
        deadline = time.monotonic() + 90
        while not _running(f"ptlab-daemon-{mark}"):
            assert grader.poll() is None and time.monotonic() < deadline, "the daemon never started"
            time.sleep(0.2)
    finally:
        grader.kill()  # SIGKILL: the grader cannot shut its kernel down
        grader.wait()
    deadline = time.monotonic() + 10
    while alive(mark) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert not alive(mark), "the kernel (or its daemon) outlived the grader that started it"
