"""`python -m autograder grade`: a whole class in parallel; broken submissions get a status, not a crash."""

import csv

import nbformat
import pytest
from nbgrader.api import Gradebook

from tests.tiny_course import blank, cli, make_course


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("class")
    src = make_course(tmp)
    ref = nbformat.read(str(src), 4)
    sub = tmp / "submitted"
    for student, folder, content in [
        ("alice", "junior", ref),
        ("bob", "junior", blank(ref)),
        ("carol", "junior", "{ this is not json"),
        ("dave", "mid", ref),  # a junior notebook handed in under mid/
    ]:
        path = sub / student / folder / "01_tiny.ipynb"
        path.parent.mkdir(parents=True)
        if isinstance(content, str):
            path.write_text(content)
        else:
            nbformat.write(content, str(path))
    (sub / "erin").mkdir()
    (sub / "erin" / "01_tiny.ipynb").write_text("{}")  # not in <student>/<tier>/ layout
    out, fb, db = tmp / "grades.csv", tmp / "feedback", tmp / "gradebook.db"
    done = cli(tmp, "grade", str(sub), "--workers", "2", "--out", str(out), "--feedback", str(fb),
               "--gradebook", f"sqlite:///{db}")
    assert done.returncode == 0, done.stderr
    with out.open() as f:
        rows = {r["student"]: r for r in csv.DictReader(f)}
    return tmp, sub, out, fb, db, rows, done


def test_every_submission_gets_a_row_with_a_status(graded):
    *_, rows, _ = graded
    assert set(rows) == {"alice", "bob", "carol", "dave", "erin"}
    # max_score counts the written answer (2 points), which awaits a grader
    assert (rows["alice"]["score"], rows["alice"]["max_score"], rows["alice"]["status"]) == ("5", "7", "ok")
    assert (rows["alice"]["manual_pending"], rows["alice"]["manual"]) == ("1", "ex3_explain=?/2")
    assert (rows["bob"]["score"], rows["bob"]["status"]) == ("0", "ok")
    assert rows["carol"]["status"].startswith("not valid JSON") and rows["carol"]["score"] == "0"
    assert "junior notebook in the mid folder" in rows["dave"]["status"]
    assert "layout" in rows["erin"]["status"]


def test_progress_and_the_sandbox_in_force_are_shown_once(graded):
    stderr = graded[-1].stderr
    assert "grading" in stderr
    assert sum(line.startswith("sandbox") for line in stderr.splitlines()) == 1


def test_feedback_has_no_hidden_tests(graded):
    _, _, _, fb, *_ = graded
    html = (fb / "alice" / "junior" / "01_tiny.html").read_text()
    assert "double(2) should be 4" in html  # the visible test is shown
    assert "SECRET_HIDDEN_CHECK" not in html and "BEGIN HIDDEN TESTS" not in html
    bob = (fb / "bob" / "junior" / "01_tiny.html").read_text()
    assert "SECRET_HIDDEN_CHECK" not in bob
    # bob handed in the blank: neither the reference's code nor the written answer's model answer reaches him
    assert "return 2 * x" not in bob and "Model answer" not in bob and "Rubric" not in bob


def test_gradebook_holds_the_scores_for_nbgrader(graded):
    *_, db, rows, _ = graded
    with Gradebook(f"sqlite:///{db}", course_id="pytorch-interview-lab") as gb:
        assert gb.find_submission_notebook("01_tiny", "junior", "alice").score == 5
        assert gb.find_submission_notebook("01_tiny", "junior", "bob").score == 0


def test_rerun_resumes_without_regrading(graded):
    tmp, sub, out, *_ = graded
    before = out.read_text()
    done = cli(tmp, "grade", str(sub), "--workers", "2", "--out", str(out))
    assert "resuming: 4 notebook(s) already graded, 0 to go" in done.stderr
    assert out.read_text() == before


def test_missing_class_directory_exits_2(graded):
    tmp = graded[0]
    done = cli(tmp, "grade", str(tmp / "nope"))
    assert done.returncode == 2 and "Traceback" not in done.stderr


