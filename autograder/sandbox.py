"""The kernel that runs student code, fenced in with what the OS offers.

    python -m autograder.sandbox --scratch DIR [--runtime DIR] [--fence] -- <kernel command>

The grading process probes what the OS offers once and says so with `--fence` (see `launcher`): a kernel
start costs no probe of its own.

- resource limits (memory, CPU time, file size), inherited by every process the kernel starts;
- where `unshare` can make user, mount and network namespaces: no network (only a loopback for
  distributed exercises), the course sources, tests, answers and the grader's cache hidden, the whole file system read-only
  but for the scratch directory, the kernel's runtime directory and a private /dev/shm.

Where a mechanism is missing the kernel still runs, and grading says so once (see `status()`).
"""

from __future__ import annotations

import contextlib
import functools
import os
import resource
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

from autograder.course import CACHE_DIR, ROOT, SOURCE_DIR

MEMORY_BYTES = int(float(os.environ.get("PTLAB_MEM_LIMIT_GB", "6")) * 2**30)
CPU_SECONDS = int(os.environ.get("PTLAB_CPU_LIMIT_S", "900"))
FILE_BYTES = 512 * 2**20
HIDDEN = [SOURCE_DIR, ROOT / "tests", ROOT.parent / "shared", CACHE_DIR]


def enabled() -> bool:
    return os.environ.get("PTLAB_SANDBOX", "1") != "0"


@functools.lru_cache(maxsize=1)
def namespaces_work() -> bool:
    if not shutil.which("unshare"):
        return False
    probe = subprocess.run(["unshare", "-rnm", "--propagation", "private", "sh", "-c",
                            "mount -t tmpfs none /mnt 2>/dev/null || mount -t tmpfs none /tmp"],
                           capture_output=True)
    return probe.returncode == 0


def status() -> str:
    if not enabled():
        return "sandbox off (PTLAB_SANDBOX=0)"
    if namespaces_work():
        return "sandbox: resource limits, no network, sources hidden, read-only file system"
    return "sandbox: resource limits only (unshare with user namespaces is not available here)"


@functools.lru_cache(maxsize=1)
def _cache_exists() -> None:
    """Once per grading process, before its first kernel: a directory that does not exist cannot be hidden,
    and a reference run that created it later would write where an already running kernel could read."""
    with contextlib.suppress(OSError):
        CACHE_DIR.mkdir(parents=True, exist_ok=True)


def launcher(scratch: str, runtime: str) -> list[str]:
    """The command that wraps a kernel command (after its `--`) to start it inside the sandbox."""
    _cache_exists()
    return [sys.executable, "-m", "autograder.sandbox", "--scratch", scratch, "--runtime", runtime,
            *(["--fence"] if namespaces_work() else []), "--"]


def _limit() -> None:
    for what, value in ((resource.RLIMIT_AS, MEMORY_BYTES), (resource.RLIMIT_CPU, CPU_SECONDS),
                        (resource.RLIMIT_FSIZE, FILE_BYTES)):
        soft, hard = resource.getrlimit(what)
        cap = value if hard == resource.RLIM_INFINITY else min(value, hard)
        resource.setrlimit(what, (cap, cap))


def fence_script(scratch: Path, writable: list[Path]) -> str:
    q = shlex.quote
    lines = ["set -e", "ip link set lo up 2>/dev/null || true",
             # read-only everything, then reopen the few places a kernel must write
             "mount --rbind / / 2>/dev/null || true",
             "mount -o remount,bind,ro / 2>/dev/null || true"]
    for w in [scratch, *writable]:
        if w.exists():
            lines += [f"mount --bind {q(str(w))} {q(str(w))}", f"mount -o remount,bind,rw {q(str(w))}"]
    lines.append("mount -t tmpfs -o size=1g none /dev/shm 2>/dev/null || true")
    for h in HIDDEN:
        if h.exists():
            lines.append(f"mount -t tmpfs -o size=1m,ro none {q(str(h))}")
    lines.append(f"cd {q(str(scratch))}")  # re-enter the scratch directory through the new mounts
    lines.append('exec "$@"')
    return "\n".join(lines)


def main(argv: list[str]) -> int:
    split = argv.index("--")
    opts, cmd = argv[:split], argv[split + 1:]
    scratch = Path(opts[opts.index("--scratch") + 1])
    runtime = Path(opts[opts.index("--runtime") + 1]) if "--runtime" in opts else None
    os.environ.update(TMPDIR=str(scratch), MPLCONFIGDIR=str(scratch / ".mpl"),
                      TORCHINDUCTOR_CACHE_DIR=str(scratch / ".inductor"), HOME=str(scratch))
    os.chdir(scratch)
    _limit()
    if "--fence" in opts:
        script = fence_script(scratch, [p for p in [runtime] if p])
        cmd = ["unshare", "-rnm", "--propagation", "private", "sh", "-c", script, "sandbox", *cmd]
    # The learner's output travels over the kernel's sockets. What the kernel process itself writes to its
    # stdout/stderr (its own errors when the grader ends a run early) is noise in the grader's terminal.
    terminal = os.dup(2)
    quiet = os.open(os.devnull, os.O_WRONLY)
    os.dup2(quiet, 1)
    os.dup2(quiet, 2)
    try:
        os.execvp(cmd[0], cmd)
    except OSError as e:
        os.write(terminal, f"sandbox: cannot start {cmd[0]}: {e}\n".encode())
    return 127


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
