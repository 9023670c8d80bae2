"""The self-check cell at the end of every notebook: built and refreshed idempotently, skipped by the grader,
never flagged, and, run in a kernel that JupyterLab would start, it shows the verdict table and nothing else."""

import json
import os
import shutil
import time

import nbformat
import pytest

from autograder.authoring import template
from autograder.authoring.build import refresh, refresh_file
from autograder.authoring.release import COLLAPSED, finish
from autograder.course import source_notebooks
from autograder.pipeline.cells import grade_id, kind
from tests.tiny_course import ROOT, blank, cli, make_course, with_answer


@pytest.fixture(scope="module")
def course(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("selfcheck")
    return tmp, make_course(tmp)


def student(src):
    return nbformat.reads(nbformat.writes(nbformat.from_dict(finish(json.loads(nbformat.writes(blank(nbformat.read(str(src), 4))))))), as_version=4)


def test_build_ends_with_the_locked_self_check_cells(course):
    _, src = course
    nb = nbformat.read(str(src), 4)
    intro, cell = nb.cells[-2:]
    assert (grade_id(intro), grade_id(cell)) == template.SELFCHECK_IDS
    assert intro.cell_type == "markdown" and "Check your work" in intro.source
    assert cell.source == template.SELFCHECK and kind(cell) == "readonly" and kind(intro) == "readonly"


def test_refresh_is_idempotent_and_touches_only_the_fixed_cells(tmp_path):
    some = source_notebooks("junior")[0]
    copy = tmp_path / some.name
    shutil.copy(some, copy)
    before = nbformat.read(str(copy), 4)
    refresh_file(copy)
    after = nbformat.read(str(copy), 4)
    assert not refresh_file(copy), "a second refresh changed the notebook again"
    kept = [c for c in before.cells if grade_id(c) not in template.SELFCHECK_IDS]
    assert [c.source for c in after.cells[:-2] if grade_id(c) != "derived"] == \
        [c.source for c in kept if grade_id(c) != "derived"], "refresh changed a cell that is not a fixed one"
    assert [c.source for c in after.cells if grade_id(c) == "derived"] == [template.DERIVED]
    assert [grade_id(c) for c in after.cells[-2:]] == list(template.SELFCHECK_IDS)
    moved = nbformat.read(str(copy), 4)
    moved.cells.insert(3, moved.cells.pop())  # a misplaced or stale self-check cell is put back at the end
    moved.cells[3].source = "old text"
    assert refresh(moved) and moved.cells[-1].source == template.SELFCHECK


def test_release_collapses_the_helpers_and_keeps_locked_checksums_valid(course):
    from nbgrader.utils import compute_checksum

    _, src = course
    nb = student(src)
    for cell in nb.cells:
        if grade_id(cell) in COLLAPSED:
            assert cell.metadata["jupyter"]["source_hidden"] and cell.metadata["cellView"] == "form"
            assert cell.source.startswith("# @title ")
        if "checksum" in cell.metadata.get("nbgrader", {}):
            assert cell.metadata["nbgrader"]["checksum"] == compute_checksum(cell), grade_id(cell)
    assert nb.metadata["kernelspec"]["display_name"] == "Python 3 (ipykernel)"
    assert nb.metadata["language_info"]["pygments_lexer"] == "ipython3"


def test_the_tamper_scan_never_flags_the_self_check(course):
    from autograder.pipeline.assemble import assemble
    from autograder.pipeline.tamper import scan

    _, src = course
    source = nbformat.read(str(src), 4)
    assert scan(assemble(student(src), source)[0], source) == []


def test_the_grader_runs_the_cell_as_a_no_op(course, tmp_path):
    """A kernel started for a notebook in JupyterLab carries JPY_SESSION_NAME; grading must not start a grader."""
    tmp, src = course
    path = tmp_path / "01_tiny.ipynb"
    nbformat.write(student(src), str(path))
    script = ("import json, sys\nfrom pathlib import Path\nfrom autograder.pipeline.check import grade_notebook\n"
              "r = grade_notebook(Path(sys.argv[1]))\n"
              "print(json.dumps([c.get('outputs') for c in r.executed.cells if "
              "c.get('metadata', {}).get('nbgrader', {}).get('grade_id') == 'selfcheck']))")
    import subprocess
    import sys

    env = dict(os.environ, PTLAB_SOURCE_DIR=str(tmp / "notebooks"), JPY_SESSION_NAME=str(path))
    done = subprocess.run([sys.executable, "-c", script, str(path)], cwd=ROOT, env=env, capture_output=True,
                          text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout.strip().splitlines()[-1]) == [[]], "the self-check cell did something while graded"


def test_without_the_grader_the_cell_says_the_visible_tests_are_what_runs(capsys, monkeypatch):
    import importlib.util

    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name == "autograder" else real(name, *a))
    exec(compile(template.SELFCHECK, "selfcheck", "exec"), {})
    assert "visible tests above are what runs" in capsys.readouterr().out


