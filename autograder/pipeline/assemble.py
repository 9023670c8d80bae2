"""Build the notebook that gets graded: the learner's answers inside the source's tests.

nbgrader's OverwriteCells does this from its database; we do it from the source notebook, which also
brings back test cells a learner deleted, drops duplicates and ignores edited metadata, so what runs is
always the full suite, visible and hidden (the known nbgrader gaps: #1682, #1083, #1941).
"""

from __future__ import annotations

import copy

from nbformat import NotebookNode

from autograder.pipeline.cells import grade_id, kind

STUB_CODE = "# YOUR CODE HERE\nraise NotImplementedError()"
STUB_TEXT = "YOUR ANSWER HERE"


def without_hidden(cell: NotebookNode) -> str:
    """The test cell's source as the release shows it: nbgrader's own ClearHiddenTests, as in the release."""
    from nbgrader.preprocessors import ClearHiddenTests

    c = copy.deepcopy(cell)
    ClearHiddenTests().preprocess_cell(c, {}, 0)
    return c.source


def _stub(cell: NotebookNode) -> NotebookNode:
    c = copy.deepcopy(cell)
    c.source = STUB_CODE if c.cell_type == "code" else STUB_TEXT
    return c


def _clean(cell: NotebookNode) -> NotebookNode:
    c = copy.deepcopy(cell)
    if c.cell_type == "code":
        c.outputs, c.execution_count = [], None
    return c


def assemble(submitted: NotebookNode, source: NotebookNode) -> tuple[NotebookNode, list[str]]:
    """Return (notebook to execute, notes about what had to be repaired)."""
    src_cells = {grade_id(c): c for c in source.cells if grade_id(c)}
    order = [grade_id(c) for c in source.cells if grade_id(c)]
    out: list[NotebookNode] = []
    seen: set[str] = set()
    notes: list[str] = []

    for cell in submitted.cells:
        gid = grade_id(cell)
        if gid is None or gid not in src_cells:
            plain = _clean(cell)
            plain.get("metadata", {}).pop("nbgrader", None)  # invented roles earn nothing
            out.append(plain)
            continue
        if gid in seen:
            notes.append(f"duplicate of cell '{gid}' ignored")
            continue
        seen.add(gid)
        ref = _clean(src_cells[gid])
        if kind(ref) in ("solution", "manual"):
            ref.source = cell.get("source", "")  # the learner's answer, under the source's metadata
        elif kind(ref) == "test" and cell.get("source", "") not in (ref.source, without_hidden(ref)):
            notes.append(f"test cell '{gid}' restored from the source")
        out.append(ref)

    for i, gid in enumerate(order):
        if gid in seen:
            continue
        missing = src_cells[gid]
        notes.append(f"missing cell '{gid}' " + ("restored" if kind(missing) not in ("solution", "manual")
                                                 else "counted as unanswered"))
        restored = _clean(missing) if kind(missing) not in ("solution", "manual") else _stub(_clean(missing))
        prev = next((j for j in range(len(out) - 1, -1, -1)
                     if grade_id(out[j]) in order[:i]), -1)
        out.insert(prev + 1, restored)
        seen.add(gid)

    nb = copy.deepcopy(source)
    nb.cells = out
    return nb, notes
