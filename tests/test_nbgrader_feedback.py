"""nbgrader's own feedback, as an instructor may make it beside ours: `nbgrader generate_feedback` and formgrader's
"Generate Feedback" button (the same GenerateFeedback converter, forced) render the autograded notebooks with the
steps nbgrader_config.py lists. Their pages keep the learner's code and the visible tests' messages, and show no
hidden test, no traceback that quotes one, and none of the grader's notes (model answer, rubric)."""

from __future__ import annotations

import html
import re
import subprocess
import sys

import nbformat
import pytest
from nbformat.v4 import new_code_cell, new_notebook

from autograder.classroom.autograded import HIDDEN_FAILED, LearnerFeedback
from tests.classroom_course import WRITTEN, course, env, hand_in
from tests.tiny_course import with_answer

LEARNER = "def double(x):\n    return abs(x) * 2  # LEARNER_OWN_LINE\n"  # passes the visible test, fails the hidden
WRONG_SQUARE = "def square(x):\n    return x + x\n"  # fails the visible test
LEAKS = ("BEGIN HIDDEN TESTS", "END HIDDEN TESTS", "SECRET_HIDDEN_CHECK", "double(-3) should be -6",
         "negative numbers double too", "double of new inputs", "square of new inputs", "For the grader",
         "model answer", "Model answer", "Rubric", "2 points for saying so", "most recent call last")

# The formgrader button: NbGraderAPI.generate_feedback (force=True by default) with the course's config.
BUTTON = """
import sys
from traitlets.config.loader import PyFileConfigLoader
from nbgrader.apps.api import NbGraderAPI
from nbgrader.coursedir import CourseDirectory

root = sys.argv[1]
config = PyFileConfigLoader("nbgrader_config.py", path=root).load_config()
coursedir = CourseDirectory(config=config, root=root)
result = NbGraderAPI(coursedir=coursedir, config=config).generate_feedback("junior", "bob")
assert result["success"], result
"""


def page_text(path) -> tuple[str, str]:
    """The page's HTML and its body as text (tags dropped: syntax highlighting splits code into spans)."""
    page = path.read_text()
    return page, html.unescape(re.sub(r"<[^>]+>", "", page.split("<body", 1)[1]))


def assert_clean(path) -> None:
    page, text = page_text(path)
    for leak in LEAKS:
        assert leak not in page and leak not in text, f"{leak!r} in nbgrader's feedback {path.name}"
    # _observe's definition is in the released helper cell; a call to it is a hidden test's
    assert not re.findall(r"(?<!def )_observe\(", text), "a hidden _observe call in nbgrader's feedback"
    assert "LEARNER_OWN_LINE" in text and "abs(x) * 2" in text, "the learner's code is missing"
    assert 'assert square(3) == 9, "square(3) should be 9"' in text, "the visible test is missing"
    assert "AssertionError: square(3) should be 9" in text, "the visible test's message is missing"
    assert HIDDEN_FAILED in text and WRITTEN in text


@pytest.mark.kernel
def test_nbgraders_generate_feedback_and_the_formgrader_button_show_no_hidden_test_or_grader_note(tmp_path):
    tmp = course(tmp_path)
    run = dict(shell=True, cwd=tmp, env=env(tmp), capture_output=True, text=True, timeout=600)
    assert subprocess.run("make release", **run).returncode == 0
    released = nbformat.read(str(tmp / "release" / "junior" / "01_tiny.ipynb"), 4)
    nb = with_answer(with_answer(with_answer(released, "ex1_double", LEARNER), "ex2_square", WRONG_SQUARE),
                     "ex3_explain", WRITTEN)
    hand_in(tmp, "bob", "junior", "01_tiny", nb=nb)
    graded = subprocess.run("make grade", **run)
    assert graded.returncode == 0, graded.stderr[-2000:]
    autograded = (tmp / "autograded" / "bob" / "junior" / "01_tiny.ipynb").read_text()
    for there in ("SECRET_HIDDEN_CHECK", "For the grader", "negative numbers double too"):
        assert there in autograded, f"the autograded notebook lacks {there!r}: this test would prove nothing"

    out = tmp / "feedback" / "bob" / "junior" / "01_tiny.html"
    done = subprocess.run(".venv/bin/nbgrader generate_feedback junior --force", **run)
    assert done.returncode == 0, done.stderr[-2000:]
    assert_clean(out)

    out.write_text("stale page")  # newer than the autograded notebook: only a forced run rewrites it
    pressed = subprocess.run([sys.executable, "-c", BUTTON, str(tmp)], cwd=tmp, env=env(tmp),
                             capture_output=True, text=True, timeout=600)
    assert pressed.returncode == 0, pressed.stderr[-2000:]
    assert_clean(out)


def _test_cell(source: str, count: int, *outputs) -> nbformat.NotebookNode:
    cell = new_code_cell(source, execution_count=count, outputs=list(outputs))
    cell.metadata.nbgrader = {"grade": True, "solution": False, "locked": True, "grade_id": "t", "points": 1}
    return cell


def _error(ename: str, evalue: str, line: int, count: int = 3) -> dict:
    return {"output_type": "error", "ename": ename, "evalue": evalue,
            "traceback": ["----", f"\x1b[36mCell\x1b[39m \x1b[32mIn[{count}]\x1b[39m\x1b[32m, line {line}\x1b[39m\n"
                                  "  quoted lines, hidden ones among them", f"{ename}: {evalue}"]}


HIDDEN = 'assert f(1) == 1, "f(1) is 1"\n### BEGIN HIDDEN TESTS\nassert f(5) == 5, "f(5) is 5"\n### END HIDDEN TESTS'


@pytest.mark.parametrize("error, count, shown", [
    (_error("AssertionError", "f(1) is 1", 1), 3, "AssertionError: f(1) is 1"),  # a visible line
    (_error("AssertionError", "f(5) is 5", 3), 3, HIDDEN_FAILED),  # a hidden line
    (_error("AssertionError", "f(5) is 5", 1), 3, HIDDEN_FAILED),  # a message the hidden tests hold
    (_error("NameError", "name 'f' is not defined", 1, count=2), 3, HIDDEN_FAILED),  # not this cell's frame
    (_error("NameError", "name 'f' is not defined", 1), None, HIDDEN_FAILED),  # no execution count
    ({"output_type": "error", "ename": "KeyError", "evalue": "'x'\nmore", "traceback": []}, 3, HIDDEN_FAILED),
])
def test_a_test_cells_error_is_one_line_and_says_nothing_hidden(error, count, shown):
    printed = {"output_type": "stream", "name": "stdout", "text": "hidden print\n"}
    nb = new_notebook(cells=[_test_cell(HIDDEN, count, printed, error)])
    nb, _ = LearnerFeedback().preprocess(nb, {})
    (out,) = nb.cells[0].outputs  # the hidden tests' print is gone
    assert out.output_type == "error" and out.traceback == [shown]


def test_a_cell_without_hidden_tests_keeps_its_output_and_the_errors_first_line():
    printed = {"output_type": "stream", "name": "stdout", "text": "visible print\n"}
    error = {"output_type": "error", "ename": "ValueError", "evalue": "bad shape\nsecond line", "traceback": ["x"]}
    nb = new_notebook(cells=[_test_cell('assert f(1) == 1, "f(1) is 1"', 4, printed, error)])
    nb, _ = LearnerFeedback().preprocess(nb, {})
    assert [o.get("text") or o.traceback for o in nb.cells[0].outputs] == ["visible print\n",
                                                                           ["ValueError: bad shape"]]
