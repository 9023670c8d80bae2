"""What an interview's or a review's check cell shows (issue 36, item 9): the scorecard names topics, not codes,
and renders a follow-up's Markdown; a check after the deadline says its score is not the scorecard's; the
Save and check button's tooltip leaves the shortcut to JupyterLab, which adds it."""

import json

from autograder.learner import interview_cell, scorecard, selfcheck
from autograder.learner.labsettings import EXTENSION_BUILD

CARD = {"score": 0, "max_score": 3, "verdict": "not yet", "level": "junior", "minutes": 20,
        "topics_to_review": ["J01", "X99"], "topic_titles": {"J01": "Tensors and memory", "X99": "X99"},
        "exercises": [{"exercise": "junior/01:ex1", "title": "Strides", "passed": False, "points": 0, "max_points": 3,
                       "seconds_to_first_pass": None, "attempts": 0,
                       "follow_up": "**Follow-up.** Why is `x.T` not *contiguous*?", "your_answer": "",
                       "model_answer": "Its strides are **swapped**."}]}


def test_the_scorecard_names_topics_and_renders_the_follow_ups_markdown():
    page = interview_cell.card_html(CARD)
    assert "Topics to review: Tensors and memory (J01), X99" in page
    assert "<code>x.T</code>" in page and "<em>contiguous</em>" in page and "<strong>swapped</strong>" in page
    assert "**" not in page and "`" not in page, "raw Markdown reached the scorecard"
    assert "topics to review: Tensors and memory (J01), X99" in scorecard.render_text(CARD)
    older = {k: v for k, v in CARD.items() if k != "topic_titles"}
    assert "Topics to review: J01, X99" in interview_cell.card_html(older)


def test_topic_titles_come_from_the_syllabus():
    from autograder.course import syllabus

    some = next(iter(syllabus()))
    assert scorecard.topic_titles([some, "nope"]) == {some: syllabus()[some]["title"], "nope": "nope"}


def test_a_check_after_the_deadline_says_its_score_is_not_on_the_scorecard():
    assert interview_cell._counted("time left: 3 min 00 s (deadline 10:00)")
    assert not interview_cell._counted("over time by 1 min 00 s (deadline 10:00): this check does not count")
    assert not interview_cell._counted("finished at 10:00: this check does not count for the scorecard")
    report = {"tests": [], "score": 3, "max_score": 3}
    assert selfcheck.render_text(report, scored="(this check only)").endswith("score 3/3 (this check only)")


def test_the_buttons_tooltip_leaves_the_shortcut_to_jupyterlab():
    built = "".join(p.read_text() for p in (EXTENSION_BUILD / "static").glob("*.js"))
    assert "Save this notebook, then grade it" in built
    assert "grade it with the self-check (Ctrl+Shift+Enter)" not in built, \
        "JupyterLab adds the shortcut to a command's tooltip: naming it in the caption shows it twice"
    schema = json.loads((EXTENSION_BUILD / "schemas" / "@ptlab" / "selfcheck" / "plugin.json").read_text())
    assert [s["keys"] for s in schema["jupyter.lab.shortcuts"]] == [["Accel Shift Enter"]]


def test_save_and_check_knows_the_check_cell_of_every_notebook_a_learner_checks():
    """Study notebooks end with the self-check; interviews and reviews (both composed) with the session's check:
    the extension must name each, or its button and shortcut are missing there."""
    import re

    from autograder.authoring import template
    from autograder.learner import compose

    source = (EXTENSION_BUILD.parent / "lib" / "index.js").read_text()
    ids = dict(re.findall(r"const (SELFCHECK_ID|CHECK_ID|FINISH_ID) = '([^']+)'", source))
    assert ids == {"SELFCHECK_ID": template.SELFCHECK_ID, "CHECK_ID": compose.CHECK_ID, "FINISH_ID": compose.FINISH_ID}
