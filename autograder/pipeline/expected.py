"""What the reference solution reports: the expectations every submission's reports are compared with.

The source notebook runs once per machine in a kernel of the grader's own (same sandbox, same limits),
and its reports are cached in .ptlab-cache/expected/, which the sandbox hides from student kernels. The
cache key covers everything that can change a report: the source notebook's bytes, the torch version,
fast mode and whether a GPU is present. Workers that need the same reference at once wait on a file lock
instead of running it twice. A `check` of the unmodified source is itself a reference run and fills the
cache without a second run.
"""

from __future__ import annotations

import contextlib
import copy
import fcntl
import hashlib
import importlib.metadata
import json
import os
from pathlib import Path

from nbformat import NotebookNode

from autograder.course import CACHE_DIR, GradingInputError
from autograder.pipeline import observe
from autograder.pipeline.cells import grade_id, kind

CACHE = CACHE_DIR / "expected"

Reports = dict[str, list[dict]]


def _key(source_path: Path) -> str:
    try:
        torch_version = importlib.metadata.version("torch")
    except importlib.metadata.PackageNotFoundError:
        torch_version = "none"
    h = hashlib.sha256(Path(source_path).read_bytes())
    h.update(f"|{torch_version}|fast={os.environ.get('PTLAB_FAST') == '1'}|gpu={Path('/dev/nvidiactl').exists()}"
             .encode())
    return f"{Path(source_path).parent.name}__{Path(source_path).stem}__{h.hexdigest()[:20]}"


def reports_of(executed: NotebookNode) -> tuple[Reports, list[str]]:
    """Reports per test cell, and the test cells that failed in this run."""
    from autograder.pipeline.score import score

    reports = {grade_id(c): observe.collect(c) for c in executed.cells if kind(c) == "test"}
    failed = [t.grade_id for t in score(executed)[0] if not t.passed]
    return reports, failed


def is_reference(nb: NotebookNode, source: NotebookNode) -> bool:
    """True when the notebook to run is the source itself, so its run is a reference run."""
    return [(c.cell_type, c.source) for c in nb.cells] == [(c.cell_type, c.source) for c in source.cells]


class Reference:
    """The reference reports of one source notebook: where they are cached, and how to get them."""

    def __init__(self, source_path: Path):
        self.source_path = Path(source_path)
        self.file = CACHE / f"{_key(self.source_path)}.json"  # hashed once: the source is read once

    def cached(self) -> Reports | None:
        try:
            return json.loads(self.file.read_text())
        except (OSError, ValueError):
            return None

    def remember(self, executed: NotebookNode) -> Reports:
        """Reports of a reference run that happened anyway; cached only when the reference passed everything."""
        reports, failed = reports_of(executed)
        if not failed:
            self._store(reports)
        return reports

    def reports(self, source: NotebookNode, timeout: int | None = None) -> Reports:
        """From the cache, or from one run of the source notebook."""
        from autograder.pipeline.execute import execute

        hit = self.cached()
        if hit is not None:
            return hit
        with self._lock():
            hit = self.cached()  # another worker may have run it while this one waited
            if hit is not None:
                return hit
            executed, notes = execute(copy.deepcopy(source), timeout=timeout)
            reports, failed = reports_of(executed)
            if failed or notes:
                why = ", ".join(failed) or "; ".join(notes)
                name = f"{self.source_path.parent.name}/{self.source_path.name}"
                raise GradingInputError(f"{name}: the reference solution does not pass its own tests on this "
                                        f"machine ({why}), so nothing can be graded against it")
            self._store(reports)
            return reports

    def _store(self, reports: Reports) -> None:
        CACHE.mkdir(parents=True, exist_ok=True)
        tmp = self.file.with_name(f"{self.file.name}.{os.getpid()}.tmp")
        tmp.write_text(json.dumps(reports))
        os.replace(tmp, self.file)

    @contextlib.contextmanager
    def _lock(self):
        CACHE.mkdir(parents=True, exist_ok=True)
        with open(self.file.with_suffix(".lock"), "w") as handle:
            fcntl.flock(handle, fcntl.LOCK_EX)
            try:
                yield
            finally:
                fcntl.flock(handle, fcntl.LOCK_UN)
