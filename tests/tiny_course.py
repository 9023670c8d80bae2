"""A throwaway course with one tiny notebook, so grader tests do not depend on the curriculum."""

from __future__ import annotations

import copy
import os
import subprocess
import sys
from pathlib import Path

import nbformat

from autograder.authoring.build import build
from autograder.pipeline.cells import grade_id

HERE = Path(__file__).parent
ROOT = HERE.parent


def make_course(tmp: Path) -> Path:
    """tmp/notebooks/junior/01_tiny.ipynb; returns the source notebook path."""
    src = tmp / "notebooks" / "junior" / "01_tiny.ipynb"
    src.parent.mkdir(parents=True, exist_ok=True)
    nbformat.write(build((HERE / "fixtures" / "tiny.py").read_text(), "01_tiny"), str(src))
    return src


def blank(nb):
    """The student version, made by nbgrader's own preprocessors (as `nbgrader generate_assignment` does)."""
    from nbgrader.preprocessors import ClearHiddenTests, ClearSolutions

    nb = copy.deepcopy(nb)
    ClearSolutions().preprocess(nb, {})
    ClearHiddenTests().preprocess(nb, {})
    return nb


def with_answer(nb, gid: str, source: str):
    nb = copy.deepcopy(nb)
    for cell in nb.cells:
        if grade_id(cell) == gid:
            cell.source = source
    return nb


def cli(tmp: Path, *args: str, **env_vars: str) -> subprocess.CompletedProcess:
    """`python -m autograder ARGS` on this throwaway course, as a learner runs it."""
    return learner_cli(*args, PTLAB_SOURCE_DIR=str(tmp / "notebooks"), **env_vars)


def learner_cli(*args: str, **env_vars: str) -> subprocess.CompletedProcess:
    """`python -m autograder ARGS` as a learner runs it, from the course's root."""
    env = dict(os.environ, **env_vars)
    return subprocess.run([sys.executable, "-m", "autograder", *args], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=600)


def alive(mark: str) -> list[str]:
    """Processes that carry a test's unique mark in their environment or argv, whoever runs them: what a test
    finds still running after grading is what outlived it."""
    left = []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        for what in ("environ", "cmdline"):
            try:
                with open(f"/proc/{pid}/{what}", "rb") as f:
                    if mark.encode() in f.read():
                        left.append(pid)
                        break
            except OSError:
                continue  # gone, or not ours to read
    return left


def hand_ins(tmp: Path, students: dict[str, str]) -> Path:
    """tmp/submitted/<student>/junior/01_tiny.ipynb for each student, with their answer to ex1_double."""
    ref = nbformat.read(str(make_course(tmp)), 4)
    sub = tmp / "submitted"
    for student, answer in students.items():
        path = sub / student / "junior" / "01_tiny.ipynb"
        path.parent.mkdir(parents=True)
        nbformat.write(with_answer(ref, "ex1_double", answer), str(path))
    return sub
