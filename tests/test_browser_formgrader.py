"""The instructor's loop in a real browser: a class graded by `grade`, formgrader opened from JupyterLab's
Nbgrader menu, a written answer graded by hand with a comment (the model answer and rubric beside it), then
docs/teaching.md's export and `grade` again: the export, grades.csv and the feedback all carry the grader's points.
The same for an assignments.yaml assignment, its student named as the roster names them."""

from __future__ import annotations

import csv
import subprocess
import time

import pytest
from nbgrader.api import Gradebook

from tests.browser import TOKEN, jupyterlab, need_chromium, shot
from tests.classroom_course import course, env, hand_in
from tests.test_classroom_readme import readme_commands

COMMENT = "Good: now say why linearity matters."
GRADE = [".venv/bin/python", "-m", "autograder", "grade", "submitted", "--workers", "2", "--out", "grades.csv",
         "--feedback", "feedback", "--gradebook", "sqlite:///gradebook.db"]


def _run(args, tmp, **kw):
    done = subprocess.run(args, cwd=tmp, env=env(tmp), capture_output=True, text=True, timeout=600, **kw)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-3000:]
    return done


@pytest.fixture(scope="module")
def graded_class(tmp_path_factory):
    need_chromium()
    tmp = course(tmp_path_factory.mktemp("teach"))
    hand_in(tmp, "alice", "junior", "01_tiny", answered=True)
    hand_in(tmp, "bob", "junior", "01_tiny", answered=False)
    _run(GRADE, tmp)
    return tmp


def _manual(db: str, assignment="junior", notebook="01_tiny", student="alice"):
    with Gradebook(db, course_id="pytorch-interview-lab") as gb:
        grade = gb.find_grade("ex3_explain", notebook, assignment, student)
        comment = gb.find_comment("ex3_explain", notebook, assignment, student)
        return grade.manual_score, comment.manual_comment


def test_a_written_answer_graded_in_formgrader_reaches_the_export_the_csv_and_the_feedback(graded_class, page):
    tmp = graded_class
    try:
        with jupyterlab(tmp, tmp, env(tmp)) as url:
            _grade_in_formgrader(page, url, tmp)
    except Exception:
        shot(page, "formgrader-failure")
        raise
    export = next(c for c in readme_commands() if "nbgrader export" in c)
    _run(export, tmp, shell=True)
    rows = list(csv.DictReader((tmp / "gradebook-export.csv").open()))
    alice = next(r for r in rows if r["student_id"] == "alice")
    assert float(alice["score"]) == pytest.approx(6.5)

    again = _run(GRADE, tmp)
    assert "graded 0 notebook(s), skipped 2" in again.stderr, again.stderr
    with (tmp / "grades.csv").open() as f:
        row = next(r for r in csv.DictReader(f) if r["student"] == "alice")
    assert (row["score"], row["max_score"], row["manual_pending"]) == ("6.5", "7", "0")
    assert row["manual"] == "ex3_explain=1.5/2" and COMMENT in row["comments"]
    page_html = (tmp / "feedback" / "alice" / "junior" / "01_tiny.html").read_text()
    assert "1.5 / 2" in page_html and COMMENT in page_html and "2 / 2" in page_html  # manual and autograded
    assert "Rubric" not in page_html and "SECRET_HIDDEN_CHECK" not in page_html


@pytest.fixture(scope="module")
def week1_class(tmp_path_factory):
    """An assignments.yaml assignment (week1: junior/02_tiny) handed in by one student, graded with a roster."""
    need_chromium()
    tmp = course(tmp_path_factory.mktemp("teach_week1"))
    hand_in(tmp, "carol", "week1", "02_tiny", answered=True)
    (tmp / "roster.csv").write_text('Student,ID,SIS User ID,SIS Login ID,Section\n"Chen, Carol",7,S7,carol,A\n')
    _run(GRADE + ["--roster", "roster.csv"], tmp)
    return tmp


def test_a_written_answer_of_an_assignments_yaml_assignment_is_graded_in_formgrader(week1_class, page):
    """Formgrader lists week1 (Manage Assignments, Manual Grading) with its submission, names the student as
    the roster does, and saves a grader's points for week1's written answer."""
    tmp = week1_class
    try:
        with jupyterlab(tmp, tmp, env(tmp)) as url:
            _grade_in_formgrader(page, url, tmp, "week1", "02_tiny", "carol", "Chen, Carol")
    except Exception:
        shot(page, "formgrader-week1-failure")
        raise


def _grade_in_formgrader(page, url, tmp, assignment="junior", notebook="01_tiny", student="alice", name="alice"):
    # Formgrader answers each click with gradebook queries: on 2 loaded cores in the full suite that took over
    # the default 30 s once, so every wait here gets longer.
    page.set_default_timeout(90_000)
    page.goto(f"{url}/lab?token={TOKEN}")
    page.locator(".lm-MenuBar-itemLabel", has_text="Nbgrader").click()
    entries = page.locator(".lm-Menu-item:visible .lm-Menu-itemLabel")
    entries.first.wait_for(timeout=30_000)
    assert [t for t in entries.all_inner_texts() if "Formgrader" in t] == ["Formgrader"], entries.all_inner_texts()
    page.locator(".lm-Menu-item:visible", has_text="Formgrader").click()
    fg = page.frame_locator("#formgrader iframe, iframe").first
    fg.locator("table").locator("td", has_text=assignment).first.wait_for(timeout=30_000)  # Manage Assignments
    fg.locator("a", has_text="Manual Grading").first.click()
    fg.locator("a", has_text=assignment).first.click()
    fg.locator("a", has_text=notebook).first.click()
    listing = fg.locator("table")
    listing.locator("text=Submission #1").first.wait_for(timeout=30_000)
    fg.locator("text=Show All Names").first.click()
    listing.locator(f"text={name}").first.wait_for(timeout=30_000)
    shot(page, f"formgrader-submissions-{assignment}")
    row = listing.locator("tr", has_text=name)
    assert "5 / 7" in row.inner_text(), row.inner_text()  # the autograded score, out of all points
    row.locator("a.name-shown").first.click()
    fg.locator("text=model answer and rubric").first.wait_for(timeout=30_000)
    assert fg.locator("text=Rubric: 2 points").count() >= 1, "the grader sees the rubric"
    assert fg.locator(f"text={'Doubling is linear: double(a + b)'}").count() >= 1, "and the learner's answer"
    score = fg.locator("input#ex3_explain")
    score.fill("1.5")
    score.press("Tab")
    comment = fg.locator("textarea#ex3_explain-comment")
    comment.fill(COMMENT)
    comment.press("Tab")
    shot(page, "formgrader-graded")
    db = f"sqlite:///{tmp / 'gradebook.db'}"
    deadline = time.monotonic() + 120  # formgrader saves on blur through gradebook queries: slow under load
    while _manual(db, assignment, notebook, student) != (1.5, COMMENT) and time.monotonic() < deadline:
        page.wait_for_timeout(500)
    assert _manual(db, assignment, notebook, student) == (1.5, COMMENT), \
        "formgrader did not save the grader's points and comment within 120 s of leaving the fields"
