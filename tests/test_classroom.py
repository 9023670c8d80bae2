"""The classroom's parts without a kernel: assignments from the course file, a row's totals, lateness, the
batch summary, a CSV `grade` did not write, the feedback page and the grader's notes."""

from __future__ import annotations

import csv
from datetime import datetime

import nbformat
import pytest

from autograder.classroom import assignments, late, scores, summary
from autograder.classroom.autograded import NOTE, with_grader_notes
from autograder.classroom.feedback import page
from autograder.classroom.jobs import row
from tests.classroom_course import ASSIGNMENTS, course
from tests.tiny_course import cli, with_answer


@pytest.fixture
def root(tmp_path, monkeypatch):
    monkeypatch.setattr(assignments.course, "SOURCE_DIR", tmp_path / "notebooks")
    return course(tmp_path)


def test_a_tier_is_an_assignment_and_the_course_file_adds_sets_of_notebooks(root):
    got = assignments.load()
    assert got["junior"] == ["junior/01_tiny", "junior/02_tiny"] and got["mid"] == []
    assert got["week1"] == ["junior/02_tiny"]
    assert assignments.due_dates()["week1"] == datetime(2026, 12, 1, 17, 0)
    assert [p.name for p in assignments.sources("week1")] == ["02_tiny.ipynb"]


@pytest.mark.parametrize("text, says", [
    ("assignments:\n  w:\n    notebooks: [junior/99_nope]\n", "no such notebook 'junior/99_nope'"),
    ("assignments:\n  w:\n    notebooks: []\n", "names no notebooks"),
    ("assignments: [1, 2]\n", "expected a mapping"),
    ("assignments:\n  w:\n    notebooks: [junior/01_tiny]\n    due: someday\n", "cannot read the due date"),
])
def test_a_wrong_course_file_is_said_plainly(root, text, says):
    (root / "assignments.yaml").write_text(text)
    with pytest.raises(assignments.AssignmentError, match=says):
        assignments.load()
        assignments.due_dates()


def test_totals_count_written_answers_overrides_and_the_late_penalty():
    r = row("alice", "junior", "x/01_tiny.ipynb", 5, 5, cells="a=2 b=3", written="w=?/2")
    assert (r["score"], r["max_score"], r["manual_pending"]) == ("5", "7", 1)
    r["manual"] = "w=1.5/2 a=1/2"  # a grader's points for the written answer, and an override of a test cell
    r["late_penalty"] = "0.5"
    assert (scores.settle(r)["score"], r["max_score"], r["manual_pending"]) == ("5", "7", 0)
    assert scores.per_cell(r) == {"a": (1.0, 2.0), "b": (3.0, 0.0), "w": (1.5, 2.0)}
    r["comments"] = scores.format_comments({"w": "line one\nline | two"})
    assert scores.comments(r) == {"w": "line one line / two"}


def test_lateness_from_timestamp_and_nbgraders_zero_policy(root, tmp_path):
    nb = tmp_path / "submitted" / "alice" / "week1" / "02_tiny.ipynb"
    nb.parent.mkdir(parents=True)
    (nb.parent / "timestamp.txt").write_text("2026-12-01 19:30:00 CET")  # 18:30 UTC: 90 minutes late
    r = late.stamp(row("alice", "week1", nb, 5, 5, cells="a=5", written="w=2/2"), nb, datetime(2026, 12, 1, 17))
    assert (r["submitted_at"], r["seconds_late"]) == ("2026-12-01 18:30:00 UTC", "5400")
    late.penalize(root)(r)
    assert r["late_penalty"] == ""  # the course's policy: 'none'
    (root / "nbgrader_config.py").write_text((root / "nbgrader_config.py").read_text().replace(
        'penalty_method = "none"', 'penalty_method = "zero"'))
    late._plugin.cache_clear()
    late.penalize(root)(r)
    assert (r["late_penalty"], scores.settle(r)["score"]) == ("7", "0")


@pytest.mark.parametrize("method, says", [("none", "no points off for lateness"),
                                           ("zero", "5 point(s) off for lateness")])
def test_the_late_students_feedback_says_how_late_whatever_the_penalty(root, tmp_path, method, says):
    (root / "nbgrader_config.py").write_text((root / "nbgrader_config.py").read_text().replace(
        'penalty_method = "none"', f'penalty_method = "{method}"'))
    late._plugin.cache_clear()
    nb = tmp_path / "submitted" / "bob" / "week1" / "02_tiny.ipynb"
    nb.parent.mkdir(parents=True)
    (nb.parent / "timestamp.txt").write_text("2026-12-01 19:42:00 UTC")
    r = late.stamp(row("bob", "week1", nb, 5, 5, cells="ex1_double_test=2 ex2_square_test=3"), nb,
                   datetime(2026, 12, 1, 17))
    late.penalize(root)(r)
    late._plugin.cache_clear()
    html = page(nbformat.read(str(root / "notebooks" / "junior" / "01_tiny.ipynb"), 4), r)
    assert "submitted 2026-12-01 19:42:00 UTC, 2.7 h after the due date" in html, \
        "a late hand-in's feedback says when it came and how late, with any penalty method"
    assert says in html


