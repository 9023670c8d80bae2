"""The platforms' containers, where `unshare` is refused (Docker's default seccomp profile, as on Gradescope and
PrairieLearn) and the grader runs as root: the kernel runs as an unprivileged user of its own (isolation/lone.py).

Each platform's own entry point runs here inside a stand-in for its container: a private mount namespace in
which this Python can be run by any user (as in the platforms' images; here it lives under /root, mode 0700),
with `unshare` forbidden by a seccomp filter (Gradescope) or by PTLAB_SANDBOX=limits (PrairieLearn). The
stand-in for /autograder or /grade is open to every user, as the platforms' are, so an attack that fails
fails because of the sandbox. A hostile hand-in tries to forge results.json, replace a file of the bundle,
read the source notebook, the reference cache and the hand-ins, signal the grader, write outside its scratch
directory, and leave a process behind that keeps trying after its notebook: all of it must fail, and
results.json must hold the score the grader computed.
"""

from __future__ import annotations

import json
import os
import platform
import shutil
import stat
import subprocess
import sys
import tempfile
import time
import uuid
import zipfile
from pathlib import Path

import nbformat
import pytest

from autograder.isolation import lone
from autograder.isolation.limits import MAX_TASKS
from tests.tiny_course import ROOT, alive, blank, make_course, with_answer
from tests.tiny_course import cli as course_cli

SECCOMP_ARCH = {"x86_64": (0xC000003E, 272), "aarch64": (0xC00000B7, 97)}  # (AUDIT_ARCH_*, __NR_unshare)
pytestmark = [pytest.mark.kernel,
              pytest.mark.skipif(os.geteuid() != 0, reason="the platforms' graders run as root; this user is not"),
              pytest.mark.skipif(not shutil.which("unshare"), reason="no unshare to build the container stand-in")]

# Installs a seccomp filter that answers unshare(2) with EPERM, as Docker's default profile does, then execs
# its arguments. Root needs no no_new_privs for it; the filter is inherited by everything started after.
SECCOMP = r'''
import ctypes, os, platform, struct, sys
arch, nr = %r[platform.machine()]
def op(code, jt, jf, k):
    return struct.pack("HBBI", code, jt, jf, k)
ALLOW, EPERM = 0x7FFF0000, 0x00050000 | 1
prog = b"".join([op(0x20, 0, 0, 4), op(0x15, 1, 0, arch), op(0x06, 0, 0, ALLOW),
                 op(0x20, 0, 0, 0), op(0x15, 0, 1, nr), op(0x06, 0, 0, EPERM), op(0x06, 0, 0, ALLOW)])
buf = ctypes.create_string_buffer(prog)
class Prog(ctypes.Structure):
    _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_void_p)]
libc = ctypes.CDLL(None, use_errno=True)
if libc.prctl(22, 2, ctypes.byref(Prog(len(prog) // 8, ctypes.addressof(buf))), 0, 0) != 0:
    raise SystemExit("seccomp: errno %%d" %% ctypes.get_errno())
os.execvp(sys.argv[1], sys.argv[1:])
''' % (SECCOMP_ARCH,)


def container(cmd: list[str], hold: Path, seccomp: bool, open_python: bool = True) -> list[str]:
    """`cmd` in a stand-in for the platform's container (see the module's docstring). `hold`: an empty folder
    of the test's, a mount point for a moment. `open_python=False`: leave this Python where it is, which
    may be out of other users' reach."""
    base = Path(sys.base_prefix).resolve()
    closed = next((p for p in reversed(base.parents) if os.stat(p).st_mode & 0o005 != 0o005), None)
    lines = ["set -e"]
    if closed is not None and open_python:  # the interpreter is out of other users' reach: make the path to it open
        lines += [f"mount --bind '{base}' '{hold}'", f"mount -t tmpfs -o mode=755 none '{closed}'",
                  f"mkdir -p '{base}'", f"mount --bind '{hold}' '{base}'", f"umount '{hold}'"]
    lines.append('exec "$@"')
    wrap = [sys.executable, "-I", "-S", "-c", SECCOMP] if seccomp else []
    return ["unshare", "--mount", "--propagation", "private", "sh", "-c", "\n".join(lines), "sh", *wrap, *cmd]


