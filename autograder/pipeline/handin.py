"""Reading a hand-in without trusting it: no symbolic link is followed, a file over the size limit is never
parsed, and a nesting bomb is a status, not a RecursionError. Every way a file can be broken becomes one
GradingInputError line (`<path>: <status>`), which a CSV row shows after the path.

A link could point at the solved source notebook or another student's hand-in and earn their marks, so a
link is refused where the file is opened (O_NOFOLLOW), and `links_in` finds linked folders on the way to a
hand-in, which a walk of the class's folder must refuse too (classroom/jobs.py). Every other file the grader
reads from a class folder (timestamp.txt) goes through `read_bytes` too, with a cap of its own.

What a hand-in may hold is bounded too (cells, source, saved outputs: `bulk` and `over_caps`), each a status
given before any kernel runs. Which source it is graded against is never its own say: pipeline/sources.source_of.
"""

from __future__ import annotations

import errno
import json
import os
import stat
from pathlib import Path

import nbformat
from nbformat import NotebookNode

from autograder.course import GradingInputError

LINK = "a symbolic link; not graded"
NESTED = "not valid JSON: nested too deeply"


def max_megabytes() -> float:
    """Read at each use: a test (or an instructor) sets PTLAB_MAX_NOTEBOOK_MB for one run."""
    return float(os.environ.get("PTLAB_MAX_NOTEBOOK_MB", "20"))


def too_large(limit: int | None = None) -> str:
    if limit is not None:
        return f"larger than {limit:,} bytes; not read"
    return f"larger than {max_megabytes():g} MB; not graded"


def read_bytes(path: Path, follow_links: bool = False, limit: int | None = None) -> bytes:
    """The file's bytes, read only when it is a regular file within the size limit (`limit` bytes, else the
    notebook limit). Never through a link, never blocking (a named pipe is refused, not waited on)."""
    path = Path(path)
    cap = limit
    flags = os.O_RDONLY | os.O_NONBLOCK | (0 if follow_links else os.O_NOFOLLOW)
    try:
        fd = os.open(path, flags)
    except FileNotFoundError:
        raise GradingInputError(f"{path}: no such file") from None
    except OSError as e:
        if e.errno == errno.ELOOP:
            raise GradingInputError(f"{path}: {LINK}") from None
        raise GradingInputError(f"{path}: cannot be read ({e.strerror})") from None
    limit = int(max_megabytes() * 2**20) if cap is None else cap
    st = os.fstat(fd)
    problem = ("is a directory, not a notebook" if stat.S_ISDIR(st.st_mode)
               else "not a regular file; not graded" if not stat.S_ISREG(st.st_mode)  # a pipe would never end
               else too_large(cap) if st.st_size > limit else None)
    if problem:
        os.close(fd)
        raise GradingInputError(f"{path}: {problem}")
    with os.fdopen(fd, "rb") as f:
        data = f.read(limit + 1)  # a file still growing is cut here, never read whole
    if len(data) > limit:
        raise GradingInputError(f"{path}: {too_large(cap)}")
    return data


def parse(data: bytes, path: Path) -> NotebookNode:
    too_much = bulk(data)  # before a byte is parsed: 200,000 tiny cells are a status in milliseconds
    if too_much:
        raise GradingInputError(f"{path}: {too_much}")
    try:
        raw = json.loads(data.decode("utf-8"))
    except UnicodeDecodeError:
        raise GradingInputError(f"{path}: not a text file") from None
    except RecursionError:  # the C decoder stops at the interpreter's depth limit: quick, no memory spent
        raise GradingInputError(f"{path}: {NESTED}") from None
    except json.JSONDecodeError as e:
        raise GradingInputError(f"{path}: not valid JSON (line {e.lineno}: {e.msg})") from None
    if not isinstance(raw, dict) or "cells" not in raw or not isinstance(raw.get("cells"), list):
        raise GradingInputError(f"{path}: JSON, but not a Jupyter notebook (no cell list)")
    too_much = over_caps(raw["cells"])
    if too_much:
        raise GradingInputError(f"{path}: {too_much}")
    try:
        return nbformat.reads(json.dumps(raw), as_version=4)
    except RecursionError:
        raise GradingInputError(f"{path}: {NESTED}") from None
    except Exception as e:  # nbformat raises several types for malformed notebooks
        raise GradingInputError(f"{path}: not a readable notebook ({type(e).__name__})") from None


