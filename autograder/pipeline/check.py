"""Self-check: grade one notebook against the full test suite of its source.

identify -> assemble -> expectations (the reference's reports) -> execute -> faults -> score -> report.
The same path grades a whole class (classroom/grade.py).

A hand-in never chooses its source: every path asks pipeline/sources.source_of, and only a check of the course
file itself fills the reference cache from its run.
"""

from __future__ import annotations

import contextlib
import json
import os
from dataclasses import dataclass, field
from pathlib import Path

from nbformat import NotebookNode

from autograder.isolation import sandbox
from autograder.pipeline import cells, expected, faults, handin
from autograder.pipeline.assemble import assemble
from autograder.pipeline.execute import execute
from autograder.pipeline.score import ManualItem, TestResult, as_dicts, score
from autograder.pipeline.sources import source_of
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
                   kernels=None, progress=None, tier: str | None = None, submitted=None) -> Report:
    """Raises GradingInputError when the file cannot be graded at all. `tier`: the class folder's tier, which
    with the file's name says the source (source_of); never the hand-in's metadata alone. `submitted`: the file
    as already read by handin.read (a caller that reports on what it read grades exactly that)."""
    if submitted is None:
        submitted = handin.read(path)
    source = source_of(path, submitted, tier)
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
    notes += handin.bound_outputs(executed)  # after scoring: what the page and the autograded copy keep
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


# The learner's feedback page (classroom/feedback.py renders it): bounded in size and in the time to render it.
# The hand-in's caps (pipeline/handin.py) already bound what goes in; these say so plainly where a page would
# still be too big, rather than writing tens of megabytes or holding a grading worker.
def max_page_bytes() -> int:
    return int(float(os.environ.get("PTLAB_MAX_PAGE_MB", "8")) * 2**20)


def max_render_seconds() -> float:
    return float(os.environ.get("PTLAB_MAX_RENDER_SECONDS", "60"))


class _TooSlow(Exception):
    pass


def page_problem(nb: NotebookNode) -> str | None:
    """Why a notebook's page would be too big, judged before rendering it (its cells' text and outputs)."""
    size = sum(handin._length(c.get("source")) + handin._size(c.get("outputs") or [])
               + handin._size(c.get("attachments") or {}) for c in nb.cells)
    if size > max_page_bytes():
        return (f"the feedback page would hold {size / 2**20:.1f} MB of cells and outputs, more than "
                f"{max_page_bytes() / 2**20:.1f} MB; it was not written")
    return None


def bounded_page(render, nb: NotebookNode, row: dict | None = None) -> str:
    """render() (the page's HTML) when the page stays within the size and time caps; else a short page that says
    which cap it passed (or that it could not be rendered) and the row's score. Checked before rendering
    (page_problem), stopped at the time cap while rendering (_deadline), and measured after."""
    why = page_problem(nb)
    if why is None:
        seconds = max_render_seconds()
        try:
            with _deadline(seconds):
                html = render()
        except _TooSlow:
            html, why = "", f"the feedback page took longer than {seconds:g} s to render; it was not written"
        except Exception as e:  # a markdown nesting the renderer cannot take: the row stands, the page says so
            html, why = "", f"the feedback page could not be rendered ({type(e).__name__}); it was not written"
        if why is None and len(html.encode("utf-8", "replace")) > max_page_bytes():
            why = (f"the feedback page came to more than {max_page_bytes() / 2**20:.1f} MB; it was not written")
        if why is None:
            return html
    return short_page(why, row)


@contextlib.contextmanager
def _deadline(seconds: float):
    """_TooSlow raised in this thread once `seconds` have passed: by a timer signal in a process's main thread
    (a grading pool's worker), else (a Dask worker's thread) by an exception set asynchronously on the thread,
    which the interpreter raises between bytecodes. Either way a pending one is withdrawn on the way out."""
    import ctypes
    import signal
    import threading

    if seconds <= 0:
        yield
        return
    if threading.current_thread() is threading.main_thread():
        def stop(signum, frame):
            raise _TooSlow()
        previous = signal.signal(signal.SIGALRM, stop)
        signal.setitimer(signal.ITIMER_REAL, seconds)
        try:
            yield
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, previous)
        return
    ident, lock, done = ctypes.c_ulong(threading.get_ident()), threading.Lock(), []

    def fire():
        with lock:
            if not done:
                ctypes.pythonapi.PyThreadState_SetAsyncExc(ident, ctypes.py_object(_TooSlow))
    timer = threading.Timer(seconds, fire)
    timer.daemon = True
    timer.start()
    try:
        yield
    finally:
        with lock:
            done.append(True)
            ctypes.pythonapi.PyThreadState_SetAsyncExc(ident, None)  # withdraw one set but not raised yet
        timer.cancel()


def short_page(why: str, row: dict | None = None) -> str:
    """The page written in place of one over a cap: the reason and the score, nothing of the notebook."""
    import html

    score = (f"<p>Score: {html.escape(str(row.get('score', '')))} / {html.escape(str(row.get('max_score', '')))}"
             "</p>") if row else ""
    return ("<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>Feedback</title></head><body>"
            f"<h1>Feedback</h1>{score}<p>{html.escape(why)}.</p>"
            "<p>Ask your instructor for the graded notebook.</p></body></html>\n")
