"""A submission that does not solve an exercise scores 0 on it, whatever its kernel does.

Each attack below is a blank notebook plus one cell of its own. Every one of them earns full marks under
nbgrader's rule alone (asserted, so each fixture is a real attack), and nothing under ours: the verdict
also needs the answers the hidden tests report to match the reference run's, which the kernel never sees.
The tamper scan is not involved here; it only flags for review.
"""

from __future__ import annotations

import textwrap

import nbformat
import pytest

from autograder.pipeline.check import grade_submission
from autograder.pipeline.score import score
from tests.tiny_course import blank, make_course, with_answer

SWALLOW = '''
import ast

class _Swallow(ast.NodeTransformer):
    """Run every top-level statement, and carry on whatever it raises."""
    def visit_Module(self, node):
        handler = ast.ExceptHandler(type=None, name=None, body=[ast.Pass()])
        node.body = [ast.Try(body=[s], handlers=[handler], orelse=[], finalbody=[]) for s in node.body]
        return ast.fix_missing_locations(node)

get_ipython().ast_transformers.append(_Swallow())
'''

FORGE = SWALLOW + '''
from IPython.display import display

class _Forge(ast.NodeTransformer):
    """Replace every report with guesses of the answer."""
    def visit_Call(self, node):
        if isinstance(node.func, ast.Name) and node.func.id == "_observe":
            return ast.Call(ast.Name("_guess", ast.Load()), [node.args[0]], [])
        return self.generic_visit(node)

def _guess(label):
    for guess in GUESSES:
        display({"text/plain": "", "application/vnd.ptlab.observation+json":
                 {"label": label, "value": guess, "rtol": 1e9, "atol": 1e9}}, raw=True)

get_ipython().ast_transformers.insert(0, _Forge())
'''

FORGED_REPLIES = '''
import asyncio, sys

_kernel = get_ipython().kernel
_run = _kernel.do_execute

async def _do_execute(code, silent, *args, **kwargs):
    """Run the cell with every error kept from the client, and always reply "ok"."""
    shell = get_ipython()
    shell._showtraceback = lambda *a, **k: None
    reply = _run(code, silent, *args, **kwargs)
    if asyncio.iscoroutine(reply):
        reply = await reply
    return {"status": "ok", "execution_count": shell.execution_count, "payload": [], "user_expressions": {}}

_kernel.do_execute = _do_execute
'''

ATTACKS = {
    "forged kernel replies": FORGED_REPLIES,
    "every failing statement swallowed": SWALLOW,
    "one forged report per check, tolerance widened": "GUESSES = [[0, 0, 0]]\n" + FORGE,
    "many forged reports per check": "GUESSES = [[0, 0, 0], [1, 1, 1], [-15.0, 0.5, 22]]\n" + FORGE,
}


@pytest.fixture(scope="module")
def course(tmp_path_factory):
    src = make_course(tmp_path_factory.mktemp("forgery"))
    return src, nbformat.read(str(src), 4)


def _attack(source, code):
    nb = blank(source)
    nb.cells.insert(5, nbformat.v4.new_code_cell(textwrap.dedent(code)))
    return nb


@pytest.mark.kernel
@pytest.mark.parametrize("attack", ATTACKS, ids=list(ATTACKS))
def test_an_attack_that_fools_nbgrader_earns_nothing(course, attack):
    src, source = course
    report = grade_submission(_attack(source, ATTACKS[attack]), src, attack)
    fooled, _ = score(report.executed)  # nbgrader's rule alone: no error output means full marks
    assert all(t.passed for t in fooled), f"not an attack: nbgrader already fails {attack}"
    assert report.score == 0, [(t.grade_id, t.points) for t in report.tests]
    assert all(t.message for t in report.tests)


@pytest.mark.kernel
def test_an_answer_right_only_on_the_visible_cases_fails_with_a_message(course):
    src, source = course
    nb = with_answer(source, "ex2_square", "def square(x):\n    return x * x if x > 0 else 0\n")
    verdict = {t.grade_id: t for t in grade_submission(nb, src, "half-right").tests}["ex2_square_test"]
    assert verdict.points == 0
    assert "'square of new inputs' disagrees with the reference" in verdict.message


@pytest.mark.kernel
def test_a_different_correct_answer_matches_the_reference(course):
    src, source = course
    nb = with_answer(source, "ex2_square", "def square(x):\n    return x ** 2\n")
    report = grade_submission(nb, src, "alternative")
    assert report.score == report.max_score, [(t.grade_id, t.message) for t in report.tests]
