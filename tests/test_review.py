"""The review queue (issue 23, item 4) and mastery that weighs how a pass came (item 5).

The schedule rules are the ones documented in autograder/learner/review.py and docs/studying.md."""

from __future__ import annotations

import datetime
import json
import subprocess
from pathlib import Path

import nbformat
import pytest

from autograder.learner import compose, leaks, mastery, review
from autograder.pipeline.cells import grade_id, kind

from tests.tiny_course import learner_cli
DAY = datetime.date(2026, 11, 24)
KEY = "junior/01_tensors_and_memory/ex1_bridge_predict_test"


def test_quality_from_attempts():
    assert [review.quality(n, True) for n in (1, 2, 3, 4, 5, 9)] == [5, 4, 3, 3, 2, 2]
    assert review.quality(1, False) == 1


def test_first_try_passes_push_the_review_out():
    s = None
    intervals = []
    for _ in range(4):
        s = review.step(s, 5, DAY)
        intervals.append(s["interval"])
    assert intervals == [1, 6, 16, 45]  # EF rises by 0.1 per q=5: 6 x 2.7, then 16 x 2.8
    assert s["ef"] == pytest.approx(2.9) and s["due"] == (DAY + datetime.timedelta(days=45)).isoformat()


def test_a_failure_or_a_pass_after_many_attempts_brings_it_back_tomorrow():
    s = review.step(review.step(review.step(None, 5, DAY), 5, DAY), 5, DAY)
    assert s["interval"] == 16
    failed = review.step(s, 1, DAY)
    assert (failed["reps"], failed["interval"], failed["due"]) == (0, 1, "2026-11-25")
    assert failed["ef"] == pytest.approx(s["ef"] - 0.54)
    slow = review.step(s, review.quality(6, True), DAY)
    assert slow["interval"] == 1 and slow["ef"] < s["ef"]
    # the easiness never drops below 1.3, however often it fails
    for _ in range(10):
        failed = review.step(failed, 1, DAY)
    assert failed["ef"] == 1.3


def test_a_pass_after_three_attempts_grows_slower_than_a_first_try():
    easy = review.step(review.step(None, 5, DAY), 5, DAY)
    hard = review.step(review.step(None, 3, DAY), 3, DAY)
    assert review.step(hard, 3, DAY)["interval"] < review.step(easy, 5, DAY)["interval"]


def test_due_lists_the_most_overdue_first(state):
    review.save({"a": {"due": "2026-11-20", "ef": 2.5}, "b": {"due": "2026-11-10", "ef": 2.5},
                 "c": {"due": "2026-12-01", "ef": 2.5}})
    now = datetime.datetime(2026, 11, 24, 12).timestamp()
    assert review.due(now) == ["b", "a"]


def test_the_dashboard_shows_the_schedule_as_make_review_would_draw_it(state):
    """Issue 36, item 6: due today (and which of it `make review` draws) and each of the next 7 days."""
    from autograder.learner.dashboard import schedule_html
    from autograder.learner.progress_views import schedule_lines

    now = datetime.datetime(2026, 11, 24, 12).timestamp()
    builds_on = "junior/02_autograd_basics/ex7_evaluate_test"  # needs ex5's answer: redone in its notebook
    review.save({KEY: {"due": "2026-11-23", "ef": 2.5}, builds_on: {"due": "2026-11-24", "ef": 2.5},
                 "junior/01_tensors_and_memory/ex2_to_numpy_test": {"due": "2026-11-25", "ef": 2.5},
                 "junior/01_tensors_and_memory/ex9_strides_predict_test": {"due": "2026-12-01", "ef": 2.5},
                 "junior/01_tensors_and_memory/ex10_flatten_batch_test": {"due": "2026-12-02", "ef": 2.5}})
    view = review.outlook(now)
    assert view["due_today"] == 2 and view["drawn"] == [KEY] and view["elsewhere"] == [builds_on], view
    counts = [len(d["keys"]) for d in view["next_days"]]
    assert [d["date"] for d in view["next_days"]][0] == "2026-11-25" and len(counts) == 7
    assert counts == [1, 0, 0, 0, 0, 0, 1], "Nov 25 and Dec 1 are within 7 days; Dec 2 is not"
    html, text = schedule_html(view), "\n".join(schedule_lines(view))
    assert "due today: 2" in html and "writes 1 of them" in html and builds_on in html, html
    assert "Wed 25" in html and "next 7 days" in html and "Wed 25 1" in text, text
    path = review.start(state / "work", now=now, warm=False, log=lambda msg: None)
    meta = compose.load_meta(nbformat.read(str(path), 4).metadata["ptlab"]["composed"])
    assert meta["keys"] == view["drawn"], "the dashboard names what `make review` draws"


