"""Every kernel the suite starts is pinned to one thread and runs the notebooks' fast mode.

`make test` runs the unit tests and nbval in one pytest run, so two workers stay busy until the end
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

import os
import re
from pathlib import Path

import pytest

# Set before any kernel starts: kernels inherit the environment. With pytest-xdist on 2 cores, two kernels
# with one thread each beat two kernels fighting over both cores.
os.environ.setdefault("PTLAB_FAST", "1")
for var in ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS"):
    os.environ.setdefault(var, "1")
os.environ.setdefault("MPLBACKEND", "Agg")
os.environ.setdefault("PYDEVD_DISABLE_FILE_VALIDATION", "1")


def notebook_of(item) -> Path | None:
    """The course notebook an item is about: an nbval cell's file, or a test's `source` parameter."""
    path = Path(str(item.fspath))
    if path.suffix == ".ipynb":
        return path
    params = getattr(getattr(item, "callspec", None), "params", {})
    source = params.get("source")
    return source if isinstance(source, Path) else None


def weight(notebook: Path) -> int:
    # A notebook's size follows its number of cells and launches: a proxy for its run time that needs no
    # timing file to keep up to date.
    return notebook.stat().st_size if notebook.exists() else 0


def sort_key(item) -> tuple:
    """Other modules first, then notebooks heaviest first."""
    notebook = notebook_of(item)
    return (0, 0) if notebook is None else (1, -weight(notebook))


def pytest_collection_modifyitems(config, items):
    order = {id(item): (sort_key(item), i) for i, item in enumerate(items)}
    items.sort(key=lambda it: order[id(it)])


# A notebook's cells under nbval, or a test parametrized by a notebook (its id is tier/name).
_NOTEBOOK_NODE = re.compile(r"^notebooks/(junior|mid|senior)/(\d\d_\w+)\.ipynb::|\[(junior|mid|senior)/(\d\d_\w+)\]$")


def scope_of(nodeid: str) -> str:
    found = _NOTEBOOK_NODE.search(nodeid)
    if found:
        tier, name = (found.group(1), found.group(2)) if found.group(1) else (found.group(3), found.group(4))
        return f"notebook:{tier}/{name}"
    return nodeid.split("::")[0]


def pytest_xdist_make_scheduler(config, log):
    # xdist's own loadgroup would do this from marks, but it renames node ids in a way pytest 9.2 ignores.
    if config.getvalue("dist") != "loadscope":
        return None
    from xdist.scheduler import LoadScopeScheduling

    class ByNotebook(LoadScopeScheduling):
        def _split_scope(self, nodeid: str) -> str:
            return scope_of(nodeid)

    return ByNotebook(config, log)
