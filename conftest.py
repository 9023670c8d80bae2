"""Every kernel the suite starts is pinned to one thread and runs the notebooks' fast mode.

`make test` runs the unit tests and nbval in one pytest run, so the workers stay busy until the end
instead of each of two runs ending on one worker. Its scheduler (below) sends a scope to one worker whole,
in collection order:
- one scope per course notebook: its grading contract (lint, then the papermill run of the reference, whose
  reports the blank, wrong and alternative runs are scored against, so the reference runs once), then its
  nbval cells, which share one kernel;
- one scope per other test module, whose module fixtures (a graded class, a running JupyterLab, a cluster)
  are then built once.
Scopes go out longest first: the other modules (a browser, a cluster, hostile classes), then the notebooks,
heaviest first, so the last minutes are short notebooks on both workers.
"""

import contextlib
import os
import sys
import tempfile
import uuid
from pathlib import Path

import pytest

from ci.nodes import notebook_named

# Set before any kernel starts: kernels inherit the environment. With pytest-xdist on 2 cores, two kernels
# with one thread each beat two kernels fighting over both cores.
os.environ.setdefault("PTLAB_FAST", "1")
for var in ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS"):
    os.environ.setdefault(var, "1")
os.environ.setdefault("MPLBACKEND", "Agg")
os.environ.setdefault("PYDEVD_DISABLE_FILE_VALIDATION", "1")


NOTEBOOKS = Path(__file__).parent / "notebooks"


def weight(notebook: str | None) -> int:
    # A notebook's size follows its number of cells and launches: a proxy for its run time that needs no
    # timing file to keep up to date.
    path = NOTEBOOKS / f"{notebook}.ipynb"
    return path.stat().st_size if path.exists() else 0


def sort_key(nodeid: str) -> tuple:
    """Other modules first, then notebooks heaviest first."""
    notebook = notebook_named(nodeid)
    return (0, 0) if notebook is None else (1, -weight(notebook))


def pytest_collection_modifyitems(config, items):
    order = {id(item): (sort_key(item.nodeid), i) for i, item in enumerate(items)}
    items.sort(key=lambda it: order[id(it)])


def scope_of(nodeid: str) -> str:
    """A notebook's tests and cells share its scope; any other test is scoped by its module."""
    notebook = notebook_named(nodeid)
    return f"notebook:{notebook}" if notebook else nodeid.split("::")[0]


def pytest_xdist_make_scheduler(config, log):
    # xdist's own loadgroup would do this from marks, but it renames node ids in a way pytest 9.2 ignores.
    if config.getvalue("dist") != "loadscope":
        return None
    from xdist.scheduler import LoadScopeScheduling

    class ByNotebook(LoadScopeScheduling):
        def _split_scope(self, nodeid: str) -> str:
            return scope_of(nodeid)

    return ByNotebook(config, log)


# Nothing outlives the suite (tests/leftovers.py): the controller gives the session a temporary folder and a
# mark in the environment that every worker, grader and kernel inherits, and checks both at the very end.
def pytest_configure(config):
    config.addinivalue_line("markers", "under_load: long, grades beside CPU burners; only with -m under_load "
                                       "(make test-load)")
    if hasattr(config, "workerinput") or os.environ.get("PTLAB_SUITE_ID"):
        return  # an xdist worker (or a suite inside a suite): the controller checks
    from tests.leftovers import SUITE_MARK, grader_marks

    for mark in grader_marks():  # the suite is a learner's machine and a grader's, never a graded kernel
        os.environ.pop(mark, None)
    # pytest's own tmp_path folders stay where they were (kept for a look after a failure)
    os.environ.setdefault("PYTEST_DEBUG_TEMPROOT", tempfile.gettempdir())
    folder = tempfile.mkdtemp(prefix="ptlab-suite-")
    os.environ["TMPDIR"] = folder
    tempfile.tempdir = None  # gettempdir() reads TMPDIR again
    os.environ[SUITE_MARK] = uuid.uuid4().hex
    config._ptlab_leftovers = (os.environ[SUITE_MARK], Path(folder))


@pytest.hookimpl(hookwrapper=True, trylast=True)
def pytest_sessionfinish(session, exitstatus):
    yield  # after every other implementation: xdist has stopped its workers by now
    mine = getattr(session.config, "_ptlab_leftovers", None)
    if mine is None:
        return
    from tests.leftovers import report

    # A passing session's own folder is gone by now (pytest removes it); so goes pytest-of-<user> when empty.
    base = getattr(getattr(session.config, "_tmp_path_factory", None), "_basetemp", None)
    if base is not None and not base.exists():
        with contextlib.suppress(OSError):
            base.parent.rmdir()
    left = report(*mine)
    if left:
        sys.stderr.write("\nthe suite left these behind (now killed and removed):\n  " + "\n  ".join(left) + "\n")
        session.exitstatus = pytest.ExitCode.TESTS_FAILED


# nbval stops a notebook's kernel with a kill, so a notebook's own clean-up at exit (atexit) never runs there:
# each notebook's cells get a temporary folder of their own, removed after its last cell.
def _nbval_notebook(item) -> str | None:
    return str(item.fspath) if type(item).__name__ == "IPyNbCell" else None


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item):
    notebook = _nbval_notebook(item)
    if notebook and os.environ.get("PTLAB_NBVAL_NOTEBOOK") != notebook:  # its kernel starts with this item
        os.environ["PTLAB_NBVAL_NOTEBOOK"] = notebook
        os.environ["PTLAB_NBVAL_OUTER_TMPDIR"] = os.environ.get("TMPDIR", "")
        os.environ["TMPDIR"] = tempfile.mkdtemp(prefix="ptlab-nbval-")
        tempfile.tempdir = None


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_teardown(item, nextitem):
    yield
    notebook = _nbval_notebook(item)
    if notebook and (nextitem is None or _nbval_notebook(nextitem) != notebook):  # its kernel is gone now
        import shutil

        shutil.rmtree(os.environ["TMPDIR"], ignore_errors=True)
        outer = os.environ.pop("PTLAB_NBVAL_OUTER_TMPDIR", "")
        if outer:
            os.environ["TMPDIR"] = outer
        else:
            os.environ.pop("TMPDIR", None)
        os.environ.pop("PTLAB_NBVAL_NOTEBOOK", None)
        tempfile.tempdir = None
