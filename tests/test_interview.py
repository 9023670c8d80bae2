"""Interview mode (issue 23): the draw, what a drawn notebook may hold, and grading it from its composed source.

The draws read the real course; the graded interviews take two short exercises of junior/01 (topics J01, J04),
so that each check runs a small notebook."""

from __future__ import annotations

import copy
import json
import re
import subprocess
import time
from pathlib import Path

import nbformat
import pytest

from autograder.learner import compose, interview, leaks, mastery
from autograder.learner.exercises import _read, catalogue
from autograder.pipeline.cells import grade_id, kind

from tests.tiny_course import ROOT, learner_cli


def keys(exercises):
    return [ex.key for ex in exercises]


def test_draws_are_reproducible_by_seed_and_respect_level(state):
    for level in ("junior", "mid", "senior"):
        first = interview.draw(level, 45, None, seed=11)
        assert keys(first) == keys(interview.draw(level, 45, None, seed=11))
        assert all(ex.tier == level and ex.standalone for ex in first)
        assert len(first) == 45 // interview.MINUTES_PER_EXERCISE[level]
        assert len({ex.notebook for ex in first}) == len(first), "one exercise per notebook while notebooks last"
    draws = {tuple(keys(interview.draw("mid", 45, None, seed=s))) for s in range(6)}
    assert len(draws) > 1, "the seed chooses"


def test_topics_and_tracks_are_respected(state):
    for ex in interview.draw("mid", 60, ["M31", "M32"], seed=3):
        assert {"M31", "M32"} & set(ex.topics)
    llm = set(interview.TRACKS["llm"])
    drawn = interview.draw("senior", 60, ["llm"], seed=5)
    assert drawn and all(f"{ex.tier}/{ex.notebook}" in llm for ex in drawn)
    with pytest.raises(Exception, match="neither a syllabus topic"):
        interview.draw("mid", 45, ["cooking"], seed=1)


def test_the_draw_prefers_what_is_not_mastered_and_not_recent(state):
    pool = interview.candidates("junior", ["J01", "J04"])
    assert len(pool) == 4
    mastery.append([mastery.event(ex.key, "study", True, True, "a") for ex in pool[:2]])
    assert set(keys(interview.draw("junior", 20, ["J01", "J04"], seed=1))) == set(keys(pool[2:]))
    compose.save_meta("interview-20260101-000000-aaaaaa", {"id": "x", "mode": "interview", "started": 1,
                                                           "keys": [pool[2].key]})
    assert keys(interview.draw("junior", 10, ["J01", "J04"], seed=1)) == [pool[3].key]


@pytest.mark.parametrize("level,seed", [("junior", 1), ("mid", 2), ("senior", 3), ("mid", 4)])
def test_a_drawn_notebook_holds_no_hint_and_no_reference_solution(state, level, seed):
    exercises = interview.draw(level, 60, None, seed)
    head = interview.header(level, 60, exercises, time.time(), seed)
    source = compose.compose(exercises, head, "interview", hints=False, finish=True)
    learner = compose.student_version(source, "interview-20260101-000000-abcdef", "interview")
    assert leaks.leaks(learner) == []
    # Independently of the lint: every answer region of each exercise's own source notebook is absent, so is
    # every hint and every folded answer, and each drawn exercise is in the notebook.
    text = "\n".join(c.source for c in learner.cells)
    squashed = "".join(text.split())
    for ex in exercises:
        assert f"{ex.prefix}_{ex.test_id}" in {grade_id(c) for c in learner.cells}
        src = _read(ROOT / "notebooks" / ex.tier / f"{ex.notebook}.ipynb")
        for cell in src.cells:
            if kind(cell) == "solution":
                for region in leaks._regions(cell.source):
                    assert region not in squashed, f"{ex.key}: {grade_id(cell)}'s reference is in the notebook"
        for hint in ex.hints:
            assert hint.source not in text
    assert "<summary>Hint" not in text and "<summary>Answer" not in text and "BEGIN HIDDEN" not in text
    assert not re.search(r"Hints? \d", text), "a test's message points at a hint the interview does not have"
    assert all(w in learner.cells[0].source for w in ("**Started**", "**Deadline**", "**Rules.**"))


def test_the_lint_catches_a_planted_solution_and_a_hint(state):
    exercises = interview.draw("junior", 20, ["J01", "J04"], seed=1)
    source = compose.compose(exercises, "# t", "interview", hints=False, finish=True)
    learner = compose.student_version(source, "interview-20260101-000000-abcdef", "interview")
    planted = copy.deepcopy(learner)
    answer = next(c for c in source.cells if kind(c) == "solution")
    planted.cells.insert(5, nbformat.v4.new_code_cell(answer.source))
    assert any("holds the reference solution" in p for p in leaks.leaks(planted))
    hinted = compose.compose(exercises, "# t", "review", hints=True, finish=False)
    assert any("holds a hint" in p for p in leaks.leaks(compose.student_version(hinted, "x", "review")))


