"""The kernel that runs student code, fenced in with what the OS offers.

    python -m autograder.sandbox --scratch DIR [--runtime DIR] [--fence] -- <kernel command>

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

With `--zygote SOCKET` (a fork server of the grading process's, autograder/zygote.py) the sandbox is built
the same way, but its init starts no interpreter: a fork of the server, which has torch imported, joins the
init's namespaces and becomes the kernel, under the same limits, user, capabilities (none) and file system.
This process then stays as the kernel's stand-in for jupyter_client (interrupts go through to the kernel;
killing it ends the namespace). Where the server gives no kernel, the kernel starts as without it.
"""

from __future__ import annotations

import functools
import os
import resource
import shlex
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

MEMORY_BYTES = int(float(os.environ.get("PTLAB_MEM_LIMIT_GB", "6")) * 2**30)
CPU_SECONDS = int(os.environ.get("PTLAB_CPU_LIMIT_S", "900"))
FILE_BYTES = 512 * 2**20
# Processes and threads of one kernel, all told: a distributed exercise (torchrun and a few ranks, each with
# torch's and gloo's threads) uses well under 100.
MAX_TASKS = int(os.environ.get("PTLAB_MAX_TASKS", "256"))
# When the grader runs as root, the kernel runs as this host user (uid 1000 inside its namespace).
SANDBOX_UID = int(os.environ.get("PTLAB_SANDBOX_UID", "1234567"))
INNER_UID = 1000
CAP_MARK = ".ptlab-too-many-processes"  # left in the scratch directory by the init that stopped a fork loop
NEW_ROOT = ".ptlab-root"  # the mount point of the kernel's file system, inside the scratch directory
ETC = ["ld.so.cache", "ld.so.conf", "ld.so.conf.d", "passwd", "group", "nsswitch.conf", "hosts", "localtime",
       "alternatives", "ssl", "fonts", "mime.types"]
DEVICES = ["null", "zero", "full", "random", "urandom", "tty"]


def enabled() -> bool:
    return os.environ.get("PTLAB_SANDBOX", "1") != "0"


def _as_root() -> bool:
    return os.geteuid() == 0


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
            done = subprocess.run([sys.executable, "-m", "autograder.sandbox", "--scratch", scratch,
                                   "--fence", "--", sys.executable, "-I", "-S", "-c", check],
                                  stdin=subprocess.DEVNULL, capture_output=True, timeout=60,
                                  cwd=str(Path(here).parent))
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
    from autograder import zygote

    fence = namespaces_work()
    forks = zygote.address() if fence else None
    return [sys.executable, "-m", "autograder.sandbox", "--scratch", scratch, "--runtime", runtime,
            *(["--fence"] if fence else []), *(["--zygote", forks] if forks else []), "--"]


def _limit() -> None:
    for what, value in ((resource.RLIMIT_AS, MEMORY_BYTES), (resource.RLIMIT_CPU, CPU_SECONDS),
                        (resource.RLIMIT_FSIZE, FILE_BYTES)):
        soft, hard = resource.getrlimit(what)
        cap = value if hard == resource.RLIM_INFINITY else min(value, hard)
        resource.setrlimit(what, (cap, cap))


