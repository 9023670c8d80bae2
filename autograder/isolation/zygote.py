"""A fork server for sandboxed kernels: the interpreter, ipykernel, torch, numpy and pyplot are loaded once per
grading process and every kernel is a fork of that, instead of a fresh interpreter importing them again.

Importing them costs about 1.5 s of CPU per kernel, most of a junior notebook's grading on two cores.
A fork costs a few milliseconds and shares the loaded pages.

The sandbox is unchanged: `autograder.isolation.sandbox` still builds each kernel's namespaces and file system with
its own init (see there). Only the last step differs: instead of the init starting a new interpreter, a
fork of this server joins the init's namespaces and forks a go-between inside the init's PID namespace, which
forks the kernel and goes (the init adopts the kernel, as it is a fresh kernel's parent); the kernel takes
the sandbox's user, limits, environment and a fresh kernel's process defaults, and runs ipykernel.

    python autograder/isolation/zygote.py SOCKET     (started by `address()`, one per grading process)

The server only imports: it never runs a tensor operation (OpenMP's threads do not survive a fork) and
never touches CUDA (a CUDA context made before a fork is unusable after it; sandboxed kernels see no GPU
in any case).

It is run as a script, so that nothing of the course is imported into it: what a kernel inherits from its
memory is the interpreter and those libraries, never a hidden test or a reference. Its socket is in a
private directory of the grader's, which no sandbox can see.

Long because the client, the server and the making of a kernel (a fork that a program cannot tell from a fresh
kernel: tests/test_fork_like_fresh.py) are one protocol, best read together.

One connection per kernel, a JSON line each way (the client's stdin, stdout and stderr go with its line):
    client -> server  {"init": <host pid of the sandbox's init>, "argv": [...], "env": {...}, "cwd": scratch,
                       "uid": <user to run as, -1 to stay>, "limits": [[resource, value], ...],
                       "cgroup": <the submission's memory cgroup to join, or "">}
    server -> client  {"pid": <host pid of the kernel>}  or  {"error": "..."}
"""

from __future__ import annotations

import sys

if __name__ == "__main__":
    sys.path.pop(0)  # this file's directory: the course's modules must not shadow a library's

import contextlib
import json
import os
import select
import signal
import socket
import subprocess
import tempfile
import threading

# matplotlib.pyplot as well: nearly every notebook plots, and it costs a quarter of a second per kernel. The
# backend it would have read from the environment at import is set again in each kernel (_become_kernel).
# torch.distributed.tensor: the first torch.testing.assert_close imports it (and sympy with it), most of a
# second in nearly every notebook's first test cell. Not scikit-learn: importing it starts a thread here.
PRELOAD = ("torch", "numpy", "ipykernel.kernelapp", "matplotlib.pyplot", "torch.distributed.tensor")
INLINE = "module://matplotlib_inline.backend_inline"  # ipykernel's default, where MPLBACKEND is unset
NAMESPACES = ("user", "mnt", "net", "ipc", "uts", "pid")  # the user namespace first: it grants the rest


def enabled() -> bool:
    return os.environ.get("PTLAB_ZYGOTE", "1") != "0"


# ---- client side: one server per grading process -------------------------------------------------------

_lock = threading.Lock()
_server: dict = {}


def address() -> str | None:
    """The socket of this process's fork server, started on first use; None where it cannot run."""
    if not enabled():
        return None
    with _lock:
        mine = _server.get("owner") == os.getpid()
        if mine and _server.get("failed"):
            return None
        proc = _server.get("proc") if mine else None
        if proc is None or proc.poll() is not None:  # none started by this process yet, or gone since
            if proc is not None:
                _server["stop"]()  # a server killed outright left its folder
            _spawn()
            proc = _server.get("proc")
            if proc is None:
                return None
        if not _server.get("ready"):
            _await(proc)
        return _server["socket"] if _server.get("ready") else None


