"""Where things live in the course, and the few facts every module shares."""

from __future__ import annotations

import functools
import os
from pathlib import Path

import yaml

COURSE = "pytorch-interview-lab"
TIERS = ("junior", "mid", "senior")
# Set by the grader in every process that runs a notebook for grading (a kernel inherits it): what only a learner
# may do (a self-check cell, revealing a solution, a check server) stands down when it is set.
GRADING_ENV = "PTLAB_GRADING"

# The one place that says where the student notebooks are published: Colab badges are built from it. Plain
# constants, not settings: the badges are written into release/, which must read the same on every machine
# (tests/test_colab_badge.py holds them to the repository's own GitHub remote, when it has one).
COLAB_OWNER = "pytorch-interview-lab"
COLAB_REPO = "pytorch-interview-lab"
COLAB_BRANCH = "main"
COLAB_BADGE_IMG = "https://colab.research.google.com/assets/colab-badge.svg"

ROOT = Path(__file__).resolve().parent.parent
# Tests point PTLAB_SOURCE_DIR at a tiny course of their own.
SOURCE_DIR = Path(os.environ.get("PTLAB_SOURCE_DIR", ROOT / "notebooks"))
RELEASE_DIR = ROOT / "release"
SYLLABUS = ROOT / "curriculum" / "topics.yaml"
# The grader's own state (the reference's reports): never visible to student kernels.
CACHE_DIR = Path(os.environ.get("PTLAB_CACHE_DIR", ROOT / ".ptlab-cache"))


class GradingInputError(Exception):
    """The input cannot be graded at all (missing, not JSON, not one of ours): exit code 2."""


def colab_url(tier: str, stem: str) -> str:
    return (f"https://colab.research.google.com/github/{COLAB_OWNER}/{COLAB_REPO}"
            f"/blob/{COLAB_BRANCH}/release/{tier}/{stem}.ipynb")


def colab_badge(tier: str, stem: str) -> str:
    return f"[![Open In Colab]({COLAB_BADGE_IMG})]({colab_url(tier, stem)})"


def source_notebooks(tier: str | None = None) -> list[Path]:
    tiers = [tier] if tier else list(TIERS)
    return [p for t in tiers for p in sorted((SOURCE_DIR / t).glob("[0-9][0-9]_*.ipynb"))]


def release_path(source: Path) -> Path:
    return RELEASE_DIR / source.parent.name / source.name


@functools.lru_cache(maxsize=1)
def syllabus() -> dict[str, dict]:
    """Topic id -> {title, kind, tier}, read from the project's own copy of the syllabus."""
    data = yaml.safe_load(SYLLABUS.read_text())
    return {tid: dict(info, tier=tier) for tier in TIERS for tid, info in (data.get(tier) or {}).items()}


def pin_threads(threads: int) -> None:
    """Pin math libraries in this process and every kernel it starts: N parallel workers that each use all
    cores are slower than N workers with cores/N threads each."""
    for var in ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS"):
        os.environ[var] = str(threads)
    os.environ.setdefault("MPLBACKEND", "Agg")
