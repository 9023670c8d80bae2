"""Grading isolation, third round: totals per submission, and secrets.

- memory is capped per submission, all its processes and its tmpfs together: four children that each stay
  under the cap but not together, and memory hidden in /dev/shm, end with `out of memory: ...`; through a
  cgroup where the grader can make one, through the sandbox's init otherwise (both are run here where the
  cgroup works; the fallback alone where it does not);
- what a submission writes to its scratch directory, /tmp and /dev/shm together is capped;
- the kernel's environment holds only the allow-list: a grader's cloud key, token and password never reach it.

A control student in every batch is graded normally. Each hostile hand-in answers ex1 with the reference only
when its attack came to nothing, so full marks would mean the defence failed.
"""

import csv
import time
import uuid

import pytest

from autograder.isolation import cgroup, environment, sandbox
from tests.tiny_course import alive, cli, hand_ins

pytestmark = [pytest.mark.kernel,
              pytest.mark.skipif(not sandbox.namespaces_work(), reason="no user namespaces here: limits only")]

REFERENCE_EX1 = "def double(x):\n    return 2 * x\n"
LIMITS = {"PTLAB_MEM_LIMIT_GB": "1.5", "PTLAB_DISK_LIMIT_MB": "1000"}

# Four fresh interpreters (a small address space each, so the per-process cap is not what stops them) that
# hold 450 MB each: 1.8 GB together, over the 1.5 GB cap, each well under it.
CHILDREN = '''import subprocess, sys, time
HOG = "import sys, time; x = b'1' * (450 << 20); sys.stdout.write('held'); sys.stdout.flush(); time.sleep(20)"
kids = [subprocess.Popen([sys.executable, "-c", HOG], stdout=subprocess.PIPE) for _ in range(4)]
held = sum(k.stdout.read(4) == b"held" for k in kids)
time.sleep(3)
survived = sum(k.poll() is None for k in kids)
def double(x):
    return 2 * x if held == 4 and survived == 4 else 0
'''

# 900 MB in /dev/shm (memory, though no process holds it; three files, each under the per-file limit) and one
# child of 800 MB.
SHM = '''import subprocess, sys, time
for i in range(3):
    with open(f"/dev/shm/hidden{i}", "wb") as f:
        for _ in range(6):
            f.write(b"1" * (50 << 20))
HOG = "import sys, time; x = b'1' * (800 << 20); sys.stdout.write('held'); sys.stdout.flush(); time.sleep(20)"
kid = subprocess.Popen([sys.executable, "-c", HOG], stdout=subprocess.PIPE)
held = kid.stdout.read(4) == b"held"
time.sleep(3)
def double(x):
    return 2 * x if held and kid.poll() is None else 0
'''

# 350 MB in each of the three places: 1050 MB, over the 1000 MB cap, each file under the per-file limit (and
# the 700 MB in tmpfs under the memory cap).
DISK = '''import os, time
for folder in (os.getcwd(), "/tmp", "/dev/shm"):
    with open(os.path.join(folder, "filler"), "wb") as f:
        for _ in range(35):
            f.write(b"1" * (10 << 20))
time.sleep(4)
def double(x):
    return 2 * x
'''

SECRETS = {"AWS_SECRET_ACCESS_KEY": "ptlab-fake-cloud-key", "GITHUB_TOKEN": "ptlab-fake-token",
           "DB_PASSWORD": "ptlab-fake-password", "SOME_TOOL_SETTING": "ptlab-fake-other"}
READER = f'''import os
found = [k for k in os.environ if k in {sorted(SECRETS)!r}]
for pid in ("self", "1"):
    try:
        found += ["/proc/" + pid] if b"ptlab-fake-" in open("/proc/" + pid + "/environ", "rb").read() else []
    except OSError:
        pass
needed = all(k in os.environ for k in ("PATH", "HOME", "PTLAB_TEST_MARK", "OMP_NUM_THREADS"))
needed = needed and os.environ.get("OMP_WAIT_POLICY") == "PASSIVE"  # no spinning threads on a busy machine
def double(x):
    return 2 * x if needed and not found else 0
'''


def _grade(tmp, students, **env):
    sub = hand_ins(tmp, students)
    out, mark = tmp / "grades.csv", uuid.uuid4().hex
    done = cli(tmp, "grade", str(sub), "--out", str(out), "--workers", "1", "--timeout", "60",
               PTLAB_TEST_MARK=mark, OMP_NUM_THREADS="1", **LIMITS, **env)
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr, done.stderr[-2000:]
    assert not alive(mark), "a process of the batch outlived it"
    with out.open() as f:
        return {r["student"]: r for r in csv.DictReader(f)}


def _assert_out_of_memory(rows):
    assert (rows["control"]["score"], rows["control"]["status"]) == ("5", "ok")
    for hog in ("children", "shm"):
        assert rows[hog]["status"].startswith("out of memory"), (hog, rows[hog]["status"])
        assert rows[hog]["score"] != "5", f"{hog}: its memory was never capped"


@pytest.mark.skipif(not cgroup.works(), reason="no writable memory cgroup here: the init's watchdog applies")
def test_a_cgroup_caps_a_submissions_memory_all_processes_and_tmpfs_together(tmp_path):
    before = set(cgroup.own().iterdir())
    rows = _grade(tmp_path, {"control": REFERENCE_EX1, "children": CHILDREN, "shm": SHM})
    _assert_out_of_memory(rows)
    deadline = time.monotonic() + 15  # only empty ones: a test beside this one may have a kernel running
    while (left := [g for g in set(cgroup.own().iterdir()) - before
                    if g.name.startswith(cgroup.PREFIX) and not (g / "cgroup.procs").read_text().strip()]):
        assert time.monotonic() < deadline, f"a submission's cgroup was left behind: {left}"
        time.sleep(0.2)


def test_without_a_cgroup_the_init_caps_memory_and_disk_and_no_secret_reaches_the_kernel(tmp_path):
    rows = _grade(tmp_path, {"control": REFERENCE_EX1, "children": CHILDREN, "shm": SHM, "disk": DISK,
                             "secrets": READER}, PTLAB_CGROUP="0", **SECRETS)
    _assert_out_of_memory(rows)
    assert rows["disk"]["status"].startswith("out of disk space"), rows["disk"]["status"]
    assert rows["disk"]["score"] == "0"
    assert (rows["secrets"]["score"], rows["secrets"]["status"]) == ("5", "ok"), \
        "the kernel saw a secret of the grader's environment, or missed what it needs"


def test_a_kernels_openmp_threads_wait_passively_unless_the_grader_says_otherwise():
    # Spinning OpenMP threads beside busy processes made a 0.5 s training loop take 27 s (issue 38).
    assert environment.for_kernel({"PATH": "/bin"}).get("OMP_WAIT_POLICY") == "PASSIVE", (
        "a kernel's environment should ask OpenMP to wait passively (OMP_WAIT_POLICY=PASSIVE)")
    assert environment.for_kernel({"OMP_WAIT_POLICY": "ACTIVE"})["OMP_WAIT_POLICY"] == "ACTIVE", (
        "a grader that sets OMP_WAIT_POLICY itself keeps its choice")


def test_the_status_line_says_which_memory_cap_applies(monkeypatch):
    assert "memory" in sandbox.memory_mechanism()
    monkeypatch.setenv("PTLAB_CGROUP", "0")
    assert "the sandbox's init watches" in sandbox.memory_mechanism()
