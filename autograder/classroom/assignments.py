"""Assignments as the instructor defines them: a set of notebooks each, with an optional due date.

The course file `assignments.yaml` sits beside the source folder (the course root). Without it, or for a name
it does not define, each tier is one assignment holding all of that tier's notebooks:

    assignments:
      week1:
        notebooks: [mid/01_training_loop_validation, mid/03_collate_and_sampling]
        due: 2026-12-01 17:00:00 UTC        # nbgrader's timestamp format; optional
      mid:                                  # a tier's name: its due date, all of its notebooks
        due: 2026-12-15 17:00:00 UTC

A notebook id is `<tier>/<stem>`; inside the assignment (nbgrader's folders and gradebook) a notebook is
its stem, so one assignment may not hold two notebooks with the same stem.

nbgrader knows an assignment by its folder in the source directory (formgrader lists those; generate_assignment
reads one), so each course-file assignment also gets one (`as_nbgrader_folders`): notebooks/<name>/ holding
a link to each of its notebooks and a .gitignore that keeps the folder out of git (and marks it as made here:
it goes when the course file no longer lists its assignment). nbgrader_config.py makes them whenever nbgrader
starts, so formgrader, generate_assignment, release_assignment, collect and
generate_feedback know the assignment as they know a tier.
"""

from __future__ import annotations

import os
from datetime import datetime
from pathlib import Path

import yaml

from autograder import course

FILE = "assignments.yaml"


class AssignmentError(course.GradingInputError):
    """The course file is wrong: said plainly, with the file's name."""


def course_dir() -> Path:
    return course.SOURCE_DIR.parent


def _read(root: Path) -> dict:
    path = root / FILE
    if not path.exists():
        return {}
    try:
        data = yaml.safe_load(path.read_text()) or {}
    except yaml.YAMLError as e:
        raise AssignmentError(f"{path}: not valid YAML ({str(e).splitlines()[0]})") from None
    found = data.get("assignments") if isinstance(data, dict) else None
    if not isinstance(found, dict):
        raise AssignmentError(f"{path}: expected a mapping `assignments: {{NAME: {{notebooks: [...]}}}}`")
    return {str(k): v or {} for k, v in found.items()}


def _ids(tier: str, root: Path) -> list[str]:
    return [f"{tier}/{p.stem}" for p in sorted((root / course.SOURCE_DIR.name / tier).glob("[0-9][0-9]_*.ipynb"))]


def load(root: Path | None = None) -> dict[str, list[str]]:
    """{assignment name: [notebook ids "<tier>/<stem>"]}: the tiers, then the course file's assignments."""
    root = Path(root) if root else course_dir()
    out = {tier: _ids(tier, root) for tier in course.TIERS}
    known = {i for ids in out.values() for i in ids}  # before the course file can redefine a tier
    for name, spec in _read(root).items():
        ids = spec.get("notebooks") if isinstance(spec, dict) else None
        if ids is None and name in course.TIERS:
            continue
        if not isinstance(ids, list) or not ids:
            raise AssignmentError(f"{root / FILE}: assignment {name!r} names no notebooks")
        unknown = [i for i in ids if i not in known]
        if unknown:
            raise AssignmentError(f"{root / FILE}: assignment {name!r}: no such notebook {unknown[0]!r} "
                                  "(write <tier>/<stem>, e.g. mid/01_training_loop_validation)")
        stems = [i.split("/")[1] for i in ids]
        if len(set(stems)) != len(stems):
            raise AssignmentError(f"{root / FILE}: assignment {name!r} holds two notebooks with one name")
        out[name] = list(ids)
    return out


def due_dates(root: Path | None = None) -> dict[str, datetime | None]:
    """{assignment name: due date in UTC (naive, as nbgrader's gradebook keeps it) or None}."""
    from nbgrader.utils import parse_utc

    root = Path(root) if root else course_dir()
    out: dict[str, datetime | None] = {}
    for name, spec in _read(root).items():
        due = spec.get("due") if isinstance(spec, dict) else None
        try:
            out[name] = parse_utc(str(due)) if due else None
        except (ValueError, OverflowError):
            raise AssignmentError(f"{root / FILE}: assignment {name!r}: cannot read the due date {due!r}") from None
    return out


def sources(name: str, root: Path | None = None) -> list[Path]:
    """The source notebooks of an assignment."""
    root = Path(root) if root else course_dir()
    return [root / course.SOURCE_DIR.name / f"{i}.ipynb" for i in load(root)[name]]


def notebook_id(tier: str, stem: str) -> str:
    return f"{tier}/{stem}"


# The first line marks a folder as made here (so it may be remade); `*` keeps it out of git.
MADE = "# made from assignments.yaml for nbgrader (python -m autograder's assignments); not committed\n*\n"


def made_here(folder: Path) -> bool:
    mark = folder / ".gitignore"
    try:
        return mark.is_file() and mark.read_text().startswith(MADE.splitlines()[0])
    except OSError:  # another nbgrader process removed it a moment ago
        return False


def _remove(folder: Path) -> None:
    """A folder made here whose assignment the course file no longer lists: its links and marker go, then the
    folder if nothing else is in it (a file the instructor put there stays)."""
    try:  # another nbgrader process may be removing it too
        for p in folder.iterdir():
            if p.is_symlink():
                p.unlink(missing_ok=True)
        (folder / ".gitignore").unlink(missing_ok=True)
        folder.rmdir()
    except OSError:  # not empty, or already gone
        pass


def as_nbgrader_folders(root: Path | None = None) -> list[str]:
    """Each course-file assignment as nbgrader's source folder, notebooks/<name>/<stem>.ipynb, each a relative
    link to its tier's notebook; links of notebooks it no longer holds go, and so do the folders made for
    assignments it no longer lists (else formgrader keeps listing them). A folder there that was not made here
    is never touched. Returns the assignments made."""
    root = Path(root) if root else course_dir()
    source = root / course.SOURCE_DIR.name
    listed = load(root)
    for folder in sorted(source.iterdir()) if source.is_dir() else []:
        if folder.name not in listed and folder.is_dir() and not folder.is_symlink() and made_here(folder):
            _remove(folder)
    made = []
    for name, ids in listed.items():
        if name in course.TIERS or name.startswith(".") or not name.replace("-", "").replace("_", "").isalnum():
            continue  # a tier has its folder; a name that is no plain folder name is left to the instructor
        folder = source / name
        mark = folder / ".gitignore"
        if folder.exists() and not made_here(folder):
            continue
        folder.mkdir(exist_ok=True)
        mark.write_text(MADE)
        links = {f"{i.split('/', 1)[1]}.ipynb": os.path.join("..", f"{i}.ipynb") for i in ids}
        # nbgrader_config.py runs this in every nbgrader process, grading workers too: another may be at it.
        for p in folder.iterdir():
            if p.is_symlink() and os.readlink(p) != links.get(p.name):
                p.unlink(missing_ok=True)
        for fname, target in links.items():
            try:
                (folder / fname).symlink_to(target)
            except FileExistsError:
                pass
        made.append(name)
    return made
