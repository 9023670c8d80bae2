"""A kernel as a user of its own, where `unshare` is refused (Docker's default seccomp profile: the graders of
Gradescope and PrairieLearn) and the grader runs as root.

Without namespaces the kernel sees the container's whole file system, so what keeps it from the results file,
the bundle, the source notebooks and the grader's code is the oldest fence there is: it runs as an
unprivileged user of its own (uid and gid `uid_for(launcher pid)`, no supplementary groups, no capabilities,
no new privileges), those paths are root's and closed to everyone else (`shield`, called by the platform
adapters), and its scratch directory is the one place it may write (root's, group-writable for the kernel's
gid, sticky: the kernel cannot remove or replace what the grader put there).

One uid per kernel, unused by anything else, is also how every process it started is found and ended, however
it detached (new session, double fork): a helper that takes that uid sends SIGKILL to every process it may
signal (kill(-1)), which are exactly the kernel's, until /proc shows none alive (`end`). The launcher does it
when the kernel exits; the grader does it again when it releases the scratch directory (the launcher itself
may have been killed), and the platform adapters once more, for every such uid, before they write results.

Where the grader is not root (a developer's laptop), none of this is possible: the kernel runs as the grader's
user with resource limits only, and grading says so (sandbox.status).
"""

from __future__ import annotations

import contextlib
import functools
import os
import resource
import signal
import subprocess
import sys
import time
from pathlib import Path

from autograder.isolation.limits import MAX_TASKS, as_root

# uid (and gid) of a kernel: BASE + the pid of its launcher, unique while the launcher lives, and far above any
# user a distribution or an image makes. The probe of `works` uses BASE itself (no pid is 0).
BASE = int(os.environ.get("PTLAB_LONE_UID_BASE", "1600000000"))
SPAN = 1 << 22  # pid_max on 64-bit Linux
MARK = ".ptlab-kernel-uid"  # root's file in the scratch directory: which uid to end when the scratch goes


def uid_for(pid: int) -> int:
    return BASE + pid


def is_lone(uid: int) -> bool:
    return BASE <= uid < BASE + SPAN


def drop(uid: int) -> None:
    """In a child about to exec: become `uid` for good (no groups, no capabilities, no set-uid way back)."""
    import ctypes

    os.setgroups([])
    os.setgid(uid)
    os.setuid(uid)
    ctypes.CDLL(None).prctl(38, 1, 0, 0, 0)  # PR_SET_NO_NEW_PRIVS


@functools.lru_cache(maxsize=1)
def works() -> bool:
    """Whether a kernel can run as a user of its own here: the grader is root and that user can start this
    Python with ipykernel (an interpreter under /root, mode 0700, cannot be) in the temporary folder, where
    its scratch directory will be (a TMPDIR of mode 0700 cannot be passed through)."""
    if not as_root():
        return False
    import tempfile

    check = f"import os, ipykernel\nraise SystemExit(0 if os.access({tempfile.gettempdir()!r}, os.X_OK) else 1)"
    try:
        done = subprocess.run([sys.executable, "-I", "-c", check], cwd="/", user=BASE, group=BASE, extra_groups=[],
                              stdin=subprocess.DEVNULL, capture_output=True, timeout=60,
                              env={"PATH": os.environ.get("PATH", "/usr/bin:/bin")})
    except (OSError, subprocess.SubprocessError):
        return False
    return done.returncode == 0


def shield(paths: list[Path | str]) -> list[str]:
    """Make each existing path root's and closed to every other user (the top of each is enough: nothing below
    can be reached without it). Returns the paths it could not close."""
    failed = []
    for p in paths:
        p = Path(p)
        if not p.exists():
            continue
        try:
            real = p.resolve()
            os.chown(real, 0, 0)
            os.chmod(real, os.stat(real).st_mode & 0o7700)
        except OSError:
            failed.append(str(p))
    return failed


def prepare(scratch: Path, uid: int) -> None:
    """The scratch directory: root's, writable by the kernel's group, sticky; with a note of the uid (root's,
    which the kernel can neither change nor remove)."""
    os.chown(scratch, 0, uid)
    os.chmod(scratch, 0o1770)
    mark = scratch / MARK
    fd = os.open(mark, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW, 0o644)
    try:
        os.write(fd, str(uid).encode())
    finally:
        os.close(fd)