def test_study_checks_enter_the_schedule_by_attempts(state):
    a, b = KEY, "junior/01_tensors_and_memory/ex2_to_numpy_test"
    mastery.append([mastery.event(a, "study", False, True, "x1"), mastery.event(a, "study", False, True, "x1"),
                    mastery.event(a, "study", True, True, "x2"), mastery.event(b, "study", True, True, "y")])
    review.on_study_check(mastery.by_key(), [a, b])
    sched = review.load()
    assert sched[a]["last_q"] == 4, "two distinct answers: the same answer checked twice counts once"
    assert sched[b]["last_q"] == 5


def test_mastery_weighs_first_try_and_interview_passes_above_many_attempts(state):
    entries = [{"tier": "junior", "notebook": "01_tensors_and_memory", "status": "ok", "cells": [
        {"grade_id": "ex1_bridge_predict_test", "points": 2, "max_points": 2, "passed": True, "topics": ["J01"]},
        {"grade_id": "ex2_to_numpy_test", "points": 2, "max_points": 2, "passed": True, "topics": ["J01"]},
        {"grade_id": "ex9_strides_predict_test", "points": 2, "max_points": 2, "passed": True, "topics": ["J04"]},
        {"grade_id": "ex10_flatten_batch_test", "points": 0, "max_points": 2, "passed": False, "topics": ["J04"]}]}]
    base = "junior/01_tensors_and_memory/"
    evs = [mastery.event(base + "ex1_bridge_predict_test", "study", True, True, "a")]
    evs += [mastery.event(base + "ex2_to_numpy_test", "study", i == 4, True, str(i)) for i in range(5)]
    evs += [mastery.event(base + "ex9_strides_predict_test", "study", i == 5, True, str(i)) for i in range(6)]
    evs += [mastery.event(base + "ex9_strides_predict_test", "interview", True, True, "z")]
    got = mastery.topic_mastery(entries, evs)
    assert got["J01"]["weighted"] == pytest.approx((2 * 1.0 + 2 * 0.5) / 4)
    assert got["J04"]["weighted"] == pytest.approx(2 * 1.0 / 4), "an interview pass counts in full"
    view = mastery.readable(entries, evs)
    assert [r["id"] for r in view["topics"]] == ["J04", "J01"], "in progress first, then done"
    assert view["topics"][0]["status"] == "1 cell to go" and view["topics"][1]["status"] == "done"
    assert view["topics"][0]["title"] and view["topics"][0]["mastery"] == pytest.approx(0.5)
    assert view["untouched"] > 80 and "weighted by how the pass came" in view["how"]
    # an interview pass of a cell whose notebook is not started counts in full and shows its topic
    idle = {"tier": "junior", "notebook": "02_autograd_basics", "status": "not started", "cells": [
        {"grade_id": "ex1_graph_predict_test", "points": 0, "max_points": 2, "passed": False, "topics": ["J05"]},
        {"grade_id": "ex2_manual_grads_test", "points": 0, "max_points": 2, "passed": False, "topics": ["J05"]}]}
    evs.append(mastery.event("junior/02_autograd_basics/ex1_graph_predict_test", "interview", True, True, "q"))
    j05 = {r["id"]: r for r in mastery.readable(entries + [idle], evs)["topics"]}["J05"]
    assert j05["mastery"] == pytest.approx(0.5) and j05["status"] == "1 cell to go", j05


def _cli(tmp: Path, *args: str) -> subprocess.CompletedProcess:
    return learner_cli(*args, PTLAB_CACHE_DIR=str(tmp / "cache"))