def test_in_a_jupyter_kernel_the_cell_shows_the_table(course, tmp_path, monkeypatch):
    """What JupyterLab does, without a browser: a kernel started with JPY_SESSION_NAME runs the cell."""
    from nbclient import NotebookClient

    tmp, src = course
    path = tmp_path / "01_tiny.ipynb"
    nbformat.write(with_answer(student(src), "ex1_double", "def double(x):\n    return x + x\n"), str(path))
    monkeypatch.setenv("JPY_SESSION_NAME", str(path))
    monkeypatch.setenv("PTLAB_SOURCE_DIR", str(tmp / "notebooks"))
    runner = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(template.SELFCHECK)])
    NotebookClient(runner, timeout=300, kernel_name="python3", resources={"metadata": {"path": str(tmp_path)}}).execute()
    outputs = runner.cells[0].outputs
    assert not [o for o in outputs if o.get("name") == "stderr" or o.output_type == "error"], outputs
    shown = [o for o in outputs if o.output_type == "display_data"]
    html = shown[-1].data["text/html"]
    assert "as saved at" in html and "Unsaved edits are not graded" in html
    assert "ex1_double_test" in html and "PASS" in html and "FAIL" in html
    assert "SECRET_HIDDEN_CHECK" not in json.dumps(outputs), "hidden test code reached the learner's kernel"
    text = shown[-1].data["text/plain"]
    assert "PASS  ex1_double_test  2/2" in text and "score 2/5" in text


def test_a_plain_kernel_without_a_session_explains_itself(capsys, monkeypatch):
    from autograder.learner.selfcheck import check_this_notebook

    monkeypatch.delenv("JPY_SESSION_NAME", raising=False)
    check_this_notebook()
    assert "make check NB=" in capsys.readouterr().out


def test_notebook_path_resolves_relative_session_names(tmp_path, monkeypatch):
    from autograder.learner.selfcheck import notebook_path

    (tmp_path / "a.ipynb").write_text("{}")
    monkeypatch.chdir(tmp_path)
    assert notebook_path("junior/a.ipynb") == tmp_path / "a.ipynb"
    assert notebook_path(str(tmp_path / "a.ipynb")) == tmp_path / "a.ipynb"
    assert notebook_path("missing.ipynb") is None


def test_check_cli_still_grades_the_tiny_course_with_the_self_check_cells(course):
    tmp, src = course
    done = cli(tmp, "check", str(src), "--json")
    assert done.returncode == 0 and json.loads(done.stdout)["score"] == 5


def test_the_lint_rule_for_the_self_check_cells(tmp_path, monkeypatch):
    """Off until the lead refreshes every source notebook; then autograder.authoring.lint.REQUIRE_SELFCHECK = True."""
    from autograder.authoring import lint

    some = source_notebooks("junior")[0]
    copy = tmp_path / "junior" / some.name
    copy.parent.mkdir()
    shutil.copy(some, copy)
    monkeypatch.setattr(lint, "REQUIRE_SELFCHECK", True)
    refresh_file(copy)
    assert not [p for p in lint.lint_notebook(copy) if "self-check" in p]
    nb = nbformat.read(str(copy), 4)
    nb.cells[-1].source += "\n# edited"
    nbformat.write(nb, str(copy))
    assert [p for p in lint.lint_notebook(copy) if "self-check" in p]


# --- issue 24: what was graded, a check's progress, an interrupt --------------------------------------------

def saved_nb(**answers: str) -> dict:
    cells = [{"cell_type": "code", "source": src, "metadata": {"nbgrader": {"solution": True, "grade_id": gid}}}
             for gid, src in answers.items()]
    cells.append({"cell_type": "code", "source": "assert double(2) == 4", "metadata": {}})
    return {"cells": cells}


