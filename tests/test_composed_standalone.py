"""Issue 36, item 3: a composed interview or review exercise carries every cell its statement refers to.

junior/03's bug hunt ("This MLP runs ... but it is broken:") was composed without the broken MLP; the lint
(interview.reference_problems, part of `autograder lint`) composes every drawable exercise alone and checks
that the names its statement quotes and its visible tests read are defined there."""

from __future__ import annotations

import copy

from autograder.learner import compose, interview
from autograder.learner.exercises import by_key
from autograder.learner.leaks import leaks
from autograder.pipeline.cells import grade_id, kind

BUG_HUNT = "junior/03_modules/ex3_mlp_test"


def _interview(ex):
    source = compose.compose([ex], "# test", "interview", hints=False, finish=True)
    return source, compose.student_version(source, "interview-00000000-000000-000000", "interview")


def test_the_bug_hunt_shows_the_broken_mlp_right_after_the_statement_and_gives_no_answer_away():
    (ex,) = by_key([BUG_HUNT])
    _, learner = _interview(ex)
    at = next(i for i, c in enumerate(learner.cells) if "but it is broken:" in c.source)
    shown = learner.cells[at + 1]
    assert shown.cell_type == "code" and "class MLPBroken" in shown.source, \
        f"the statement ends with 'it is broken:', so the broken MLP should follow it; got {shown.source[:80]!r}"
    assert kind(shown) == "readonly", "the broken MLP is locked, as in the course notebook"
    assert leaks(learner) == [], "the composed interview should give no answer away"
    answer = next(c for c in learner.cells if kind(c) == "solution")
    assert "ModuleList" not in answer.source, "the answer cell is blank in the learner's notebook"


def test_every_drawable_exercise_composed_alone_defines_what_it_refers_to():
    problems = interview.reference_problems()
    assert problems == [], "composed exercises refer to code they do not carry:\n" + "\n".join(problems)


def test_the_lint_reports_a_statement_whose_code_was_dropped_and_a_test_that_reads_an_unknown_name():
    (ex,) = by_key([BUG_HUNT])
    broken = copy.deepcopy(ex)
    broken.layout = list(broken.statement)  # composition as before issue 36: the shown code left out
    test = next(c for c in broken.body if kind(c) == "test")
    test.source = "assert helper_from_elsewhere(3) == 3\n" + test.source
    found = interview.reference_problems([broken])
    assert any("ends in ':' and no code follows" in p for p in found), found
    assert any(f"{grade_id(test)}" in p and "`helper_from_elsewhere`" in p for p in found), found
