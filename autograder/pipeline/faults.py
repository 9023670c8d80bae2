"""What went wrong with a run itself, in a few words for the `status` column of grades.csv and `check`'s notes.

A fault is not a wrong answer. It means the run itself failed: a cell stopped at the per-cell time limit,
memory ran out, the kernel died, the notebook ran out of time, output was cut, the sandbox stopped a fork
loop. The notebook is still scored for the cells that ran. A fault explains why the rest earned nothing, so
an instructor can tell a crashed submission from a wrong one without opening it.

execute.py reports the faults of the whole run (deadline, dead kernel, cut output); this module reads the
faults that single cells left in their outputs.
"""

from __future__ import annotations

from nbformat import NotebookNode

from autograder.pipeline.cells import grade_id

# nbgrader records a timed-out cell as CellTimeoutError; the interrupt it sends surfaces as KeyboardInterrupt.
TIMEOUT_NAMES = ("CellTimeoutError", "KeyboardInterrupt")
# Python's own MemoryError, and torch's allocator failing under the sandbox's memory cap.
MEMORY_HINTS = ("can't allocate memory", "out of memory")


def too_many_processes(cap: int) -> str:
    """The fault of a run the sandbox stopped: it had `cap` processes and threads at once (a fork loop)."""
    return f"too many processes: the run reached the cap of {cap} processes and threads, and was stopped"


def sandbox_stop(why: str) -> str:
    """The fault of a run the sandbox stopped or cut short, by the cap it reached (isolation.sandbox.stopped_for)."""
    from autograder.isolation import limits

    if why == "processes":
        return too_many_processes(limits.MAX_TASKS)
    if why == "memory":
        return (f"out of memory: the submission's processes and temporary files together reached the cap of "
                f"{limits.MEMORY_BYTES / 2**30:g} GB, and the run was stopped")
    return (f"out of disk space: the submission wrote more than {limits.DISK_BYTES / 2**20:g} MB (scratch, /tmp "
            f"and /dev/shm together), and the run was stopped")


def where(cell: NotebookNode, index: int) -> str:
    """How a status names a cell: its grade id, or its position for a cell without one."""
    return grade_id(cell) or f"cell {index + 1}"


def _kind(error: NotebookNode) -> str | None:
    ename, evalue = error.get("ename", ""), str(error.get("evalue", ""))
    if ename in TIMEOUT_NAMES:
        return "stopped at the per-cell time limit"
    if ename == "MemoryError" or any(hint in evalue for hint in MEMORY_HINTS):
        return "out of memory"
    if "No space left on device" in evalue:  # ENOSPC: the tmpfs of /tmp and /dev/shm is full
        return "out of disk space"
    if "File too large" in evalue:  # EFBIG: the sandbox's per-file limit (RLIMIT_FSIZE)
        return "a file over the per-file size limit"
    return None


def in_cells(nb: NotebookNode) -> list[str]:
    """One short line per kind of fault, naming the cells it hit: 'out of memory: ex1_fit, cell 12'."""
    hits: dict[str, list[str]] = {}
    for i, cell in enumerate(nb.cells):
        for out in cell.get("outputs", []):
            kind = _kind(out) if out.get("output_type") == "error" else None
            if kind:
                hits.setdefault(kind, []).append(where(cell, i))
                break
    return [f"{kind}: {', '.join(where)}" for kind, where in hits.items()]


def status(faults: list[str], limit: int = 200) -> str:
    """The CSV status of a notebook that was graded: 'ok', or what went wrong with its run."""
    return "; ".join(faults)[:limit] if faults else "ok"
