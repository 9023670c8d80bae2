"""A check server for a study session: the grader's own start (nbgrader's imports, the fork server's torch)
is paid once, not at every self-check, and the next check's kernel is started while the learner edits.

`python -m autograder check` asks it when PTLAB_CHECK_SERVER=1 (`make lab` sets it for JupyterLab, so every
self-check cell asks it); the first ask starts it. It grades one notebook at a time, in its main thread,
exactly as `check` does in its own process (the same function, `run`), each in a fresh sandboxed kernel
forked from its fork server. A check with progress (the self-check cell's) streams each cell as it starts, one
line each, before the answer; when its client goes away (the learner pressed stop, or the cell's time ran out)
the server abandons that check at once, its kernel killed, and waits for the next one. It leaves after IDLE seconds without a check, and a server is only ever asked
by a client with the same grader code and the same grading environment (a key in its socket's name), so an
updated course or another setting starts a new one. Its socket is in a private (0700) folder of /tmp, which
sandboxed kernels do not see (they get a /tmp of their own).

    python -m autograder.learner.check_server SOCKET     (started by `ask`)
"""

from __future__ import annotations

import contextlib
import hashlib
import io
import json
import os
import select
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

from autograder.course import GRADING_ENV

ENABLE_ENV = "PTLAB_CHECK_SERVER"
IDLE = int(os.environ.get("PTLAB_CHECK_SERVER_IDLE", "900"))  # seconds without a check before it leaves
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


def folder() -> Path:
    return Path(tempfile.gettempdir()) / f"ptlab-check-{os.getuid()}"


def run(notebook: str, as_json: bool, record: bool, timeout: int | None, finish: bool = False,
        progress=None) -> tuple[int, str, str]:
    """(exit code, stdout, stderr) of `python -m autograder check`, computed in this process. `progress`: called
    with each phase and cell as it starts (`check --progress`)."""
    from autograder.course import SOURCE_DIR, GradingInputError
    from autograder.learner.next_steps import after
    from autograder.learner.session import after_check
    from autograder.pipeline.check import grade_notebook, render_table

    try:
        report = grade_notebook(Path(notebook), timeout=timeout, kernels=_kernels(), progress=progress)
    except GradingInputError as e:
        out = json.dumps({"notebook": notebook, "error": str(e)}) + "\n" if as_json else ""
        return 2, out, f"cannot grade: {e}\n"
    if record:
        from autograder.learner.progress import record as remember

        remember(Path(notebook), report)
    # An interview or a review: its clock, history and scorecard; a course notebook: what to do next.
    session = after_check(Path(notebook), report, finish=finish)
    nexts: list[str] = []
    if not session:
        tier, name = Path(report.source).parts[-2:]
        _graded.append(SOURCE_DIR / tier / name)
        nexts = after(Path(notebook), SOURCE_DIR / tier / name, report.score, report.max_score)
    if as_json:
        got = dict(report.to_json(), next=nexts)
        if session:
            got["session"] = session
        out = json.dumps(got)
    else:
        out = render_table(report) + "".join(f"\n  {line}" for line in nexts)
        if session:
            from autograder.learner.scorecard import render_text

            if session.get("time_line"):
                out += f"\n  {session['time_line']}"
            if session.get("card"):
                out += "\n\n" + render_text(session["card"]) + f"\n  scorecard: {session['scorecard']}"
    return (0 if report.score >= report.max_score else 1), out + "\n", ""


_serving = False
_graded: list[Path] = []  # the sources checked, latest last: the server prepares the next one's reference


def _kernels():
    """In the server, the kernel started after the last check (isolation/warm.py); in a one-off check, none."""
    if not _serving:
        return None
    from autograder.isolation import warm

    return warm.take


# ---- client -------------------------------------------------------------------------------------------

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


def stop_all() -> int:
    """Ask every server of this user to leave now; returns how many were asked."""
    asked = 0
    for sock_path in folder().glob("*.sock") if folder().is_dir() else []:
        with contextlib.suppress(OSError, ValueError):
            _request(sock_path, {"stop": True}, 5)
            asked += 1
    return asked


# ---- server -------------------------------------------------------------------------------------------

PREPARE_AFTER = 3.0  # seconds of quiet after a check before the next notebook's reference runs
_prepared: set[Path] = set()


def _upcoming() -> Path | None:
    """The notebook after the last one checked, when its reference reports are not on this machine yet: the
    learner's first check of it then waits for one run, not two."""
    if not _graded:
        return None
    from autograder.course import source_notebooks
    from autograder.pipeline.expected import Reference

    order = source_notebooks()
    if _graded[-1] not in order or order.index(_graded[-1]) + 1 >= len(order):
        return None
    following = order[order.index(_graded[-1]) + 1]
    if following in _prepared or Reference(following).cached() is not None:
        return None
    return following


