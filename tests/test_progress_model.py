"""One model of progress behind the topic table, the picture and the advice: a topic asked only in an interview
counts as started, and its points agree with its mastery."""

import pytest

from autograder.learner import mastery


def idle_notebook():
    """junior/02 never opened: its cells fail as 'not answered yet'."""
    return {"tier": "junior", "notebook": "02_autograd_basics", "status": "not started", "score": 0,
            "max_score": 5, "checked_at": "", "cells": [
                {"grade_id": "ex1_graph_predict_test", "points": 0, "max_points": 3, "passed": False,
                 "topics": ["J05"]},
                {"grade_id": "ex2_manual_grads_test", "points": 0, "max_points": 2, "passed": False,
                 "topics": ["J05"]}]}


def interview_pass():
    return [mastery.event("junior/02_autograd_basics/ex1_graph_predict_test", "interview", True, True, "a")]


def test_a_topic_touched_only_in_an_interview_is_started_and_its_points_agree_with_its_mastery():
    view = mastery.readable([idle_notebook()], interview_pass())
    (j05,) = [r for r in view["topics"] if r["id"] == "J05"]
    assert j05["mastery"] == pytest.approx(0.6)
    assert j05["earned"] == pytest.approx(3) and j05["max"] == pytest.approx(5), (
        f"mastery 60% should come with 3/5 points, not {j05['earned']:g}/{j05['max']:g}")
    assert "J05" in mastery.started_topics([idle_notebook()], interview_pass())
    assert mastery.started_topics([idle_notebook()], []) == set(), "an untouched notebook starts no topic"


def test_the_picture_and_the_points_per_topic_count_the_interview_too(monkeypatch):
    from autograder.learner import progress, progress_views

    monkeypatch.setattr(mastery, "events", interview_pass)
    result = progress.summary([idle_notebook()])
    assert result["topics"]["J05"]["earned"] == pytest.approx(3), (
        "the picture colours a topic by these points: an interview pass has to count there as in the table")
    assert "J05" in progress_views.started_topics([idle_notebook()]), "the picture would grey J05 as not started"