def prestart() -> None:
    """Start the server now, without waiting for it: a one-notebook `check` overlaps its imports with the
    grader's own start-up instead of waiting for them when the kernel is due."""
    if enabled():
        with _lock:
            if _server.get("owner") != os.getpid():
                _spawn()


def _spawn() -> None:
    import atexit
    import multiprocessing.util
    import shutil

    home = tempfile.mkdtemp(prefix="ptlab-zygote-")  # 0700: only the grader reaches the socket
    path = os.path.join(home, "socket")
    try:
        # A forked kernel can read the environment the server started with (/proc/self/environ): only the
        # kernels' allow-list. Imported here, in the grader: the server itself imports nothing of ours.
        from autograder.isolation.environment import for_kernel

        env = for_kernel()
        # jupyter_client's mark on a kernel it started, there when this grader runs in one (Save and check):
        # ipykernel reads it once, at import, so in the server, and every forked kernel would then poll for
        # that parent, which is not its own (and, with the namespace's init as its parent, exit at once)
        env.pop("JPY_PARENT_PID", None)
        proc = subprocess.Popen([sys.executable, os.path.abspath(__file__), path, str(os.getpid())],
                                env=env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                                start_new_session=True, close_fds=True)
    except OSError:
        shutil.rmtree(home, ignore_errors=True)
        _server.clear()
        _server.update(owner=os.getpid(), failed=True)
        return

    def stop(proc=proc, home=home):
        with contextlib.suppress(Exception):
            proc.kill()
            proc.wait(timeout=5)
        shutil.rmtree(home, ignore_errors=True)

    _server.clear()
    _server.update(proc=proc, socket=path, owner=os.getpid(), ready=False, stop=stop)
    atexit.register(stop)
    multiprocessing.util.Finalize(None, stop, exitpriority=10)  # pool workers leave through os._exit


def _await(proc: subprocess.Popen) -> None:
    ready, _, _ = select.select([proc.stdout], [], [], 120)
    if ready and proc.stdout.readline().strip() == b"ready":
        _server["ready"] = True
        return
    _server["stop"]()
    _server.update(proc=None, failed=True)


def request(sock_path: str, init_pid: int, argv: list[str], env: dict, cwd: str, uid: int,
            limits: list[tuple[int, int]], cgroup: str = "") -> tuple[socket.socket, int]:
    """Ask the server for a kernel inside the namespaces of `init_pid`; returns the open connection (it closes
    when the kernel is gone) and the kernel's host pid. Raises OSError when there is no kernel."""
    conn = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    conn.settimeout(60)
    conn.connect(sock_path)
    # With the request go this process's stdin, stdout and stderr: what a kernel started here would inherit
    socket.send_fds(conn, [json.dumps({"init": init_pid, "argv": argv, "env": env, "cwd": cwd, "uid": uid,
                                       "limits": limits, "cgroup": cgroup}).encode() + b"\n"], [0, 1, 2])
    reply = json.loads(conn.makefile("rb").readline() or b'{"error": "the fork server closed"}')
    if "pid" not in reply:
        conn.close()
        raise OSError(reply.get("error", "no kernel"))
    conn.settimeout(None)
    return conn, int(reply["pid"])


# ---- server side ---------------------------------------------------------------------------------------

def _libc():
    import ctypes

    return ctypes.CDLL(None, use_errno=True)


def _join(init_pid: int) -> None:
    """Enter the namespaces of the sandbox's init (all opened first: /proc changes with the mount namespace)."""
    import ctypes

    libc = _libc()
    fds = [os.open(f"/proc/{init_pid}/ns/{ns}", os.O_RDONLY) for ns in NAMESPACES]
    for ns, fd in zip(NAMESPACES, fds, strict=True):
        if libc.setns(fd, 0) != 0:
            raise OSError(ctypes.get_errno(), f"setns({ns})")
        os.close(fd)