# PID 1 of the kernel's namespace: starts the kernel, its child, under the process cap, without capabilities
# (as INNER_UID when that is given), reaps orphans, and exits with the kernel, which takes every process of
# the namespace down, or as soon as the grader itself is gone. It ignores the grader's interrupts (they reach
# the kernel through its process group).
INIT = r'''
import ctypes, os, resource, select, signal, sys
cap, uid, grader_fd = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[4])
mark, cmd = sys.argv[3], sys.argv[5:]
os.environ.pop("JPY_PARENT_PID", None)  # the kernel's parent is this init: ipykernel must not poll for it
signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGCHLD})
watch = select.poll()
if cmd[0] == "--join":
    # The kernel is not started here: a fork of the grader's fork server joins these namespaces (see
    # autograder/zygote.py). It is the first process to appear in the namespace after this init.
    kernel = None
    os.write(int(cmd[1]), b"ready\n")
    os.close(int(cmd[1]))
    for _ in range(6000):
        others = [int(p) for p in os.listdir("/proc") if p.isdigit() and p != "1"]
        if others:
            watch.register(os.pidfd_open(min(others)), select.POLLIN)
            break
        signal.sigtimedwait({signal.SIGCHLD}, 0.01)
    else:
        os._exit(124)
else:
    kernel = os.fork()
if kernel == 0:
    try:
        signal.pthread_sigmask(signal.SIG_SETMASK, set())
        if grader_fd >= 0:
            os.close(grader_fd)
        resource.setrlimit(resource.RLIMIT_NPROC, (cap, cap))
        libc = ctypes.CDLL(None, use_errno=True)
        for c in range(64):
            libc.prctl(24, c, 0, 0, 0)  # PR_CAPBSET_DROP: the kernel execs without capabilities
        if uid >= 0:
            os.setgroups([])
            os.setgid(uid)
            os.setuid(uid)
        libc.prctl(38, 1, 0, 0, 0)  # PR_SET_NO_NEW_PRIVS: no set-uid way back
        os.execvp(cmd[0], cmd)
    finally:
        os._exit(127)
signal.signal(signal.SIGINT, signal.SIG_IGN)
# A pidfd of the process that started the kernel (the grader) turns readable when it is gone: then nothing
# of its kernel may stay behind. So does a joined kernel's, when it exits.
if grader_fd >= 0:
    watch.register(grader_fd, select.POLLIN)


def tasks():
    n = 0
    for p in os.listdir("/proc"):
        if p.isdigit():
            try:
                n += len(os.listdir("/proc/" + p + "/task"))
            except OSError:
                pass
    return n


while True:
    signal.sigtimedwait({signal.SIGCHLD}, 0.2)
    while True:
        try:
            pid, st = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            if kernel is None:
                break
            os._exit(0)
        if pid == 0:
            break
        if pid == kernel:
            code = os.waitstatus_to_exitcode(st)
            os._exit(code if code >= 0 else 128 - code)
    for fd, _ in watch.poll(0):
        os._exit(124 if fd == grader_fd else 0)
    if tasks() >= cap - 3:
        try:  # not through a link the submission may have left in its scratch directory
            os.close(os.open(mark, os.O_WRONLY | os.O_CREAT | os.O_NOFOLLOW, 0o644))
        except OSError:
            pass
        os._exit(125)
'''


