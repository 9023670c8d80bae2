"""The fence: the command that starts a kernel in its own user, mount, network, PID, IPC and UTS namespaces,
on a file system built from an allow-list (`filesystem_script`), with the namespace's init (pid1.py) as its
first process. Where the grader runs as root, a helper maps the namespace's users first (`_map_users`)."""

from __future__ import annotations

import os
import shlex
import shutil
import sys
import time
from pathlib import Path

from autograder.isolation.limits import DISK_BYTES, INNER_UID, MAX_TASKS, SANDBOX_UID, as_root
from autograder.isolation.pid1 import INIT, settings

NEW_ROOT = ".ptlab-root"  # the mount point of the kernel's file system, inside the scratch directory
ETC = ["ld.so.cache", "ld.so.conf", "ld.so.conf.d", "passwd", "group", "nsswitch.conf", "hosts", "localtime",
       "alternatives", "ssl", "fonts", "mime.types"]
TMPFS = "/.ptlab-tmpfs"  # where the tmpfs of /tmp and /dev/shm is made, in the kernel's root, then unmounted
DEVICES = ["null", "zero", "full", "random", "urandom", "tty"]


def _allowed() -> list[Path]:
    """What the kernel's file system holds besides /dev, /proc, /tmp and its scratch directory, read-only."""
    paths = [Path(p) for p in ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32")]
    paths += [Path("/etc") / name for name in ETC]
    interpreter = os.path.dirname(os.path.dirname(os.path.realpath(sys.executable)))
    paths += [Path(prefix) for prefix in sorted({sys.prefix, sys.base_prefix, interpreter})]
    return [p for p in paths if os.path.lexists(p)]


def filesystem_script(scratch: Path) -> str:
    """Builds the kernel's file system on an empty tmpfs (an allow-list), enters it, and starts the init."""
    q = shlex.quote
    root = scratch / NEW_ROOT
    r = q(str(root))

    def inside(p: Path | str) -> str:
        return q(str(root) + str(p))

    lines = ["set -e", "ip link set lo up 2>/dev/null || true",
              f"mount -t tmpfs -o size=1m,mode=755,nosuid,nodev none {r}",
              f"mkdir -p {inside('/proc')} {inside('/dev/shm')} {inside('/tmp')} {inside('/sys')} {inside(TMPFS)}",
              f"mount -t proc -o nosuid,nodev,noexec proc {inside('/proc')}",
              f"mount -t sysfs -o ro,nosuid,nodev,noexec sysfs {inside('/sys')} 2>/dev/null || true",
              # /tmp and /dev/shm are two folders of one tmpfs the size of the disk cap: together they can
              # never hold more (the init adds the scratch directory to what they hold)
              f"mount -t tmpfs -o size={max(DISK_BYTES, 2**20) // 1024}k,mode=755,nosuid,nodev none {inside(TMPFS)}",
              f"mkdir -m 1777 {inside(TMPFS + '/tmp')} {inside(TMPFS + '/shm')}",
              f"mount --bind {inside(TMPFS + '/tmp')} {inside('/tmp')}",
              f"mount --bind {inside(TMPFS + '/shm')} {inside('/dev/shm')}",
              f"umount {inside(TMPFS)}", f"rmdir {inside(TMPFS)}"]
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


def private_copies(scratch: Path, cmd: list[str], uid: int | None = None) -> list[str]:
    """The kernel reads its connection file (in the runtime directory, or a temporary file of nbclient's)
    from its scratch directory: neither of those is in its view. `uid`: the kernel's user, where the grader
    is root (by default the fenced kernel's, SANDBOX_UID)."""
    if uid is None:
        uid = SANDBOX_UID if as_root() else os.getuid()
    out = list(cmd)
    for i, arg in enumerate(cmd):
        if os.path.isabs(arg) and arg.endswith(".json") and Path(arg).parent == scratch and as_root():
            os.chown(arg, uid, uid)  # written there by the grader (kernels.manager_config), for the kernel
        elif (os.path.isabs(arg) and arg.endswith(".json") and os.path.isfile(arg)
                and Path(arg).parent != scratch):
            copy = scratch / f".ptlab-{os.path.basename(arg)}"
            shutil.copyfile(arg, copy)
            os.chmod(copy, 0o600)
            if as_root():
                os.chown(copy, uid, uid)
            out[i] = str(copy)
    return out


def command(scratch: Path, cmd: list[str], grader_fd: int, join_fd: int = -1, memory: int = 0) -> list[str]:
    """The command that starts `cmd` fenced in; with `join_fd`, the init starts nothing, writes a line to
    that descriptor when the sandbox is built, and waits for a kernel to join it (autograder/isolation/zygote.py).
    The sandbox ends when the grader (`grader_fd`, an inheritable pidfd of it; -1: none) is gone. `memory`:
    the cap on the namespace's memory that the init keeps (0 where a cgroup keeps it)."""
    root = as_root()
    uid = SANDBOX_UID if root else os.getuid()
    (scratch / NEW_ROOT).mkdir(exist_ok=True)
    if root:
        os.chown(scratch, uid, uid)
    cmd = private_copies(scratch, cmd)
    conf = settings(MAX_TASKS, INNER_UID if root else -1, str(scratch), grader_fd, memory, DISK_BYTES)
    init = [sys.executable, "-I", "-S", "-c", INIT, conf, *(cmd if join_fd < 0 else ["--join", str(join_fd)])]
    script = ["sh", "-c", filesystem_script(scratch), "sandbox"]
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