def test_the_summary_counts_what_this_run_did():
    a = row("a", "junior", "01_tiny.ipynb", 5, 5, cells="x=5")
    b = row("b", "junior", "01_tiny.ipynb", 1, 5, status="out of memory: x", cells="x=1")
    c = row("c", "junior", "01_tiny.ipynb", 5, 5, flags=["exec"], cells="x=0")
    text = summary.text([b, c], 1, [a, b, c], "grades.csv", unreadable=1)
    assert text.splitlines()[0] == "graded 2 notebook(s), skipped 1 (already graded), faulted 2, flagged 1 -> grades.csv"
    assert "class mean junior/01_tiny: 2.00 / 5 (3 student(s))" in text


def test_grade_keeps_a_csv_it_did_not_write(tmp_path):
    course(tmp_path)
    (tmp_path / "submitted").mkdir()
    foreign = "assignment,duedate,timestamp,student_id,raw_score,score,max_score\njunior,,,alice,5,5,7\n"
    (tmp_path / "grades.csv").write_text(foreign)
    done = cli(tmp_path, "grade", str(tmp_path / "submitted"), "--out", str(tmp_path / "grades.csv"))
    assert done.returncode == 0 and "Traceback" not in done.stderr, done.stderr
    assert "was not written by `grade`" in done.stderr and "grades.autograder.csv" in done.stderr
    assert (tmp_path / "grades.csv").read_text() == foreign
    with (tmp_path / "grades.autograder.csv").open() as f:
        assert "cells" in csv.DictReader(f).fieldnames


def test_feedback_shows_every_cells_points_and_comments_but_no_model_answer(root):
    src = nbformat.read(str(root / "notebooks" / "junior" / "01_tiny.ipynb"), 4)
    executed = with_grader_notes(with_answer(src, "ex3_explain", "Doubling is linear."), src)
    assert sum(1 for c in executed.cells if c.metadata.get(NOTE)) == 1
    r = row("alice", "junior", "01_tiny.ipynb", 2, 5, cells="ex1_double_test=2 ex2_square_test=0",
            written="ex3_explain=1.5/2")
    r["comments"] = "ex3_explain: <b>Nearly</b> there"
    html = page(executed, r)
    assert "ex1_double_test</code>: 2 / 2" in html and "ex2_square_test</code>: 0 / 3" in html
    assert "ex3_explain</code>: 1.5 / 2" in html and "Nearly</b> there" in html
    assert "score 3.5 / 7" in html
    assert "Rubric" not in html and "SECRET_HIDDEN_CHECK" not in html


def test_the_course_file_example_is_the_readmes():
    from tests.tiny_course import ROOT

    assert "assignments:\n      week1:\n" in (ROOT / "docs" / "teaching.md").read_text()
    assert ASSIGNMENTS.startswith("assignments:\n  week1:")


def test_formgrader_shows_the_rosters_names(root, tmp_path):
    """Canvas's export names a student "Last, First", Moodle's in two columns, nbgrader's own import too; a
    student the roster lacks keeps no name (formgrader shows the id alone)."""
    from nbgrader.api import Gradebook

    from autograder.classroom.gradebook import record_grades
    from autograder.classroom.lms import roster_names

    canvas = tmp_path / "canvas.csv"
    canvas.write_text("Student,ID,SIS User ID,SIS Login ID,Section\n    Points Possible,,,,\n"
                      '"Lovelace, Ada",101,S001,alice@uni.example,A\n')
    moodle = tmp_path / "moodle.csv"
    moodle.write_text("First name,Last name,Username,Email address\nBob,Builder,bob,bob@uni.example\n")
    assert roster_names(canvas, {"alice", "zed"}) == {"alice": {"first_name": "Ada", "last_name": "Lovelace"}}
    assert roster_names(moodle, {"bob"}) == {"bob": {"first_name": "Bob", "last_name": "Builder",
                                                     "email": "bob@uni.example"}}
    r = row("alice", "junior", root / "submitted" / "alice" / "junior" / "01_tiny.ipynb", 5, 5,
            cells="ex1_double_test=2 ex2_square_test=3", written="ex3_explain=?/2")
    db = f"sqlite:///{tmp_path / 'gradebook.db'}"
    record_grades(db, [r], names=roster_names(canvas, {"alice"}))
    with Gradebook(db, course_id="pytorch-interview-lab") as gb:
        alice = gb.find_student("alice")
        assert (alice.first_name, alice.last_name) == ("Ada", "Lovelace"), "formgrader shows the roster's name"


def test_a_course_file_assignment_gets_nbgraders_source_folder(root):
    """notebooks/<name>/ with a relative link per notebook, remade as the course file changes; a folder the
    instructor made is never touched."""
    assert assignments.as_nbgrader_folders() == ["week1"]
    folder = root / "notebooks" / "week1"
    assert sorted(p.name for p in folder.iterdir()) == [".gitignore", "02_tiny.ipynb"]
    assert (folder / "02_tiny.ipynb").resolve() == (root / "notebooks" / "junior" / "02_tiny.ipynb").resolve()
    (root / "assignments.yaml").write_text("assignments:\n  week1:\n    notebooks: [junior/01_tiny]\n"
                                           "  mine:\n    notebooks: [junior/02_tiny]\n")
    (root / "notebooks" / "mine").mkdir()
    assert assignments.as_nbgrader_folders() == ["week1"] and assignments.as_nbgrader_folders() == ["week1"]
    assert sorted(p.name for p in folder.iterdir()) == [".gitignore", "01_tiny.ipynb"]
    assert list((root / "notebooks" / "mine").iterdir()) == [], "the instructor's own folder stays as it is"
