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

Where `unshare` is refused (Docker's default seccomp profile: the graders of Gradescope and PrairieLearn) and
the grader runs as root, the kernel runs as an unprivileged user of its own instead (lone.py): the course,
the hand-ins and the results are root's and closed to it (the platform adapters call `guard`), its scratch
directory is all it can write, and every process it starts is killed when it ends, before any result is
written (`release`, `settle`). `PTLAB_SANDBOX=limits` asks for that mode where unshare would work (tests).

With `--zygote SOCKET` (a fork server of the grading process's, autograder/isolation/zygote.py) the sandbox is built
the same way, but its init starts no interpreter: a fork of the server, which has torch imported, joins the
init's namespaces and becomes the kernel, under the same limits, user, capabilities (none) and file system.
This process then stays as the kernel's stand-in for jupyter_client (interrupts go through to the kernel;
killing it ends the namespace). Where the server gives no kernel, the kernel starts as without it.

Long because the launcher holds both ways a kernel is fenced (namespaces, or a user of its own where a platform's
container refuses them) and the checks before results are written (guard, settle), which must be read together.
"""

from __future__ import annotations

import functools
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from autograder.isolation import cgroup, environment, fence, limits, lone
from autograder.isolation.limits import CAP_MARK, MAX_TASKS

# The launch is this module; the parts live beside it: limits.py (the numbers), fence.py (namespaces and the
# file system), pid1.py (the namespace's init), standin.py (a forked kernel's stand-in), zygote.py (the fork
# server). MAX_TASKS stays importable from here: tests and the grader's fault messages read it.
__all__ = ["MAX_TASKS", "enabled", "guard", "hit_cap", "launcher", "lone_user", "main", "namespaces_work",
           "settle", "status"]


def enabled() -> bool:
    return os.environ.get("PTLAB_SANDBOX", "1") != "0"


def fence_wanted() -> bool:
    """PTLAB_SANDBOX=limits: no namespaces even where unshare works, as in a platform's container."""
    return os.environ.get("PTLAB_SANDBOX", "1") != "limits"


@functools.lru_cache(maxsize=1)
def namespaces_work() -> bool:
    """One real fenced start of a trivial command: it must find itself in a PID namespace, under the
    process cap, in a file system without the course, and able to write its scratch directory."""
    if not fence_wanted() or not shutil.which("unshare"):
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
        finally:
            release(scratch)
        return done.returncode == 0


def status() -> str:
    if not enabled():
        return "sandbox off (PTLAB_SANDBOX=0)"
    if namespaces_work():
        return (f"sandbox: resource limits, at most {MAX_TASKS} processes and threads, nothing outlives its "
                "kernel (PID namespace), no network, and a file system of the Python environment and its "
                f"scratch directory only; {memory_mechanism()}; at most {limits.DISK_BYTES / 2**20:g} MB "
                "written (scratch, /tmp and /dev/shm together)")
    if lone_user():
        return ("sandbox: resource limits and a user of its own (unshare with user, mount, network and PID "
                "namespaces is refused here, as in Docker's default profile): the kernel runs as an unprivileged "
                "user that cannot read or write the course, the hand-ins or the results, writes only its scratch "
                f"directory, starts at most {MAX_TASKS} processes and threads, and every process it starts is "
                f"killed before results are written; it can reach the network; {memory_mechanism()}")
    if root_refused():
        return ("sandbox REFUSED: unshare with user, mount, network and PID namespaces is refused here, and an "
                f"unprivileged user cannot start this Python in the temporary folder {tempfile.gettempdir()}, so "
                "no kernel runs: on a platform a kernel never runs as root. Make the Python environment and the "
                "temporary folder readable by every user")
    why = ("the grader is not root, so the kernel runs as this user" if not limits.as_root() else
           f"an unprivileged user cannot start this Python in the temporary folder {tempfile.gettempdir()}, so the "
           "kernel runs as root")
    return ("WARNING sandbox: resource limits only (unshare with user, mount, network and PID namespaces is not "
            f"available here, and {why}): no process cap, processes a submission detaches may outlive it, and "
            "student code can read and write whatever this user can: the course, other hand-ins and the results "
            f"included; {memory_mechanism()}")


LONE = "PTLAB_LONE_USER"  # set by `guard` (a platform adapter): its kernels run as users of their own


def lone_user() -> bool:
    """Whether kernels run as users of their own (lone.py): a platform adapter's grading (guard) or
    PTLAB_SANDBOX=limits, as root, without namespaces. Decided by the environment every process of one grading
    inherits, so the grader and each launcher agree; a local batch keeps the limits and says so."""
    chosen = os.environ.get(LONE) == "1" or os.environ.get("PTLAB_SANDBOX") == "limits"
    return chosen and enabled() and not namespaces_work() and lone.works()


REFUSE_ROOT = "PTLAB_REFUSE_ROOT_KERNEL"  # set by `guard`: no kernel may run as root without namespaces


def root_refused() -> bool:
    """Whether a kernel would run as root without namespaces where a platform adapter forbade it: then none
    starts (the launcher refuses), and every notebook scores 0 with the status saying why."""
    return (enabled() and os.environ.get(REFUSE_ROOT) == "1" and limits.as_root() and not namespaces_work()
            and not lone.works())


def guard(paths: list[str | Path]) -> list[str]:
    """A platform adapter, before it grades: where kernels run as users of their own, `paths` (its results
    folder, the hand-ins, the bundle) and the course (the grader's code, the source notebooks, the reference
    cache) become root's and closed to every other user; elsewhere the fence hides them, or nothing can.
    Returns the paths it could not close."""
    os.environ[LONE] = "1"
    if not lone_user():
        # Fail closed: a kernel running as root could rewrite every one of these (the grader's own setting,
        # in the environment, so that every process of this grading reads it)
        os.environ[REFUSE_ROOT] = "1"
        return []
    from autograder.course import CACHE_DIR, ROOT, SOURCE_DIR

    return lone.shield([*paths, ROOT, SOURCE_DIR, CACHE_DIR])


def settle() -> list[str]:
    """A platform adapter, before it writes results: every process of every kernel's own user is gone
    (killed, and verified in /proc). Returns a line for the results where one would not die, or where no
    kernel could run (`root_refused`)."""
    if root_refused():
        return [status()]  # why nothing was graded
    left = lone.end() if lone_user() else []
    return [f"the sandbox could not end processes {left} of a kernel"] if left else []


def hit_cap(scratch: str | Path) -> bool:
    """Whether the sandbox stopped this run for starting too many processes or threads."""
    return stopped_for(scratch) == "processes"


def launcher(scratch: str, runtime: str) -> list[str]:
    """The command that wraps a kernel command (after its `--`) to start it inside the sandbox."""
    from autograder.isolation import zygote

    fenced = namespaces_work()
    forks = zygote.address() if fenced else None
    alone = not fenced and lone_user()
    if not fenced and not alone and root_refused():
        raise OSError(status())
    return [sys.executable, "-m", "autograder.isolation.sandbox", "--scratch", scratch, "--runtime", runtime,
            "--grader", str(os.getpid()), *(["--fence"] if fenced else []), *(["--zygote", forks] if forks else []),
            *(["--lone"] if alone else []), "--"]


def memory_mechanism() -> str:
    """How one submission's memory is capped, all its processes together: what `status` and docs/threat-model.md say."""
    if limits.MEMORY_BYTES <= 0:
        return "no memory cap (PTLAB_MEM_LIMIT_GB=0)"
    gb = f"{limits.MEMORY_BYTES / 2**30:g} GB"
    if not namespaces_work():
        return f"memory {gb} per process (no namespace to sum a submission in)"
    if cgroup_wanted() and cgroup.works():
        return f"memory {gb} per submission, all its processes and tmpfs together (a cgroup)"
    return f"memory {gb} per submission, all its processes and tmpfs together (the sandbox's init watches)"


def cgroup_wanted() -> bool:
    return os.environ.get("PTLAB_CGROUP", "1") != "0"


def stopped_for(scratch: str | Path) -> str | None:
    """Why the sandbox stopped this run, if it did: 'processes', 'memory' or 'disk'."""
    scratch = Path(scratch)
    for why, mark in (("processes", CAP_MARK), ("memory", limits.MEMORY_MARK), ("disk", limits.DISK_MARK)):
        if (scratch / mark).exists():
            return why
    if cgroup.reached(cgroup.path_for(scratch), limits.MEMORY_BYTES):
        return "memory"
    return None


def release(scratch: str | Path) -> None:
    """After the kernel is gone: what the sandbox made outside its scratch directory (the cgroup), and, for a
    kernel that ran as a user of its own, every process of that user (killed, and verified gone)."""
    lone.release(scratch)
    group = cgroup.path_for(scratch)
    if group is not None and group.exists():
        cgroup.remove(group)


def _grader_pidfd(grader: int) -> int | None:
    """An inheritable pidfd of the grading process; None when it is gone already (nothing may start then).

    The grader's pid comes from the command line, not from getppid(): a launcher whose grader died before it
    ran has been adopted by another process, whose pidfd would never tell that the grader is gone."""
    _test_kill_grader("launcher", grader)
    try:
        fd = os.pidfd_open(grader)
    except ProcessLookupError:
        return None
    except (AttributeError, OSError):
        return -1  # no pidfds here: the sandbox cannot watch its grader
    if os.getppid() != grader:  # the pid is someone else's now, or we were adopted
        os.close(fd)
        return None
    os.set_inheritable(fd, True)
    return fd


_launched_for_kernel = False


def _test_kill_grader(step: str, grader: int) -> None:
    """The suite kills the grader at each step of a kernel's start (PTLAB_TEST_KILL_GRADER=<step>)."""
    if os.environ.get("PTLAB_TEST_KILL_GRADER") == step and grader > 1 and _launched_for_kernel:
        import signal
        import time

        os.kill(grader, signal.SIGKILL)
        time.sleep(0.2)


def main(argv: list[str]) -> int:
    split = argv.index("--")
    opts, cmd = argv[:split], argv[split + 1:]
    scratch = Path(opts[opts.index("--scratch") + 1])
    global _launched_for_kernel
    _launched_for_kernel = "--grader" in opts  # not the probe of namespaces_work
    grader = int(opts[opts.index("--grader") + 1]) if "--grader" in opts else os.getppid()
    grader_fd = _grader_pidfd(grader)
    if grader_fd is None:  # the grader is gone: start nothing, and remove what it can no longer remove
        shutil.rmtree(scratch, ignore_errors=True)
        return 124
    # Only the allow-list reaches the kernel (environment.py): this process, unshare, the init and the kernel
    # all start from what is left.
    kept = environment.for_kernel()
    os.environ.clear()
    os.environ.update(kept)
    os.environ.update(TMPDIR=str(scratch), MPLCONFIGDIR=str(scratch / ".mpl"),
                      TORCHINDUCTOR_CACHE_DIR=str(scratch / ".inductor"), HOME=str(scratch))
    os.chdir(scratch)
    limits.apply()
    fenced = "--fence" in opts
    # This process joins the submission's cgroup, and so does everything it starts; where there is none, the
    # init sums the namespace's memory instead.
    group = cgroup.create(scratch, limits.MEMORY_BYTES) if fenced and cgroup_wanted() else None
    memory = 0 if group is not None else limits.MEMORY_BYTES
    # The learner's output travels over the kernel's sockets. What the kernel process itself writes to its
    # stdout/stderr (its own errors when the grader ends a run early) is noise in the grader's terminal.
    terminal = os.dup(2)
    quiet = os.open(os.devnull, os.O_WRONLY)
    os.dup2(quiet, 1)
    os.dup2(quiet, 2)
    if "--zygote" in opts and fenced:
        # Imported here: a kernel started without the fork server has no use for its client.
        from autograder.isolation import standin

        if standin.is_python_kernel(cmd):
            code = standin.run(scratch, cmd, opts[opts.index("--zygote") + 1], grader_fd, memory, group)
            if code is not None:
                return code
    if fenced:
        _test_kill_grader("unshare", grader)
        return _supervise(scratch, cmd, grader_fd, memory, terminal)
    if "--lone" in opts and limits.as_root():
        return lone.run(scratch, cmd, grader_fd, terminal)
    try:
        os.execvp(cmd[0], cmd)
    except OSError as e:
        os.write(terminal, f"sandbox: cannot start {cmd[0]}: {e}\n".encode())
    return 127


def _supervise(scratch: Path, cmd: list[str], grader_fd: int, memory: int, terminal: int) -> int:
    """Start the fenced kernel as a child and wait for it: when the grader died first, this process removes
    what the grader would have (standin.orphaned). jupyter_client's interrupt reaches the kernel through the
    process group; its kill takes this process and the child together."""
    import signal

    from autograder.isolation import standin

    child = os.fork()
    if child == 0:
        try:
            import ctypes

            ctypes.CDLL(None).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG: it goes when this process goes
            # Made here: as root, fence's helper maps the users of the process that becomes unshare
            cmd = fence.command(scratch, cmd, grader_fd, memory=memory)
            os.execvp(cmd[0], cmd)
        except OSError as e:
            os.write(terminal, f"sandbox: cannot start {cmd[0]}: {e}\n".encode())
        finally:
            os._exit(127)
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    return standin.supervise(child, scratch, grader_fd)


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
