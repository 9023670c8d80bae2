"""The limits every sandboxed kernel runs under, and the users it runs as. Read by the launcher (sandbox.py),
the fence (fence.py) and the stand-in for forked kernels (standin.py)."""

from __future__ import annotations

import os
import resource

# One submission, all of its processes and its tmpfs mounts together (a cgroup, else the init's watchdog);
# also each process's address space, the quick stop for a single runaway allocation.
MEMORY_BYTES = int(float(os.environ.get("PTLAB_MEM_LIMIT_GB", "6")) * 2**30)
# One submission's writes: scratch directory, /tmp and /dev/shm together (the tmpfs is this size, and the
# init sums the rest).
DISK_BYTES = int(float(os.environ.get("PTLAB_DISK_LIMIT_MB", "1024")) * 2**20)
CPU_SECONDS = int(os.environ.get("PTLAB_CPU_LIMIT_S", "900"))
FILE_BYTES = 512 * 2**20
# Processes and threads of one kernel, all told: a distributed exercise (torchrun and a few ranks, each with
# torch's and gloo's threads) uses well under 100.
MAX_TASKS = int(os.environ.get("PTLAB_MAX_TASKS", "256"))
# When the grader runs as root, the kernel runs as this host user (uid 1000 inside its namespace).
SANDBOX_UID = int(os.environ.get("PTLAB_SANDBOX_UID", "1234567"))
INNER_UID = 1000
# Left in the scratch directory by the init that stopped a run: a fork loop, memory, disk (pid1.py).
CAP_MARK = ".ptlab-too-many-processes"
MEMORY_MARK = ".ptlab-out-of-memory"
DISK_MARK = ".ptlab-out-of-disk"


def as_root() -> bool:
    return os.geteuid() == 0


def apply() -> None:
    """Memory, CPU time and file size, in this process and everything it starts."""
    for what, value in ((resource.RLIMIT_AS, MEMORY_BYTES), (resource.RLIMIT_CPU, CPU_SECONDS),
                        (resource.RLIMIT_FSIZE, FILE_BYTES)):
        if value <= 0:
            continue
        soft, hard = resource.getrlimit(what)
        cap = value if hard == resource.RLIM_INFINITY else min(value, hard)
        resource.setrlimit(what, (cap, cap))
