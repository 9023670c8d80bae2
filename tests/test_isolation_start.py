"""Nothing left behind: a grader killed at any step of a kernel's start leaves no process and no file.

The sandbox kills its own grader at a given step (PTLAB_TEST_KILL_GRADER): as the launcher starts, before
unshare starts (the plain path), and before the fork server's kernel joins; as the namespace's init starts,
the init leaves a mark and waits, and the test kills the grader.
Each time, the sandbox must see that its grader is gone, start nothing more, end what it started, and
remove the scratch directory and the fork server's folder that the grader can no longer remove. (A grader
killed mid-notebook: tests/test_isolation.py.) The session-end check itself (tests/leftovers.py) is tested
on a planted leftover.
"""

import os
import subprocess
import sys
import time
import uuid

import pytest

from autograder.course import ROOT
from autograder.isolation import cgroup, sandbox
from tests import leftovers
from tests.tiny_course import alive

pytestmark = [pytest.mark.kernel,
              pytest.mark.skipif(not sandbox.namespaces_work(), reason="no user namespaces here: limits only")]

GRADER = """
from nbformat.v4 import new_code_cell, new_notebook
from autograder.pipeline.execute import execute
nb = new_notebook(cells=[new_code_cell("import time; time.sleep(60)")])
nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
execute(nb, timeout=120)
"""


@pytest.mark.parametrize("step, forks", [("launcher", "1"), ("unshare", "0"), ("init", "1"), ("init", "0"),
                                         ("join", "1")])
def test_a_grader_killed_at_any_step_of_a_kernels_start_leaves_nothing(tmp_path, step, forks):
    mark = uuid.uuid4().hex
    groups = cgroup.own() if cgroup.works() else None
    before = set(groups.iterdir()) if groups else set()
    grader = subprocess.Popen([sys.executable, "-c", GRADER], cwd=ROOT, stdin=subprocess.DEVNULL,
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                              env=dict(os.environ, PTLAB_TEST_MARK=mark, PTLAB_TEST_KILL_GRADER=step,
                                       PTLAB_ZYGOTE=forks, TMPDIR=str(tmp_path)))
    try:
        deadline = time.monotonic() + 120
        while grader.poll() is None and time.monotonic() < deadline:
            if step == "init" and list(tmp_path.glob("ptlab-run-*/.ptlab-test-init")):
                grader.kill()  # the init is up and waits: a process in its namespace may not kill the grader
            time.sleep(0.05)
        code = grader.poll()
    finally:
        grader.kill()
        grader.wait()
    assert code == -9, f"the grader was not killed at step {step!r} (exit code {code})"
    deadline = time.monotonic() + 30  # a fork server still importing torch notices when it is done
    while (alive(mark) or list(tmp_path.glob("ptlab-*"))) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert not alive(mark), f"killed at {step!r}: something of the kernel's start is still running"
    assert not list(tmp_path.glob("ptlab-*")), f"killed at {step!r}: left {list(tmp_path.glob('ptlab-*'))}"
    # the run's memory cgroup too (only empty ones count: a test beside this one may have a kernel running)
    left = [g for g in (set(groups.iterdir()) - before if groups else ())
            if g.name.startswith(cgroup.PREFIX) and not (g / "cgroup.procs").read_text().strip()]
    assert not left, f"killed at {step!r}: left the cgroup {left}"


def test_the_session_end_check_names_what_was_left(tmp_path):
    mark = uuid.uuid4().hex
    (tmp_path / "ptlab-run-planted").mkdir()
    (tmp_path / "tmpplanted.json").write_text("{}")
    (tmp_path / "unrelated.txt").write_text("")
    sleeper = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)", "ipykernel-planted"],
                               env=dict(os.environ, **{leftovers.SUITE_MARK: mark}))
    try:
        left = leftovers.report(mark, tmp_path)
    finally:
        sleeper.kill()
        sleeper.wait()
    assert any(str(sleeper.pid) in line and "ipykernel-planted" in line for line in left), left
    assert any("ptlab-run-planted" in line for line in left) and any("tmpplanted.json" in line for line in left)
    assert not any("unrelated" in line for line in left)
    assert not tmp_path.exists(), "the check removes the session's temporary folder"
