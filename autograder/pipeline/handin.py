"""Reading a hand-in without trusting it: no symbolic link is followed, a file over the size limit is never
parsed, and a nesting bomb is a status, not a RecursionError. Every way a file can be broken becomes one
GradingInputError line (`<path>: <status>`), which a CSV row shows after the path.

A link could point at the solved source notebook or another student's hand-in and earn their marks, so a
link is refused where the file is opened (O_NOFOLLOW), and `links_in` finds linked folders on the way to a
hand-in, which a walk of the class's folder must refuse too (classroom/jobs.py).
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


def too_large() -> str:
    return f"larger than {max_megabytes():g} MB; not graded"


def read_bytes(path: Path, follow_links: bool = False) -> bytes:
    """The file's bytes, read only when it is a regular file within the size limit."""
    path = Path(path)
    flags = os.O_RDONLY | os.O_NONBLOCK | (0 if follow_links else os.O_NOFOLLOW)
    try:
        fd = os.open(path, flags)
    except FileNotFoundError:
        raise GradingInputError(f"{path}: no such file") from None
    except OSError as e:
        if e.errno == errno.ELOOP:
            raise GradingInputError(f"{path}: {LINK}") from None
        raise GradingInputError(f"{path}: cannot be read ({e.strerror})") from None
    limit = int(max_megabytes() * 2**20)
    st = os.fstat(fd)
    problem = ("is a directory, not a notebook" if stat.S_ISDIR(st.st_mode)
               else "not a regular file; not graded" if not stat.S_ISREG(st.st_mode)  # a pipe would never end
               else too_large() if st.st_size > limit else None)
    if problem:
        os.close(fd)
        raise GradingInputError(f"{path}: {problem}")
    with os.fdopen(fd, "rb") as f:
        data = f.read(limit + 1)  # a file still growing is cut here, never read whole
    if len(data) > limit:
        raise GradingInputError(f"{path}: {too_large()}")
    return data


def parse(data: bytes, path: Path) -> NotebookNode:
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
    try:
        return nbformat.reads(json.dumps(raw), as_version=4)
    except RecursionError:
        raise GradingInputError(f"{path}: {NESTED}") from None
    except Exception as e:  # nbformat raises several types for malformed notebooks
        raise GradingInputError(f"{path}: not a readable notebook ({type(e).__name__})") from None


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
