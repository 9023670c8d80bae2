"""A kernel forked from the fork server (autograder/isolation/zygote.py) and a freshly started one, side by side,
in every process-level default a program can observe: signal dispositions and the blocked mask, resource
limits, the environment (os.environ and /proc/self/environ), the working directory and umask, the process's
place among processes (parent, process group, session), priority and CPU affinity, credentials and
capabilities, dumpability, open descriptors, threads, the interpreter's flags, argv and settings, and the
random state a program starts with. Both come from a grader that carries JPY_PARENT_PID, as one running in a
Jupyter kernel does (Save and check): ipykernel read it in the server once, and every fork then polled for a
parent not its own (tests/test_check_in_kernel.py is that check itself).

What differs by design is named and asserted as such: the modules the server imported are already loaded
(the probe imports them too, so that both sides hold the same modules when compared); the hash secret of str
and bytes is the server's (an interpreter draws it once, at start); the kernel's pid in its namespace is one
more than a fresh kernel's (the go-between that hands it to the namespace's init took one: its parent is the
init all the same). Every fork draws its own `random`, numpy and torch seeds, as a new interpreter does.
"""

from __future__ import annotations

import json
import os

import pytest
from nbformat.v4 import new_code_cell, new_notebook

from autograder.isolation import sandbox, zygote
from autograder.pipeline.execute import execute

pytestmark = [pytest.mark.kernel,
              pytest.mark.skipif(not sandbox.namespaces_work(), reason="no namespaces here: kernels start plainly")]

PROBE = r'''
import sys
preloaded = sorted(name for name in PRELOAD if name in sys.modules)  # before this cell imports any
import ctypes, faulthandler, gc, json, locale, os, random, resource, signal, sys, threading, warnings
import numpy, torch
for name in PRELOAD:  # what the server imported, imported here too: the same modules loaded, either way
    try:
        __import__(name)
    except ImportError:
        pass

home = os.environ["HOME"]


def norm(value):
    return value.replace(home, "<scratch>") if isinstance(value, str) else value


def handler(h):
    if h in (signal.SIG_DFL, signal.SIG_IGN):
        return signal.Handlers(h).name
    if h is None:
        return "None"
    return getattr(h, "__module__", "?") + "." + getattr(h, "__qualname__", repr(h))


def status(path):
    with open(path) as f:
        return dict(line.rstrip("\n").split(":\t", 1) for line in f if ":\t" in line)


def read(path, split=None):
    try:
        with open(path, "rb") as f:
            text = f.read().decode()
    except OSError as e:  # a forked kernel's /proc files were once root's, and closed to it
        return type(e).__name__ if split is None else [type(e).__name__]
    return text.strip() if split is None else [a for a in text.split(split) if a]


def owner(path):
    try:
        return os.stat(path).st_uid
    except OSError as e:
        return type(e).__name__


def fds():
    kinds = []
    for fd in os.listdir("/proc/self/fd"):
        try:
            target = os.readlink("/proc/self/fd/" + fd)
        except OSError:
            continue
        kinds.append(norm(target.split(":")[0] if not target.startswith("/") else target))
    return sorted(kinds)


me, thread = status("/proc/self/status"), status("/proc/thread-self/status")
libc = ctypes.CDLL(None)
umask = os.umask(0)
os.umask(umask)
print(json.dumps({
    "signals": {signal.Signals(s).name if s in signal.Signals._value2member_map_ else str(s): handler(signal.getsignal(s))
                for s in sorted(signal.valid_signals())},
    "blocked": sorted(int(s) for s in signal.pthread_sigmask(signal.SIG_BLOCK, [])),
    "sig_masks": {k: me[k] for k in ("SigIgn", "SigCgt")} | {"SigBlk": thread["SigBlk"]},
    "rlimits": {n: resource.getrlimit(getattr(resource, n)) for n in dir(resource) if n.startswith("RLIMIT_")},
    "env": {k: norm(v) for k, v in os.environ.items()},
    "cwd": norm(os.getcwd()),
    "umask": umask,
    "preloaded": preloaded, "ns_pid": os.getpid(),
    "pid": os.getpid() > 1, "ppid": os.getppid(), "pgrp": os.getpgrp(), "sid": os.getsid(0),
    "nice": os.getpriority(os.PRIO_PROCESS, 0),
    "affinity": sorted(os.sched_getaffinity(0)),
    "sched": os.sched_getscheduler(0),
    "creds": {k: me[k] for k in ("Uid", "Gid", "Groups", "CapInh", "CapPrm", "CapEff", "CapBnd", "CapAmb",
                                 "NoNewPrivs", "Seccomp")},
    "dumpable": libc.prctl(3, 0, 0, 0, 0),
    "proc_owner": owner("/proc/self/fd"),
    "oom_score_adj": read("/proc/self/oom_score_adj"),
    "fds": fds(),
    "threads": sorted(t.name for t in threading.enumerate()),
    "tasks": len(os.listdir("/proc/self/task")),
    "flags": repr(sys.flags), "argv": [norm(a) for a in sys.argv], "path": [norm(p) for p in sys.path],
    "executable": sys.executable, "orig_argv": [norm(a) for a in sys.orig_argv],
    "cmdline": [norm(a) for a in read("/proc/self/cmdline", "\0")],
    # in the order the fence's shell happens to pass it on: the entries are what counts
    "environ": sorted(norm(a) for a in read("/proc/self/environ", "\0")),
    "recursion": sys.getrecursionlimit(), "switch": sys.getswitchinterval(),
    "encodings": [sys.getdefaultencoding(), sys.getfilesystemencoding(), locale.getpreferredencoding(False)],
    "locale": locale.setlocale(locale.LC_ALL, None),
    "gc": [gc.isenabled(), gc.get_threshold()],
    "warnings": len(warnings.filters), "faulthandler": faulthandler.is_enabled(),
    "stack_size": threading.stack_size(), "dont_write_bytecode": sys.dont_write_bytecode,
    "torch_threads": torch.get_num_threads(), "torch_seed": torch.initial_seed(),
    "random": random.random(), "numpy_random": float(numpy.random.rand()),
    "hash": hash("ptlab"),
}))
'''
# Differ between any two fresh kernels: drawn at random when an interpreter starts or imports.
RANDOM = ("random", "numpy_random", "torch_seed", "hash")
# Differ between a forked and a fresh kernel by design, each asserted as such below.
BY_DESIGN = ("preloaded", "ns_pid")


