"""The part of the course a platform's grading job needs: the grader package, its settings, the syllabus and
the assignment's source notebooks (with their hidden tests: platforms keep these from students), and the
dependencies to install there. Gradescope's zip and PrairieLearn's course folder both hold this copy."""

from __future__ import annotations

import importlib.metadata
from pathlib import Path

from autograder.course import ROOT, SYLLABUS
from autograder.pipeline import expected

# nbgrader_config.py holds the per-cell time limit the pipeline reads; pyproject.toml the dependency list.
COURSE_FILES = ("nbgrader_config.py", "pyproject.toml")


def files(tier: str, sources: list[Path]) -> list[tuple[Path, str]]:
    """(file on this machine, its path in the copy)."""
    out = [(p, p.relative_to(ROOT).as_posix()) for p in sorted((ROOT / "autograder").rglob("*.py"))]
    out += [(ROOT / name, name) for name in COURSE_FILES]
    out.append((SYLLABUS, SYLLABUS.relative_to(ROOT).as_posix()))
    out += [(src, f"notebooks/{tier}/{src.name}") for src in sources]
    # The reference reports this machine already has: a job whose torch and hardware match reads them
    # instead of running the reference solution first (a key that does not match is simply recomputed).
    cached = [expected.Reference(src).file for src in sources]
    out += [(f, f".ptlab-cache/expected/{f.name}") for f in cached if f.is_file()]
    return out


def dependencies() -> tuple[str, list[str]]:
    """The torch this machine grades with (pinned: the reference reports depend on it), and the rest."""
    try:
        import tomllib
    except ImportError:  # Python 3.10 (a platform's image may grade with it; only bundling reads this)
        from pip._vendor import tomli as tomllib
    deps = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["dependencies"]
    torch = f"torch=={importlib.metadata.version('torch').split('+')[0]}"
    return torch, [d for d in deps if not d.startswith("torch")]
