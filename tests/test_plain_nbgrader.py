"""Plain nbgrader on the course, as an instructor may run it beside ours. `nbgrader autograde`: an untouched test
cell is not reported as changed (nbgrader's checksum is taken before hidden tests are cleared,
jupyter/nbgrader#1961), its hidden tests are restored, and a test cell a student edited is still reported and
overwritten. `nbgrader generate_assignment <tier> --force` writes the same release files as `make release`."""

from __future__ import annotations

import shutil
import subprocess

import nbformat
import pytest

from tests.classroom_course import ANSWER, course, env, hand_in
from tests.tiny_course import with_answer


@pytest.mark.kernel
def test_plain_autograde_warns_only_about_test_cells_a_student_changed(tmp_path):
    tmp = course(tmp_path)
    environ = env(tmp)
    run = dict(shell=True, cwd=tmp, env=environ, capture_output=True, text=True, timeout=600)
    assert subprocess.run("make release", **run).returncode == 0
    released = nbformat.read(str(tmp / "release" / "junior" / "01_tiny.ipynb"), 4)
    hand_in(tmp, "alice", "junior", "01_tiny", nb=with_answer(released, "ex1_double", ANSWER))
    hand_in(tmp, "mallory", "junior", "01_tiny",
            nb=with_answer(with_answer(released, "ex1_double", ANSWER), "ex1_double_test", "pass"))
    graded = subprocess.run("make grade", **run)
    assert graded.returncode == 0, graded.stderr[-2000:]
    for student, edited in (("alice", False), ("mallory", True)):
        done = subprocess.run(f".venv/bin/nbgrader autograde junior --student {student} --force", **run)
        assert done.returncode == 0, done.stderr[-2000:]
        changed = [line for line in done.stderr.splitlines() if "has changed" in line]
        if edited:
            assert len(changed) == 1 and "ex1_double_test" in changed[0], changed
        else:
            assert not changed, f"an untouched release was reported as changed: {changed}"
        autograded = (tmp / "autograded" / student / "junior" / "01_tiny.ipynb").read_text()
        assert "SECRET_HIDDEN_CHECK" in autograded, "the hidden tests were not restored for grading"


def test_plain_generate_assignment_writes_what_make_release_writes(tmp_path):
    tmp = course(tmp_path / "course")
    run = dict(shell=True, cwd=tmp, env=env(tmp), capture_output=True, text=True, timeout=600)
    made = subprocess.run("make release", **run)
    assert made.returncode == 0, made.stderr[-2000:]
    shutil.copytree(tmp / "release" / "junior", tmp_path / "by-make")
    done = subprocess.run(".venv/bin/nbgrader generate_assignment junior --force", **run)
    assert done.returncode == 0, done.stderr[-2000:]
    ours = {p.name: p.read_bytes() for p in sorted((tmp_path / "by-make").glob("*.ipynb"))}
    theirs = {p.name: p.read_bytes() for p in sorted((tmp / "release" / "junior").glob("*.ipynb"))}
    assert ours.keys() == theirs.keys() and ours, f"the same notebooks: make release {sorted(ours)}, nbgrader {sorted(theirs)}"
    for name, text in ours.items():
        assert theirs[name] == text, (
            f"release/junior/{name}: `nbgrader generate_assignment junior --force` should write what `make release`"
            " writes (the ipykernel kernelspec, the helper cells collapsed): see FinishRelease in nbgrader_config.py")
