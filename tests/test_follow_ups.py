"""Every follow-up has a folded model answer (issue 34): an interview scorecard and a review show it, and a
learner who opens it learns what a senior interviewer would accept. A cell may ask more than one follow-up;
each needs its own answer."""

from __future__ import annotations

from pathlib import Path

import nbformat
import pytest

from autograder.learner.exercises import DETAILS, FOLLOW_UP

NOTEBOOKS = sorted(Path(__file__).resolve().parents[1].joinpath("notebooks").glob("*/*.ipynb"))


def unanswered(path: Path) -> list[str]:
    missing = []
    for i, cell in enumerate(nbformat.read(str(path), as_version=4).cells):
        asked = cell.source.count(FOLLOW_UP) if cell.cell_type == "markdown" else 0
        answers = [body for summary, body in DETAILS.findall(cell.source)
                   if "hint" not in summary.lower() and len(body.split()) >= 12]
        if asked > len(answers):
            missing.append(f"cell [{i}]: {asked} follow-up(s), {len(answers)} model answer(s) of a dozen words or more")
    return missing


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_every_follow_up_has_a_model_answer(path):
    missing = unanswered(path)
    assert not missing, (f"{path.parent.name}/{path.name}: add a folded answer "
                         "(<details><summary>Answer</summary>...</details>) after each **Follow-up.**: "
                         + "; ".join(missing))


def test_the_count_is_the_whole_course():
    assert len(NOTEBOOKS) >= 54
