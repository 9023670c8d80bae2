"""The kernel that runs student code, fenced in with what the OS offers.

    python -m autograder.isolation.sandbox --scratch DIR [--runtime DIR] [--fence] -- <kernel command>

The grading process probes what the OS offers once and says so with `--fence` (see `launcher`): a kernel
start costs no probe of its own.

- resource limits (memory, CPU time, file size), inherited by every process the kernel starts;
- where `unshare` can make user, mount, network and PID namespaces (the fence):
  - a PID namespace whose init (`INIT`, a few lines of Python) starts the kernel and ends with it: when
    the kernel exits, the grader kills it, or the grader itself dies, every process in the namespace dies
    with it, however it detached (new session, double fork, daemon);
  - a cap of `MAX_TASKS` processes and threads (RLIMIT_NPROC, counted inside the namespace): a fork loop
    fails there, and the init stops the whole run and leaves a mark the grader turns into a status;
  - a file system built from an allow-list on an empty tmpfs: the Python environment (sys.prefix,
    sys.base_prefix), system libraries (/usr and the merged-usr links), a few files of /etc, /dev
    basics, a private /tmp and /dev/shm, /proc of its own namespace and, writable, its scratch directory.
    Nothing else exists in there: not the course, not the class's hand-ins, grades or feedback;
  - no network (a private loopback only, for distributed exercises), and System V IPC of its own;
  - the kernel runs without capabilities (no_new_privs); when the grader runs as root, the kernel runs as
    an unprivileged host user (`SANDBOX_UID`), so that the process cap applies to it.

Where a mechanism is missing the kernel still runs, and grading says so once (see `status()`).

With `--zygote SOCKET` (a fork server of the grading process's, autograder/isolation/zygote.py) the sandbox is built
the same way, but its init starts no interpreter: a fork of the server, which has torch imported, joins the
init's namespaces and becomes the kernel, under the same limits, user, capabilities (none) and file system.
This process then stays as the kernel's stand-in for jupyter_client (interrupts go through to the kernel;
killing it ends the namespace). Where the server gives no kernel, the kernel starts as without it.
"""

from __future__ import annotations

import functools
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from autograder.isolation import fence, limits
from autograder.isolation.limits import CAP_MARK, MAX_TASKS

# The launch is this module; the parts live beside it: limits.py (the numbers), fence.py (namespaces and the
# file system), pid1.py (the namespace's init), standin.py (a forked kernel's stand-in), zygote.py (the fork
# server). MAX_TASKS stays importable from here: tests and the grader's fault messages read it.
__all__ = ["MAX_TASKS", "enabled", "hit_cap", "launcher", "main", "namespaces_work", "status"]


def enabled() -> bool:
    return os.environ.get("PTLAB_SANDBOX", "1") != "0"


@functools.lru_cache(maxsize=1)
def namespaces_work() -> bool:
    """One real fenced start of a trivial command: it must find itself in a PID namespace, under the
    process cap, in a file system without the course, and able to write its scratch directory."""
    if not shutil.which("unshare"):
        return False
    here = str(Path(__file__).resolve().parent)
    check = ("import os, resource\n"
             "ok = os.getppid() == 1 and len([p for p in os.listdir('/proc') if p.isdigit()]) == 2\n"
             f"ok = ok and not os.path.exists({here!r})\n"
             f"ok = ok and resource.getrlimit(resource.RLIMIT_NPROC)[0] == {MAX_TASKS}\n"
             "open('probe', 'w').write('ok')\n"
             "raise SystemExit(0 if ok else 3)\n")
    with tempfile.TemporaryDirectory(prefix="ptlab-probe-") as scratch:
        try:
            done = subprocess.run([sys.executable, "-m", "autograder.isolation.sandbox", "--scratch", scratch,
                                   "--fence", "--", sys.executable, "-I", "-S", "-c", check],
                                  stdin=subprocess.DEVNULL, capture_output=True, timeout=60,
                                  cwd=str(Path(here).parents[1]))
        except (OSError, subprocess.TimeoutExpired):
            return False
        return done.returncode == 0


def status() -> str:
    if not enabled():
        return "sandbox off (PTLAB_SANDBOX=0)"
    if namespaces_work():
        return (f"sandbox: resource limits, at most {MAX_TASKS} processes and threads, nothing outlives its "
                "kernel (PID namespace), no network, and a file system of the Python environment and its "
                "scratch directory only")
    return ("sandbox: resource limits only (unshare with user, mount, network and PID namespaces is not "
            "available here): no process cap, processes a submission detaches may outlive it, and student "
            "code can read whatever this user can, other hand-ins included")


def hit_cap(scratch: str | Path) -> bool:
    """Whether the sandbox stopped this run for starting too many processes or threads."""
    return (Path(scratch) / CAP_MARK).exists()


def launcher(scratch: str, runtime: str) -> list[str]:
    """The command that wraps a kernel command (after its `--`) to start it inside the sandbox."""
    from autograder.isolation import zygote

    fenced = namespaces_work()
    forks = zygote.address() if fenced else None
    return [sys.executable, "-m", "autograder.isolation.sandbox", "--scratch", scratch, "--runtime", runtime,
            *(["--fence"] if fenced else []), *(["--zygote", forks] if forks else []), "--"]


def main(argv: list[str]) -> int:
    split = argv.index("--")
    opts, cmd = argv[:split], argv[split + 1:]
    scratch = Path(opts[opts.index("--scratch") + 1])
    os.environ.update(TMPDIR=str(scratch), MPLCONFIGDIR=str(scratch / ".mpl"),
                      TORCHINDUCTOR_CACHE_DIR=str(scratch / ".inductor"), HOME=str(scratch))
    os.chdir(scratch)
    limits.apply()
    # The learner's output travels over the kernel's sockets. What the kernel process itself writes to its
    # stdout/stderr (its own errors when the grader ends a run early) is noise in the grader's terminal.
    terminal = os.dup(2)
    quiet = os.open(os.devnull, os.O_WRONLY)
    os.dup2(quiet, 1)
    os.dup2(quiet, 2)
    if "--zygote" in opts and "--fence" in opts:
        # Imported here: a kernel started without the fork server has no use for its client.
        from autograder.isolation import standin

        if standin.is_python_kernel(cmd):
            code = standin.run(scratch, cmd, opts[opts.index("--zygote") + 1])
            if code is not None:
                return code
    if "--fence" in opts:
        cmd = fence.command(scratch, cmd)
    try:
        os.execvp(cmd[0], cmd)
    except OSError as e:
        os.write(terminal, f"sandbox: cannot start {cmd[0]}: {e}\n".encode())
    return 127


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
