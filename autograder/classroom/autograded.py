"""nbgrader's `autograded/<student>/<assignment>/<notebook>.ipynb`: the rebuilt notebook as it ran, which
formgrader shows to the grader beside the gradebook's scores. After each written answer comes a note for the
grader alone: the source's model answer and rubric. `nbgrader generate_feedback` drops those notes
(GraderNotes, listed in nbgrader_config.py); our own feedback never reads these files."""

from __future__ import annotations

import copy
import re
from pathlib import Path

import nbformat
from nbconvert.preprocessors import Preprocessor
from nbformat import NotebookNode
from nbformat.v4 import new_markdown_cell

from autograder.classroom.whole_file import write_whole
from autograder.isolation.sanitize import clean_notebook
from autograder.pipeline import cells

NOTE = "ptlab_grader_note"
_MARKERS = re.compile(r"^\s*#*\s*### (BEGIN|END) SOLUTION\s*$", re.M)


def model_answer(cell: NotebookNode) -> str:
    return _MARKERS.sub("", cell.get("source", "")).strip()


def without_notes(cells: list) -> list:
    """The cells without the grader's notes (with_grader_notes), which no learner sees."""
    return [c for c in cells if not c.get("metadata", {}).get(NOTE)]


def with_grader_notes(executed: NotebookNode, source: NotebookNode) -> NotebookNode:
    answers = {cells.grade_id(c): model_answer(c) for c in source.cells if cells.kind(c) == "manual"}
    nb = copy.deepcopy(executed)
    out = []
    for cell in nb.cells:
        out.append(cell)
        gid = cells.grade_id(cell)
        if cells.kind(cell) == "manual" and gid in answers:
            note = new_markdown_cell(f"**For the grader: model answer and rubric for `{gid}`** "
                                     f"({cells.points(cell):g} points)\n\n{answers[gid]}")
            note.metadata[NOTE] = True
            out.append(note)
    nb.cells = out
    return nb


def save(executed: NotebookNode, source_path: Path, target: Path) -> None:
    """Written whole or not at all, as formgrader may be reading it."""
    nb = clean_notebook(with_grader_notes(executed, cells.read(source_path)))
    write_whole(nbformat.writes(nb) + "\n", target)  # as nbformat.write ends a file


class GraderNotes(Preprocessor):
    """For `nbgrader generate_feedback`: the grader's notes never reach a learner."""

    def preprocess(self, nb, resources):
        nb.cells = without_notes(nb.cells)
        return nb, resources
