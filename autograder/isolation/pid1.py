"""PID 1 of a kernel's namespace, as Python source run with `python -I -S -c INIT` after the fence has built the
kernel's file system (fence.py): the course's files are not in there, so the init cannot be a file of ours.

argv: a JSON object of settings (`settings()`: the process cap, the uid to run the kernel as, -1: stay; the
scratch directory, where a stopped run leaves its mark; a pidfd of the grader, -1: none; the memory and disk
caps in bytes, 0: none), then the kernel command, or `--join FD` when a fork of the fork server (zygote.py)
becomes the kernel.

The init is also the watchdog where the kernel offers no better mechanism: it counts the namespace's tasks
(a fork loop), sums its memory (the PSS of every process plus what its tmpfs mounts hold) where no cgroup
caps it (cgroup.py), and sums what the submission wrote (its scratch directory, /tmp and /dev/shm, and files
deleted while still open). Past a cap it leaves a mark in the scratch directory, named for the cap, and ends
the run; the grader turns the mark into a status.
"""

import json

from autograder.isolation.limits import CAP_MARK, DISK_MARK, MEMORY_MARK


def settings(cap: int, uid: int, scratch: str, grader_fd: int, memory: int, disk: int) -> str:
    return json.dumps({"cap": cap, "uid": uid, "scratch": scratch, "grader_fd": grader_fd, "memory": memory,
                       "disk": disk})


INIT = r'''
import ctypes, json, os, resource, select, signal, sys, time
conf, cmd = json.loads(sys.argv[1]), sys.argv[2:]
cap, uid, grader_fd, scratch = conf["cap"], conf["uid"], conf["grader_fd"], conf["scratch"]
os.environ.pop("JPY_PARENT_PID", None)  # the kernel's parent is this init: ipykernel must not poll for it
for name in ("PWD", "OLDPWD"):  # the fence's shell adds them; a forked kernel has neither
    os.environ.pop(name, None)
signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGCHLD})
watch = select.poll()
if grader_fd >= 0:
    # A pidfd of the process that started the kernel (the grader) turns readable when it is gone: then
    # nothing of its kernel may stay behind, and nothing may start. So does a joined kernel's, when it exits.
    watch.register(grader_fd, select.POLLIN)


def grader_gone():
    return grader_fd >= 0 and any(fd == grader_fd for fd, _ in watch.poll(0))


if os.environ.get("PTLAB_TEST_KILL_GRADER") == "init":
    # tests: the suite sees this mark and kills the grader (a process in here may not signal it)
    os.close(os.open(os.path.join(scratch, ".ptlab-test-init"), os.O_WRONLY | os.O_CREAT | os.O_NOFOLLOW))
    time.sleep(3)
if grader_gone():
    os._exit(124)
def parent(pid):
    try:
        with open("/proc/" + pid + "/stat") as f:
            return int(f.read().rsplit(")", 1)[1].split()[1])
    except (OSError, ValueError, IndexError):
        return -1


if cmd[0] == "--join":
    # The kernel is not started here: a fork of the grader's fork server joins these namespaces (see
    # autograder/isolation/zygote.py), and its go-between leaves the kernel to this init, as its child.
    kernel = None
    os.write(int(cmd[1]), b"ready\n")
    os.close(int(cmd[1]))
    for _ in range(6000):
        adopted = [int(p) for p in os.listdir("/proc") if p.isdigit() and p != "1" and parent(p) == 1]
        if adopted:
            kernel = min(adopted)
            break
        if grader_gone():
            os._exit(124)
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


def pids():
    return [p for p in os.listdir("/proc") if p.isdigit()]


def tasks():
    n = 0
    for p in pids():
        try:
            n += len(os.listdir("/proc/" + p + "/task"))
        except OSError:
            pass
    return n


def tmpfs_used():
    st = os.statvfs("/tmp")  # /dev/shm is a folder of the same tmpfs (fence.py)
    return (st.f_blocks - st.f_bfree) * st.f_frsize


def memory():
    # PSS: the pages a kernel shares with its fork server, or children with the kernel, count once
    total = tmpfs_used()
    for p in pids():
        try:
            with open("/proc/" + p + "/smaps_rollup") as f:
                for line in f:
                    if line.startswith("Pss:"):
                        total += int(line.split()[1]) * 1024
                        break
        except (OSError, ValueError):
            pass
    return total


def written():
    total, seen = tmpfs_used(), set()
    for top, dirs, files in os.walk(scratch):
        for name in files:
            try:
                st = os.lstat(os.path.join(top, name))
            except OSError:
                continue
            if (st.st_dev, st.st_ino) not in seen:
                seen.add((st.st_dev, st.st_ino))
                total += st.st_blocks * 512
    for p in pids():  # files deleted while still open hold their blocks
        try:
            fds = os.listdir("/proc/" + p + "/fd")
        except OSError:
            continue
        for fd in fds:
            try:
                if os.readlink("/proc/" + p + "/fd/" + fd).endswith(" (deleted)"):
                    st = os.stat("/proc/" + p + "/fd/" + fd)
                    if (st.st_dev, st.st_ino) not in seen and st.st_dev != os.stat("/tmp").st_dev:
                        seen.add((st.st_dev, st.st_ino))
                        total += st.st_blocks * 512
            except OSError:
                pass
    return total


def stop(mark):
    try:  # not through a link the submission may have left in its scratch directory
        os.close(os.open(os.path.join(scratch, mark), os.O_WRONLY | os.O_CREAT | os.O_NOFOLLOW, 0o644))
    except OSError:
        pass
    os._exit(125)


last = 0.0
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
        stop("CAP_MARK")
    if time.monotonic() - last >= 0.5:
        last = time.monotonic()
        if conf["memory"] and memory() > conf["memory"]:
            stop("MEMORY_MARK")
        if conf["disk"] and written() > conf["disk"]:
            stop("DISK_MARK")
'''.replace('"CAP_MARK"', repr(CAP_MARK)).replace('"MEMORY_MARK"', repr(MEMORY_MARK)).replace(
    '"DISK_MARK"', repr(DISK_MARK))