def test_unsaved_cells_names_answers_whose_last_run_is_not_the_saved_text():
    from autograder.learner.unsaved import unsaved_cells

    saved = saved_nb(ex1="def double(x):\n    return 2 * x", ex2="def square(x):\n    return x * x")
    ran = ["def double(x):\n    return 2 * x", "def square(x):\n    return x * x", "assert double(2) == 4"]
    assert unsaved_cells(saved, ran) == []
    assert unsaved_cells(saved, ran + ["def double(x):\n    return x + x"]) == ["ex1"]
    # edited, run, then saved: the file holds what ran last
    assert unsaved_cells(saved, ["def double(x):\n    return 0", "def double(x):\n    return 2 * x"]) == []
    # a half-typed edit that does not parse is still recognised by its text
    assert unsaved_cells(saved, ["def square(x):\n    return x * x +"]) == ["ex2"]
    # cells the kernel never ran, and scratch code that resembles no answer, claim nothing
    assert unsaved_cells(saved, ["print('hello')", "import torch"]) == []


def test_identical_blank_answers_cannot_be_told_apart_so_none_is_named():
    from autograder.learner.unsaved import unsaved_cells

    blank_cell = "# YOUR CODE HERE\nraise NotImplementedError()"
    assert unsaved_cells(saved_nb(a=blank_cell, b=blank_cell), [blank_cell]) == []


def test_the_progress_line_names_the_cell_and_the_limit_past_half_of_it():
    from autograder.learner.selfcheck import CheckProgress, progress_line

    p = CheckProgress(started=100.0)
    assert progress_line("nb.ipynb", p, 103.0) == "Checking nb.ipynb: starting a fresh kernel ... 3 s"
    p.take('ptlab-progress {"phase": "reference"}', 104.0)
    assert "reference solution once ... 5 s" in progress_line("nb.ipynb", p, 105.0)
    p.take("some kernel noise", 106.0)
    p.take('ptlab-progress {"cell": "ex1_loop", "index": 3, "of": 9, "limit": 60}', 110.0)
    line = progress_line("nb.ipynb", p, 139.0)
    assert line == "Checking nb.ipynb: running ex1_loop (cell 4 of 9) ... 39 s", line
    line = progress_line("nb.ipynb", p, 141.0)
    assert "ex1_loop has run 31 s of its 60 s limit" in line and "interrupt" in line
    assert p.stderr == ["some kernel noise"]


def test_check_progress_reports_each_code_cell_as_it_starts(course):
    tmp, src = course
    done = cli(tmp, "check", str(src), "--json", "--progress", "--timeout", "30")
    events = [json.loads(line.split(" ", 1)[1]) for line in done.stderr.splitlines()
              if line.startswith("ptlab-progress ")]
    cells = [e["cell"] for e in events if "cell" in e]
    assert cells.index("ex1_double") < cells.index("ex1_double_test") < cells.index("ex2_square_test")
    assert "ex3_explain" not in cells, "a markdown cell is not announced"
    assert [e["index"] for e in events if "cell" in e] == list(range(len(cells)))
    assert {e["of"] for e in events if "cell" in e} == {len(cells)} and {e["limit"] for e in events if "cell" in e} == {30}
    assert json.loads(done.stdout)["score"] == 5


def test_in_a_kernel_a_slow_check_shows_progress_and_an_interrupt_stops_it_with_one_line(course, tmp_path):
    """What a learner sees: the running cell and seconds, the limit once past half, and after an interrupt
    one line, no traceback, and no grader left running."""
    from jupyter_client.manager import start_new_kernel

    from tests.tiny_course import alive

    tmp, src = course
    path = tmp_path / "01_tiny.ipynb"
    slow = "import time\ntime.sleep(120)\n\ndef double(x):\n    return x + x\n"
    nbformat.write(with_answer(student(src), "ex1_double", slow), str(path))
    mark = f"ptlab-interrupt-{os.getpid()}"
    env = dict(os.environ, JPY_SESSION_NAME=str(path), PTLAB_SOURCE_DIR=str(tmp / "notebooks"), PTLAB_TEST_MARK=mark)
    km, kc = start_new_kernel(kernel_name="python3", env=env, cwd=str(tmp_path))
    try:
        kc.execute("from autograder.selfcheck import check_this_notebook\ncheck_this_notebook(timeout=8)")
        seen, interrupted = [], False
        deadline = time.monotonic() + 240
        while time.monotonic() < deadline:
            msg = kc.get_iopub_msg(timeout=240)
            kind, content = msg["msg_type"], msg["content"]
            if kind in ("display_data", "update_display_data"):
                seen.append(content["data"]["text/plain"])
                if not interrupted and "of its 8 s limit" in seen[-1]:
                    km.interrupt_kernel()
                    interrupted = True
            elif kind in ("stream", "error"):
                seen.append(f"{kind}: {content}")
            elif kind == "status" and content["execution_state"] == "idle" and msg["parent_header"].get("msg_type") == "execute_request":
                break
        running = [s for s in seen if "running ex1_double (cell" in s]
        assert len({s.rsplit("...", 1)[1] for s in running}) >= 2, f"the seconds did not count up: {seen}"
        assert interrupted, seen
        assert seen[-1].startswith("Self-check stopped: you interrupted it") and "\n" not in seen[-1], seen[-1]
        assert not [s for s in seen if s.startswith(("stream", "error"))], seen
        for _ in range(50):
            if not alive(mark):
                break
            time.sleep(0.2)
        assert not alive(mark) or alive(mark) == [str(km.provisioner.pid)], "the grader outlived the interrupt"
    finally:
        kc.stop_channels()
        km.shutdown_kernel(now=True)


