"""Issue 36, must-hold 6: every learner step that can take more than 2 s shows a live line with its seconds, drawn
by one mechanism (autograder/learner/live_line.py), and its final output is what it was without the line.

The work is made slow on purpose (a stand-in grader that sleeps, a monkeypatched delay) with a short tick, so
that each test sees the line without depending on how fast this machine is; no test asserts a duration."""

from __future__ import annotations

import io
import json
import re
import sys
import textwrap
import time
from pathlib import Path

import pytest

from autograder.learner import compose, live_line

from tests.tiny_course import ROOT

SECONDS = re.compile(r"\.\.\. \d+ s$")
PYTHON = sys.executable  # the real one: a test puts a slow stand-in in its place


@pytest.fixture
def fast_ticks(monkeypatch):
    monkeypatch.setattr(live_line, "TICK", 0.02)
    monkeypatch.setattr(live_line, "LOG_EVERY", 0.0)


class Shown:
    """IPython's display, as a notebook cell receives it: the first bundle and each update of it."""

    def __init__(self, monkeypatch):
        self.bundles: list[dict] = []
        monkeypatch.setattr("IPython.display.display", self.display)

    def display(self, data, raw=False, display_id=False):
        assert raw and display_id, "the live line is one display, updated in place"
        self.bundles.append(data)
        return self

    def update(self, data, raw=False):
        self.bundles.append(data)

    def lines(self) -> list[str]:
        return [b["text/plain"] for b in self.bundles[:-1]]

    def final(self) -> dict:
        return self.bundles[-1]


class TTY(io.StringIO):
    def isatty(self):
        return True


def stand_in_python(tmp_path: Path, monkeypatch, *, out: str = "", err: str = "", code: int = 0) -> None:
    """sys.executable becomes a program that, whatever it is asked, writes `err` on stderr, sleeps, writes `out`
    on stdout and exits with `code`: a slow grader that needs no course."""
    script = tmp_path / f"slow_python_{code}"
    script.write_text(textwrap.dedent(f"""\
        #!{PYTHON}
        import sys, time
        sys.stderr.write({err!r}); sys.stderr.flush()
        time.sleep(0.4)
        sys.stdout.write({out!r})
        sys.exit({code})
        """))
    script.chmod(0o755)
    monkeypatch.setattr(sys, "executable", str(script))


# --- the mechanism ---------------------------------------------------------------------------------------------

def test_in_a_terminal_the_line_is_redrawn_in_place_and_cleared_before_what_follows():
    out = TTY()
    line = live_line.Terminal(out)
    line.show("setup: installing PyTorch ... 1 s")
    line.show("setup: installing PyTorch ... 2 s")
    line.print("a line that stays")
    assert out.getvalue() == ("\rsetup: installing PyTorch ... 1 s\rsetup: installing PyTorch ... 2 s"
                              "\r" + " " * 33 + "\ra line that stays\n"), "on a TTY: \\r, never a new line per second"


def test_in_a_log_one_line_every_few_seconds_not_one_a_second(monkeypatch):
    log = io.StringIO()
    line = live_line.Terminal(log)
    for n in range(5):
        line.show(f"review: composing ... {n} s")
    assert log.getvalue() == "", f"within {live_line.LOG_EVERY} s a log gets no line: {log.getvalue()!r}"
    monkeypatch.setattr(live_line, "LOG_EVERY", 0.0)
    line = live_line.Terminal(log)
    line.show("review: composing ... 12 s")
    assert log.getvalue() == "review: composing ... 12 s\n" and "\r" not in log.getvalue()


def test_setup_steps_show_seconds_and_keep_the_commands_output(fast_ticks, capsys):
    """What `make setup` runs before anything is installed: pip under the line, its output after it (pip's
    mirror warnings dropped), and how long it took."""
    code = live_line.main(["--drop", "WARNING: Location", "setup: installing PyTorch", "--", sys.executable, "-c",
                           "import time; print('WARNING: Location x'); print('Successfully installed torch');"
                           "time.sleep(0.3)"])
    out = capsys.readouterr().out
    assert code == 0, out
    ticks = [ln for ln in out.splitlines() if ln.startswith("setup: installing PyTorch ...")]
    assert ticks and all(SECONDS.search(t) for t in ticks), f"no live line with seconds: {out!r}"
    assert "Successfully installed torch" in out and "WARNING: Location" not in out
    assert re.search(r"setup: installing PyTorch: done in \d+ s", out), out


def test_a_failing_setup_step_fails_loudly_with_pips_error(capsys):
    code = live_line.main(["--drop", "WARNING", "setup: installing PyTorch", "--", sys.executable, "-c",
                           "import sys; print('WARNING: x'); sys.exit('ERROR: No matching distribution for torch')"])
    err = capsys.readouterr().err
    assert code == 1, "make must stop on pip's failure"
    assert "ERROR: No matching distribution for torch" in err and "setup: installing PyTorch: FAILED" in err, err
    assert "WARNING: x" in err, "a failure shows all of the command's output, warnings included"


