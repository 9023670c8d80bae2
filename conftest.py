"""Every kernel the suite starts is pinned to one thread and runs the notebooks' fast mode; the notebooks'
tests go out heaviest notebook first, so the last minutes are not one worker running one long notebook
while the other waits."""

import os
from pathlib import Path


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


def pytest_collection_modifyitems(config, items):
    notebooks = {id(item): notebook_of(item) for item in items}
    order = {id(item): i for i, item in enumerate(items)}
    items.sort(key=lambda it: (-weight(notebooks[id(it)]) if notebooks[id(it)] else 0, order[id(it)]))
