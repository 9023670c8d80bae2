"""An assignments.yaml assignment is an nbgrader assignment like a tier, through nbgrader's whole exchange as an
instructor and students use it, each in a fresh shell: `nbgrader generate_assignment week1` and
`release_assignment`, students' `fetch_assignment` and `submit` from their own homes, `collect`, the course's
`make grade`, formgrader's API (what Manage Assignments, Manual Grading and a student's page list),
`generate_feedback`, `release_feedback` and the students' `fetch_feedback`."""

from __future__ import annotations

import csv
import json
import subprocess
from pathlib import Path

import nbformat
import pytest

from tests.classroom_course import ANSWER, WRITTEN, course, env
from tests.test_classroom_commands import clean_shell
from tests.tiny_course import with_answer

API = """
from nbgrader.apps import NbGraderAPI
from nbgrader.coursedir import CourseDirectory
from traitlets.config.loader import PyFileConfigLoader
import json
c = PyFileConfigLoader('nbgrader_config.py', path='.').load_config()
api = NbGraderAPI(CourseDirectory(config=c, root='.'), config=c)
print(json.dumps({'assignments': {a['name']: a['num_submissions'] for a in api.get_assignments()},
                  'submissions': [s['student'] for s in api.get_submissions('week1')],
                  'student': [s['name'] for s in api.get_student_submissions('alice')],
                  'notebooks': [n['name'] for n in api.get_notebooks('week1')]}))
"""


COURSE_ID = "pytorch-interview-lab"
WRONG = "def double(x):\n    return x + 2\n"  # right at 2, the visible test's input; wrong anywhere else
SQUARE = "def square(x):\n    return x ** 2\n"


def _student_shell(tmp: Path, name: str) -> tuple[Path, dict, list[str]]:
    """A student's own home, shell and nbgrader options: the course's exchange, and their name. nbgrader 0.9
    takes a student's name from the password database (one account each on a shared server), not from the
    environment; here every student is this test's user, so each names themself with --student."""
    home = tmp / "students" / name
    home.mkdir(parents=True)
    environ = dict(clean_shell(home), USER=name, LOGNAME=name, PTLAB_FAST="1")
    return home, environ, [f"--course={COURSE_ID}", f"--Exchange.root={tmp / 'exchange'}", f"--student={name}"]


def _answer(nb, double: str):
    return with_answer(with_answer(with_answer(nb, "ex1_double", double), "ex2_square", SQUARE), "ex3_explain",
                       WRITTEN)


@pytest.mark.kernel
def test_week1_goes_through_nbgraders_exchange_from_release_to_feedback(tmp_path):
    """The instructor releases week1 to the exchange, two students fetch it, answer (one right, one wrong) and
    submit from their own homes, the instructor collects and grades as the README says (`make grade`), and each
    student fetches the feedback of their own submission."""
    tmp = course(tmp_path)
    teacher = dict(clean_shell(tmp), **{k: v for k, v in env(tmp).items() if k.startswith(("PTLAB_", "JUPYTER"))})
    nbgrader = str(tmp / ".venv" / "bin" / "nbgrader")

    def sh(cmd: list[str], cwd: Path = tmp, environ: dict = teacher) -> str:
        done = subprocess.run(cmd, cwd=cwd, env=environ, capture_output=True, text=True, timeout=900)
        assert done.returncode == 0, f"{' '.join(cmd)} failed\n{done.stdout[-2000:]}\n{done.stderr[-3000:]}"
        assert "Traceback" not in done.stderr, f"{' '.join(cmd)}\n{done.stderr[-3000:]}"
        return done.stdout

    sh([nbgrader, "generate_assignment", "week1"])
    released = (tmp / "release" / "week1" / "02_tiny.ipynb").read_text()
    assert "raise NotImplementedError()" in released and "SECRET_HIDDEN_CHECK" not in released, \
        "generate_assignment week1 writes the student version of week1's notebooks"
    assert (tmp / "notebooks" / "week1" / ".gitignore").read_text().splitlines()[-1] == "*", \
        "the folder made for week1 is kept out of the course's git"
    sh([nbgrader, "release_assignment", "week1"])
    students = {"alice": ANSWER, "bob": WRONG}
    homes = {}
    for name, double in students.items():
        home, environ, opts = _student_shell(tmp, name)
        homes[name] = (home, environ, opts)
        sh([nbgrader, "fetch_assignment", "week1", *opts], cwd=home, environ=environ)
        fetched = home / "week1" / "02_tiny.ipynb"
        assert fetched.is_file(), f"fetch_assignment puts week1's notebook in the student's week1/: {name}"
        nb = nbformat.read(str(fetched), 4)
        assert "SECRET_HIDDEN_CHECK" not in nbformat.writes(nb), "a student fetches the version without hidden tests"
        assert not (home / "week1" / ".gitignore").exists(), \
            "the .gitignore that keeps week1 out of the course's git stays with the course, not in a student's copy"
        nbformat.write(_answer(nb, double), str(fetched))
        sh([nbgrader, "submit", "week1", *opts], cwd=home, environ=environ)

    sh([nbgrader, "collect", "week1"])
    for name in students:
        assert (tmp / "submitted" / name / "week1" / "timestamp.txt").is_file(), \
            f"collect puts {name}'s week1 in submitted/{name}/week1/ with the time it was submitted"
    sh(["make", "grade"])
    with open(tmp / "grades.csv", newline="") as f:
        rows = {r["student"]: r for r in csv.DictReader(f) if r["assignment"] == "week1"}
    assert set(rows) == set(students), f"make grade grades each collected week1 hand-in once: {sorted(rows)}"
    got = {name: (float(r["score"]), float(r["max_score"]), r["manual_pending"]) for name, r in rows.items()}
    assert got["alice"][0] == pytest.approx(5) and got["bob"][0] == pytest.approx(3), \
        f"alice answered both exercises right (2 + 3 points), bob only square (3); written answers await a grader: {got}"
    assert all(m == pytest.approx(7) and p == "1" for _, m, p in got.values()), \
        f"out of 7 (5 autograded, 2 written), one written answer awaiting a grader each: {got}"
    seen = json.loads(sh([str(tmp / ".venv" / "bin" / "python"), "-c", API]).strip().splitlines()[-1])
    assert seen["assignments"].get("week1") == 2, f"formgrader's Manage Assignments lists week1, 2 submissions: {seen}"
    assert seen["submissions"] == ["alice", "bob"] and "week1" in seen["student"] and seen["notebooks"] == ["02_tiny"], \
        f"formgrader's Manual Grading and alice's page list week1, its notebook and both submissions: {seen}"

    sh([nbgrader, "generate_feedback", "week1", "--force"])
    sh([nbgrader, "release_feedback", "week1"])
    for name, (home, environ, opts) in homes.items():
        sh([nbgrader, "fetch_feedback", "week1", *opts], cwd=home, environ=environ)
        pages = list((home / "week1" / "feedback").glob("*/02_tiny.html"))
        assert len(pages) == 1, f"fetch_feedback brings {name} the feedback of their one submission: {pages}"
        page = pages[0].read_text()
        assert "SECRET_HIDDEN_CHECK" not in page and "Rubric" not in page, "feedback never shows hidden tests"
        score = {"alice": "5.0", "bob": "3.0"}[name]
        assert f"02_tiny (Score: {score} / 7.0)" in page, \
            f"{name} fetches the feedback on their own submission, {score} / 7 points, not another student's"