@pytest.mark.kernel
def test_a_killed_batch_resumes_and_loses_no_grade(tmp_path):
    import os
    import signal
    import subprocess
    import sys
    import time

    from tests.tiny_course import ROOT

    ref = nbformat.read(str(make_course(tmp_path)), 4)
    sub = tmp_path / "class"
    expected = {}
    for i in range(4):
        path = sub / f"s{i}" / "junior" / "01_tiny.ipynb"
        path.parent.mkdir(parents=True)
        nbformat.write(ref if i % 2 == 0 else blank(ref), str(path))
        expected[f"s{i}"] = 5.0 if i % 2 == 0 else 0.0
    out, db = tmp_path / "grades.csv", tmp_path / "gradebook.db"
    args = ["grade", str(sub), "--workers", "1", "--out", str(out), "--gradebook", f"sqlite:///{db}"]
    # A SIGKILL leaves the scratch folders of the kernels it killed (nothing can clean up after one): in a
    # TMPDIR of this test's own, which goes with tmp_path, not in the session's.
    (tmp_path / "tmp").mkdir()
    env = dict(os.environ, PTLAB_SOURCE_DIR=str(tmp_path / "notebooks"), TMPDIR=str(tmp_path / "tmp"))
    batch = subprocess.Popen([sys.executable, "-m", "autograder", *args], cwd=ROOT, env=env,
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    deadline = time.monotonic() + 240
    while time.monotonic() < deadline and not (out.exists() and len(out.read_text().splitlines()) >= 2):
        time.sleep(0.2)
    os.killpg(batch.pid, signal.SIGKILL)  # the whole batch at once: parent, workers and kernels
    batch.wait()
    finished = len(out.read_text().splitlines()) - 1
    assert 1 <= finished < 4, "the batch was not killed midway"
    assert not db.exists(), "killed before the end, so the gradebook was never written"

    done = cli(tmp_path, *args)
    assert f"resuming: {finished} notebook(s) already graded, {4 - finished} to go" in done.stderr
    with out.open() as f:
        assert {r["student"]: float(r["score"]) for r in csv.DictReader(f)} == expected
    with Gradebook(f"sqlite:///{db}", course_id="pytorch-interview-lab") as gb:
        got = {s: gb.find_submission_notebook("01_tiny", "junior", s).score for s in expected}
    assert got == expected, "grades from before the kill must reach the gradebook too"

    csv_text = out.read_text()
    again = cli(tmp_path, *args)
    assert "0 to go" in again.stderr and out.read_text() == csv_text
    with Gradebook(f"sqlite:///{db}", course_id="pytorch-interview-lab") as gb:
        assert {s: gb.find_submission_notebook("01_tiny", "junior", s).score for s in expected} == expected
        assert len(gb.notebook_submissions("01_tiny", "junior")) == len(expected), "a re-run adds no submission"


def test_feedback_without_a_gradebook_shows_lateness(tmp_path):
    """`grade --feedback` alone (no gradebook, so no page is rewritten afterwards): the page a worker writes
    already says when the hand-in came and how late, with the course's penalty ('none')."""
    src = make_course(tmp_path)
    (tmp_path / "assignments.yaml").write_text("assignments:\n  junior:\n    due: 2026-12-01 17:00:00 UTC\n")
    path = tmp_path / "submitted" / "bob" / "junior" / "01_tiny.ipynb"
    path.parent.mkdir(parents=True)
    nbformat.write(nbformat.read(str(src), 4), str(path))
    (path.parent / "timestamp.txt").write_text("2026-12-01 19:42:00 UTC")
    done = cli(tmp_path, "grade", str(tmp_path / "submitted"), "--workers", "1", "--out",
               str(tmp_path / "grades.csv"), "--feedback", str(tmp_path / "feedback"))
    assert done.returncode == 0, done.stderr
    page = (tmp_path / "feedback" / "bob" / "junior" / "01_tiny.html").read_text()
    assert "submitted 2026-12-01 19:42:00 UTC, 2.7 h after the due date; no points off for lateness" in page, \
        "the late student's feedback says how late, without a gradebook too"
