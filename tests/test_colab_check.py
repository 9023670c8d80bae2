"""Issue 37 item 3: on Colab the check cell grades the notebook Colab's browser holds, hidden tests included, in
the JupyterLab table, says which isolation holds the kernel there, and keeps progress in a Drive folder.

Offline: a stand-in google.colab (tests/fixtures/colab_standin) answers the cell's requests in a real kernel; the
check cell is the template's (the notebooks are regenerated into tmp with it). Here the grader is already
importable, so the cell's install step is skipped; `make ci-colab` installs it in Colab's versions with pip, off the
network (tests/test_colab_ci.py, docs/colab.md).
"""

from __future__ import annotations

import json
import re

import nbformat
import pytest

from autograder.authoring import template
from autograder.authoring.build import refresh
from autograder.course import SOURCE_DIR, release_path
from autograder.pipeline.cells import grade_id, kind, points, read
from ci.colab_check_cell import colab_check

pytestmark = pytest.mark.kernel

NOTEBOOK = ("junior", "01_tensors_and_memory")


@pytest.fixture(scope="module")
def course(tmp_path_factory):
    """The blank release notebook and the reference, each with the template's check cells, and one Drive."""
    root = tmp_path_factory.mktemp("colab")
    source = SOURCE_DIR / NOTEBOOK[0] / f"{NOTEBOOK[1]}.ipynb"
    made = {}
    for name, path in (("blank", release_path(source)), ("reference", source)):
        nb = nbformat.read(str(path), as_version=4)
        refresh(nb)
        made[name] = root / f"{name}.ipynb"
        nbformat.write(nb, str(made[name]))
    tests = [c for c in read(source).cells if kind(c) == "test"]
    return {"root": root, "tests": [grade_id(c) for c in tests], "max": sum(points(c) for c in tests), **made}


def check(course, which, monkeypatch, **env) -> str:
    monkeypatch.setenv("PTLAB_FAST", "1")
    monkeypatch.setenv("PTLAB_STANDIN_LOG", str(course["root"] / "requests.jsonl"))
    monkeypatch.setenv("PTLAB_COLAB_DRIVE", str(course["root"] / "drive"))
    monkeypatch.setenv("PTLAB_PROGRESS_DIR", str(course["root"] / "drive" / "MyDrive" / "ptlab"))
    for k, v in env.items():
        monkeypatch.setenv(k, v)
    return colab_check(course[which], template.SELFCHECK, course["root"])


def score(text: str) -> tuple[float, float]:
    found = re.findall(r"score ([0-9.]+)/([0-9.]+)", text)
    assert found, f"the check cell showed no score line; it showed:\n{text}"
    return float(found[-1][0]), float(found[-1][1])


def test_the_blank_release_scores_zero_against_every_test_hidden_ones_included(course, monkeypatch):
    text = check(course, "blank", monkeypatch)
    got, out_of = score(text)
    assert (got, out_of) == (0, course["max"]), f"the blank scores 0 of the source's {course['max']} points:\n{text}"
    missing = [gid for gid in course["tests"] if gid not in text]
    assert not missing, f"the table names every test cell of the source; missing {missing}:\n{text}"
    assert "Isolation on this runtime: " in text and "sandbox" in text, f"the isolation is named:\n{text}"
    requests = [json.loads(line)["request"] for line in (course["root"] / "requests.jsonl").read_text().splitlines()]
    assert requests[:2] == ["save_notebook", "get_ipynb"], f"save first, then read the notebook: {requests}"
    assert "drive.mount" in requests, "a progress folder in Drive mounts Drive first"


def test_the_reference_scores_full_marks_and_its_progress_is_kept_in_drive(course, monkeypatch):
    text = check(course, "reference", monkeypatch, PTLAB_STANDIN_NO_SAVE="1")
    assert score(text) == (course["max"], course["max"]), f"the reference scores full marks:\n{text}"
    assert "Colab could not save it first" in text, f"an unsaved notebook is graded as the editor holds it:\n{text}"
    kept = course["root"] / "drive" / "MyDrive" / "ptlab"
    assert (kept / NOTEBOOK[0] / f"{NOTEBOOK[1]}.ipynb").is_file(), "the checked notebook is copied to Drive"
    results = [json.loads(p.read_text()) for p in (kept / ".ptlab-cache" / "progress").glob("*.json")]
    assert any(r["notebook"] == NOTEBOOK[1] and r["score"] == course["max"] for r in results), \
        f"the check's result is recorded in the Drive folder's cache: {results}"
    assert f"Progress kept in {kept}" in text


def test_a_notebook_that_is_not_the_courses_gets_one_line_not_a_grade(course, monkeypatch, tmp_path):
    stranger = tmp_path / "mine.ipynb"
    nbformat.write(nbformat.v4.new_notebook(), str(stranger))
    monkeypatch.setenv("PTLAB_STANDIN_LOG", str(tmp_path / "log.jsonl"))
    text = colab_check(stranger, template.SELFCHECK, tmp_path)
    assert "not one of the course's notebooks" in text and "score" not in text, text


def test_the_cell_pins_the_grader_to_this_courses_version_in_its_repository():
    from autograder.course import COLAB_OWNER, COLAB_REPO

    want = f"git+https://github.com/{COLAB_OWNER}/{COLAB_REPO}@v{template.course_version()}#egg="
    assert want in template.SELFCHECK, "Colab installs the grader from the badge's repository at v<version>"
    assert "not installed here" in template.SELFCHECK, "without Colab and without the grader, the old message"
