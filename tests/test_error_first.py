"""The real error first: a test that fails because an answer cell raised names that cell and its error first,
in `check`, in the self-check table (without a hint suggestion) and for class grading's report."""

import json

import nbformat
import pytest

from autograder.pipeline.causes import cause, first, raised
from tests.tiny_course import cli, make_course, with_answer


@pytest.fixture(scope="module")
def course(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("course")
    return tmp, make_course(tmp)


def check(tmp, src, answers: dict[str, str]) -> dict:
    nb = nbformat.read(str(src), 4)
    for gid, code in answers.items():
        nb = with_answer(nb, gid, code)
    path = tmp / f"mine_{abs(hash(tuple(answers.items())))}.ipynb"
    nbformat.write(nb, str(path))
    done = cli(tmp, "check", str(path), "--json")
    return {t["grade_id"]: t for t in json.loads(done.stdout)["tests"]}


def test_a_syntax_error_is_named_before_the_name_error_it_causes(course):
    tmp, src = course
    tests = check(tmp, src, {"ex1_double": "def double(x)\n    return 2 * x\n"})
    t = tests["ex1_double_test"]
    assert not t["passed"] and t["cause"] == "ex1_double"
    assert t["message"].startswith("the answer cell ex1_double raised SyntaxError: expected ':' (line 1)")
    assert "NameError" in t["message"] and ".py, line" not in t["message"]  # IPython's temporary file name
    assert tests["ex2_square_test"]["passed"] and tests["ex2_square_test"]["cause"] == ""


def test_an_exception_in_an_answer_cell_is_named_first(course):
    tmp, src = course
    tests = check(tmp, src, {"ex2_square": "import math\n\nscale = math.sqrt(-1)\n\n\ndef square(x):\n"
                                                   "    return x * x\n"})
    t = tests["ex2_square_test"]
    assert t["cause"] == "ex2_square"
    assert t["message"].startswith("the answer cell ex2_square raised ValueError: math domain error; fix")


def test_a_passing_test_is_left_alone_even_when_its_answer_cell_raised(course):
    tmp, src = course
    tests = check(tmp, src, {"ex2_square": "def square(x):\n    return x * x\n\n1 / 0\n"})
    assert tests["ex2_square_test"]["passed"] and tests["ex2_square_test"]["message"] == ""


def cells(*specs):
    """A tiny executed notebook: (kind, source, error or None) per cell."""
    nb = nbformat.v4.new_notebook()
    for i, (role, source, error) in enumerate(specs):
        c = nbformat.v4.new_code_cell(source)
        c.execution_count = i + 1
        meta = {"solution": {"solution": True}, "test": {"grade": True, "points": 1}}.get(role, {})
        c.metadata["nbgrader"] = dict(meta, grade_id=f"c{i}")
        if error:
            c.outputs = [nbformat.v4.new_output("error", ename=error[0], evalue=error[1], traceback=[])]
        nb.cells.append(c)
    return nb


def test_a_later_test_that_needs_a_broken_earlier_answer_names_it():
    nb = cells(("solution", "def helper(x):\n    return x +\n", ("SyntaxError", "invalid syntax (1.py, line 2)")),
               ("test", "assert helper(1) == 2", None),
               ("solution", "def other(x):\n    return helper(x)\n", None),
               ("test", "assert other(1) == 2", ("NameError", "name 'helper' is not defined")))
    assert cause(nb, 3, "NameError: name 'helper' is not defined") == ("c0", "raised SyntaxError: invalid syntax "
                                                                      "(line 2)")
    assert cause(nb, 3, "AssertionError: other(1) should be 2") is None  # not its exercise, not its name


def test_an_untouched_whole_cell_stub_reads_as_not_answered():
    nb = cells(("solution", "# YOUR CODE HERE\nraise NotImplementedError()", ("NotImplementedError", "")),
               ("test", "assert f(1) == 2", ("NameError", "name 'f' is not defined")))
    gid, what = cause(nb, 1, "NameError: name 'f' is not defined")
    assert first(gid, what, "NameError: ...") == "not answered yet (the answer cell c0 still raises NotImplementedError)"


def test_a_timed_out_answer_cell_says_so():
    nb = cells(("solution", "while True: pass", ("KeyboardInterrupt", "")))
    assert "per-cell time limit" in raised(nb.cells[0])


def test_the_self_check_table_offers_no_hint_for_a_cell_that_raised():
    from autograder.learner.selfcheck import rows

    report = {"tests": [{"grade_id": "ex1_test", "passed": False, "points": 0, "max_points": 2, "cause": "ex1",
                         "message": "the answer cell ex1 raised SyntaxError: invalid syntax (line 1); fix that "
                                    "cell first"},
                        {"grade_id": "ex2_test", "passed": False, "points": 0, "max_points": 2, "cause": "",
                         "message": "AssertionError: wrong"}], "manual": []}
    got = {r["cell"]: r["message"] for r in rows(report, {"ex1_test": 2, "ex2_test": 1})}
    assert got["ex1_test"].startswith("the answer cell ex1 raised SyntaxError") and "Hint" not in got["ex1_test"]
    assert "Hint 1" in got["ex2_test"]
