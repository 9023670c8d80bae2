"""Feedback HTML a learner may see: their answers, the visible tests, verdicts; never the hidden tests or
the reference solution."""

from __future__ import annotations

import copy
from pathlib import Path

from nbformat import NotebookNode
from nbformat.v4 import new_markdown_cell

from autograder.pipeline.assemble import without_hidden
from autograder.pipeline.cells import kind
from autograder.pipeline.observe import MIME


def redact(executed: NotebookNode, summary: str) -> NotebookNode:
    nb = copy.deepcopy(executed)
    for cell in nb.cells:
        if kind(cell) == "test":
            cell.source = without_hidden(cell)
            # Reports carry hidden checks' labels and serve the grader only.
            cell.outputs = [o for o in cell.get("outputs", []) if MIME not in o.get("data", {})]
            for out in cell.outputs:
                if out.get("output_type") == "error":
                    # Tracebacks quote the failing line, which may be a hidden test.
                    out["traceback"] = [f"{out.get('ename', 'Error')}: {out.get('evalue', '')}"]
    nb.cells.insert(0, new_markdown_cell(summary))
    return nb


def write_html(nb: NotebookNode, path: Path) -> None:
    from nbconvert import HTMLExporter

    from autograder.isolation.sanitize import clean_notebook

    # A copy: the caller's notebook keeps its outputs. What the submission displayed never runs in the page.
    body, _ = HTMLExporter().from_notebook_node(clean_notebook(copy.deepcopy(nb)))
    save_html(body, path)


def save_html(html: str, path: Path) -> None:
    """Whole or not at all: a reader (or a killed batch) never meets a half-written page."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".html.tmp")
    tmp.write_text(html, encoding="utf-8")
    tmp.replace(path)