def _drop_capabilities(libc) -> None:
    """A kernel started by the init execs and so loses what the bounding set no longer holds; a fork keeps
    the capabilities it joined with (all of them, in its user namespace) unless they are cleared here."""
    import ctypes

    header = (ctypes.c_uint32 * 2)(0x20080522, 0)  # _LINUX_CAPABILITY_VERSION_3, this process
    data = (ctypes.c_uint32 * 6)()  # effective, permitted, inheritable, twice (64 bits): all zero
    if libc.capset(header, data) != 0:
        raise OSError(ctypes.get_errno(), "capset")


# The signal dispositions this interpreter started with, noted before the server changes any: a fresh kernel's
# interpreter starts with the same (both are started by the grader, and Python sets the same ones at start).
STARTUP_SIGNALS: dict = {}


def _note_startup_signals() -> None:
    for sig in signal.valid_signals():
        with contextlib.suppress(OSError, ValueError):
            handler = signal.getsignal(sig)
            if handler is not None:
                STARTUP_SIGNALS[sig] = handler


_SHOWN: list = []  # the buffers /proc/self/cmdline and environ read from, in a kernel: they live as long as it


def _show_as(libc, argv: list[str], env: dict) -> tuple | None:
    """/proc/self/cmdline and /proc/self/environ as a fresh kernel's (its command and the environment it was
    started with), not the server's: PR_SET_MM_MAP, which needs no privilege, points them at new buffers.
    Returns the buffers, which must live as long as the process; None where the kernel refuses (no
    CONFIG_CHECKPOINT_RESTORE), and then they stay the server's."""
    import ctypes

    class MmMap(ctypes.Structure):  # struct prctl_mm_map (linux/prctl.h)
        _fields_ = [(n, ctypes.c_uint64) for n in ("start_code", "end_code", "start_data", "end_data",
                                                   "start_brk", "brk", "start_stack", "arg_start", "arg_end",
                                                   "env_start", "env_end", "auxv")] + [
            ("auxv_size", ctypes.c_uint32), ("exe_fd", ctypes.c_uint32)]

    try:
        with open("/proc/self/stat") as f:
            stat = f.read().rsplit(")", 1)[1].split()
        with open("/proc/self/auxv", "rb") as f:
            auxv = f.read()
    except OSError:
        return None

    def field(n: int) -> int:  # proc(5) numbers the fields from 1; stat[0] is field 3
        return int(stat[n - 3])

    args = b"".join(a.encode() + b"\0" for a in argv)
    envs = b"".join(f"{k}={v}".encode() + b"\0" for k, v in env.items())
    area = ctypes.create_string_buffer(args + envs, len(args) + len(envs))
    aux = ctypes.create_string_buffer(auxv, len(auxv))
    start = ctypes.addressof(area)
    libc.sbrk.restype = ctypes.c_void_p
    mm = MmMap(start_code=field(26), end_code=field(27), start_data=field(45), end_data=field(46),
               start_brk=field(47), brk=libc.sbrk(0), start_stack=field(28), arg_start=start,
               arg_end=start + len(args), env_start=start + len(args), env_end=start + len(args) + len(envs),
               auxv=ctypes.addressof(aux), auxv_size=len(auxv), exe_fd=0xFFFFFFFF)
    if libc.prctl(35, 14, ctypes.byref(mm), ctypes.sizeof(mm), 0) != 0:  # PR_SET_MM, PR_SET_MM_MAP
        return None
    return area, aux


