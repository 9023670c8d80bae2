"""Feedback HTML a learner may see: their answers, the visible tests, verdicts, every graded cell's points
(autograded and by hand) and the grader's comments; never the hidden tests or the reference solution. What
came out of the learner's kernel passes through isolation/sanitize.py first, and the page as rendered passes
through it again (`clean_page`): the renderer makes links of the Markdown of answers and names."""

from __future__ import annotations

import copy
import functools
import re

from nbformat import NotebookNode
from nbformat.v4 import new_markdown_cell

from autograder.classroom import scores
from autograder.classroom.autograded import without_notes
from autograder.isolation.sanitize import clean_notebook, clean_page, styles_of
from autograder.pipeline.assemble import without_hidden
from autograder.pipeline.cells import grade_id, kind, points
from autograder.pipeline.check import bounded_page
from autograder.pipeline.observe import MIME


def redact(executed: NotebookNode, summary: str) -> NotebookNode:
    nb = copy.deepcopy(executed)
    nb.cells = without_notes(nb.cells)  # the grader's, not the learner's
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


def _points_line(gid: str, got: float | None, top: float, comment: str) -> str:
    pts = "awaiting a grader" if got is None else f"{got:g} / {top:g}"
    text = f"**Points for `{gid}`: {pts}**"
    return text + (f"\n\n*Grader's comment:* {comment}" if comment else "")


def _literal(name) -> str:
    """A name as Markdown shows it letter for letter: every punctuation mark escaped, on one line."""
    return re.sub(r"([!-/:-@\[-`{-~])", r"\\\1", " ".join(str(name).split()))


def summary(row: dict, flags=()) -> str:
    pending = int(row.get("manual_pending") or 0)
    text = (f"**Feedback for {_literal(row['student'])}: {_literal(row['assignment'])}/{_literal(row['notebook'])}**, "
            f"score {row['score']} / {row['max_score']}")
    text += f" ({pending} written answer(s) awaiting a grader)." if pending else "."
    if float(row.get("seconds_late") or 0) > 0:  # whatever the penalty method, 'none' included
        off = float(row.get("late_penalty") or 0)
        text += (f"\n\n*Late:* submitted {row.get('submitted_at')}, {_late(row)} after the due date; "
                 + (f"{off:g} point(s) off for lateness." if off else "no points off for lateness."))
    return text + "".join(f"\n\n*Flagged for review:* {f}" for f in flags)


def _late(row: dict) -> str:
    secs = float(row.get("seconds_late") or 0)
    return f"{secs / 3600:.1f} h" if secs >= 3600 else f"{secs / 60:.0f} min"


def annotate(nb: NotebookNode, row: dict) -> NotebookNode:
    """A line after every graded cell: its points (a grader's override wins) and the grader's comment."""
    final, notes = scores.per_cell(row), scores.comments(row)
    out = []
    for cell in nb.cells:
        out.append(cell)
        gid = grade_id(cell)
        if kind(cell) in ("test", "manual") and gid:
            got, _ = final.get(gid, (None, 0.0))
            out.append(new_markdown_cell(_points_line(gid, got, points(cell), notes.get(gid, ""))))
        elif kind(cell) == "solution" and notes.get(gid):
            out.append(new_markdown_cell(f"*Grader's comment on `{gid}`:* {notes[gid]}"))
    nb.cells = out
    return nb


def page(executed: NotebookNode, row: dict, flags=()) -> str:
    """The learner's feedback page for one graded notebook and its CSV row, within the page's size and time caps
    (else a short page that says which cap it passed): every caller, a batch or a refresh, gets the caps."""
    return bounded_page(lambda: to_html(clean_notebook(annotate(redact(executed, summary(row, flags)), row))),
                        executed, row)


def to_html(nb: NotebookNode) -> str:
    """The page of a notebook, sanitised as rendered: of nbconvert's template only its own styles stay (its
    scripts go: a feedback page runs nothing)."""
    return clean_page(_render(nb), _template_styles())


def _render(nb: NotebookNode) -> str:
    from nbconvert import HTMLExporter

    body, _ = HTMLExporter().from_notebook_node(nb)
    return body


@functools.lru_cache(maxsize=1)
def _template_styles() -> tuple[str, ...]:
    """The <style> elements nbconvert's template writes, read from the page of an empty notebook."""
    from nbformat.v4 import new_notebook

    return tuple(styles_of(_render(new_notebook())))


