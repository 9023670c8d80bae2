"""What a pytest session left behind: processes of the project still running and temporary files still on
disk. The root conftest.py gives the session a temporary folder of its own (TMPDIR) and a mark in the
environment of everything it starts (SUITE_MARK), and checks both when the session ends, once, in the
controller, after every xdist worker has finished.
"""

from __future__ import annotations

import os
import shutil
import signal
import time
from pathlib import Path

SUITE_MARK = "PTLAB_SUITE_ID"  # PTLAB_*: it passes the kernels' environment allow-list, so kernels carry it
# What the project's processes and temporary files look like; anything of these left at the end is a leak.
PROCESS_WORDS = ("ipykernel", "unshare", "zygote", "dask", "autograder", "-I -S -c", "torchrun", "jupyter")
TEMP_PATTERNS = ("ptlab-*", "torchelastic_*", "tmp*.json", "dask-scratch-space", "dask-worker-space")


def grader_marks() -> tuple[str, ...]:
    """The marks a grader gives the processes it starts: the grading mark, and an adapter's guard marks. In a test
    process one turns every later learner path into a grader's (a check cell that does nothing, a root kernel
    refused), so none may come in from the shell that starts the suite, nor outlive the test that set it."""
    from autograder.course import GRADING_ENV
    from autograder.isolation import sandbox

    return (GRADING_ENV, sandbox.LONE, sandbox.REFUSE_ROOT)


def marked_processes(mark: str, exclude: set[int]) -> list[tuple[int, str]]:
    """(pid, command line) of every process whose environment carries SUITE_MARK=mark, but `exclude`."""
    found = []
    needle = f"{SUITE_MARK}={mark}".encode()
    for pid in filter(str.isdigit, os.listdir("/proc")):
        if int(pid) in exclude:
            continue
        try:
            with open(f"/proc/{pid}/environ", "rb") as f:
                if needle not in f.read().split(b"\0"):
                    continue
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                cmd = f.read().replace(b"\0", b" ").decode(errors="replace").strip()
        except OSError:
            continue
        if cmd:  # a zombie has none: it is gone, only not yet reaped
            found.append((int(pid), cmd))
    return found


def project_processes(mark: str, exclude: set[int], wait: float = 10.0) -> list[tuple[int, str]]:
    """Marked processes that look like the project's, after `wait` seconds of grace for ones on their way out."""
    deadline = time.monotonic() + wait
    while True:
        left = [(p, c) for p, c in marked_processes(mark, exclude) if any(w in c for w in PROCESS_WORDS)]
        if not left or time.monotonic() >= deadline:
            return left
        time.sleep(0.2)


def temp_files(folder: Path) -> list[str]:
    return sorted({p.name for pattern in TEMP_PATTERNS for p in Path(folder).glob(pattern)})


def stop_own_servers() -> None:
    """This process's fork server and warm kernel live until it exits; the session's end is when they go."""
    import sys

    warm = sys.modules.get("autograder.isolation.warm")
    if warm is not None:
        warm._discard_all()
    zygote = sys.modules.get("autograder.isolation.zygote")
    if zygote is not None and zygote._server.get("owner") == os.getpid() and "stop" in zygote._server:
        zygote._server["stop"]()


def report(mark: str, folder: Path) -> list[str]:
    """Lines naming what the session left; the processes are then killed and the folder removed."""
    stop_own_servers()
    me = {os.getpid(), os.getppid()}
    procs = project_processes(mark, me)
    lines = [f"process {pid} still running: {cmd[:200]}" for pid, cmd in procs]
    for pid, _ in procs:
        try:
            os.kill(pid, signal.SIGKILL)
        except OSError:
            pass
    lines += [f"temporary file left in {folder}: {name}" for name in temp_files(folder)]
    shutil.rmtree(folder, ignore_errors=True)
    return lines
