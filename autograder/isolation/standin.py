"""The stand-in for a forked kernel: the sandbox is built as usual (fence.py), but its init starts no
interpreter; a fork of the grading process's fork server (zygote.py) joins the init's namespaces and becomes
the kernel. This process stays as the kernel's stand-in for jupyter_client."""

from __future__ import annotations

import os
import resource
import signal
import sys
import time
from pathlib import Path

from autograder.isolation import fence, zygote
from autograder.isolation.limits import INNER_UID, MAX_TASKS, as_root


def is_python_kernel(cmd: list[str]) -> bool:
    return (len(cmd) >= 3 and cmd[1:3] == ["-m", "ipykernel_launcher"]
            and os.path.realpath(cmd[0]) == os.path.realpath(sys.executable))


def _init_pid(unshare_pid: int, wait: float = 5.0) -> int:
    """The host pid of the namespace's init: the one child `unshare --fork` starts."""
    deadline = time.monotonic() + wait
    while time.monotonic() < deadline:
        try:
            with open(f"/proc/{unshare_pid}/task/{unshare_pid}/children") as f:
                children = [int(p) for p in f.read().split()]
        except FileNotFoundError:  # a kernel built without CONFIG_PROC_CHILDREN: ask every process instead
            children = [int(p) for p in os.listdir("/proc") if p.isdigit() and _parent(int(p)) == unshare_pid]
        if children:
            return children[0]
        time.sleep(0.002)
    raise OSError("unshare started no init")


def _parent(pid: int) -> int:
    try:
        with open(f"/proc/{pid}/stat") as f:
            return int(f.read().rsplit(")", 1)[1].split()[1])
    except (OSError, IndexError, ValueError):
        return -1


def orphaned(scratch: Path, grader_fd: int) -> bool:
    """When the grader died before its kernel: what it would have removed (the scratch directory, the cgroup)
    goes now, by the last of the sandbox's processes outside the namespace. True when it was so."""
    import select
    import shutil

    if grader_fd < 0 or not select.select([grader_fd], [], [], 0)[0]:
        return False
    from autograder.isolation import cgroup

    group = cgroup.path_for(scratch)
    if group is not None and group.exists():
        cgroup.leave(group)  # this process is the group's last member
        cgroup.remove(group)
    shutil.rmtree(scratch, ignore_errors=True)
    return True


def run(scratch: Path, cmd: list[str], server: str, grader_fd: int, memory: int, group: Path | None) -> int | None:
    """Build the sandbox as usual, but let a fork of the fork server be its kernel. This process stays as
    the kernel's stand-in for jupyter_client: an interrupt sent to it goes to the kernel, and when it is
    killed, unshare is too, and with it the namespace's init and every process in there.

    `grader_fd`, `memory`: as for fence.command; `group`: the submission's cgroup (cgroup.py), which the
    kernel joins, or None.

    Returns the sandbox's exit code, or None when the server could not give a kernel (start one as usual)."""
    limits = [(r, resource.getrlimit(r)[0]) for r in (resource.RLIMIT_AS, resource.RLIMIT_CPU,
                                                       resource.RLIMIT_FSIZE)]
    limits.append((resource.RLIMIT_NPROC, MAX_TASKS))
    cmd = fence.private_copies(scratch, cmd)
    ready_r, ready_w = os.pipe()
    child = os.fork()
    if child == 0:  # becomes unshare, as main() does in the plain path (the uid helper watches this pid)
        try:
            import ctypes

            os.close(ready_r)
            ctypes.CDLL(None).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG: it goes when this stand-in goes
            fenced = fence.command(scratch, cmd, grader_fd, join_fd=ready_w, memory=memory)
            os.set_inheritable(ready_w, True)
            os.execvp(fenced[0], fenced)
        finally:
            os._exit(127)
    os.close(ready_w)
    try:
        import select

        if not select.select([ready_r], [], [], 60)[0] or not os.read(ready_r, 16):
            raise OSError("the sandbox was not built")
        if os.environ.get("PTLAB_TEST_KILL_GRADER") == "join" and grader_fd >= 0:
            signal.pidfd_send_signal(grader_fd, signal.SIGKILL)  # the suite: the grader dies here
        conn, kernel = zygote.request(server, _init_pid(child), cmd, dict(os.environ), str(scratch),
                                      INNER_UID if as_root() else -1, limits, str(group or ""))
    except (OSError, ValueError):
        os.kill(child, signal.SIGKILL)
        os.waitpid(child, 0)
        if orphaned(scratch, grader_fd):
            return 124
        return None
    finally:
        os.close(ready_r)

    def forward(signum, frame):
        try:
            os.kill(kernel, signum)
        except OSError:
            pass

    signal.signal(signal.SIGINT, forward)
    return supervise(child, scratch, grader_fd, before_cleanup=conn.close)


def supervise(child: int, scratch: Path, grader_fd: int, before_cleanup=None) -> int:
    """Wait for the process that holds the kernel's namespace (a polite kill of ours ends it), then clean up
    after a grader that died meanwhile (`orphaned`). Returns the child's exit code as a shell would give it."""
    signal.signal(signal.SIGTERM, lambda *_: os.kill(child, signal.SIGKILL))
    while True:
        try:
            _, status = os.waitpid(child, 0)
            break
        except InterruptedError:
            continue
    if before_cleanup is not None:
        before_cleanup()
    orphaned(scratch, grader_fd)
    code = os.waitstatus_to_exitcode(status)
    return code if code >= 0 else 128 - code