def test_review_writes_due_exercises_with_hints_and_its_check_moves_the_schedule(tmp_path):
    cache = tmp_path / "cache" / "learner"
    cache.mkdir(parents=True)
    yesterday = (datetime.date.today() - datetime.timedelta(days=1)).isoformat()
    later = (datetime.date.today() + datetime.timedelta(days=9)).isoformat()
    (cache / "schedule.json").write_text(json.dumps({
        KEY: {"ef": 2.5, "reps": 2, "interval": 6, "due": yesterday},
        "junior/01_tensors_and_memory/ex2_to_numpy_test": {"ef": 2.5, "reps": 1, "interval": 1, "due": later}}))
    done = _cli(tmp_path, "review", "--dir", str(tmp_path / "work"), "--no-warm")
    assert done.returncode == 0, done.stderr
    (path,) = (tmp_path / "work" / "review").glob("*.ipynb")
    nb = nbformat.read(str(path), 4)
    text = "\n".join(c.source for c in nb.cells)
    assert "<summary>Hint 1</summary>" in text, "a review keeps the hints"
    assert "ex2_to_numpy" not in text, "only what is due"
    assert leaks.leaks(nb, allow_hints=True) == []
    ident = nb.metadata["ptlab"]["composed"]
    source = nbformat.read(str(tmp_path / "cache" / "composed" / f"{ident}.ipynb"), 4)
    answers = {grade_id(c): c.source for c in source.cells if kind(c) == "solution"}
    for c in nb.cells:
        if grade_id(c) in answers:
            c.source = answers[grade_id(c)]
    nbformat.write(nb, str(path))
    checked = _cli(tmp_path, "check", str(path), "--json")
    report = json.loads(checked.stdout.strip().splitlines()[-1])
    assert report["score"] == report["max_score"] > 0
    state = json.loads((cache / "schedule.json").read_text())[KEY]
    assert (state["reps"], state["interval"], state["last_q"]) == (3, 15, 5), "6 days x EF 2.5, first try"
    assert state["due"] == (datetime.date.today() + datetime.timedelta(days=15)).isoformat()
    again = _cli(tmp_path, "check", str(path), "--json")
    assert json.loads((cache / "schedule.json").read_text())[KEY] == state, "once per session"
    assert again.returncode == 0


def test_progress_and_the_dashboard_show_due_today_and_past_interviews(tmp_path):
    from autograder.learner.dashboard import interviews_html, plan_html

    cache = tmp_path / "cache" / "learner"
    cache.mkdir(parents=True)
    (cache / "schedule.json").write_text(json.dumps({KEY: {"ef": 2.5, "reps": 1, "interval": 1, "due": "2020-01-01"}}))
    work = tmp_path / "work"
    (work / "interviews").mkdir(parents=True)
    card = {"interview": "interview-x", "level": "mid", "minutes": 45, "started": 1.7e9, "score": 5, "max_score": 7,
            "fraction": 0.714, "verdict": "pass", "topics_to_review": ["M31"]}
    (work / "interviews" / "interview-x.scorecard.json").write_text(json.dumps(card))
    done = _cli(tmp_path, "progress", str(work), "--json", "--png", str(work / "progress.png"))
    result = json.loads(done.stdout)
    assert result["review"]["due_today"] == 1
    assert [r["verdict"] for r in result["interviews"]] == ["pass"]
    assert (work / "interviews.png").read_bytes()[:4] == b"\x89PNG", "the trend figure"
    assert "due today: 1" in plan_html(result) and "M31" in interviews_html(result["interviews"])
    assert "due today: 1" in _cli(tmp_path, "progress", str(work)).stdout


def test_the_weakest_topics_point_at_an_exercise_not_passed_yet(state):
    topics = [{"id": "J04", "mastery": 0.7, "to_go": 1}, {"id": "J01", "mastery": 0.5, "to_go": 1},
              {"id": "J02", "mastery": 0.8, "to_go": 0}]
    mastery.append([mastery.event(KEY, "study", True, True, "a")])
    got = review.weakest(topics)
    assert [t for t, _, _ in got] == ["J01", "J04"], "weakest first; a topic with nothing to go is not weak"
    assert got[0][2] == "junior/01_tensors_and_memory/ex2_to_numpy_test", "ex1 is passed: ex2 is next"


def test_an_interview_left_past_its_deadline_gets_its_scorecard(state):
    from autograder.learner import session

    notebook = state / "work" / "interviews" / "interview-20260101-000000-abcdef.ipynb"
    notebook.parent.mkdir(parents=True)
    notebook.write_text(json.dumps({"cells": [], "metadata": {}}))
    ex = {"key": KEY, "title": "t", "test": "j01_ex1_bridge_predict_test", "answers": [], "points": 2,
          "topics": ["J01"], "follow_up": "", "follow_up_id": None, "model_answer": ""}
    meta = {"id": "interview-20260101-000000-abcdef", "mode": "interview", "level": "junior", "minutes": 10,
            "seed": 1, "started": 1000.0, "deadline": 1600.0, "exercises": [ex], "notebook": str(notebook),
            "checks": [{"at": 1300.0, "elapsed": 300.0, "tests": {ex["test"]: True}, "points": {ex["test"]: 2},
                        "answered": {ex["test"]: True}, "answers": {ex["test"]: "h"}}]}
    compose.save_meta(meta["id"], meta)
    assert session.close_expired(now=1500.0) == [], "before the deadline: still running"
    (card_path,) = session.close_expired(now=2000.0)
    card = json.loads(card_path.read_text())
    assert card["verdict"] == "strong" and card["exercises"][0]["seconds_to_first_pass"] == 300.0
    assert review.load()[KEY]["last_q"] == 5
    assert session.close_expired(now=3000.0) == [], "once"
