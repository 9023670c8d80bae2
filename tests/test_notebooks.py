"""The grading contract, per source notebook: the reference earns full marks, the student release earns
nothing, every known-wrong answer fails its test with a message, every alternative correct answer passes.

The reference is executed once per suite, by the CI runner (papermill, with injected parameters): that run
proves the runner, earns full marks by nbgrader's rule, and its reports become the reference that the
blank, wrong and alternative runs of the same notebook are compared with (the root conftest keeps a
notebook's tests on one worker, reference first).
"""

from __future__ import annotations

import pytest
import torch

from autograder.authoring.lint import lint_notebook
from autograder.course import release_path, source_notebooks
from autograder.pipeline import cells, expected, faults
from autograder.pipeline.assemble import assemble
from autograder.pipeline.cells import grade_id, kind
from autograder.pipeline.check import grade_submission
from autograder.pipeline.score import score
from autograder.pipeline.tamper import scan
from ci.run_notebooks import run_one
from tests import answers

NOTEBOOKS = source_notebooks()
IDS = [f"{p.parent.name}/{p.stem}" for p in NOTEBOOKS]
pytestmark = pytest.mark.parametrize("source", NOTEBOOKS, ids=IDS)


def _failures(report) -> list[str]:
    return [f"{t.grade_id}: {t.message}" for t in report.tests if not t.passed]


def test_lint(source):
    assert lint_notebook(source) == []


@pytest.mark.kernel
def test_reference_runs_under_papermill_and_earns_full_marks(source, tmp_path):
    device = "cuda" if torch.cuda.is_available() else "cpu"
    result = run_one(source, device, tmp_path)
    assert result["status"] == "ok", f"{result['notebook']} failed at cell {result['cell']}: {result['error']}"
    executed = cells.read(tmp_path / result["notebook"])
    injected = [c for c in executed.cells if "injected-parameters" in c.metadata.get("tags", [])]
    assert injected and f'DEVICE = "{device}"' in injected[0].source, "papermill did not inject the parameters"
    tests, _ = score(executed)
    assert tests and all(t.passed for t in tests), [f"{t.grade_id}: {t.message}" for t in tests if not t.passed]
    assert faults.in_cells(executed) == [], "the reference's run went wrong"
    source_nb = cells.read(source)
    assert scan(assemble(source_nb, source_nb)[0], source_nb) == [], "the reference trips the tamper scan"
    expected.Reference(source).remember(executed)


@pytest.mark.kernel
def test_release_earns_nothing(source):
    release = release_path(source)
    report = grade_submission(cells.read(release), source, str(release))
    earned = [f"{t.grade_id} ({t.points:g})" for t in report.tests if t.points > 0]
    assert not earned, f"the blank release earns points on {earned}: a test cell passes without an answer"
    assert not any(m.answered for m in report.manual)


def test_every_solution_has_wrong_and_alternative_answers(source):
    wrong, alt = answers.load(source)
    solutions = [grade_id(c) for c in cells.read(source).cells if kind(c) == "solution"]
    assert sorted(s for s in solutions if not wrong.get(s)) == [], "solution cells without a known-wrong answer"
    assert sorted(s for s in solutions if s not in alt) == [], "solution cells without an alternative answer"
    assert set(wrong) | set(alt) <= set(solutions), "answers for cells the notebook does not have"


def _wrong_answers_fail(source, wrong: dict) -> None:
    for sid, why, verdict in answers.wrong_verdicts(source, wrong):
        assert not verdict.passed, f"{sid}: the known-wrong answer '{why}' passes {verdict.grade_id}"
        assert verdict.message and "without a message" not in verdict.message, \
            f"{verdict.grade_id} fails '{why}' without telling the learner why"


def _alternatives_pass(source, alt: dict, label: str) -> None:
    report = grade_submission(answers.substitute(cells.read(source), alt), source, f"{source.stem}+{label}")
    assert report.score == report.max_score, _failures(report)
    assert report.flags == [], f"a correct alternative trips the tamper scan: {report.flags}"


@pytest.mark.kernel
def test_known_wrong_answers_fail(source):
    _wrong_answers_fail(source, answers.load(source)[0])


@pytest.mark.kernel
def test_alternative_answers_pass(source):
    _alternatives_pass(source, answers.load(source)[1], "alt")


def test_every_exercise_has_a_blind_set(source):
    blind = answers.BLIND / source.parent.name / f"{source.stem}.py"
    assert blind.exists(), (f"{source.parent.name}/{source.stem} has no blind set: have someone who has not read "
                            f"its tests write {blind.relative_to(answers.BLIND.parents[2])} (docs/blind-sets.md)")
    wrong, alt = answers.load_blind(source)
    solutions = [grade_id(c) for c in cells.read(source).cells if kind(c) == "solution"]
    assert sorted(s for s in solutions if not wrong.get(s)) == [], "exercises without a blind wrong answer"
    assert sorted(s for s in solutions if s not in alt) == [], "exercises without a blind alternative"
    assert set(wrong) | set(alt) <= set(solutions), "blind answers for cells the notebook does not have"


# The blind sets (tests/answers/blind/) are held to the same contract as the answers written beside the tests.
@pytest.mark.kernel
def test_blind_shortcuts_and_wrong_answers_fail(source):
    _wrong_answers_fail(source, answers.load_blind(source)[0])


@pytest.mark.kernel
def test_blind_alternatives_pass(source):
    alt = answers.load_blind(source)[1]
    if not alt:
        pytest.skip("no blind set for this notebook yet")
    _alternatives_pass(source, alt, "blind-alt")
