"""PID 1 of a kernel's namespace, as Python source run with `python -I -S -c INIT` after the fence has built the
kernel's file system (fence.py): the course's files are not in there, so the init cannot be a file of ours.

argv: MAX_TASKS, the uid to run the kernel as (-1: stay), the cap mark's path, a pidfd of the grader (-1: none),
then the kernel command, or `--join FD` when a fork of the fork server (zygote.py) becomes the kernel.
"""

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
    # autograder/isolation/zygote.py). It is the first process to appear in the namespace after this init.
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