def test_every_pip_run_of_setup_runs_under_the_live_line():
    recipe = (ROOT / "Makefile").read_text().split("$(STAMP): pyproject.toml", 1)[1].split("\n\n", 1)[0]
    commands = [ln.strip() for ln in recipe.splitlines() if ln.startswith("\t")]
    slow = [c for c in commands if "pip install" in c or "-m venv" in c or "import torch" in c]
    assert slow and all("autograder.learner.live_line" in c or c.startswith("@$(LIVE)") for c in slow), slow
    said = " ".join(c for c in commands if c.startswith("@echo"))
    assert "PyTorch" in said and "JupyterLab" in said, "setup says what it installs before it starts"


# --- the notebook's cells --------------------------------------------------------------------------------------

def test_the_dashboard_cell_counts_seconds_and_names_the_notebook_it_grades(tmp_path, monkeypatch, fast_ticks):
    from autograder.learner import dashboard

    result = {"notebooks": [{"tier": "junior", "notebook": "01_tiny", "score": 2, "max_score": 5, "status": "ok",
                             "cells": [{"grade_id": "ex1_test", "passed": True},
                                       {"grade_id": "ex2_test", "passed": False}]}],
              "total": {"score": 2, "max_score": 5}}
    stand_in_python(tmp_path, monkeypatch, out=json.dumps(result) + "\n",
                    err=f"progress: checking {tmp_path}/junior/01_tiny.ipynb ...\n")
    shown = Shown(monkeypatch)
    dashboard.show(tmp_path)
    lines = shown.lines()
    assert lines and all(ln.startswith("Progress: ") and SECONDS.search(ln) for ln in lines), lines
    assert any("grading 01_tiny.ipynb" in ln for ln in lines), lines
    assert shown.final()["text/plain"] == "junior/01_tiny: 2/5 1 cell to go"
    assert "FAIL ex2_test" in shown.final()["text/html"]


def test_show_solution_counts_seconds_then_shows_the_reference_in_place(tmp_path, monkeypatch, fast_ticks):
    from autograder.learner import reveal

    notebook = tmp_path / "01_tiny.ipynb"
    notebook.write_text("{}")
    stand_in_python(tmp_path, monkeypatch, out="# reference: ex2_square\ndef square(x):\n    return x * x\n")
    shown = Shown(monkeypatch)
    reveal.show_solution("ex2", session=str(notebook))
    lines = shown.lines()
    assert lines and all(ln.startswith("show_solution: checking that ex2 passes in 01_tiny.ipynb as saved")
                         and SECONDS.search(ln) for ln in lines), lines
    assert shown.final()["text/markdown"] == ("```python\n# reference: ex2_square\ndef square(x):\n"
                                              "    return x * x\n```")

    stand_in_python(tmp_path, monkeypatch, err="solution: ex2_square is not passed yet\n", code=1)
    shown = Shown(monkeypatch)
    reveal.show_solution("ex2", session=str(notebook))
    assert shown.lines() and shown.final() == {"text/plain": "solution: ex2_square is not passed yet"}


REPORT = {"score": 2, "max_score": 5, "tests": [
    {"grade_id": "ex1_double_test", "passed": True, "points": 2, "max_points": 2, "message": ""},
    {"grade_id": "ex2_square_test", "passed": False, "points": 0, "max_points": 3, "message": "expected x * x"}],
    "graded": {"saved_at": 1_700_000_000.0}}


@pytest.mark.parametrize("cell", ["self-check", "interview", "review"])
def test_check_cells_count_seconds_while_the_grader_runs(tmp_path, monkeypatch, fast_ticks, cell):
    from autograder.learner import interview_cell, selfcheck

    notebook = tmp_path / "01_tiny.ipynb"
    notebook.write_text("{}")
    report = dict(REPORT, session={"time_line": "time left: 19 min", "mode": cell}) if cell != "self-check" \
        else REPORT
    event = "ptlab-progress " + json.dumps({"cell": "ex1_double", "index": 3, "of": 9, "limit": 30})
    stand_in_python(tmp_path, monkeypatch, out=json.dumps(report) + "\n", err=event + "\n")
    shown = Shown(monkeypatch)
    if cell == "self-check":
        selfcheck.check_this_notebook(session=str(notebook))
    else:
        interview_cell.check_this_session(session=str(notebook))
    lines = shown.lines()
    assert lines and all(ln.startswith("Checking 01_tiny.ipynb: ") and SECONDS.search(ln) for ln in lines), lines
    assert any("running ex1_double (cell 4 of 9)" in ln for ln in lines), lines
    text = shown.final()["text/plain"]
    assert "PASS  ex1_double_test  2/2" in text and "score 2/5" in text, text
    assert ("time left: 19 min" in text) == (cell != "self-check"), text


def test_an_interrupted_dashboard_says_so_in_one_line(tmp_path, monkeypatch, fast_ticks):
    from autograder.learner import dashboard

    stand_in_python(tmp_path, monkeypatch, out="{}")
    shown = Shown(monkeypatch)

    def interrupt():
        raise KeyboardInterrupt

    monkeypatch.setattr(dashboard, "_progress_line", lambda doing, started: interrupt() if shown.bundles
                        else f"Progress: {doing} ... 0 s")
    dashboard.show(tmp_path)
    assert shown.final() == {"text/plain": "Progress stopped: you interrupted it; what was graded so far is kept."}