def closed_folders(path: Path) -> list[Path]:
    """The folders on the way to `path` that other users cannot pass through."""
    return [p for p in reversed(path.parents) if os.stat(p).st_mode & 0o005 != 0o005]


def open_in_stand_in() -> bool:
    """Whether the stand-in opens the way to this Python: only the base interpreter's folder is reopened, so a
    virtual environment in a closed folder (a copy of the project under a 0700 folder) stays closed."""
    base = closed_folders(Path(sys.base_prefix).resolve())[:1]
    return all(p in base or any(b in p.parents for b in base) for p in closed_folders(Path(sys.executable).parent))


needs_open_python = pytest.mark.skipif(not open_in_stand_in(), reason="this virtual environment is in a folder "
                                       "closed to other users: the stand-in cannot open it")

HOSTILE = '''def double(x):
    return 2 * x


import os, subprocess
_R, _LOG, _PY, _MARK = {root!r}, {log!r}, {python!r}, {mark!r}


def _try(name, attack):
    try:
        attack()
        outcome = "DONE"
    except Exception as e:
        outcome = type(e).__name__
    with open(os.path.join(_LOG, name), "w") as f:
        f.write(outcome)


def _append(path, text):
    with open(path, "a") as f:
        f.write(text)


_FORGED = '{{"score": 999, "output": "forged", "tests": []}}'
_try("write_results", lambda: _append(_R + {results!r}, _FORGED))
_try("new_results", lambda: _append(_R + {results_dir!r} + "/forged.json", _FORGED))
_try("overwrite_bundle", lambda: _append(_R + {bundle_file!r}, "echo pwned"))
_try("replace_grader", lambda: os.replace(_R + {grader_file!r}, _R + {grader_file!r} + ".old"))
_try("read_source", lambda: open(_R + {source!r}).read())
_try("list_cache", lambda: os.listdir(_R + {cache!r}))
_try("list_handins", lambda: os.listdir(_R + {handins!r}))
_try("write_top", lambda: _append(_R + "/pwned", "x"))
_try("signal_launcher", lambda: os.kill(os.getppid(), 9))
_try("scratch", lambda: _append("scratch-ok", "x"))


def _flood():  # more processes than a kernel may have: the cap counts this user's, so it holds here too
    started = []
    try:
        for _ in range({cap} + 10):
            started.append(subprocess.Popen(["sleep", "60"], stdin=subprocess.DEVNULL))
    finally:
        for p in started:
            p.kill()
            p.wait()


_try("exceed_process_cap", _flood)
with open(os.path.join(_LOG, "status"), "w") as f:
    f.write(open("/proc/self/status").read())
_LATER = """import os, time
for n in range(600):
    open(os.path.join(LOG, "later-%d" % n), "w").close()
    for path in RESULTS:
        try:
            with open(path, "w") as f:
                f.write(FORGED)
        except OSError:
            pass
    time.sleep(0.2)
""".replace("LOG", repr(_LOG)).replace("RESULTS", repr([_R + {results!r}, _R + {bundle_file!r}])).replace(
    "FORGED", repr(_FORGED))
subprocess.Popen([_PY, "-c", _LATER, _MARK], start_new_session=True, stdin=subprocess.DEVNULL,
                 stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
'''
ATTACKS = ("write_results", "new_results", "overwrite_bundle", "replace_grader", "read_source", "list_cache",
           "list_handins", "write_top", "signal_launcher", "exceed_process_cap")


