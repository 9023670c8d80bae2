"""`python -m autograder progress`: the JSON contract, re-checking only what changed, written answers, the
picture, the dashboard notebook and the learner's folder (`workdir`)."""

import json

import nbformat
import pytest

from autograder.authoring.release import finish, stamp_python, workdir
from tests.tiny_course import blank, cli, make_course, with_answer

RIGHT_DOUBLE = "def double(x):\n    return 2 * x\n"


def release_version(src_nb):
    """The tiny notebook as the release ships it: nbgrader's student version plus what release.py adds."""
    return nbformat.reads(nbformat.writes(nbformat.from_dict(finish(json.loads(nbformat.writes(blank(src_nb)))))), as_version=4)


@pytest.fixture(scope="module")
def course(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("progress")
    src = make_course(tmp)
    work = tmp / "work"
    (work / "junior").mkdir(parents=True)
    student = release_version(nbformat.read(str(src), 4))
    nbformat.write(with_answer(student, "ex1_double", RIGHT_DOUBLE), str(work / "junior" / "01_tiny.ipynb"))
    return tmp, src, work, student


def progress(tmp, *args):
    done = cli(tmp, "progress", *args, PTLAB_CACHE_DIR=str(tmp / "cache"))
    assert done.returncode == 0, done.stdout + done.stderr
    return done


def test_json_shape_scores_and_written_answers(course):
    tmp, _, work, _ = course
    done = progress(tmp, str(work), "--json")
    result = json.loads(done.stdout)
    assert set(result) == {"notebooks", "topics", "total", "mastery", "interviews", "review"}
    (nb,) = result["notebooks"]
    assert set(nb) == {"tier", "notebook", "score", "max_score", "status", "checked_at", "cells"}
    assert (nb["tier"], nb["notebook"], nb["score"], nb["max_score"], nb["status"]) == ("junior", "01_tiny", 2, 5, "ok")
    cells = {c["grade_id"]: c for c in nb["cells"]}
    assert all(set(c) == {"grade_id", "points", "max_points", "passed"} for c in cells.values())
    assert cells["ex1_double_test"]["passed"] is True and cells["ex2_square_test"]["passed"] is False
    # a written answer is neither a pass nor a failure: it waits for a person
    assert cells["ex3_explain"]["passed"] is None and cells["ex3_explain"]["points"] is None
    assert result["topics"] == {"J01": {"earned": 2, "max": 2}, "J02": {"earned": 0, "max": 3}}
    assert result["total"] == {"score": 2, "max_score": 5}
    assert result["review"]["start_here"] == "", "once a notebook is checked, 'start here' is no longer shown"
    assert list((tmp / "cache" / "progress").glob("*.json")), "the cache lives in PTLAB_CACHE_DIR/progress"


def test_text_output_shows_failing_cells_awaiting_answers_and_weak_topics(course):
    tmp, _, work, _ = course
    out = progress(tmp, str(work)).stdout
    assert "01_tiny" in out and "2/5" in out
    assert "FAIL ex2_square_test" in out
    assert "TODO ex3_explain: written answer" in out and "FAIL ex3_explain" not in out
    assert "J02  0/3" in out
    # topics by name, in progress before done, the status in words (issue 24, item 5)
    assert "1 cell to go" in out and out.index("J02  0/3") < out.index("done: 1 topic")
    assert "Tensors vs NumPy arrays" not in out.split("done:")[0] and "weighted by how the pass came" in out


def test_second_call_rechecks_nothing_and_a_change_rechecks_only_that_notebook(course):
    tmp, _, work, student = course
    progress(tmp, str(work), "--json")
    again = progress(tmp, str(work), "--json")
    assert "checking" not in again.stderr, again.stderr
    # running cells (outputs, execution counts) is not a change; an edited answer is
    nb = nbformat.read(str(work / "junior" / "01_tiny.ipynb"), 4)
    nb.cells[-1].outputs = [nbformat.v4.new_output("stream", text="hello\n")]
    nbformat.write(nb, str(work / "junior" / "01_tiny.ipynb"))
    assert "checking" not in progress(tmp, str(work)).stderr
    second = work / "junior" / "01_tiny_attempt2.ipynb"
    nbformat.write(with_answer(with_answer(student, "ex1_double", RIGHT_DOUBLE), "ex2_square",
                               "def square(x):\n    return x ** 2\n"), str(second))
    try:
        done = progress(tmp, str(work), "--json")
        assert done.stderr.count("checking") == 1 and "01_tiny_attempt2" in done.stderr
        (nb,) = json.loads(done.stdout)["notebooks"]  # two copies of one notebook count once: the better one
        assert nb["score"] == 5
    finally:
        second.unlink()


def test_an_untouched_release_copy_is_not_started_without_a_run(course, tmp_path):
    tmp, _, _, student = course
    fresh = tmp_path / "fresh"
    (fresh / "junior").mkdir(parents=True)
    nbformat.write(student, str(fresh / "junior" / "01_tiny.ipynb"))
    done = progress(tmp, str(fresh), "--json")
    assert "checking" not in done.stderr
    (nb,) = json.loads(done.stdout)["notebooks"]
    assert nb["status"] == "not started" and nb["score"] == 0 and nb["max_score"] == 5
    start = json.loads(done.stdout)["review"]["start_here"]
    assert start.startswith("Start here: junior/01_tiny.") and "make lab" in start, (
        f"with nothing done yet the dashboard should say where to start (the first notebook, `make lab`): {start!r}")


def test_check_record_feeds_progress(course, tmp_path):
    tmp, _, _, student = course
    mine = tmp_path / "rec"
    (mine / "junior").mkdir(parents=True)
    path = mine / "junior" / "01_tiny.ipynb"
    nbformat.write(with_answer(student, "ex2_square", "def square(x):\n    return x * x * 1\n"), str(path))
    checked = cli(tmp, "check", str(path), "--json", "--record", PTLAB_CACHE_DIR=str(tmp / "cache"))
    assert json.loads(checked.stdout)["score"] == 3
    done = progress(tmp, str(mine), "--json")
    assert "checking" not in done.stderr, "progress re-checked what the self-check had just recorded"
    assert json.loads(done.stdout)["total"]["score"] == 3


def test_png_and_non_course_files(course):
    tmp, _, work, _ = course
    (work / "scratch.ipynb").write_text(nbformat.writes(nbformat.v4.new_notebook()))
    try:
        png = tmp / "map.png"
        out = progress(tmp, str(work), "--png", str(png)).stdout
        assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and png.stat().st_size > 10_000
        assert "scratch.ipynb: not a notebook of this course" in out
    finally:
        (work / "scratch.ipynb").unlink()


def test_progress_on_a_missing_folder_exits_2(course, tmp_path):
    tmp, *_ = course
    done = cli(tmp, "progress", str(tmp_path / "nope"))
    assert done.returncode == 2 and "not a folder" in done.stderr


def test_workdir_copies_the_release_never_overwrites_and_adds_the_dashboard(tmp_path):
    from autograder.course import RELEASE_DIR
    from autograder.learner.dashboard import DASHBOARD, write_dashboard

    release = tmp_path / "release"
    (release / "junior").mkdir(parents=True)
    some = next((RELEASE_DIR / "junior").glob("*.ipynb"))
    (release / "junior" / some.name).write_text(some.read_text())
    work = tmp_path / "work"
    (work / "junior").mkdir(parents=True)
    (work / "junior" / some.name).write_text("my own work")
    assert workdir(work, release) == []
    assert (work / "junior" / some.name).read_text() == "my own work"
    (work / "junior" / some.name).unlink()
    (made,) = workdir(work, release)
    nb = json.loads(made.read_text())
    import sys

    assert nb["metadata"]["language_info"]["version"] == sys.version.split()[0]
    dash = write_dashboard(work)
    assert dash.name == DASHBOARD and "from autograder.progress import show" in dash.read_text()
    dash.write_text("mine")
    assert write_dashboard(work) is None and dash.read_text() == "mine"


def test_stamp_python_sets_the_kernel_version():
    nb = stamp_python({"metadata": {}}, "3.99.1")
    assert nb["metadata"]["language_info"]["version"] == "3.99.1"


def test_make_lab_prepares_work_and_switches_off_the_news_prompt_by_a_setting(tmp_path):
    from autograder.course import ROOT
    from autograder.learner.labsettings import write_overrides

    target = write_overrides(str(tmp_path))
    settings = json.loads(target.read_text())
    assert target.parent.name == "overrides.d", "the user's own overrides.json stays theirs"
    assert settings["@jupyterlab/apputils-extension:notification"]["fetchNews"] == "false"
    assert settings["@jupyterlab/docmanager-extension:plugin"]["autosaveInterval"] <= 30
    lab = (ROOT / "Makefile").read_text().split("\nlab:", 1)[1].split("\n\n", 1)[0]
    assert "autograder workdir work" in lab and "autograder lab-settings" in lab
    assert "00_progress.ipynb" in lab
    assert "\nprogress:" in (ROOT / "Makefile").read_text()
