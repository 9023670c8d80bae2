"""Asking the session's check server (check_server.py) for a check: started on the first ask, found again by a
key of the grader's code and grading environment, asked over a Unix socket in a private folder of /tmp. The
answer's lines before the last are progress events (each cell as it starts); the last is the check's result.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from autograder.course import GRADING_ENV

ENABLE_ENV = "PTLAB_CHECK_SERVER"
# The JupyterLab process of `make lab` (which execs it, so this is its pid): the server and its kernels leave with
# it. Keyed like every PTLAB_ variable, so each launch has a server of its own.
LAB_ENV = "PTLAB_LAB_PID"
# What a grade depends on besides the files: these variables, and the grader's own code.
_KEYED = ("PYTHONPATH", "PATH", "OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MPLBACKEND")
_UNKEYED = (GRADING_ENV, ENABLE_ENV, "PTLAB_CHECK_SERVER_IDLE")
_PACKAGE = Path(__file__).resolve().parent.parent


def wanted() -> bool:
    # Never under pytest (a test's subprocess inherits PYTEST_CURRENT_TEST): a server outlives its check, and
    # nothing may outlive a test; tests of the server itself drop that variable.
    return (os.environ.get(ENABLE_ENV) == "1" and not os.environ.get(GRADING_ENV)
            and "PYTEST_CURRENT_TEST" not in os.environ)


def key() -> str:
    h = hashlib.sha256(sys.executable.encode())
    for name in sorted(os.environ):
        if (name.startswith("PTLAB_") or name in _KEYED) and name not in _UNKEYED:
            h.update(f"{name}={os.environ[name]}\0".encode())
    for path in sorted(_PACKAGE.rglob("*.py")):
        h.update(f"{path}:{path.stat().st_mtime_ns}\0".encode())
    config = _PACKAGE.parent / "nbgrader_config.py"
    if config.exists():
        h.update(str(config.stat().st_mtime_ns).encode())
    return h.hexdigest()[:16]


def lab_pid() -> int | None:
    try:
        pid = int(os.environ.get(LAB_ENV, ""))
    except ValueError:
        return None
    return pid if pid > 0 else None


def lab_gone() -> bool:
    """Whether the JupyterLab this session was started from has stopped (False when there is none to watch)."""
    pid = lab_pid()
    if pid is None:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    except PermissionError:
        return False  # alive, another user's: a pid reused since, which the server's watch (a pidfd) tells apart
    return False


def folder() -> Path:
    return Path(tempfile.gettempdir()) / f"ptlab-check-{os.getuid()}"


def _request(sock_path: Path, message: dict, timeout: float | None, progress=None) -> dict:
    """The server's answer to `message`; the lines before it are progress events, handed to `progress`."""
    conn = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        conn.settimeout(timeout)
        conn.connect(str(sock_path))
        conn.sendall(json.dumps(message).encode() + b"\n")
        with conn.makefile("rb") as answer:
            while True:
                line = answer.readline()
                if not line:
                    raise OSError("the check server closed the connection")
                got = json.loads(line)
                if "progress" not in got:
                    return got
                if progress is not None:
                    progress(got["progress"])
    finally:
        conn.close()


def _start(sock_path: Path) -> None:
    subprocess.Popen([sys.executable, "-m", "autograder.learner.check_server", str(sock_path)],
                     stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                     start_new_session=True, close_fds=True, cwd=str(_PACKAGE.parent))
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        with contextlib.suppress(OSError, ValueError):
            if _request(sock_path, {"ping": True}, 5).get("pong"):
                return
        time.sleep(0.1)
    raise OSError("the check server did not start")


def ask(notebook: str, as_json: bool, record: bool, timeout: int | None,
        finish: bool = False, progress=None) -> tuple[int, str, str] | None:
    """What `run` would give, computed by this session's server (started if need be); None when there is no
    server to be had, and the caller then checks in its own process. `progress` is called as `run`'s would be,
    while the server checks."""
    if lab_gone():  # a check asked as JupyterLab stops: nothing may outlive it, this check included
        return 2, "", "check: JupyterLab has stopped, so nothing was checked\n"
    home = folder()
    try:
        home.mkdir(mode=0o700, exist_ok=True)
        if home.stat().st_uid != os.getuid() or home.stat().st_mode & 0o077:
            return None  # not a private folder of this user's: do not talk through it
        sock_path = home / f"{key()}.sock"
        message = {"argv": [str(Path(notebook).absolute()), as_json, record, timeout, finish], "shown": notebook,
                   "progress": progress is not None}
        try:
            got = _request(sock_path, message, None, progress)
        except (OSError, ValueError):
            _start(sock_path)
            got = _request(sock_path, message, None, progress)
        return int(got["code"]), got["out"], got["err"]
    except (OSError, ValueError, KeyError):
        return None


# A server answers between two pieces of work: one preparing the next notebook's reference (a run of it) may take
# a while on a loaded machine before it hears the request.
STOP_WAIT = 120


def stop_all() -> int:
    """Ask every server of this user to leave now; returns how many were asked."""
    asked, home = 0, folder()
    for sock_path in home.glob("*.sock") if home.is_dir() else []:
        with contextlib.suppress(OSError, ValueError):
            _request(sock_path, {"stop": True}, STOP_WAIT)
            asked += 1
    return asked


@contextlib.contextmanager
def terminal_line(notebook: str, stream=None):
    """`make check` in a terminal: the self-check cell's live line (the running cell, the seconds) on stdout
    while the block grades (live_line.py); yields the `progress` callback that `ask` and `check_server.run` take."""
    from autograder.learner import live_line
    from autograder.learner.selfcheck import PROGRESS_PREFIX, CheckProgress, progress_line

    p, line, name = CheckProgress(started=time.monotonic()), live_line.Terminal(stream), Path(notebook).name
    try:
        with live_line.ticking(lambda: line.show(progress_line(name, p, time.monotonic()))):
            yield lambda event: p.take(PROGRESS_PREFIX + json.dumps(event), time.monotonic())
    finally:
        line.end()