def probe() -> dict:
    nb = new_notebook(cells=[new_code_cell(PROBE.replace("PRELOAD", repr(zygote.PRELOAD)))])
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    executed, notes = execute(nb, timeout=120)
    text = "".join(o.get("text", "") for o in executed.cells[0].outputs if o.get("output_type") == "stream")
    assert text, f"the probe printed nothing: {executed.cells[0].outputs} {notes}"
    return json.loads(text.strip().splitlines()[-1])


@pytest.fixture(scope="module")
def kernels():
    """Two forked kernels and two fresh ones (PTLAB_ZYGOTE=0), one after the other, from a grader that runs
    in a Jupyter kernel (the learner's Save and check): jupyter_client gave it JPY_PARENT_PID, which the fork
    server, started afresh here, inherits before it imports ipykernel."""
    mp = pytest.MonkeyPatch()
    try:
        mp.setenv("JPY_PARENT_PID", str(os.getppid()))
        if zygote._server.get("stop"):
            zygote._server["stop"]()
        zygote._server.clear()
        forked = [probe(), probe()]
        mp.setenv("PTLAB_ZYGOTE", "0")
        fresh = [probe(), probe()]
    finally:
        mp.undo()
    for f in fresh:
        assert f["env"].pop("PTLAB_ZYGOTE") == "0"
        f["environ"].remove("PTLAB_ZYGOTE=0")
    return forked, fresh


ASPECTS = ["signals", "blocked", "sig_masks", "rlimits", "env", "cwd", "umask", "pid", "ppid", "pgrp", "sid",
           "nice", "affinity", "sched", "creds", "dumpable", "proc_owner", "oom_score_adj", "fds", "threads",
           "tasks", "flags", "argv", "path", "executable", "orig_argv", "cmdline", "environ", "recursion",
           "switch", "encodings", "locale",
           "gc", "warnings", "faulthandler", "stack_size", "dont_write_bytecode", "torch_threads"]


@pytest.mark.parametrize("aspect", ASPECTS)
def test_a_forked_kernel_is_a_fresh_one_in(kernels, aspect):
    forked, fresh = kernels
    assert fresh[0][aspect] == fresh[1][aspect], f"{aspect} differs between two fresh kernels: not a default"
    assert forked[0][aspect] == fresh[0][aspect], (
        f"{aspect}: forked {forked[0][aspect]!r}, fresh {fresh[0][aspect]!r}")


def test_the_probe_covers_every_aspect(kernels):
    forked, _ = kernels
    assert set(forked[0]) == set(ASPECTS) | set(RANDOM) | set(BY_DESIGN)


def test_every_fork_draws_its_own_random_state(kernels):
    forked, fresh = kernels
    for key in ("random", "numpy_random", "torch_seed"):
        assert forked[0][key] != forked[1][key], f"two forked kernels share {key}'s state"
        assert fresh[0][key] != fresh[1][key]


def test_the_hash_secret_is_the_servers_by_design(kernels):
    """An interpreter draws its str/bytes hash secret once, at start: forks of one server share it (one
    grading process's kernels), fresh kernels draw their own. Nothing of the grader's is in it."""
    forked, fresh = kernels
    assert forked[0]["hash"] == forked[1]["hash"]
    assert fresh[0]["hash"] != fresh[1]["hash"]


def test_the_modules_the_server_imported_are_loaded_by_design(kernels):
    """The point of the server: a forked kernel starts with torch, numpy, pyplot and ipykernel loaded, a fresh
    one imports them (ipykernel's own app aside). A program sees it only in sys.modules and in the time an
    import takes; the modules are the same files either way (the probe imports them all before comparing)."""
    forked, fresh = kernels
    assert set(forked[0]["preloaded"]) >= {"torch", "numpy", "ipykernel.kernelapp", "matplotlib.pyplot"}, (
        f"a forked kernel started without the server's modules: {forked[0]['preloaded']}")
    assert not set(fresh[0]["preloaded"]) & {"torch", "numpy", "matplotlib.pyplot"}, fresh[0]["preloaded"]


def test_the_kernels_pid_in_its_namespace_is_one_more_by_design(kernels):
    """The go-between that hands a forked kernel to the namespace's init took a pid of its own before it: the
    kernel's parent is the init all the same (the ppid aspect), but its pid is one past a fresh kernel's."""
    forked, fresh = kernels
    assert fresh[0]["ns_pid"] == fresh[1]["ns_pid"] and forked[0]["ns_pid"] == forked[1]["ns_pid"]
    assert forked[0]["ns_pid"] == fresh[0]["ns_pid"] + 1, (forked[0]["ns_pid"], fresh[0]["ns_pid"])