def _become_kernel(req: dict, fds: list[int]) -> None:
    """In the forked kernel, inside the sandbox: what the init does before exec, then ipykernel. Everything a
    program can observe of its process is made what a fresh kernel's is (tests/test_fork_like_fresh.py)."""
    import importlib.util
    import random
    import resource
    import time

    libc = _libc()
    # a fresh kernel's parent is the namespace's init: this process's parent has just gone, and the init
    # adopts it (see _serve_one)
    deadline = time.monotonic() + 5
    while os.getppid() != 1 and time.monotonic() < deadline:
        time.sleep(0.001)
    signal.pthread_sigmask(signal.SIG_SETMASK, set())  # the init unblocks everything before it execs
    for sig, handler in STARTUP_SIGNALS.items():
        with contextlib.suppress(OSError, ValueError):
            signal.signal(sig, handler)
    os.chdir(req["cwd"])
    for what, value in req["limits"]:
        resource.setrlimit(what, (value, value))
    for c in range(64):
        libc.prctl(24, c, 0, 0, 0)  # PR_CAPBSET_DROP
    if req["uid"] >= 0:
        os.setgroups([])
        os.setgid(req["uid"])
        os.setuid(req["uid"])
    _drop_capabilities(libc)
    libc.prctl(38, 1, 0, 0, 0)  # PR_SET_NO_NEW_PRIVS
    # A change of user made the process undumpable, and so its /proc files root's; an exec (a fresh kernel's)
    # makes it dumpable again
    libc.prctl(4, 1, 0, 0, 0)  # PR_SET_DUMPABLE
    null = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):  # the stand-in's own, as a kernel it started would have them; else /dev/null
        os.dup2(fds[fd] if len(fds) == 3 else null, fd)
    os.closerange(3, 65536)
    env = dict(req["env"])
    env.pop("JPY_PARENT_PID", None)  # the kernel's parent is outside its PID namespace: ipykernel must not poll it
    os.environ.clear()
    os.environ.update(env)
    _SHOWN.append(_show_as(libc, req["argv"], env))
    # What a new interpreter would have had of its own: numpy seeds its global generator from the OS at
    # import (sys.path is already the same: ipykernel_launcher drops its directory, IPython adds '').
    import types

    import numpy

    numpy.random.seed()
    random.seed()  # the server's state would be every fork's
    if "torch" in sys.modules:  # torch seeds its default generator from the OS at import: once per server
        sys.modules["torch"].seed()
    # matplotlib read MPLBACKEND when the server imported it; a fresh kernel reads the kernel's, and
    # ipykernel sets it to the inline backend first where it is unset.
    matplotlib = sys.modules.get("matplotlib")
    if matplotlib is not None:
        os.environ.setdefault("MPLBACKEND", INLINE)
        matplotlib.rcParams["backend"] = os.environ["MPLBACKEND"]
    launcher = importlib.util.find_spec("ipykernel_launcher")
    sys.argv = [launcher.origin if launcher and launcher.origin else "ipykernel_launcher", *req["argv"][3:]]
    sys.orig_argv = list(req["argv"])
    main = types.ModuleType("__main__")  # this server's own module leaves the kernel's reach
    sys.modules["__main__"] = sys.modules["__mp_main__"] = main
    from ipykernel import kernelapp

    kernelapp.launch_new_instance()


def _receive(conn: socket.socket) -> tuple[dict, list[int]]:
    """The request line and the descriptors sent with it."""
    data, fds, _, _ = socket.recv_fds(conn, 1 << 16, 3)
    while not data.endswith(b"\n"):
        more = conn.recv(1 << 16)
        if not more:
            break
        data += more
    return json.loads(data), fds


def _children(proc: int, pid: int) -> list[int]:
    """The children of `pid`, read from the grader's /proc (`proc`: a descriptor of it, opened before this
    process entered the sandbox's mount namespace), so in the grader's pids."""
    try:
        fd = os.open(f"{pid}/task/{pid}/children", os.O_RDONLY, dir_fd=proc)
    except FileNotFoundError:  # a kernel built without CONFIG_PROC_CHILDREN: ask every process instead
        found = []
        for name in os.listdir(proc):
            with contextlib.suppress(OSError, ValueError, IndexError):
                fd = os.open(f"{name}/stat", os.O_RDONLY, dir_fd=proc)
                try:
                    if int(os.read(fd, 4096).decode().rsplit(")", 1)[1].split()[1]) == pid:
                        found.append(int(name))
                finally:
                    os.close(fd)
        return found
    try:
        return [int(p) for p in os.read(fd, 4096).split()]
    finally:
        os.close(fd)


