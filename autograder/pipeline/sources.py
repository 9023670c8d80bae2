"""Which course notebook a file is graded against, shown from, or reset to: `source_of` is the one lookup, for
every path (grade, the Dask path, check, the platform adapters, interviews and reviews, reset, reveal, progress).

A hand-in never chooses its source. It is SOURCE_DIR/<tier>/<stem>.ipynb, one of the course's listed notebooks,
from the folder's tier and the file's name; the metadata may only agree with it (a bare name, a known tier). A
path, a `..` or another notebook's name in the metadata is a plain status (GradingInputError), never a source.
"""

from __future__ import annotations

from pathlib import Path

from autograder.course import TIERS, GradingInputError, source_notebooks
from autograder.pipeline import cells

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