# --- issue 36: the warning speaks of the file the grader read ------------------------------------------------

def test_the_editor_told_by_the_extension_names_only_answers_it_holds_unlike_the_file_graded():
    from autograder.learner import unsaved

    graded = {"ex1": "def double(x):\n    return 2 * x", "ex2": "def square(x):\n    return x * x"}
    unsaved.remember_editor(json.dumps({"answers": {"ex1": "def double(x):\n    return 2 * x\n",
                                                    "ex2": "def square(x):\n    return x ** 2"}}))
    editor = unsaved.take_editor()
    assert unsaved.take_editor() is None, "a told editor is for one check only"
    line = unsaved.warning(graded, editor)
    assert line.startswith("Not saved: ex2.") and "ex1" not in line and "Save and check" in line
    # Save and check: the editor is what was saved and graded, whatever the kernel last ran
    assert unsaved.warning(graded, dict(graded)) == ""
    unsaved.remember_editor("not json")
    assert unsaved.take_editor() is None


def test_without_the_extension_the_kernels_last_run_is_compared_with_the_answers_graded(monkeypatch):
    from autograder.learner import unsaved

    graded = {"ex1": "def double(x):\n    return 2 * x"}
    saved = saved_nb(ex1="def double(x):\n    return 0")  # the file as it is now: its other cells claim nothing
    monkeypatch.setattr(unsaved, "kernel_history", lambda: ["def double(x):\n    return x + x", "assert double(2) == 4"])
    assert unsaved.warning(graded, None, saved).startswith("Not saved: ex1. This kernel last ran")
    monkeypatch.setattr(unsaved, "kernel_history", lambda: ["def double(x):\n    return 2 * x"])
    assert unsaved.warning(graded, None, saved) == ""


def test_the_saved_at_line_and_the_warning_come_from_what_the_check_graded(tmp_path):
    from autograder.learner.selfcheck import what_was_graded

    path = tmp_path / "01_x.ipynb"
    path.write_text(json.dumps(saved_nb(ex1="def double(x):\n    return 2 * x")))
    graded_at = time.mktime((2026, 1, 2, 3, 4, 5, 0, 0, -1))  # an older save than the file on disk now
    report = {"graded": {"saved_at": graded_at, "answers": {"ex1": "def double(x):\n    return 0"}}}
    line, warning = what_was_graded(path, report, {"ex1": "def double(x):\n    return 2 * x"}, graded_at + 7)
    assert line == "Graded 01_x.ipynb as saved at 03:04:05 (7 s ago). Unsaved edits are not graded.", line
    assert warning.startswith("Not saved: ex1."), warning
    line, warning = what_was_graded(path, report, {"ex1": "def double(x):\n    return 0"}, graded_at + 7)
    assert warning == ""


def test_the_checks_json_carries_the_save_time_and_answers_of_the_file_it_graded(course):
    tmp, src = course
    done = cli(tmp, "check", str(src), "--json")
    graded = json.loads(done.stdout)["graded"]
    nb = nbformat.read(str(src), 4)
    assert graded["answers"] == {grade_id(c): c.source for c in nb.cells if kind(c) == "solution"}
    assert abs(graded["saved_at"] - src.stat().st_mtime) < 1e-3, "the save time should be that of the file read"