def recorded(scratch: str | Path) -> int | None:
    """The uid a launcher noted in this scratch directory, if root wrote the note."""
    try:
        fd = os.open(Path(scratch) / MARK, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    except OSError:
        return None
    try:
        st = os.fstat(fd)
        if st.st_uid != 0 or st.st_size > 32:
            return None
        text = os.read(fd, 32).decode(errors="replace").strip()
    finally:
        os.close(fd)
    return int(text) if text.isdigit() and is_lone(int(text)) else None


def _alive(uids: set[int] | None) -> list[tuple[int, int]]:
    """(pid, uid) of every live process (not a zombie) whose real uid is one of `uids` (None: any lone uid)."""
    found = []
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/status") as f:
                fields = dict(line.split(":", 1) for line in f if ":" in line)
        except (OSError, ValueError):
            continue
        try:
            uid = int(fields["Uid"].split()[0])
        except (KeyError, ValueError, IndexError):
            continue
        if fields.get("State", "").strip()[:1] in ("Z", "X"):
            continue
        if (uid in uids) if uids is not None else is_lone(uid):
            found.append((int(name), uid))
    return found


def _kill_as(uid: int) -> None:
    """From a child that takes `uid`: SIGKILL to every process that uid may signal, which are its own."""
    pid = os.fork()
    if pid == 0:
        try:
            os.setgroups([])
            os.setgid(uid)
            os.setuid(uid)
            for _ in range(50):
                try:
                    os.kill(-1, signal.SIGKILL)
                except ProcessLookupError:
                    break
        finally:
            os._exit(0)
    os.waitpid(pid, 0)


def end(uids: set[int] | None = None, wait: float = 10.0, reap: bool = False) -> list[int]:
    """Kill every process of `uids` (None: of every kernel's uid) and wait until none is alive. Returns the
    pids still alive at the deadline (none, unless the system is broken). `reap`: also reap this process's
    exited children (the launcher, a subreaper; never the grader, whose children are its subprocesses')."""
    if not as_root():
        return []
    deadline = time.monotonic() + wait
    while True:
        alive = _alive(uids)
        if not alive:
            return []
        for uid in sorted({u for _, u in alive}):
            _kill_as(uid)
        if reap:
            _reap()
        if time.monotonic() > deadline:
            return [p for p, _ in _alive(uids)]
        time.sleep(0.01)


def _reap() -> None:
    """Orphans of the kernel re-parented to this process (a subreaper) leave no zombies."""
    with contextlib.suppress(ChildProcessError):
        while os.waitpid(-1, os.WNOHANG)[0] > 0:
            pass


def release(scratch: str | Path) -> list[int]:
    """When the grader lets go of a scratch directory: every process of the kernel that used it is gone."""
    uid = recorded(scratch)
    return end({uid}) if uid is not None else []


def run(scratch: Path, cmd: list[str], grader_fd: int, terminal: int) -> int:
    """In the launcher (root): start `cmd` as the kernel's own user and stay, as its stand-in for jupyter_client,
    until it exits; then end every process it started, and return its exit code as a shell gives it.

    The launcher is the kernel's parent and the subreaper of all it starts: nothing it detaches escapes to
    another parent. An interrupt (SIGINT to the process group) reaches the kernel directly; a polite kill
    (SIGTERM) or the grader's death ends all of them at once."""
    import ctypes
    import select

    from autograder.isolation import fence

    uid = uid_for(os.getpid())
    cmd = fence.private_copies(scratch, cmd, uid)
    prepare(scratch, uid)
    libc = ctypes.CDLL(None)
    libc.prctl(36, 1, 0, 0, 0)  # PR_SET_CHILD_SUBREAPER
    kernel = os.fork()
    if kernel == 0:
        try:
            libc.prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG: it goes when the launcher goes
            if grader_fd >= 0:
                os.close(grader_fd)
            os.close(terminal)
            # counted per user: one kernel's processes and threads, all told (root is never held to it)
            resource.setrlimit(resource.RLIMIT_NPROC, (MAX_TASKS, MAX_TASKS))
            drop(uid)
            os.execvp(cmd[0], cmd)
        except BaseException as e:  # nothing may return into the launcher's code
            with contextlib.suppress(OSError):
                os.write(2, f"sandbox: cannot start {cmd[0]}: {e}\n".encode())
        finally:
            os._exit(127)
    stopping: list[int] = []

    def stop(signum, frame):
        stopping.append(signum)

    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the kernel has its own copy of an interrupt
    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGHUP, stop)
    watch = select.poll()
    kernel_fd = os.pidfd_open(kernel)
    watch.register(kernel_fd, select.POLLIN)
    if grader_fd >= 0:
        watch.register(grader_fd, select.POLLIN)
    code = None
    gone = False
    while code is None and not stopping:
        try:
            ready = [fd for fd, _ in watch.poll(200)]
        except InterruptedError:
            continue
        if grader_fd in ready and grader_fd >= 0:
            gone = True
            break
        if kernel_fd in ready:
            _, status = os.waitpid(kernel, 0)
            code = os.waitstatus_to_exitcode(status)
        _reap_others(kernel)
    end({uid}, reap=True)
    _reap()
    if gone:  # the grader is gone: what it would have removed goes now
        import shutil

        shutil.rmtree(scratch, ignore_errors=True)
        return 124
    if code is None:
        return 128 + (stopping[0] if stopping else signal.SIGKILL)
    return code if code >= 0 else 128 - code


def _reap_others(kernel: int) -> None:
    """Reap re-parented orphans that exited, never the kernel itself (its status is wanted)."""
    try:
        with open(f"/proc/{os.getpid()}/task/{os.getpid()}/children") as f:
            children = [int(p) for p in f.read().split()]
    except OSError:
        return
    for child in children:
        if child != kernel:
            with contextlib.suppress(ChildProcessError):
                os.waitpid(child, os.WNOHANG)
