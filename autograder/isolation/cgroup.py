"""A memory cgroup per submission, where the grader may make one: the kernel sums every page of all of a
submission's processes and of its tmpfs mounts (/tmp, /dev/shm) and no more than `limits.MEMORY_BYTES` fit.

A group is a child of the grading process's own memory cgroup (cgroup v1's memory hierarchy, or a cgroup v2
subtree delegated to the grader with the memory controller), named after the kernel's scratch directory:
the launcher (sandbox.py) makes it and moves itself in, so unshare, the init and the kernel start inside;
a kernel forked from the fork server joins it before it enters the sandbox (zygote.py). The grader reads
whether the kernel's OOM killer struck there (`oom_kills`), then removes it (`remove`).

Where no group can be made (no cgroup file system, not writable, v2 without a delegated subtree), the
sandbox's init sums the namespace's memory itself (pid1.py) and stops the run.
"""

from __future__ import annotations

import functools
import os
import time
import uuid
from pathlib import Path

PREFIX = "ptlab-"


def _mounts() -> list[tuple[str, str, set[str]]]:
    """(mount point, root within the hierarchy, options) of every cgroup file system this process sees."""
    found = []
    try:
        with open("/proc/self/mountinfo") as f:
            for line in f:
                left, _, right = line.partition(" - ")
                fields, rest = left.split(), right.split()
                if rest and rest[0] in ("cgroup", "cgroup2"):
                    found.append((fields[4], fields[3], {rest[0], *rest[-1].split(",")}))
    except OSError:
        pass
    return found


def own() -> Path | None:
    """This process's memory cgroup, as a directory: v1's memory controller first, else the v2 group."""
    try:
        with open("/proc/self/cgroup") as f:
            lines = [ln.rstrip("\n").split(":", 2) for ln in f]
    except OSError:
        return None
    paths = {tuple(c.split(",")) if c else ("cgroup2",): p for _, c, p in lines}
    for point, root, opts in _mounts():
        for controllers, path in paths.items():
            if ("memory" in opts and "memory" in controllers) or ("cgroup2" in opts and controllers == ("cgroup2",)):
                inner = os.path.relpath(path, root) if path.startswith(root) else None
                if inner is None or inner.startswith(".."):
                    continue
                where = Path(point) / inner
                if (where / "memory.limit_in_bytes").exists() or (where / "memory.max").exists() \
                        or (where / "cgroup.subtree_control").exists():
                    return where.resolve()
    return None


def path_for(scratch: str | Path) -> Path | None:
    """The group of a scratch directory: a child of ours, or ours, for a process of the sandbox already in it."""
    base, name = own(), f"{PREFIX}{Path(scratch).name}"
    if base is None:
        return None
    return base if base.name == name else base / name


def _write(path: Path, value: str) -> None:
    with open(path, "w") as f:
        f.write(value)


def create(scratch: str | Path, limit: int) -> Path | None:
    """The group for this scratch directory, capped at `limit` bytes, with this process in it; None where
    none can be made (nothing is left behind then)."""
    group = path_for(scratch)
    if group is None or limit <= 0:
        return None
    sweep(group.parent)
    try:
        group.mkdir()
    except OSError:
        return None
    try:
        if (group / "memory.limit_in_bytes").exists():  # v1
            _write(group / "memory.limit_in_bytes", str(limit))
            if (group / "memory.memsw.limit_in_bytes").exists():  # swap counted too, where it is accounted
                _write(group / "memory.memsw.limit_in_bytes", str(limit))
        elif (group / "memory.max").exists():  # v2, memory controller delegated
            _write(group / "memory.max", str(limit))
            if (group / "memory.swap.max").exists():
                _write(group / "memory.swap.max", "0")
        else:
            raise OSError("no memory controller in this group")
        _write(group / "cgroup.procs", str(os.getpid()))
    except OSError:
        remove(group, wait=0)
        return None
    return group


def join(group: str | Path, pid: int = 0) -> bool:
    try:
        _write(Path(group) / "cgroup.procs", str(pid or os.getpid()))
        return True
    except OSError:
        return False


def oom_kills(group: Path | None) -> int:
    """How many processes the kernel's OOM killer ended in the group (v1 memory.oom_control, v2
    memory.events), or 0 where it cannot tell."""
    if group is None:
        return 0
    for name in ("memory.oom_control", "memory.events"):
        try:
            with open(group / name) as f:
                for line in f:
                    key, _, value = line.partition(" ")
                    if key == "oom_kill":
                        return int(value)
        except (OSError, ValueError):
            continue
    return 0


def reached(group: Path | None, limit: int) -> bool:
    """Whether the group's memory reached its cap: the OOM killer struck, or its peak touched the cap (a
    write to tmpfs past the cap fails with ENOSPC, no process killed)."""
    if group is None:
        return False
    if oom_kills(group):
        return True
    for name in ("memory.max_usage_in_bytes", "memory.peak"):
        try:
            return int((group / name).read_text()) >= limit - 2**20
        except (OSError, ValueError):
            continue
    return False


def remove(group: Path | None, wait: float = 10.0) -> None:
    """Remove the group once its processes are gone (a killed namespace takes a moment to empty)."""
    if group is None:
        return
    deadline = time.monotonic() + wait
    while True:
        try:
            os.rmdir(group)
            return
        except FileNotFoundError:
            return
        except OSError:
            if time.monotonic() >= deadline:
                return
            time.sleep(0.02)


def sweep(base: Path, age: float = 60.0) -> None:
    """Remove the empty groups a grader killed outright left beside ours. An empty group older than `age`
    seconds is nobody's: a launcher joins the group it made within milliseconds, and a group with a process
    in it cannot be removed."""
    now = time.time()
    try:
        stale = [p for p in base.iterdir() if p.name.startswith(PREFIX) and now - p.stat().st_mtime > age]
    except OSError:
        return
    for group in stale:
        remove(group, wait=0)


def leave(group: Path) -> None:
    """Move this process out of `group` (into its parent), so that the group can be removed."""
    join(group.parent)


@functools.lru_cache(maxsize=1)
def works() -> bool:
    """Whether this grader can cap a submission's memory with a cgroup: one made, joined by a child, removed."""
    import subprocess
    import sys

    probe = f"probe-{uuid.uuid4().hex[:8]}"
    group = path_for(probe)
    if group is None:
        return False
    code = ("import sys\n"
            "from autograder.isolation import cgroup\n"
            "raise SystemExit(0 if cgroup.create(sys.argv[1], 1 << 30) else 1)\n")
    try:
        done = subprocess.run([sys.executable, "-c", code, probe], capture_output=True, timeout=60,
                              cwd=str(Path(__file__).resolve().parents[2]))
    except (OSError, subprocess.TimeoutExpired):
        return False
    finally:
        remove(group)
    return done.returncode == 0 and not group.exists()