@pytest.fixture(scope="module")
def course(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("container")
    return tmp, make_course(tmp)


@pytest.fixture
def stand_in():
    """A folder open to every user, as /autograder and /grade are, and an open log for the hostile code."""
    # in /tmp: the suite's own temporary folder is closed to other users, as a container's /tmp is not
    made = [Path(tempfile.mkdtemp(prefix="ptlab-container-", dir="/tmp")) for _ in range(3)]
    top, log, hold = made
    top.chmod(0o755)
    log.chmod(0o1777)
    yield top, log, hold
    for p in made:
        shutil.rmtree(p, ignore_errors=True)


def hostile(src: Path, log: Path, mark: str, **paths: str) -> str:
    nb = blank(nbformat.read(str(src), 4))  # ex1 answered (2 points of 5), ex2 left blank
    answer = HOSTILE.format(log=str(log), python=sys.executable, mark=mark, cap=MAX_TASKS, **paths)
    return nbformat.writes(with_answer(nb, "ex1_double", answer))


def env_for(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PTLAB_SOURCE_DIR", "PTLAB_CACHE_DIR"))}
    env.update(TMPDIR="/tmp", **extra)  # the suite's own temporary folder is closed to other users
    return env


def outcomes(log: Path) -> dict[str, str]:
    return {name: (log / name).read_text() for name in ATTACKS if (log / name).exists()}


def later_ticks(log: Path) -> int:
    return len(list(log.glob("later-*")))


def assert_held(log: Path, mark: str) -> None:
    """Every attack was tried and failed; the process left behind is gone and writes no more."""
    tried = outcomes(log)
    assert set(tried) == set(ATTACKS), f"the hostile cell did not run in full: {tried}"
    assert not [name for name, outcome in tried.items() if outcome == "DONE"], tried
    assert (log / "scratch").read_text() == "DONE"  # its own scratch directory is writable
    status = dict(line.split(":", 1) for line in (log / "status").read_text().splitlines() if ":" in line)
    uids = {int(u) for u in status["Uid"].split()}
    assert len(uids) == 1 and lone.is_lone(uids.pop())  # real, effective, saved and file uid: its own
    assert {int(g) for g in status["Gid"].split()} == {int(status["Uid"].split()[0])}
    assert status["Groups"].strip() == ""
    assert status["NoNewPrivs"].strip() == "1" and int(status["CapEff"], 16) == 0 and int(status["CapPrm"], 16) == 0
    ticks = later_ticks(log)
    assert ticks >= 1, "the process left behind never started: the test proves nothing"
    time.sleep(1.5)
    assert later_ticks(log) == ticks, "a process the kernel started outlived the grading"
    assert not alive(mark)


def gradescope_stand_in(tmp: Path, src: Path, top: Path, log: Path) -> str:
    """/autograder with the bundle in source/ and the hostile hand-in in submission/; returns its mark."""
    zip_path = tmp / "gradescope.zip"
    done = course_cli(tmp, "bundle", "gradescope", "--tier", "junior", "--notebooks", "01", "--out", str(zip_path),
                      PTLAB_CACHE_DIR=str(tmp / "cache"))
    assert done.returncode == 0, done.stderr
    with zipfile.ZipFile(zip_path) as z:
        z.extractall(top / "source")
    (top / "source").chmod(0o755)
    for script in ("setup.sh", "run_autograder"):
        (top / "source" / script).chmod(0o755)
    (top / "submission").mkdir(mode=0o755)
    mark = f"ptlab-container-{uuid.uuid4().hex}"
    (top / "submission" / "01_tiny.ipynb").write_text(hostile(
        src, log, mark, root=str(top), results="/results/results.json", results_dir="/results",
        bundle_file="/source/run_autograder", grader_file="/source/autograder/classroom/gradescope.py",
        source="/source/notebooks/junior/01_tiny.ipynb", cache="/source/.ptlab-cache",
        handins="/submission"))
    return mark


@needs_open_python
def test_gradescope_bundle_with_unshare_forbidden_holds(course, stand_in):
    if platform.machine() not in SECCOMP_ARCH:
        pytest.skip(f"no seccomp filter written for {platform.machine()}")
    tmp, src = course
    top, log, hold = stand_in
    mark = gradescope_stand_in(tmp, src, top, log)
    before = (top / "source" / "run_autograder").read_bytes()
    done = subprocess.run(container([str(top / "source" / "run_autograder")], hold, seccomp=True), cwd=top,
                          env=env_for(PTLAB_AUTOGRADER_ROOT=str(top), PTLAB_PYTHON=sys.executable),
                          capture_output=True, text=True, timeout=400)
    assert done.returncode == 0, done.stdout + done.stderr
    res = json.loads((top / "results" / "results.json").read_text())
    assert res["score"] == 2, res["output"]  # the grader's own: ex1 right, ex2 blank
    assert [(t["name"], t["score"]) for t in res["tests"]] == [("01_tiny: ex1_double_test", 2),
                                                              ("01_tiny: ex2_square_test", 0)]
    assert "user of its own" in res["output"]  # the note says which sandbox graded it
    assert_held(log, mark)
    assert (top / "source" / "run_autograder").read_bytes() == before
    assert (top / "source" / "autograder" / "classroom" / "gradescope.py").exists()
    assert list((top / "results").iterdir()) == [top / "results" / "results.json"]
    for closed in ("source", "results", "submission"):
        mode = (top / closed).stat()
        assert mode.st_uid == 0 and stat.S_IMODE(mode.st_mode) & 0o077 == 0, closed


def test_no_kernel_runs_as_root_where_its_own_user_cannot_run_python(course, stand_in):
    """Fail closed: where this Python is out of other users' reach (here, under /root), a kernel could only
    run as root, able to rewrite everything: none starts, every notebook scores 0, and the output says why."""
    base = Path(sys.base_prefix).resolve()
    if all(os.stat(p).st_mode & 0o005 == 0o005 for p in base.parents):
        pytest.skip("this Python is open to every user here")
    tmp, src = course
    top, log, hold = stand_in
    gradescope_stand_in(tmp, src, top, log)
    done = subprocess.run(container([str(top / "source" / "run_autograder")], hold, seccomp=False, open_python=False),
                          cwd=top, env=env_for(PTLAB_AUTOGRADER_ROOT=str(top), PTLAB_PYTHON=sys.executable,
                                               PTLAB_SANDBOX="limits"),
                          capture_output=True, text=True, timeout=400)
    assert done.returncode == 0, done.stdout + done.stderr
    res = json.loads((top / "results" / "results.json").read_text())
    assert res["score"] == 0 and "sandbox REFUSED" in res["output"], res["output"]
    assert list(log.iterdir()) == [], "a kernel ran"


@needs_open_python
def test_prairielearn_entry_point_in_limits_only_mode_holds(course, stand_in):
    tmp, src = course
    top, log, hold = stand_in
    done = course_cli(tmp, "bundle", "prairielearn", "--tier", "junior", "--out", str(top),
                      PTLAB_CACHE_DIR=str(tmp / "cache"))
    assert done.returncode == 0, done.stderr
    (top / "student").mkdir(mode=0o755)
    mark = f"ptlab-container-{uuid.uuid4().hex}"
    course_dir = "/serverFilesCourse/ptlab"
    (top / "results").mkdir(mode=0o755)
    (top / "student" / "01_tiny.ipynb").write_text(hostile(
        src, log, mark, root=str(top), results="/results/results.json", results_dir="/results",
        bundle_file=course_dir + "/run.sh", grader_file=course_dir + "/autograder/classroom/prairielearn.py",
        source=course_dir + "/notebooks/junior/01_tiny.ipynb", cache=course_dir + "/.ptlab-cache",
        handins="/student"))
    before = (top / "serverFilesCourse" / "ptlab" / "run.sh").read_bytes()
    cmd = [sys.executable, "-m", "autograder", "grade-in", "prairielearn", "--root", str(top), "--tier", "junior",
           "--notebooks", "01"]
    done = subprocess.run(container(cmd, hold, seccomp=False), cwd=top / "serverFilesCourse" / "ptlab",
                          env=env_for(PTLAB_SANDBOX="limits"), capture_output=True, text=True, timeout=400)
    assert done.returncode == 0, done.stdout + done.stderr
    res = json.loads((top / "results" / "results.json").read_text())
    assert res["gradable"] is True and res["score"] == pytest.approx(0.4), res["message"]
    assert [(t["points"], t["max_points"]) for t in res["tests"]] == [(2, 2), (0, 3)]
    assert_held(log, mark)
    assert (top / "serverFilesCourse" / "ptlab" / "run.sh").read_bytes() == before
    for closed in ("serverFilesCourse", "results", "student"):
        mode = (top / closed).stat()
        assert mode.st_uid == 0 and stat.S_IMODE(mode.st_mode) & 0o077 == 0, closed


@needs_open_python
def test_not_root_without_namespaces_says_so_plainly(stand_in):
    """A developer's laptop: no namespaces, not root. The kernel runs as that user, as before, and the status
    says what that leaves open."""
    _, _, hold = stand_in
    code = ("import os; os.setgroups([]); os.setgid(65534); os.setuid(65534)\n"
            "from autograder.isolation import sandbox\n"
            "print(sandbox.lone_user(), '--lone' in sandbox.launcher('/s', '/r'), sandbox.guard(['/nowhere']))\n"
            "print(sandbox.status())\n")
    done = subprocess.run(container([sys.executable, "-c", code], hold, seccomp=False), cwd=ROOT,
                          env=env_for(PTLAB_SANDBOX="limits", PYTHONDONTWRITEBYTECODE="1"),
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    first, status = done.stdout.splitlines()[:2]
    assert first == "False False []"  # no --lone, nothing closed
    assert status.startswith("WARNING sandbox: resource limits only")
    assert "the grader is not root" in status and "the results" in status


def test_every_process_of_a_kernels_user_ends_however_it_detached(tmp_path):
    """lone.end: a session leader and a double-forked sleeper of a kernel's uid, neither a child of ours, are
    found in /proc and killed; processes of another uid are left alone."""
    uid, other = lone.uid_for(4_000_001), lone.uid_for(4_000_002)
    script = "setsid sh -c 'sleep 300 & sleep 300' & sleep 300"
    procs = [subprocess.Popen(["sh", "-c", script], user=u, group=u, extra_groups=[], cwd="/",
                              start_new_session=True) for u in (uid, other)]
    try:
        deadline = time.monotonic() + 10
        while len([p for p, u in lone._alive({uid}) if u == uid]) < 4 and time.monotonic() < deadline:
            time.sleep(0.05)
        assert len(lone._alive({uid})) >= 4
        assert lone.end({uid}) == []
        assert lone._alive({uid}) == []
        assert len(lone._alive({other})) >= 4  # another kernel's processes are not this one's to end
        scratch = tmp_path / "scratch"
        scratch.mkdir()
        lone.prepare(scratch, other)
        assert lone.recorded(scratch) == other
        assert stat.S_IMODE(scratch.stat().st_mode) == 0o1770 and scratch.stat().st_gid == other
        assert lone.release(scratch) == [] and lone._alive({other}) == []
    finally:
        for p in procs:
            p.kill()
            p.wait()
        lone.end({uid, other})


def test_a_uid_note_the_kernel_could_have_written_is_ignored(tmp_path):
    (tmp_path / lone.MARK).write_text(str(os.getuid() + 1))  # not a kernel's uid
    assert lone.recorded(tmp_path) is None
    (tmp_path / lone.MARK).unlink()
    (tmp_path / lone.MARK).write_text(str(lone.uid_for(7)))
    os.chown(tmp_path / lone.MARK, lone.uid_for(7), lone.uid_for(7))  # the kernel's own file: not trusted
    assert lone.recorded(tmp_path) is None
    (tmp_path / lone.MARK).unlink()
    (tmp_path / lone.MARK).symlink_to(tmp_path / "elsewhere")
    assert lone.recorded(tmp_path) is None
