"""Self-check: grade one notebook against the full test suite of its source.

identify -> assemble -> expectations (the reference's reports) -> execute -> faults -> score -> report.
The same path grades a whole class (classroom/grade.py).
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from pathlib import Path

from nbformat import NotebookNode

from autograder.course import GRADING_ENV
from autograder.isolation import sandbox
from autograder.pipeline import cells, expected, faults, handin
from autograder.pipeline.assemble import assemble
from autograder.pipeline.execute import execute
from autograder.pipeline.score import ManualItem, TestResult, as_dicts, score
from autograder.pipeline.tamper import scan



@dataclass
class Report:
    notebook: str
    source: str
    tests: list[TestResult]
    manual: list[ManualItem]
    notes: list[str] = field(default_factory=list)
    executed: NotebookNode | None = None
    flags: list[str] = field(default_factory=list)
    faults: list[str] = field(default_factory=list)  # the run went wrong: timeouts, memory, a dead kernel

    @property
    def score(self) -> float:
        return sum(t.points for t in self.tests)

    @property
    def max_score(self) -> float:
        return sum(t.max_points for t in self.tests)

    def to_json(self) -> dict:
        return {"notebook": self.notebook, "source": self.source, "score": self.score,
                "max_score": self.max_score, "tests": [{k: v for k, v in t.items() if k != "topics"}
                                                       for t in as_dicts(self.tests)],
                "manual": as_dicts(self.manual), "notes": self.notes, "faults": self.faults, "flags": self.flags}


def grade_notebook(path: Path, timeout: int | None = None, references: dict | None = None,
                   kernels=None, progress=None, tier: str | None = None) -> Report:
    """Raises GradingInputError when the file cannot be graded at all. `tier`: the class folder's tier, which
    with the file's name says the source (pipeline.handin.source_of); never the hand-in's metadata alone."""
    submitted = handin.read(path)
    source = handin.source_of(path, submitted, tier)
    return grade_submission(submitted, source, str(path), timeout, references, kernels, progress,
                            is_source=_same_file(path, source))


def _same_file(path: Path, source: Path) -> bool:
    """Whether the file checked is the course's source notebook itself (`check notebooks/junior/01_x.ipynb`):
    only then may its run stand for the reference run and fill the reference cache."""
    try:
        return os.path.samefile(path, source) and not Path(path).is_symlink()
    except OSError:
        return False


def grade_submission(submitted: NotebookNode, source_path: Path, name: str, timeout: int | None = None,
                     references: dict | None = None, kernels=None, progress=None, is_source: bool = False) -> Report:
    """`references`: reference reports by cache key, computed elsewhere (a cluster's grading process ships
    them to its workers); a source not among them is looked up as usual. `kernels`: a source of started
    kernels for the submission's run (see execute.execute). `progress`: told of each phase and cell as it starts
    (see execute.execute). `is_source`: the submission is the source file itself (not a learner's copy of it),
    so its run is the reference run; a learner's file, even one identical to the source, never writes the
    reference cache: the reference then runs from the source."""
    # Kernels inherit this: a notebook's self-check cell (template.SELFCHECK) then does nothing while graded.
    os.environ[GRADING_ENV] = "1"
    source = cells.read(source_path)
    nb, notes = assemble(submitted, source)
    flags = scan(nb, source)
    ref = expected.Reference(source_path)
    reference = (references or {}).get(ref.file.stem)
    if reference is None:
        reference = ref.cached()
    if reference is None and not (is_source and expected.is_reference(nb, source)):
        if progress is not None:
            progress({"phase": "reference"})
        reference = ref.reports(source, timeout)
    executed, run_faults = execute(nb, timeout=timeout, kernels=kernels, progress=progress)
    run_faults += faults.in_cells(executed)
    if sandbox.enabled() and not sandbox.namespaces_work():
        notes.append(sandbox.status())
    if reference is None:  # this run is the reference run
        reference = ref.remember(executed)
    tests, manual = score(executed, reference)
    return Report(name, str(Path(source_path).relative_to(Path(source_path).parents[2])), tests, manual,
                  notes, executed, flags, run_faults)


def render_table(report: Report) -> str:
    rows = [f"{report.notebook}  (source: {report.source})", ""]
    width = max([len(t.grade_id) for t in report.tests + report.manual] + [10])
    for t in report.tests:
        mark = "PASS" if t.passed else "FAIL"
        line = f"  {mark}  {t.grade_id:<{width}}  {t.points:g}/{t.max_points:g}"
        rows.append(line + (f"  {t.message}" if t.message else ""))
    for m in report.manual:
        state = "answered, awaiting a grader" if m.answered else "not answered"
        rows.append(f"  TODO  {m.grade_id:<{width}}  -/{m.max_points:g}  written answer: {state}")
    for f in report.faults:
        rows.append(f"  fault: {f}")
    for n in report.notes:
        rows.append(f"  note: {n}")
    for f in report.flags:
        rows.append(f"  flagged for review: {f}")
    rows += ["", f"  score {report.score:g}/{report.max_score:g} (autograded cells)"]
    return "\n".join(rows)


def report_json(report: Report) -> str:
    return json.dumps(report.to_json())
