"""`python -m autograder check`: verdicts, the JSON contract, exit codes, and every bad input."""

import json

import nbformat
import pytest

from tests.tiny_course import blank, cli, make_course, with_answer


@pytest.fixture(scope="module")
def course(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("course")
    return tmp, make_course(tmp)


def write(path, nb):
    nbformat.write(nb, str(path))
    return str(path)


def test_reference_gets_full_marks_and_exit_0(course):
    tmp, src = course
    done = cli(tmp, "check", str(src), "--json")
    assert done.returncode == 0, done.stdout + done.stderr
    report = json.loads(done.stdout)  # exactly one JSON object on stdout
    assert report["score"] == report["max_score"] == 5
    assert {t["grade_id"] for t in report["tests"]} == {"ex1_double_test", "ex2_square_test"}
    assert set(report["tests"][0]) == {"grade_id", "points", "max_points", "passed", "message", "cause"}
    assert report["manual"][0]["grade_id"] == "ex3_explain" and report["manual"][0]["answered"]


def test_blank_scores_zero_with_exit_1_and_says_not_answered(course):
    tmp, src = course
    path = write(tmp / "blank.ipynb", blank(nbformat.read(str(src), 4)))
    done = cli(tmp, "check", path)
    assert done.returncode == 1
    assert "score 0/5" in done.stdout
    assert "not answered yet" in done.stdout
    assert "written answer: not answered" in done.stdout


def test_hidden_test_failure_shows_its_message_but_never_its_code(course):
    tmp, src = course
    wrong = with_answer(nbformat.read(str(src), 4), "ex1_double", "def double(x):\n    return abs(2 * x)\n")
    done = cli(tmp, "check", write(tmp / "mine.ipynb", wrong))
    assert done.returncode == 1
    assert "negative numbers double too" in done.stdout
    assert "SECRET_HIDDEN_CHECK" not in done.stdout + done.stderr


def test_deleted_and_edited_test_cells_are_restored_from_the_source(course):
    tmp, src = course
    nb = blank(nbformat.read(str(src), 4))
    nb.cells = [c for c in nb.cells if c.metadata.get("nbgrader", {}).get("grade_id") != "ex1_double_test"]
    for c in nb.cells:
        if c.metadata.get("nbgrader", {}).get("grade_id") == "ex2_square_test":
            c.source = "pass"  # a learner 'fixing' the test
            c.metadata["nbgrader"]["points"] = 100
    done = cli(tmp, "check", write(tmp / "tampered.ipynb", nb), "--json")
    report = json.loads(done.stdout)
    assert report["score"] == 0 and report["max_score"] == 5
    assert any("restored" in n for n in report["notes"])


def test_renamed_copy_is_matched_by_its_metadata(course):
    tmp, src = course
    done = cli(tmp, "check", write(tmp / "my copy (2).ipynb", nbformat.read(str(src), 4)))
    assert done.returncode == 0, done.stdout + done.stderr


@pytest.mark.parametrize("content, reason", [
    (None, "no such file"),
    ("this is not json", "not valid JSON"),
    ('{"hello": "world"}', "not a Jupyter notebook"),
    ('{"cells": [], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}', "not a notebook of this course"),
])
def test_bad_input_exits_2_with_one_line_and_no_traceback(course, content, reason):
    tmp, _ = course
    path = tmp / "bad" / "99_unknown.ipynb"
    path.parent.mkdir(exist_ok=True)
    if content is not None:
        path.write_text(content)
    elif path.exists():
        path.unlink()
    done = cli(tmp, "check", str(path))
    assert done.returncode == 2
    assert reason in done.stderr
    assert "Traceback" not in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1
    json_done = cli(tmp, "check", str(path), "--json")
    assert json_done.returncode == 2 and "error" in json.loads(json_done.stdout)


FORGERIES = {
    "silenced errors": "get_ipython().set_custom_exc((BaseException,), lambda *a, **k: None)",
    "patched display": "import IPython\nIPython.get_ipython().showtraceback = lambda *a, **k: None",
    "rebound builtin": "AssertionError = type('AssertionError', (Warning,), {})",
    "hidden behind exec": "exec(bytes.fromhex('7072696e7428312b3129').decode())",
}


@pytest.mark.parametrize("attack", FORGERIES, ids=list(FORGERIES))
def test_every_kind_of_reach_into_the_grader_is_flagged(course, attack):
    from autograder.pipeline.assemble import assemble
    from autograder.pipeline.tamper import scan

    _, src = course
    source = nbformat.read(str(src), 4)
    nb = blank(source)
    nb.cells.insert(5, nbformat.v4.new_code_cell(FORGERIES[attack]))
    assert scan(assemble(nb, source)[0], source), f"{attack} was not flagged"


def test_a_forged_pass_is_flagged_in_check_and_earns_nothing_in_class_grading(course):
    import csv

    tmp, src = course
    nb = blank(nbformat.read(str(src), 4))
    nb.cells.insert(5, nbformat.v4.new_code_cell(FORGERIES["silenced errors"]))
    report = json.loads(cli(tmp, "check", write(tmp / "forged.ipynb", nb), "--json").stdout)
    assert report["flags"] and "get_ipython" in report["flags"][0]
    sub = tmp / "forgers" / "mallory" / "junior"
    sub.mkdir(parents=True)
    nbformat.write(nb, str(sub / "01_tiny.ipynb"))
    cli(tmp, "grade", str(sub.parent.parent), "--workers", "1", "--out", str(tmp / "forged.csv"))
    row = next(csv.DictReader((tmp / "forged.csv").open()))
    assert row["score"] == "0" and row["status"].startswith("flagged for review")


def test_the_reference_is_never_flagged(course):
    tmp, src = course
    assert json.loads(cli(tmp, "check", str(src), "--json").stdout)["flags"] == []