# --- the terminal's commands -----------------------------------------------------------------------------------

def slow_prepare(monkeypatch):
    prepared = []
    monkeypatch.setattr(compose, "prepare", lambda path: (time.sleep(0.3), prepared.append(path)))
    return prepared


def test_make_interview_counts_seconds_while_it_prepares(state, monkeypatch, fast_ticks):
    from autograder.learner import interview

    prepared = slow_prepare(monkeypatch)
    out, said = TTY(), []
    monkeypatch.setattr(sys, "stdout", out)
    path = interview.start(state / "work", "junior", 45, ["J01"], seed=4, count=1, log=said.append)
    assert prepared and path.exists()
    redraws = [r for r in out.getvalue().split("\r") if r.strip()]
    assert any(r.startswith("interview: running the reference solution once") and SECONDS.search(r.rstrip())
               for r in redraws), redraws
    assert said[0].startswith("interview: preparing the grader's expectations") and "composed in" in said[-1]
    assert out.getvalue().endswith("\r"), "the line is cleared before the last words"


def test_make_review_counts_seconds_while_it_prepares(state, monkeypatch, fast_ticks):
    from autograder.learner import review

    prepared = slow_prepare(monkeypatch)
    review.save({"junior/01_tensors_and_memory/ex1_bridge_predict_test": {"due": "2000-01-01", "ef": 2.5}})
    out = TTY()
    monkeypatch.setattr(sys, "stdout", out)
    path = review.start(state / "work")
    assert prepared and path.exists()
    shown = out.getvalue()
    redraws = [r for r in shown.split("\r") if r.strip()]
    assert any(r.startswith("review: running the reference solution once") and SECONDS.search(r.rstrip())
               for r in redraws), redraws
    assert f"review: {path} (1 exercise(s) due: junior/01_tensors_and_memory/ex1_bridge_predict_test)\n" in shown


def test_make_progress_counts_seconds_but_its_json_stays_alone_on_stdout(tmp_path, monkeypatch, fast_ticks, capsys):
    from autograder.learner import progress_views

    def slow_collect(work, log=None):
        log(f"progress: checking {work}/junior/01_tiny.ipynb ...")
        time.sleep(0.3)
        return [], [], 1

    monkeypatch.setattr(progress_views, "collect", slow_collect)
    monkeypatch.setattr(progress_views, "study_plan", lambda work, topics, entries: {
        "interviews": [], "review": {"weakest": [], "start_here": ""}})
    assert progress_views.main_text(tmp_path, True, None) == 0
    got = capsys.readouterr()
    assert json.loads(got.out)["total"] == {"score": 0, "max_score": 0}, "--json: the JSON alone on stdout"
    assert got.err == f"progress: checking {tmp_path}/junior/01_tiny.ipynb ...\n"

    out = TTY()
    monkeypatch.setattr(sys, "stdout", out)
    assert progress_views.main_text(tmp_path, False, None) == 0
    redraws = [r for r in out.getvalue().split("\r") if r.strip()]
    assert any(r.startswith("progress: checking") and SECONDS.search(r.rstrip()) for r in redraws), redraws
    assert "total 0/0 (autograded cells)" in out.getvalue()


def test_make_check_in_a_terminal_names_the_running_cell_and_counts_seconds(fast_ticks):
    """check_client.terminal_line: what `python -m autograder check NB` (make check) shows while it grades."""
    from autograder.learner import check_client

    out = TTY()
    with check_client.terminal_line("work/junior/01_tiny.ipynb", out) as progress:
        progress({"cell": "ex1_double", "index": 0, "of": 3, "limit": 30})
        time.sleep(0.2)
    redraws = [r.rstrip() for r in out.getvalue().split("\r") if r.strip()]
    assert any(r.startswith("Checking 01_tiny.ipynb: running ex1_double (cell 1 of 3)") and SECONDS.search(r)
               for r in redraws), redraws
    assert out.getvalue().endswith("\r"), "the line is cleared before the table"


def test_make_release_counts_seconds_while_nbgrader_regenerates(monkeypatch, fast_ticks):
    """`make lab` runs `make release` every time (about 15 s on 2 cores): it must not be a silence."""
    import argparse

    from autograder import cli
    from autograder.authoring import release

    monkeypatch.setattr(release, "generate", lambda: time.sleep(0.3))
    out = TTY()
    monkeypatch.setattr(sys, "stdout", out)
    assert cli.cmd_release(argparse.Namespace(check=False)) == 0
    redraws = [r for r in out.getvalue().split("\r") if r.strip()]
    assert any(r.startswith("release: regenerating") and SECONDS.search(r.rstrip()) for r in redraws), (
        f"make release should show a line counting seconds while it regenerates: {redraws}")
    assert out.getvalue().rstrip().endswith("release: regenerated release/")