def test_standalone_exercises_carry_the_context_they_need():
    by = {ex.key: ex for ex in catalogue("junior")}
    bce = by["junior/04_losses_and_optimizers/ex4_bce_with_logits_test"]
    assert bce.standalone and any("import torch.nn.functional as F" in c.source for c in bce.context)
    builds = [ex for ex in catalogue("junior") if not ex.standalone]
    assert builds and all(ex.builds_on for ex in builds)


def test_composing_says_how_long_it_took(tmp_path):
    # The target (under 5 s) is a bench figure (ci/bench_interview.py), not a verdict a busy machine can flip.
    done = _cli(tmp_path, "interview", "--level", "mid", "--minutes", "45", "--seed", "9", "--no-warm",
                "--dir", str(tmp_path / "work"))
    assert done.returncode == 0, done.stderr
    composed_in = float(done.stdout.split("composed in ")[1].split(" s")[0])
    assert composed_in > 0


# -- grading: a kernel per check ----------------------------------------------------------------------------

def _cli(tmp: Path, *args: str) -> subprocess.CompletedProcess:
    return learner_cli(*args, PTLAB_CACHE_DIR=str(tmp / "cache"))


def _check(tmp: Path, path: Path, *extra: str) -> tuple[dict, int]:
    done = _cli(tmp, "check", str(path), "--json", *extra)
    return json.loads(done.stdout.strip().splitlines()[-1]), done.returncode


@pytest.fixture(scope="module")
def session(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("interview")
    done = _cli(tmp, "interview", "--level", "junior", "--topics", "J01,J04", "--count", "2", "--seed", "4",
                "--minutes", "20", "--dir", str(tmp / "work"), "--no-warm")
    assert done.returncode == 0, done.stderr
    (path,) = (tmp / "work" / "interviews").glob("*.ipynb")
    ident = json.loads(path.read_text())["metadata"]["ptlab"]["composed"]
    return tmp, path, ident


def test_a_blank_interview_scores_0_and_tells_the_time_left(session):
    tmp, path, _ = session
    report, code = _check(tmp, path)
    assert report["score"] == 0 and report["max_score"] > 0 and code == 1
    assert report["session"]["time_line"].startswith("time left: 19 min")


def test_a_solved_interview_gets_full_marks_and_a_scorecard(session):
    tmp, path, ident = session
    source = nbformat.read(str(tmp / "cache" / "composed" / f"{ident}.ipynb"), 4)
    solved = path.with_name("solved.ipynb")
    mine = nbformat.read(str(path), 4)
    answers = {grade_id(c): c.source for c in source.cells if kind(c) in ("solution", "manual")}
    for c in mine.cells:
        if grade_id(c) in answers:
            c.source = answers[grade_id(c)] if kind(c) == "solution" else "A view needs contiguous memory."
    nbformat.write(mine, str(solved))
    report, code = _check(tmp, solved, "--finish")
    assert report["score"] == report["max_score"] > 0 and code == 0
    card = json.loads(path.with_name("solved.scorecard.json").read_text())
    assert card["verdict"] == "strong" and card["score"] == card["max_score"]
    assert all(r["passed"] and r["attempts"] == 1 and r["seconds_to_first_pass"] is not None
               for r in card["exercises"])
    assert any(r["model_answer"] for r in card["exercises"]), "the follow-ups' model answers are revealed"
    assert report["session"]["card"]["verdict"] == "strong"


def test_a_tampered_interview_is_graded_from_its_composed_source(session):
    tmp, path, ident = session
    nb = nbformat.read(str(path), 4)
    tests = [c for c in nb.cells if kind(c) == "test"]
    tests[0].source = "pass  # all good"
    nb.cells.remove(tests[1])
    for c in nb.cells:
        if c.get("metadata", {}).get("nbgrader"):
            c.metadata.nbgrader["points"] = 100
    tampered = path.with_name("tampered.ipynb")
    nbformat.write(nb, str(tampered))
    # and the deadline has passed: the check says so, and what it grades does not count
    meta_file = tmp / "cache" / "composed" / f"{ident}.json"
    meta = json.loads(meta_file.read_text())
    meta["deadline"] = time.time() - 125
    meta.pop("finished", None)  # as if the solved copy above had not ended it
    meta_file.write_text(json.dumps(meta))
    report, code = _check(tmp, tampered)
    assert report["score"] == 0 and report["max_score"] == sum(ex["points"] for ex in meta["exercises"])
    assert any("restored from the source" in n for n in report["notes"])
    assert any("restored" in n and "missing" in n for n in report["notes"])
    assert report["session"]["time_line"].startswith("over time by 2 min")
    card = report["session"]["card"]
    assert card["score"] == card["max_score"] and card["checks_over_time"] == 1, \
        "the scorecard counts the checks before the deadline (the solved copy's), not this late one"
    later, _ = _check(tmp, tampered)
    assert later["session"]["time_line"].startswith("finished at")


def test_the_course_lint_proves_no_interview_or_review_gives_anything_away():
    """`autograder lint` composes every drawable exercise as an interview and as a review and lints both."""
    assert interview.course_problems() == []