def _allowed() -> list[Path]:
    """What the kernel's file system holds besides /dev, /proc, /tmp and its scratch directory, read-only."""
    paths = [Path(p) for p in ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32")]
    paths += [Path("/etc") / name for name in ETC]
    interpreter = os.path.dirname(os.path.dirname(os.path.realpath(sys.executable)))
    paths += [Path(prefix) for prefix in sorted({sys.prefix, sys.base_prefix, interpreter})]
    return [p for p in paths if os.path.lexists(p)]


def fence_script(scratch: Path) -> str:
    """Builds the kernel's file system on an empty tmpfs (an allow-list), enters it, and starts the init."""
    q = shlex.quote
    root = scratch / NEW_ROOT
    r = q(str(root))

    def inside(p: Path | str) -> str:
        return q(str(root) + str(p))

    lines = ["set -e", "ip link set lo up 2>/dev/null || true",
              f"mount -t tmpfs -o size=1m,mode=755,nosuid,nodev none {r}",
              f"mkdir -p {inside('/proc')} {inside('/dev/shm')} {inside('/tmp')} {inside('/sys')}",
              f"mount -t proc -o nosuid,nodev,noexec proc {inside('/proc')}",
              f"mount -t sysfs -o ro,nosuid,nodev,noexec sysfs {inside('/sys')} 2>/dev/null || true",
              f"mount -t tmpfs -o size=1g,mode=1777,nosuid,nodev none {inside('/dev/shm')}",
              f"mount -t tmpfs -o size=256m,mode=1777,nosuid,nodev none {inside('/tmp')}"]
    for dev in DEVICES:
        if os.path.exists(f"/dev/{dev}"):
            lines += [f"touch {inside('/dev/' + dev)}", f"mount --bind /dev/{dev} {inside('/dev/' + dev)}"]
    for name, target in (("fd", "/proc/self/fd"), ("stdin", "/proc/self/fd/0"), ("stdout", "/proc/self/fd/1"),
                         ("stderr", "/proc/self/fd/2")):
        lines.append(f"ln -s {target} {inside('/dev/' + name)}")
    for p in _allowed():
        if p.is_symlink() and p.parent == Path("/"):  # merged /usr: /bin -> usr/bin
            lines += [f"ln -s {q(os.readlink(p))} {inside(p)}"]
        elif p.is_dir():
            lines += [f"mkdir -p {inside(p)}", f"mount --rbind {q(str(p))} {inside(p)}",
                      f"mount -o remount,bind,ro,nosuid,nodev {inside(p)}"]
        elif p.exists():
            lines += [f"mkdir -p {inside(p.parent)}", f"touch {inside(p)}",
                      f"mount --bind {q(str(p))} {inside(p)}",
                      f"mount -o remount,bind,ro,nosuid,nodev {inside(p)}"]
    lines += [f"mkdir -p {inside(scratch)}", f"mount --bind {q(str(scratch))} {inside(scratch)}",
              f"mount -o remount,bind,nosuid,nodev {inside(scratch)}",
              f"mount -o remount,bind,ro,nosuid,nodev {r}",
              # enter the new root; the old one, stacked on top by pivot_root, is detached
              f"cd {r}", "pivot_root . .", "umount -l .",
              f"cd {q(str(scratch))}",
              'exec "$@"']
    return "\n".join(lines)


def _map_users(pid: int, ready_w: int) -> None:
    """In a helper process: once `pid` is in its new user namespace, map its root to ours (to build the
    file system) and INNER_UID to SANDBOX_UID (the kernel), then tell the waiting script."""
    own = os.readlink("/proc/self/ns/user")
    deadline = time.monotonic() + 20
    try:
        while os.readlink(f"/proc/{pid}/ns/user") == own:
            if time.monotonic() > deadline:
                return
            time.sleep(0.002)
        for name in ("uid_map", "gid_map"):
            with open(f"/proc/{pid}/{name}", "w") as f:
                f.write(f"0 0 1\n{INNER_UID} {SANDBOX_UID} 1\n")
        os.write(ready_w, b"ok\n")
    except OSError:
        return


def _private_copies(scratch: Path, cmd: list[str]) -> list[str]:
    """The kernel reads its connection file (in the runtime directory, or a temporary file of nbclient's)
    from its scratch directory: neither of those is in its view."""
    uid = SANDBOX_UID if _as_root() else os.getuid()
    out = list(cmd)
    for i, arg in enumerate(cmd):
        if (os.path.isabs(arg) and arg.endswith(".json") and os.path.isfile(arg)
                and Path(arg).parent != scratch):
            copy = scratch / f".ptlab-{os.path.basename(arg)}"
            shutil.copyfile(arg, copy)
            os.chmod(copy, 0o600)
            if _as_root():
                os.chown(copy, uid, uid)
            out[i] = str(copy)
    return out


def _fence(scratch: Path, cmd: list[str], join_fd: int = -1, grader: int | None = None) -> list[str]:
    """The command that starts `cmd` fenced in; with `join_fd`, the init starts nothing, writes a line to
    that descriptor when the sandbox is built, and waits for a kernel to join it (autograder/zygote.py).
    The sandbox ends when `grader` (by default this process's parent) is gone."""
    root = _as_root()
    uid = SANDBOX_UID if root else os.getuid()
    (scratch / NEW_ROOT).mkdir(exist_ok=True)
    if root:
        os.chown(scratch, uid, uid)
    cmd = _private_copies(scratch, cmd)
    try:
        grader_fd = os.pidfd_open(os.getppid() if grader is None else grader)
        os.set_inheritable(grader_fd, True)
    except (AttributeError, OSError):
        grader_fd = -1
    init = [sys.executable, "-I", "-S", "-c", INIT, str(MAX_TASKS), str(INNER_UID if root else -1),
            str(scratch / CAP_MARK), str(grader_fd), *(cmd if join_fd < 0 else ["--join", str(join_fd)])]
    script = ["sh", "-c", fence_script(scratch), "sandbox"]
    flags = ["--map-root-user"]
    if root:
        ready_r, ready_w = os.pipe()
        me = os.getpid()
        helper = os.fork()
        if helper == 0:  # double fork: the helper must not stay our child once we exec unshare
            try:
                if os.fork() == 0:
                    os.close(ready_r)
                    _map_users(me, ready_w)
            finally:
                os._exit(0)
        os.waitpid(helper, 0)
        os.close(ready_w)
        os.set_inheritable(ready_r, True)
        flags = ["--user"]
        # Wait until the helper has mapped the namespace's users, then start the script: a process exec'd
        # before the mapping exists holds no capabilities in the namespace.
        script = ["sh", "-c", f'read -r _ <&{ready_r} && exec {ready_r}<&- && exec "$@"', "sandbox", *script]
    return ["unshare", *flags, "--net", "--mount", "--pid", "--ipc", "--uts", "--fork", "--kill-child",
            "--propagation", "private", *script, *init]


def _is_python_kernel(cmd: list[str]) -> bool:
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


def _through_zygote(scratch: Path, cmd: list[str], server: str) -> int | None:
    """Build the sandbox as usual, but let a fork of the fork server be its kernel. This process stays as
    the kernel's stand-in for jupyter_client: an interrupt sent to it goes to the kernel, and when it is
    killed, unshare is too, and with it the namespace's init and every process in there.

    Returns the sandbox's exit code, or None when the server could not give a kernel (start one as usual)."""
    import signal

    from autograder import zygote

    limits = [(r, resource.getrlimit(r)[0]) for r in (resource.RLIMIT_AS, resource.RLIMIT_CPU,
                                                       resource.RLIMIT_FSIZE)]
    limits.append((resource.RLIMIT_NPROC, MAX_TASKS))
    cmd = _private_copies(scratch, cmd)
    grader = os.getppid()
    ready_r, ready_w = os.pipe()
    child = os.fork()
    if child == 0:  # becomes unshare, as main() does in the plain path (the uid helper watches this pid)
        try:
            import ctypes

            os.close(ready_r)
            ctypes.CDLL(None).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG: it goes when this stand-in goes
            fenced = _fence(scratch, cmd, join_fd=ready_w, grader=grader)
            os.set_inheritable(ready_w, True)
            os.execvp(fenced[0], fenced)
        finally:
            os._exit(127)
    os.close(ready_w)
    try:
        import select

        if not select.select([ready_r], [], [], 60)[0] or not os.read(ready_r, 16):
            raise OSError("the sandbox was not built")
        conn, kernel = zygote.request(server, _init_pid(child), cmd, dict(os.environ), str(scratch),
                                      INNER_UID if _as_root() else -1, limits)
    except (OSError, ValueError):
        os.kill(child, signal.SIGKILL)
        os.waitpid(child, 0)
        return None
    finally:
        os.close(ready_r)

    def forward(signum, frame):
        try:
            os.kill(kernel, signum)
        except OSError:
            pass

    signal.signal(signal.SIGINT, forward)
    signal.signal(signal.SIGTERM, lambda *_: os.kill(child, signal.SIGKILL))
    while True:
        try:
            _, status = os.waitpid(child, 0)
            break
        except InterruptedError:
            continue
    conn.close()
    code = os.waitstatus_to_exitcode(status)
    return code if code >= 0 else 128 - code


def main(argv: list[str]) -> int:
    split = argv.index("--")
    opts, cmd = argv[:split], argv[split + 1:]
    scratch = Path(opts[opts.index("--scratch") + 1])
    os.environ.update(TMPDIR=str(scratch), MPLCONFIGDIR=str(scratch / ".mpl"),
                      TORCHINDUCTOR_CACHE_DIR=str(scratch / ".inductor"), HOME=str(scratch))
    os.chdir(scratch)
    _limit()
    # The learner's output travels over the kernel's sockets. What the kernel process itself writes to its
    # stdout/stderr (its own errors when the grader ends a run early) is noise in the grader's terminal.
    terminal = os.dup(2)
    quiet = os.open(os.devnull, os.O_WRONLY)
    os.dup2(quiet, 1)
    os.dup2(quiet, 2)
    if "--zygote" in opts and "--fence" in opts and _is_python_kernel(cmd):
        code = _through_zygote(scratch, cmd, opts[opts.index("--zygote") + 1])
        if code is not None:
            return code
    if "--fence" in opts:
        cmd = _fence(scratch, cmd)
    try:
        os.execvp(cmd[0], cmd)
    except OSError as e:
        os.write(terminal, f"sandbox: cannot start {cmd[0]}: {e}\n".encode())
    return 127


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
