"""A check server for a study session: the grader's own start (nbgrader's imports, the fork server's torch)
is paid once, not at every self-check, and the next check's kernel is started while the learner edits.
Nothing of it outlives `make lab`: it leaves with the JupyterLab that `make lab` started (PTLAB_LAB_PID).

`python -m autograder check` asks it when PTLAB_CHECK_SERVER=1 (`make lab` sets it); the first ask starts it.
It grades one notebook at a time, in its main thread, exactly as `check` does in its own process (the same
function, `run`), each in a fresh sandboxed kernel forked from its fork server. It streams each cell as it
starts when asked to (the check cell's live line), and abandons a check whose client hangs up (hangup.py). It
leaves after IDLE seconds without a check. A server is only ever asked by a client with the same grader code and
grading environment (a key in its socket's name), so an updated course or another setting starts a new one.
Its socket is in a private (0700) folder of /tmp, which sandboxed kernels do not see (they get their own /tmp).

    python -m autograder.learner.check_server SOCKET     (started by `ask`)
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import signal
import socket
import sys
import time
from pathlib import Path


IDLE = int(os.environ.get("PTLAB_CHECK_SERVER_IDLE", "900"))  # seconds without a check before it leaves


def run(notebook: str, as_json: bool, record: bool, timeout: int | None, finish: bool = False,
        progress=None) -> tuple[int, str, str]:
    """(exit code, stdout, stderr) of `python -m autograder check`, computed in this process. `progress`: called
    with each phase and cell as it starts (`check --progress`)."""
    from autograder.course import SOURCE_DIR, GradingInputError
    from autograder.learner.next_steps import after
    from autograder.learner.session import after_check
    from autograder.pipeline.check import grade_notebook, render_table

    try:
        submitted, saved_at = _read_once(Path(notebook))
        report = grade_notebook(Path(notebook), timeout, kernels=_kernels(), progress=progress, submitted=submitted)
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
        # What was graded, as read: the check cell dates its header and names unsaved answers from this.
        got = dict(report.to_json(), next=nexts, graded={"saved_at": saved_at, "answers": _answers(submitted)})
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


def _stamp(path: Path):
    st = os.lstat(path)
    return st.st_mtime_ns, st.st_size, st.st_ino


def _read_once(path: Path):
    """(the notebook, the time it was saved): read once, so that the grade, the check's "saved at" line and its
    unsaved answers all speak of the same save, even when an autosave lands during the check. A save that lands
    during the read itself is read again."""
    from autograder.pipeline import handin

    for _ in range(5):
        try:
            before = _stamp(path)
        except OSError:
            break  # handin.read says why it cannot be read
        nb = handin.read(path)
        with contextlib.suppress(OSError):
            if _stamp(path) == before:
                return nb, before[0] / 1e9
    return handin.read(path), None


def _answers(nb) -> dict[str, str]:
    """The learner's answer cells as graded: {grade id: source}."""
    out = {}
    for cell in nb.cells:
        meta = cell.get("metadata", {}).get("nbgrader", {})
        if cell.get("cell_type") == "code" and meta.get("solution") and meta.get("grade_id"):
            out.setdefault(str(meta["grade_id"]), cell.get("source", ""))
    return out


_serving = False
_graded: list[Path] = []  # the sources checked, latest last: the server prepares the next one's reference


def _kernels():
    """In the server, the kernel started after the last check (isolation/warm.py); in a one-off check, none."""
    if not _serving:
        return None
    from autograder.isolation import warm

    return warm.take


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


def _answer(message: dict, conn: socket.socket) -> dict | None:
    """The reply to a check request; None when its client left before the answer (nothing is sent then)."""
    from autograder.learner.hangup import ClientGone, watching

    path, as_json, record, timeout, finish = message["argv"]
    shown = message.get("shown") or path
    progress = None
    if message.get("progress"):
        def progress(event: dict) -> None:
            try:
                conn.sendall(json.dumps({"progress": event}).encode() + b"\n")
            except OSError:
                raise ClientGone() from None

    try:
        with watching(conn):
            code, out, err = run(path, as_json, record, timeout, finish, progress=progress)
    except ClientGone:
        return None
    return {"code": code, "out": out.replace(path, shown), "err": err.replace(path, shown)}


def _leave_with_lab() -> None:
    """When `make lab` started the session (check_client.LAB_ENV), leave as soon as its JupyterLab stops: a
    thread waits on the lab's pidfd (which a reused pid cannot fool) and then ends this server as SIGTERM does,
    its kernels with it, whether it is waiting or in the middle of a check."""
    import threading

    from autograder.learner.check_client import lab_pid

    pid = lab_pid()
    if pid is None:
        return
    try:
        fd = os.pidfd_open(pid)
    except ProcessLookupError:
        sys.exit(0)  # JupyterLab stopped before this server started
    except (OSError, AttributeError):  # no pidfds here: look once a second
        fd = None

    def watch() -> None:
        import select

        if fd is not None:
            select.select([fd], [], [])
        else:
            while True:
                try:
                    os.kill(pid, 0)
                except ProcessLookupError:
                    break
                except PermissionError:
                    pass
                time.sleep(1.0)
        os.kill(os.getpid(), signal.SIGTERM)

    threading.Thread(target=watch, daemon=True).start()


def serve(sock_path: Path) -> None:
    global _serving
    import shutil

    from autograder.isolation import sandbox, warm, zygote

    _serving = True
    # Killed politely (a logout, kill PID): leave as when idle, with the socket, fork server and warm kernel.
    signal.signal(signal.SIGTERM, lambda signum, frame: sys.exit(0))
    _leave_with_lab()
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
                    # Idle counts from the last answer, not the last question: a check that took minutes on a
                    # busy machine is not idle time.
                    last = time.monotonic()
    finally:
        listener.close()
        with contextlib.suppress(FileNotFoundError):
            sock_path.unlink()


if __name__ == "__main__":
    serve(Path(sys.argv[1]))
