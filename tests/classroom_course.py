"""A small class for the instructor's tests: a course root like the repository's (nbgrader_config.py,
Makefile, assignments.yaml, the tiny notebook as junior/01_tiny and junior/02_tiny) and hand-ins in
nbgrader's layout, one of them late and each with a written answer."""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path

import nbformat

from autograder.authoring.build import build
from tests.tiny_course import HERE, ROOT, blank, make_course, with_answer

ANSWER = "def double(x):\n    return x + x\n"
WRITTEN = "Doubling is linear: double(a + b) == double(a) + double(b)."
ASSIGNMENTS = """assignments:
  week1:
    notebooks: [junior/02_tiny]
    due: 2026-12-01 17:00:00 UTC
"""


def course(tmp: Path) -> Path:
    """The course root in tmp; `make` and `.venv/bin/...` work there as in a checkout."""
    src = make_course(tmp)
    nbformat.write(build((HERE / "fixtures" / "tiny.py").read_text(), "02_tiny"), str(src.with_name("02_tiny.ipynb")))
    for name in ("nbgrader_config.py", "Makefile", "pyproject.toml"):
        shutil.copy(ROOT / name, tmp / name)
    os.utime(tmp / "pyproject.toml", (0, 0))  # older than the environment's setup stamp: make sets nothing up
    (tmp / ".venv").symlink_to(Path(sys.prefix))
    (tmp / "assignments.yaml").write_text(ASSIGNMENTS)
    return tmp


def hand_in(tmp: Path, student: str, assignment: str, stem: str, answered: bool = True, stamp: str | None = None,
            nb=None) -> Path:
    """A hand-in built from the solved source (answered, or blank), or `nb` as given."""
    if nb is None:
        ref = nbformat.read(str(tmp / "notebooks" / "junior" / f"{stem}.ipynb"), 4)
        nb = with_answer(with_answer(ref, "ex1_double", ANSWER), "ex3_explain", WRITTEN) if answered else blank(ref)
    path = tmp / "submitted" / student / assignment / f"{stem}.ipynb"
    path.parent.mkdir(parents=True, exist_ok=True)
    nbformat.write(nb, str(path))
    if stamp:
        (path.parent / "timestamp.txt").write_text(stamp)
    return path


def env(tmp: Path) -> dict:
    return dict(os.environ, PYTHONPATH=str(ROOT), PTLAB_SOURCE_DIR=str(tmp / "notebooks"),
                JUPYTER_RUNTIME_DIR=str(tmp / ".runtime"), JUPYTERLAB_WORKSPACES_DIR=str(tmp / ".workspaces"))