def _serve_one(conn: socket.socket, listener: socket.socket) -> int:
    """One kernel: enter the sandbox's namespaces and fork a go-between inside them, which forks the kernel and
    goes, so that the kernel's parent is the namespace's init, as a fresh kernel's is. Its session and process
    group are this process's, led from outside the namespace, as a fresh kernel's are the launcher's."""
    listener.close()
    signal.signal(signal.SIGCHLD, signal.SIG_DFL)
    try:
        req, fds = _receive(conn)
        if req.get("cgroup"):  # the submission's memory cgroup, joined while its file system is still in view
            with open(os.path.join(req["cgroup"], "cgroup.procs"), "w") as f:
                f.write(str(os.getpid()))
        os.setsid()  # out of the server's session (a fork of a session leader is no group leader)
        proc = os.open("/proc", os.O_RDONLY | os.O_DIRECTORY)
        _join(int(req["init"]))
        forked_r, forked_w = os.pipe()
        go_r, go_w = os.pipe()
        middle = os.fork()
    except Exception as e:  # anything: the client falls back to a new interpreter
        conn.sendall(json.dumps({"error": f"{type(e).__name__}: {e}"}).encode() + b"\n")
        return 1
    if middle == 0:  # inside the namespace
        try:
            conn.close()
            os.close(proc)
            os.close(forked_r)
            os.close(go_w)
            if os.fork() == 0:
                os.close(forked_w)
                os.close(go_r)
                _become_kernel(req, fds)
            else:
                os.write(forked_w, b"x")
                os.read(go_r, 1)  # the server has noted the kernel's pid: go, and the init adopts it
        finally:
            os._exit(0)
    for fd in (forked_w, go_r, *fds):
        os.close(fd)
    try:
        if not select.select([forked_r], [], [], 30)[0] or not os.read(forked_r, 1):
            raise OSError("no kernel was forked")
        kernels = _children(proc, middle)
        if len(kernels) != 1:
            raise OSError("the kernel was not found")
        kernel = kernels[0]
        watch = os.pidfd_open(kernel)
    except OSError as e:
        os.kill(middle, signal.SIGKILL)
        conn.sendall(json.dumps({"error": f"{type(e).__name__}: {e}"}).encode() + b"\n")
        return 1
    finally:
        os.close(go_w)
        os.waitpid(middle, 0)
    conn.sendall(json.dumps({"pid": kernel}).encode() + b"\n")
    select.select([watch], [], [])  # the connection closes when the kernel is gone
    return 0


def serve(path: str, parent: int) -> None:
    _note_startup_signals()
    for name in PRELOAD:
        # Only a head start: what cannot be imported here (torch.distributed.tensor on a build without
        # distributed) a kernel imports, or fails to, as a fresh one would.
        with contextlib.suppress(ImportError):
            __import__(name)
    signal.signal(signal.SIGCHLD, signal.SIG_IGN)  # the forks reap themselves
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(path)
    listener.listen(16)
    try:
        gone = os.pidfd_open(parent)  # the grading process: when it is gone, so is this
    except OSError:
        return
    sys.stdout.write("ready\n")
    sys.stdout.flush()
    while True:
        readable, _, _ = select.select([listener, gone], [], [])
        if gone in readable:
            return
        conn, _ = listener.accept()
        child = os.fork()
        if child == 0:
            code = 1
            try:
                code = _serve_one(conn, listener)
            finally:
                os._exit(code)
        conn.close()


if __name__ == "__main__":
    try:
        serve(sys.argv[1], int(sys.argv[2]))
    finally:  # a grader killed outright cannot remove the server's folder: the server does, as it goes
        import shutil

        shutil.rmtree(os.path.dirname(sys.argv[1]), ignore_errors=True)
