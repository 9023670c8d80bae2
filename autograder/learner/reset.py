"""Start an exercise again: `python -m autograder reset NB [--exercise ID]` puts blank answer cells back (the
release's stub, outputs cleared) and keeps every other cell, notes and added cells included. The file as it
was is kept next to it as NB.bak (not a notebook name, so progress does not count it).

A notebook open in JupyterLab follows the reset (issue 36): the notebook's metadata names the cells reset and
when (ptlab.reset), and the Save and check extension loads the file again, keeping the learner's unsaved edits
to other cells, instead of asking Revert or Overwrite (whose default, Overwrite, undid the reset)."""

from __future__ import annotations

import copy
import os
import shutil
import time
from pathlib import Path

import nbformat

from autograder.learner.exercise_names import find
from autograder.pipeline import cells
from autograder.pipeline.assemble import STUB_CODE
from autograder.pipeline.sources import source_of


def blank_answers(source) -> dict[str, str]:
    """Answer cell id -> its blank text, made as the release makes it (nbgrader's ClearSolutions)."""
    from nbgrader.preprocessors import ClearSolutions

    blank = copy.deepcopy(source)
    ClearSolutions(code_stub={"python": STUB_CODE}).preprocess(blank, {})
    return {cells.grade_id(c): c.source for c in blank.cells if cells.kind(c) in ("solution", "manual")}


def reset(path: Path, exercise: str | None = None) -> list[str]:
    """Blank the answer cells of one exercise (or all of them); returns the ids of the cells reset.
    Raises GradingInputError for a file that is not one of the course's notebooks, ValueError for an
    unknown exercise."""
    path = Path(path)
    nb = cells.read(path)
    source = cells.read(source_of(path, nb))
    blanks = blank_answers(source)
    wanted = set(find(source, exercise).answers) if exercise else set(blanks)
    done = []
    for cell in nb.cells:
        gid = cells.grade_id(cell)
        if gid in wanted and gid in blanks and gid not in done:
            cell.source = blanks[gid]
            if cell.cell_type == "code":
                cell.outputs, cell.execution_count = [], None
            done.append(gid)
    if done:
        nb.metadata.setdefault("ptlab", {})["reset"] = {"at": time.time(), "cells": done}
        shutil.copy2(path, path.with_name(path.name + ".bak"))
        tmp = path.with_name(f".{path.name}.reset.tmp")
        nbformat.write(nb, str(tmp))
        os.replace(tmp, path)
    return done
