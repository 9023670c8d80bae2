"""Verdicts that do not rest on the learner's kernel alone.

nbgrader reads a test cell's verdict from its outputs: no error, full marks. Those outputs come from the
kernel that ran the learner's code, and that code can silence errors, swallow failing statements or forge
the kernel's replies. So every autograded test cell also reports answers through `_observe(label, value)`
(defined in each notebook's derived cell), computed on inputs whose right answers are never computed in
the kernel. The grader runs the reference solution in a kernel of its own (expected.py) and keeps its
reports outside the sandbox; a test cell earns its points only when nbgrader's rule passes *and* every
report matches the reference's. Forging a match means producing the right answers: solving the exercise.

Rules, so that neither guessing nor noise helps: each expected label must be reported exactly once by
its own test cell; values compare by type and shape, numbers with the reference's tolerances (a report
cannot loosen them); a cell whose reference reports nothing is left to nbgrader's rule (the linter
forbids such cells in the course).
"""

from __future__ import annotations

import json
import math

from nbformat import NotebookNode

MIME = "application/vnd.ptlab.observation+json"


def collect(cell: NotebookNode) -> list[dict]:
    """The reports a test cell's outputs carry, in order, malformed ones as they came."""
    found = []
    for out in cell.get("outputs", []):
        payload = out.get("data", {}).get(MIME) if out.get("output_type") in ("display_data", "execute_result") else None
        if payload is not None:
            payload = json.loads(json.dumps(payload))  # plain JSON, as the cached reference is
            found.append(payload if isinstance(payload, dict) else {"label": None, "value": payload})
    return found


def _number(x) -> bool:
    return isinstance(x, (int, float)) and not isinstance(x, bool)


def same(expected, got, rtol: float, atol: float) -> bool:
    if _number(expected) and _number(got):
        return math.isclose(float(got), float(expected), rel_tol=rtol, abs_tol=atol)
    if type(expected) is not type(got):
        return False
    if isinstance(expected, list):
        return len(expected) == len(got) and all(same(e, g, rtol, atol) for e, g in zip(expected, got, strict=True))
    if isinstance(expected, dict):
        return expected.keys() == got.keys() and all(same(expected[k], got[k], rtol, atol) for k in expected)
    return expected == got


def _tolerance(report: dict) -> tuple[float, float]:
    try:
        return max(0.0, float(report.get("rtol", 0.0))), max(0.0, float(report.get("atol", 0.0)))
    except (TypeError, ValueError):
        return 0.0, 0.0


def disagreement(expected: list[dict], got: list[dict]) -> str:
    """'' when every expected report is matched exactly once, else what a learner should hear."""
    for ref in expected:
        label = ref["label"]
        mine = [g for g in got if g.get("label") == label]
        if not mine:
            return (f"the hidden check '{label}' never reported an answer: the test cell did not run to its "
                    "end normally")
        if len(mine) > 1:
            return f"the hidden check '{label}' reported {len(mine)} answers where one was expected"
        rtol, atol = _tolerance(ref)
        if not same(ref.get("value"), mine[0].get("value"), rtol, atol):
            return (f"the hidden check '{label}' disagrees with the reference solution: the answer is right "
                    "for the visible cases but not in general")
    return ""
