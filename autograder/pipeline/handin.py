"""Reading a hand-in without trusting it: no symbolic link is followed, a file over the size limit is never
parsed, and a nesting bomb is a status, not a RecursionError. Every way a file can be broken becomes one
GradingInputError line (`<path>: <status>`), which a CSV row shows after the path.

A link could point at the solved source notebook or another student's hand-in and earn their marks, so a
link is refused where the file is opened (O_NOFOLLOW), and `links_in` finds linked folders on the way to a
hand-in, which a walk of the class's folder must refuse too (classroom/jobs.py). Every other file the grader
reads from a class folder (timestamp.txt) goes through `read_bytes` too, with a cap of its own.

A hand-in never chooses its source: `source_of` is the one place any grading path (grade, the Dask path,
check, the platform adapters, interviews and reviews) learns which notebook a hand-in is graded against. It is
SOURCE_DIR/<tier>/<stem>.ipynb, one of the course's listed notebooks, from the folder's tier and the file's
name; the metadata may only agree with it (a bare name, a known tier). A path, a `..` or a name of another
notebook in the metadata is a plain status, never a source.
"""

from __future__ import annotations

import errno
import json
import os
import stat
from pathlib import Path

import nbformat
from nbformat import NotebookNode

from autograder.course import TIERS, GradingInputError, source_notebooks

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


NOT_OURS = "not a notebook of this course (no course metadata, no matching source)"
FORGED = "its metadata names a source notebook other than its own name; not graded"


def listed(tier: object, stem: object) -> Path | None:
    """SOURCE_DIR/<tier>/<stem>.ipynb when it is one of the course's listed notebooks: compared with the listing,
    so no text (a path, `..`, an absolute name, a NUL) can reach a file outside it."""
    if not isinstance(tier, str) or tier not in TIERS or not bare(stem):
        return None
    return next((p for p in source_notebooks(tier) if p.name == f"{stem}.ipynb"), None)


def bare(name: object) -> bool:
    """A notebook's stem and nothing else: no folder, no `..`, no absolute path, no control character."""
    return (isinstance(name, str) and 0 < len(name) <= 200 and name not in (".", "..") and not name.startswith(".")
            and not any(ch in name for ch in "/\\\0") and name.isprintable())


def _claims(nb) -> tuple[object, object] | None:
    """(tier, notebook) as the hand-in's metadata names them, or None when it names neither."""
    meta = (nb.get("metadata") or {}).get("ptlab") if isinstance(nb.get("metadata"), dict) else None
    if not isinstance(meta, dict) or ("tier" not in meta and "notebook" not in meta):
        return None
    return meta.get("tier"), meta.get("notebook")


def source_of(path: Path, nb, tier: str | None = None) -> Path:
    """The source notebook a hand-in is graded against; GradingInputError (a plain status) when there is none.

    `tier`: the class folder's tier (grade, the Dask path): the source is SOURCE_DIR/<tier>/<file's stem>.ipynb.
    Without one (`check`, a platform's submission folder), the tier is the metadata's (a known tier) or the
    folder's, and a learner's renamed copy (`my copy (2).ipynb`) is found by its metadata's bare stem. Either
    way the metadata may name only that notebook, by its bare name. An interview's or a review's notebook is
    graded against its composed source in the course's cache (pipeline/cells.composed_source), never itself.
    """
    from autograder.pipeline import cells

    path = Path(path)
    meta = (nb.get("metadata") or {}).get("ptlab") if isinstance(nb.get("metadata"), dict) else None
    if tier is None and isinstance(meta, dict) and meta.get("composed") is not None:
        composed = cells.composed_source(nb)
        if composed is None:
            raise GradingInputError(f"{path}: its metadata names a session that is not one of this course's; "
                                    "not graded")
        return composed
    claims = _claims(nb)
    if claims is not None and listed(*claims) is None:
        raise GradingInputError(f"{path}: {FORGED}")
    stem = path.stem
    if tier is not None and claims is not None and claims[0] != tier and claims[1] == stem:
        raise GradingInputError(f"{path}: a {claims[0]} notebook in the {tier} folder")
    if tier is not None:
        src = listed(tier, stem)
        if src is None:
            raise GradingInputError(f"{path}: not a {tier} notebook of this course (no source named {stem!r})"
                                    if tier in TIERS else f"{path}: {NOT_OURS}")
    else:
        hits = [p for t in TIERS for p in [listed(t, stem)] if p is not None]
        if claims is not None and len(hits) > 1:
            hits = [p for p in hits if p.parent.name == claims[0]]
        if len(hits) > 1:
            hits = [p for p in hits if p.parent.name == path.parent.name] or hits
        if len(hits) > 1:
            raise GradingInputError(f"{path}: {stem} is a notebook of more than one tier; put it in a folder "
                                    "named after its tier")
        src = hits[0] if hits else (listed(*claims) if claims is not None else None)  # a renamed copy
        if src is None:
            raise GradingInputError(f"{path}: {NOT_OURS}")
    if claims is not None and (claims[0], claims[1]) != (src.parent.name, src.stem):
        raise GradingInputError(f"{path}: {FORGED}")
    return src