def _prepare(source: Path) -> None:
    from autograder.pipeline.cells import read
    from autograder.pipeline.expected import Reference

    _prepared.add(source)  # tried once: a reference that fails here fails the learner's check, which says why
    with contextlib.suppress(Exception):
        Reference(source).reports(read(source))


class ClientGone(BaseException):
    """The client of the check under way hung up: abandon the check (a BaseException, so that no `except
    Exception` in the pipeline takes it for a fault of the notebook)."""


class _Watch:
    """While a check runs, watch its client's connection; when the client hangs up, interrupt the main thread
    (which runs the check, blocked in the kernel's event loop) with SIGUSR1, whose handler raises ClientGone."""

    def __init__(self, conn: socket.socket):
        self.conn, self.lock, self.done = conn, threading.Lock(), threading.Event()
        self.armed = True
        self.thread = threading.Thread(target=self._watch, args=(threading.main_thread().ident,), daemon=True)
        self.thread.start()

    def _watch(self, main: int) -> None:
        while not self.done.wait(0.2):
            try:
                readable, _, _ = select.select([self.conn], [], [], 0)
                hung_up = bool(readable) and self.conn.recv(1, socket.MSG_PEEK) == b""
            except OSError:
                hung_up = True
            if hung_up:
                with self.lock:
                    if self.armed:
                        signal.pthread_kill(main, signal.SIGUSR1)
                return

    def disarm(self) -> None:
        # After this no signal is sent, and one already sent finds the handler disarmed: it does nothing.
        with self.lock:
            self.armed = False
        self.done.set()
        self.thread.join()


_watching: _Watch | None = None


def _client_gone(signum, frame) -> None:
    if _watching is not None and _watching.armed:
        raise ClientGone()


def _answer(message: dict, conn: socket.socket | None = None) -> dict | None:
    """The reply to a check request; None when its client left before the answer (nothing is sent then)."""
    global _watching
    path, as_json, record, timeout, finish = message["argv"]
    shown = message.get("shown") or path
    progress = None
    if conn is not None and message.get("progress"):
        def progress(event: dict) -> None:
            try:
                conn.sendall(json.dumps({"progress": event}).encode() + b"\n")
            except OSError:
                raise ClientGone() from None

    _watching = _Watch(conn) if conn is not None else None
    try:
        try:
            code, out, err = run(path, as_json, record, timeout, finish, progress=progress)
        finally:
            if _watching is not None:
                _watching.disarm()
    except ClientGone:
        if _watching is not None:
            _watching.disarm()
        return None
    finally:
        _watching = None
    return {"code": code, "out": out.replace(path, shown), "err": err.replace(path, shown)}


def serve(sock_path: Path) -> None:
    global _serving
    import shutil

    from autograder.isolation import sandbox, warm, zygote

    _serving = True
    # Killed politely (a logout, kill PID): leave as when idle, with the socket, fork server and warm kernel.
    signal.signal(signal.SIGTERM, lambda signum, frame: sys.exit(0))
    signal.signal(signal.SIGUSR1, _client_gone)
    if sandbox.enabled() and shutil.which("unshare"):
        zygote.prestart()
    warm.enable()
    with contextlib.suppress(FileNotFoundError):
        sock_path.unlink()  # a server that died left it; a live one would have answered the client
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(str(sock_path))
    listener.listen(8)
    listener.settimeout(IDLE)
    import autograder.pipeline.check  # noqa: F401  (the imports every check needs, before the first one)

    last = time.monotonic()
    try:
        while True:
            upcoming = _upcoming()
            listener.settimeout(PREPARE_AFTER if upcoming else max(1.0, IDLE - (time.monotonic() - last)))
            try:
                conn, _ = listener.accept()
            except TimeoutError:
                if upcoming:
                    _prepare(upcoming)
                    continue
                if time.monotonic() - last >= IDLE:
                    return
                continue
            last = time.monotonic()
            with conn, conn.makefile("rb") as lines:
                try:
                    message = json.loads(lines.readline() or b"{}")
                    if message.get("stop"):
                        conn.sendall(b'{"stopped": true}\n')
                        return
                    if message.get("ping"):
                        reply = {"pong": True}
                    else:
                        sink = io.StringIO()
                        with contextlib.redirect_stdout(sink), contextlib.redirect_stderr(sink):
                            reply = _answer(message, conn)
                        if reply is None:
                            continue  # its client left: no one to answer
                    conn.sendall(json.dumps(reply).encode() + b"\n")
                except Exception as e:  # one bad request must not end the session's server
                    with contextlib.suppress(OSError):
                        conn.sendall(json.dumps({"code": 2, "out": "", "err": f"check server: {e}\n"}).encode()
                                     + b"\n")
    finally:
        listener.close()
        with contextlib.suppress(FileNotFoundError):
            sock_path.unlink()


if __name__ == "__main__":
    serve(Path(sys.argv[1]))
