"""After full marks the check says what is next: the next notebook not yet done, the weakest topic so far,
where to review. Before full marks it says nothing of the kind. `make help` lists the copy command."""

import json
import subprocess

import nbformat

from autograder.learner import next_steps
from tests.tiny_course import ROOT, blank, cli, make_course


def test_full_marks_says_what_is_next_and_not_before(tmp_path):
    src = make_course(tmp_path)
    work = tmp_path / "work" / "junior"
    work.mkdir(parents=True)
    nbformat.write(nbformat.read(str(src), 4), str(work / "01_tiny.ipynb"))
    full = json.loads(cli(tmp_path, "check", str(work / "01_tiny.ipynb"), "--json", "--record").stdout)
    assert full["next"][0].startswith("Full marks. next notebook:")
    assert any("solution NB EXERCISE" in line for line in full["next"])
    assert any("`make review` writes the exercises due for review today" in line for line in full["next"]), (
        f"the review line should say what `make review` does: {full['next']}")
    table = cli(tmp_path, "check", str(work / "01_tiny.ipynb")).stdout
    assert "Full marks." in table
    nbformat.write(blank(nbformat.read(str(src), 4)), str(work / "blank.ipynb"))
    assert json.loads(cli(tmp_path, "check", str(work / "blank.ipynb"), "--json").stdout)["next"] == []


def entry(score, cells):
    return {"score": score, "max_score": 4, "cells": cells}


def test_the_next_notebook_skips_those_done_and_names_the_learners_copy(tmp_path, monkeypatch):
    order = [tmp_path / "src" / "junior" / f"0{i}_nb.ipynb" for i in (1, 2, 3)]
    monkeypatch.setattr(next_steps, "source_notebooks", lambda: order)
    (tmp_path / "junior").mkdir()
    (tmp_path / "junior" / "03_nb.ipynb").write_text("{}")
    done = {"junior/02_nb": entry(4, [])}
    line = next_steps._next_notebook(order[0], tmp_path, done)
    assert line == f"next notebook: junior/03_nb ({tmp_path / 'junior' / '03_nb.ipynb'})"


def test_the_weakest_topic_is_the_lowest_share_of_points_by_name():
    done = {"junior/01": entry(3, [{"passed": True, "points": 2, "max_points": 2, "topics": ["J01"]},
                                   {"passed": False, "points": 0, "max_points": 2, "topics": ["J02"]},
                                   {"passed": None, "points": None, "max_points": 2, "topics": ["J03"]}]),
            "junior/02": entry(1, [{"passed": True, "points": 1, "max_points": 1, "topics": ["J02"]}])}
    line = next_steps._weakest(done)
    assert line.startswith("weakest topic so far: ") and "(J02, 1/3 points" in line
    assert next_steps._weakest({"junior/01": entry(4, [])}) == ""


def test_the_self_check_table_shows_the_next_steps():
    from autograder.learner.selfcheck import render_html, render_text

    report = {"tests": [], "manual": [], "score": 2, "max_score": 2, "next": ["Full marks. next notebook: x <y>"]}
    assert render_text(report).endswith("Full marks. next notebook: x <y>")
    assert "<p>Full marks. next notebook: x &lt;y&gt;</p>" in render_html(report)


def test_make_help_lists_the_copy_command():
    done = subprocess.run(["make", "help"], cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert "make workdir" in done.stdout and "python -m autograder workdir work" in done.stdout


def test_advice_stays_in_the_learners_level_until_it_has_nothing_left(tmp_path, monkeypatch):
    order = [tmp_path / "src" / tier / f"0{i}_nb.ipynb" for tier in ("junior", "senior") for i in (1, 2)]
    monkeypatch.setattr(next_steps, "source_notebooks", lambda: order)
    assert next_steps.level_of(["senior", "junior", "mid"]) == "junior", "the lowest tier worked in"
    assert next_steps.level_of([]) is None
    # a junior learner who got full marks on a senior notebook is sent back to the junior one left
    line = next_steps._next_notebook(order[2], tmp_path, {"junior/01_nb": entry(4, [])}, "junior")
    assert line == "next notebook: junior/02_nb", line
    both = {"junior/01_nb": entry(4, []), "junior/02_nb": entry(4, [])}
    assert next_steps._next_notebook(order[0], tmp_path, both, "junior") == "next notebook: senior/01_nb", (
        "with every junior notebook at full marks the next one is in the next tier")


def test_the_weakest_topic_is_one_checked_and_of_the_learners_level():
    untouched = dict(entry(0, [{"passed": False, "points": 0, "max_points": 2, "topics": ["J01"]}]),
                     status="not started")
    checked = dict(entry(3, [{"passed": True, "points": 2, "max_points": 2, "topics": ["J02"]},
                             {"passed": False, "points": 1, "max_points": 2, "topics": ["J03"]},
                             {"passed": False, "points": 0, "max_points": 2, "topics": ["S01"]}]), status="ok")
    done = {"junior/01": untouched, "junior/02": checked}
    line = next_steps._weakest(done, "junior")
    assert "(J03, 1/2 points" in line, f"a never-checked topic (J01) or a senior one (S01) is not the weakest: {line}"
    assert "(S01, 0/2 points" in next_steps._weakest(done, "senior")
    assert "(S01, 0/2" in next_steps._weakest(done, "mid"), "a level with no weak topic falls back to the others"


def test_day_one_says_where_to_start_in_words(tmp_path):
    from autograder.learner.dashboard import plan_html
    from autograder.learner.progress_views import plan_text

    start = next_steps.start_here(tmp_path)
    assert start.startswith("Start here: junior/01_") and "`make lab`" in start
    assert str(tmp_path / "junior" / "01_") in start, "it names the learner's copy of the first notebook"
    result = {"review": {"due_today": 0, "weakest": [], "start_here": start}, "interviews": []}
    assert start in plan_text(result)
    assert "Start here: junior/01_" in plan_html(result)
    result["review"]["start_here"] = ""
    assert "Start here" not in plan_text(result) + plan_html(result)


def test_on_colab_full_marks_names_no_make_command(tmp_path, monkeypatch):
    # Colab has no Makefile and no work folder: `make review` or the solution command would send the learner nowhere.
    src = next(iter(next_steps.source_notebooks("junior")))
    monkeypatch.setitem(next_steps.sys.modules, "google.colab", object())
    lines = next_steps.after(tmp_path / "junior" / src.name, src, 3, 3)
    assert lines and lines[0].startswith("Full marks."), lines
    assert not any("make " in line or "python -m autograder" in line for line in lines), (
        f"on Colab the lines after full marks should name no make or grader command: {lines}")
