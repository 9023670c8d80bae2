"""One hand-in as the platforms see it: per graded cell a score and a learner-facing message, plus whatever
the learner must read about the whole notebook (it is missing, unreadable, from another tier, a run fault,
a flag for review). Every platform adapter (gradescope, github_classroom, prairielearn) writes its own format
from these, and all of them grade through `pipeline.check.grade_notebook`, the path `check` and `grade` take.

A message is the first line `score.failure_message` or the reference comparison gives, as `check` prints
it: never a hidden test's source or a traceback. A flagged notebook earns nothing until a person has
looked, as in grades.csv (jobs.row). A file's name in a message is the learner's: shown with its control
characters escaped (summary.printable), as a platform prints it to a log or a terminal.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from autograder.classroom.summary import printable
from autograder.course import SOURCE_DIR, GradingInputError, source_notebooks
from autograder.pipeline import cells
from autograder.pipeline.sources import source_of


@dataclass
class CellVerdict:
    notebook: str
    grade_id: str
    score: float
    max_score: float
    passed: bool
    message: str

    @property
    def name(self) -> str:
        return f"{self.notebook}: {self.grade_id}"


@dataclass
class Verdict:
    notebook: str  # the source notebook's stem, or the file's name when it is none of ours
    cells: list[CellVerdict] = field(default_factory=list)
    problem: str = ""  # why nothing was graded: the learner's first line
    faults: list[str] = field(default_factory=list)
    flags: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    @property
    def score(self) -> float:
        return sum(c.score for c in self.cells)

    @property
    def max_score(self) -> float:
        return sum(c.max_score for c in self.cells)

    def summary(self) -> list[str]:
        """What the learner reads about this notebook as a whole."""
        lines = [f"{self.notebook}: {self.score:g} / {self.max_score:g}"]
        if self.problem:
            lines.append(f"{self.notebook}: not graded: {self.problem}")
        lines += [f"{self.notebook}: fault: {f}" for f in self.faults]
        lines += [f"{self.notebook}: flagged for review (scores 0 until a person has looked): {f}"
                  for f in self.flags]
        lines += [f"{self.notebook}: note: {n}" for n in self.notes]
        return lines


def expected_sources(tier: str, notebooks: list[str] | None = None) -> list[Path]:
    """The assignment's source notebooks: a tier, or the ones of it named by stem or number prefix
    (`01` or `01_tensors_and_memory`)."""
    every = source_notebooks(tier)
    if not notebooks:
        return every
    chosen = [p for p in every if any(p.stem == n or p.stem.split("_")[0] == n for n in notebooks)]
    unknown = [n for n in notebooks if not any(p.stem == n or p.stem.split("_")[0] == n for p in every)]
    if unknown:
        raise GradingInputError(f"no {tier} notebook named {', '.join(unknown)} in {SOURCE_DIR / tier}")
    return chosen


def ungraded(source: Path, problem: str) -> Verdict:
    """Every graded cell of the source at 0, so that the total out of which a platform scores stays the
    assignment's whole, whatever was handed in."""
    nb = cells.read(source)
    return Verdict(source.stem, [CellVerdict(source.stem, cells.grade_id(c), 0.0, cells.points(c), False, problem)
                                 for c in nb.cells if cells.kind(c) == "test"], problem)


def grade_file(path: Path, source: Path, timeout: int | None = None) -> Verdict:
    """One notebook through the pipeline `check` and `grade` use. Never raises."""
    from autograder.pipeline.check import grade_notebook

    try:
        report = grade_notebook(path, timeout=timeout)
    except GradingInputError as e:
        return ungraded(source, printable(f"{path.name}: {str(e).split(': ', 1)[-1]}"))
    except Exception as e:  # a crashing kernel or a broken notebook must not crash the platform's job
        return ungraded(source, printable(f"{path.name}: grading error ({type(e).__name__})"))
    return from_report(report, source.stem)


def from_report(report, notebook: str) -> Verdict:
    """A graded pipeline.check.Report as a Verdict (what `check --format github-classroom` prints)."""
    flagged = bool(report.flags)
    return Verdict(notebook,
                   [CellVerdict(notebook, t.grade_id, 0.0 if flagged else t.points, t.max_points,
                                t.passed and not flagged, _message(t, flagged))
                    for t in report.tests],
                   faults=list(report.faults), flags=list(report.flags), notes=list(report.notes))


def _message(test, flagged: bool) -> str:
    if flagged:
        return "flagged for review: 0 until a person has looked" + (f" ({test.message})" if test.message else "")
    return test.message or ("" if test.passed else "failed")


def _source_of(path: Path, sources: list[Path]) -> tuple[Path | None, str]:
    """The assignment notebook a file is, or why it is none of them."""
    try:
        nb = cells.read(path)
    except GradingInputError:
        # A broken file under an assignment notebook's name is that notebook: grading it says what is wrong.
        hit = next((s for s in sources if s.name == path.name), None)
        return hit, "" if hit else "not a readable notebook"
    ident = cells.identity(nb)
    try:
        src = source_of(path, nb)
    except GradingInputError:
        src = None
    if src in sources:
        return src, ""
    if ident or src:
        tier, stem = ident or (src.parent.name, src.stem)
        return None, f"{stem} ({tier}) is not part of this assignment"
    return None, "not a notebook of this course"


def grade_folder(folder: Path, sources: list[Path], timeout: int | None = None) -> tuple[list[Verdict], list[str]]:
    """A platform's submission folder against an assignment: one Verdict per expected notebook (missing
    ones at 0), and a line for each file that is not part of the assignment."""
    found: dict[Path, Path] = {}
    strays = []
    files = sorted(p for p in Path(folder).rglob("*.ipynb") if ".ipynb_checkpoints" not in p.parts)
    for path in files:
        src, why = _source_of(path, sources)
        rel = path.relative_to(folder)
        if src is None:
            strays.append(printable(f"{rel}: {why}; ignored"))
        elif src in found:
            strays.append(printable(f"{rel}: a second copy of {src.stem}; graded {found[src].relative_to(folder)}"))
        else:
            found[src] = path
    verdicts = []
    for src in sources:
        if src in found:
            verdicts.append(grade_file(found[src], src, timeout))
        else:
            verdicts.append(ungraded(src, f"no {src.name} in the submission"))
    if not files:
        strays.append("the submission has no .ipynb file")
    return verdicts, strays


def unreadable(path: Path, problem: str) -> Verdict:
    """A hand-in that could not be graded at all, scored out of its source's points where the name says
    which notebook it was meant to be."""
    hits = [p for p in source_notebooks() if p.name == Path(path).name]
    problem = printable(problem)
    return ungraded(hits[0], problem) if hits else Verdict(printable(Path(path).stem), problem=problem)
