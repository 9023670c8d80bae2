"""The real error first: when an answer cell raised, the tests that depend on it fail with a consequence (a
NameError for a function that was never defined, a wrong value from a half-run cell). A learner must read the
answer cell's own error, not the consequence, so a failing test names the cell that raised and its error first.

A test depends on the answer cells of its own exercise (those between the previous test cell and it), and on
any earlier answer cell that defines the name its NameError is about.
"""

from __future__ import annotations

import re

from nbformat import NotebookNode

from autograder.pipeline.cells import grade_id, kind

_ANSI = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")
# IPython compiles each cell under a temporary file name: "expected ':' (2739959830.py, line 1)".
_IPYTHON_FILE = re.compile(r"\s*\([^()]*\.py, line (\d+)\)$")
_MISSING_NAME = re.compile(r"^NameError: name '([A-Za-z_]\w*)' is not defined")
_STUB = "not answered yet"


def first_line(text: str) -> str:
    lines = [ln.strip() for ln in _ANSI.sub("", text).splitlines() if ln.strip()]
    return lines[0] if lines else ""


def _error(cell: NotebookNode) -> NotebookNode | None:
    return next((o for o in cell.get("outputs", []) if o.get("output_type") == "error"), None)


def raised(cell: NotebookNode) -> str:
    """What an answer cell's error says, in one line ('' when it ran cleanly)."""
    error = _error(cell)
    if error is None:
        return ""
    ename, evalue = error.get("ename", "Error"), first_line(error.get("evalue", ""))
    if ename in ("KeyboardInterrupt", "CellTimeoutError"):
        return "was stopped at the per-cell time limit (an endless loop?)"
    if ename == "NotImplementedError" and not evalue:
        return _STUB
    evalue = _IPYTHON_FILE.sub(lambda m: f" (line {m.group(1)})", evalue)
    return f"raised {ename}: {evalue}" if evalue else f"raised {ename}"


def _defines(source: str, name: str) -> bool:
    return re.search(rf"(^|[^\w.]){re.escape(name)}\b", source) is not None


def cause(nb: NotebookNode, test_index: int, message: str) -> tuple[str, str] | None:
    """(grade id, what it raised) of the answer cell a failing test at `test_index` is the consequence of."""
    answers = [(i, c) for i, c in enumerate(nb.cells[:test_index]) if kind(c) == "solution" and raised(c)]
    if not answers:
        return None
    previous_test = max((i for i, c in enumerate(nb.cells[:test_index]) if kind(c) == "test"), default=-1)
    own = [(i, c) for i, c in answers if i > previous_test]
    if own:
        return grade_id(own[0][1]), raised(own[0][1])
    missing = _MISSING_NAME.match(message)
    for _, c in reversed(answers):
        if missing and _defines(c.get("source", ""), missing.group(1)):
            return grade_id(c), raised(c)
    return None


def first(cell_id: str, what: str, consequence: str) -> str:
    """The failing test's message with the answer cell's error first."""
    if what == _STUB:
        return f"not answered yet (the answer cell {cell_id} still raises NotImplementedError)"
    return f"the answer cell {cell_id} {what}; fix that cell first (this test then failed with {consequence})"
