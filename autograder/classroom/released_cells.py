"""nbgrader's OverwriteCells for plain `nbgrader autograde`, without its false alarm on hidden tests.

`nbgrader generate_assignment` saves each locked cell's checksum to the gradebook before it clears the hidden
tests, and writes the release's after (jupyter/nbgrader#1961). Autograde then compares every handed-in test
cell with the gradebook's, so each untouched cell that hides tests is reported as changed, and an instructor
cannot tell those warnings from real tampering. Here a cell handed in exactly as released (the gradebook's
source with its hidden tests cleared) gets its hidden tests back quietly; any other change to a locked cell is
reported and overwritten as nbgrader does. nbgrader_config.py puts it in autograde's sanitizing steps.
"""

from __future__ import annotations

import copy
import functools

from nbgrader import utils
from nbgrader.api import MissingEntry
from nbgrader.preprocessors import ClearHiddenTests, OverwriteCells


class OverwriteReleasedCells(OverwriteCells):
    @functools.cached_property
    def _hidden_tests(self) -> ClearHiddenTests:
        return ClearHiddenTests(parent=self)  # the course's delimiters, as generate_assignment used them

    def preprocess_cell(self, cell, resources, cell_index):
        grade_id = cell.metadata.get("nbgrader", {}).get("grade_id")
        if grade_id and utils.is_locked(cell):
            try:
                source = self.gradebook.find_source_cell(grade_id, self.notebook_id, self.assignment_id)
            except MissingEntry:
                source = None  # nbgrader's own step says so
            if source is not None and source.locked and source.cell_type == cell.cell_type:
                released = copy.deepcopy(cell)
                released.source = source.source
                try:
                    self._hidden_tests.preprocess_cell(released, resources, cell_index)
                except RuntimeError:  # a malformed hidden region: leave the verdict to nbgrader
                    released.source = None
                if released.source == cell.source:
                    cell.source = source.source
        return super().preprocess_cell(cell, resources, cell_index)