# Bounded work per hand-in: what a notebook may hold before any kernel runs, what its run may print, and the
# feedback page it becomes. Each is read at each use (an instructor or a test sets them for one run). The course's
# largest notebook has 61 cells and 58 kB of source: the caps leave a learner room for many cells of their own.
def _cap(var: str, default: float) -> float:
    try:
        return float(os.environ.get(var, default))
    except ValueError:
        return float(default)


def max_cells() -> int:
    return int(_cap("PTLAB_MAX_CELLS", 2000))


def max_source_bytes() -> int:
    return int(_cap("PTLAB_MAX_SOURCE_MB", 1) * 2**20)


def max_output_bytes() -> int:
    """The hand-in's saved outputs and attachments, and again everything its graded run printed."""
    return int(_cap("PTLAB_MAX_OUTPUT_MB", 8) * 2**20)


MAX_CONTAINERS = 300_000  # `{` and `[` in the file (the course's largest notebook has 486): each parsed costs ~60 bytes


def _mb(n: int) -> str:
    return f"{n / 2**20:.1f} MB"


def bulk(data: bytes) -> str | None:
    """Why a hand-in is too big to parse, judged from its bytes alone (cheap counts over the file, no parsing):
    more cells than the cap (each cell has one "cell_type" key), or more JSON objects and arrays than could
    be parsed in bounded memory. The exact counts are taken again after parsing (over_caps)."""
    cells_ = data.count(b'"cell_type"')
    if cells_ > max_cells():
        return f"{cells_:,} cells, more than {max_cells():,}; not graded"
    if data.count(b"{") + data.count(b"[") > MAX_CONTAINERS:
        return (f"more than {MAX_CONTAINERS:,} JSON objects and arrays; not graded (clear its outputs, "
                "Kernel > Restart Kernel and Clear Outputs, and hand it in again)")
    return None


def _length(value) -> int:
    if isinstance(value, str):
        return len(value)
    if isinstance(value, list):
        return sum(len(v) for v in value if isinstance(v, str))
    return 0


def _size(value) -> int:
    try:
        return len(json.dumps(value))
    except (TypeError, ValueError, RecursionError):
        return 0


def over_caps(cells_: list) -> str | None:
    """Why a parsed hand-in holds too much to grade: cells, total source, total saved outputs and attachments."""
    if len(cells_) > max_cells():
        return f"{len(cells_):,} cells, more than {max_cells():,}; not graded"
    source = saved = 0
    for cell in cells_:
        if not isinstance(cell, dict):
            continue  # nbformat says what is wrong with it
        source += _length(cell.get("source"))
        saved += _size(cell.get("outputs") or []) + _size(cell.get("attachments") or {})
    if source > max_source_bytes():
        return f"{_mb(source)} of source in its cells, more than {_mb(max_source_bytes())}; not graded"
    if saved > max_output_bytes():
        return (f"{_mb(saved)} of saved outputs, more than {_mb(max_output_bytes())}; not graded (clear its outputs, "
                "Kernel > Restart Kernel and Clear Outputs, and hand it in again)")
    return None


def bound_outputs(executed: NotebookNode) -> list[str]:
    """Once a graded run has printed more than the output cap in all, every later output is replaced by one line
    (after scoring: the scores are taken first), so the autograded notebook and its feedback page stay bounded.
    The note, if any, for the report."""
    limit, total, dropped = max_output_bytes(), 0, 0
    for cell in executed.cells:
        outs = cell.get("outputs") if cell.get("cell_type") == "code" else None
        if not outs:
            continue
        kept = []
        for out in outs:
            total += _size(out)
            if total <= limit:
                kept.append(out)
            else:
                dropped += 1
        if len(kept) < len(outs):
            kept.append(nbformat.v4.new_output("stream", name="stdout",
                                               text=f"[output dropped: the run printed more than {_mb(limit)}]\n"))
            cell["outputs"] = kept
    return [f"{dropped} output(s) dropped: the run printed more than {_mb(limit)} in all"] if dropped else []


def read(path: Path, follow_links: bool = False) -> NotebookNode:
    """A notebook a learner handed us; a course file (a source) may be reached through a link."""
    return parse(read_bytes(path, follow_links), Path(path))


def links_in(root: Path, path: Path) -> bool:
    """Whether anything from `root` (exclusive) down to `path` (inclusive) is a symbolic link."""
    root, path = Path(root), Path(path)
    for part in [path, *path.parents]:
        if part == root or len(part.parts) <= len(root.parts):
            return False
        if part.is_symlink():
            return True
    return False

