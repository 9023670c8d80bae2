"""What a cell is, in nbgrader's terms, and which source notebook a notebook belongs to."""

from __future__ import annotations

import re
from pathlib import Path

from nbformat import NotebookNode

from autograder.course import CACHE_DIR, COURSE, TIERS, GradingInputError


def nbg(cell: NotebookNode) -> dict:
    return cell.get("metadata", {}).get("nbgrader", {}) or {}


def grade_id(cell: NotebookNode) -> str | None:
    return nbg(cell).get("grade_id")


def kind(cell: NotebookNode) -> str:
    """solution (autograded answer), test (autograder tests), manual (manually graded answer),
    readonly (locked context), or plain (no nbgrader role)."""
    m = nbg(cell)
    if m.get("solution") and m.get("grade"):
        return "manual"
    if m.get("solution"):
        return "solution"
    if m.get("grade"):
        return "test"
    if m.get("locked"):
        return "readonly"
    return "plain"


def points(cell: NotebookNode) -> float:
    return float(nbg(cell).get("points", 0) or 0)


def topics(cell: NotebookNode) -> list[str]:
    t = cell.get("metadata", {}).get("topics") or []
    return [t] if isinstance(t, str) else list(t)


def read(path: Path) -> NotebookNode:
    """Read any notebook a learner might hand us, turning every way it can be broken into one line (a course
    file may be a link; a hand-in is read with pipeline.handin, which refuses links)."""
    from autograder.pipeline import handin

    return handin.read(path, follow_links=True)


def identity(nb: NotebookNode) -> tuple[str, str] | None:
    meta = nb.get("metadata", {}).get("ptlab") or {}
    if meta.get("course") == COURSE and meta.get("tier") in TIERS and meta.get("notebook"):
        return meta["tier"], meta["notebook"]
    return None


COMPOSED_ID = re.compile(r"^(interview|review)-[0-9]{8}-[0-9]{6}-[0-9a-f]{6}$")
COMPOSED_DIR = CACHE_DIR / "composed"  # learner/compose.py keeps sessions' sources there


def composed_id(nb: NotebookNode | dict) -> str | None:
    """The composed session a notebook belongs to, as its metadata names it (None for a course notebook)."""
    return ((nb.get("metadata") or {}).get("ptlab") or {}).get("composed")


def composed_source(nb: NotebookNode) -> Path | None:
    """An interview's or a review's composed source, kept in the course's cache (learner/compose.py): the only
    place its tests and metadata are read from. The learner's file only names it."""
    ident = composed_id(nb)
    if not isinstance(ident, str) or not COMPOSED_ID.match(ident):
        return None
    src = COMPOSED_DIR / f"{ident}.ipynb"
    if not src.exists():
        raise GradingInputError(f"this session ({ident}) is not known to this course's cache: nothing to grade "
                                "it against (was it composed on another machine?)")
    return src


