"""Run a notebook in a fresh kernel with nbgrader's own Execute preprocessor and the course's config."""

from __future__ import annotations

import functools
import os
import tempfile
from pathlib import Path

from nbformat import NotebookNode
from traitlets.config import Config, PyFileConfigLoader

from autograder.course import ROOT


@functools.lru_cache(maxsize=1)
def course_config() -> Config:
    """nbgrader_config.py at the course root: the same timeouts for `check`, `grade` and nbgrader."""
    return PyFileConfigLoader("nbgrader_config.py", path=str(ROOT)).load_config()


def execute(nb: NotebookNode, workdir: Path | None = None, timeout: int | None = None) -> NotebookNode:
    from nbgrader.preprocessors import Execute  # imported late: it pulls in the whole of nbconvert

    config = Config(course_config())
    if timeout is not None:
        config.Execute.timeout = timeout
    executor = Execute(config=config)
    with tempfile.TemporaryDirectory(prefix="ptlab-run-") as tmp:
        cwd = Path(workdir) if workdir else Path(tmp)
        # Student code gets a scratch directory of its own, never the course tree.
        env_before = os.environ.get("MPLBACKEND")
        os.environ.setdefault("MPLBACKEND", "Agg")
        try:
            nb, _ = executor.preprocess(nb, {"metadata": {"path": str(cwd)}})
        finally:
            if env_before is None:
                os.environ.pop("MPLBACKEND", None)
    return nb
