"""nbgrader's `autograded/<student>/<assignment>/<notebook>.ipynb`: the rebuilt notebook as it ran, which
formgrader shows to the grader beside the gradebook's scores. After each written answer comes a note for the
grader alone: the source's model answer and rubric. `nbgrader generate_feedback` (and formgrader's "Generate
Feedback" button, the same converter) renders these files for learners: LearnerFeedback, listed in
nbgrader_config.py, drops the notes and the test cells' tracebacks first; our own feedback never reads them."""

from __future__ import annotations

import copy
import re
from pathlib import Path

import nbformat
from nbformat import NotebookNode
from nbformat.v4 import new_markdown_cell
from nbgrader import utils
from nbgrader.preprocessors import ClearHiddenTests
from nbgrader.preprocessors.base import NbGraderPreprocessor

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


_FRAME = re.compile(r"Cell In\[(\d+)\], line (\d+)")
_ANSI = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")
HIDDEN_FAILED = "a hidden test failed"


class LearnerFeedback(NbGraderPreprocessor):
    """For `nbgrader generate_feedback` and formgrader's button, before ClearHiddenTests: the grader's notes go,
    and every test cell's error becomes one line, the exception's type and the first line of its message, or
    only "a hidden test failed" when the error may come from a hidden test (raised on a hidden line, from a
    line that cannot be told, or with a message the hidden tests hold). IPython's traceback quotes the lines
    around the failing one, hidden or not, so no traceback stays. A cell with hidden tests keeps no other
    output either: what hidden tests print or report (`_observe`) is theirs. (NbGraderPreprocessor: enabled,
    where a plain nbconvert Preprocessor listed in the config would be skipped.)"""

    def preprocess(self, nb, resources):
        nb.cells = without_notes(nb.cells)
        return super().preprocess(nb, resources)

    def _hidden_lines(self, source: str) -> tuple[set[int], str]:
        """1-based numbers of the hidden region's lines (delimiters included), and their text."""
        delims = ClearHiddenTests(parent=self)  # the course's delimiters, as generate_assignment used them
        numbers, inside = set(), False
        for n, line in enumerate(source.split("\n"), 1):
            if delims.begin_test_delimeter in line:
                inside = True
            if inside:
                numbers.add(n)
            if delims.end_test_delimeter in line:
                inside = False
        return numbers, "\n".join(line for n, line in enumerate(source.split("\n"), 1) if n in numbers)

    def preprocess_cell(self, cell, resources, index):
        if cell.cell_type != "code" or not utils.is_grade(cell) or utils.is_solution(cell):
            return cell, resources
        hidden, hidden_text = self._hidden_lines(cell.source)
        outputs = []
        for out in cell.get("outputs", []):
            if out.get("output_type") == "error":
                outputs.append(self._one_line(out, cell.get("execution_count"), hidden, hidden_text))
            elif not hidden:
                outputs.append(out)
        cell.outputs = outputs
        return cell, resources

    @staticmethod
    def _one_line(out, count, hidden: set[int], hidden_text: str) -> NotebookNode:
        ename = str(out.get("ename") or "Error")
        message = (str(out.get("evalue") or "").strip().splitlines() or [""])[0][:300]
        frames = _FRAME.findall(_ANSI.sub("", "\n".join(map(str, out.get("traceback", [])))))
        lines = {int(line) for n, line in frames if count is not None and int(n) == count}
        if hidden and (not lines or lines & hidden or (message and message in hidden_text)):
            return NotebookNode(output_type="error", ename="HiddenTestFailed", evalue=HIDDEN_FAILED,
                                traceback=[HIDDEN_FAILED])
        text = f"{ename}: {message}" if message else ename
        return NotebookNode(output_type="error", ename=ename, evalue=message, traceback=[text])
