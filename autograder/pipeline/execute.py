"""Run a notebook in a fresh kernel with nbgrader's own Execute preprocessor and the course's config.

Faults stay inside the notebook: a cell that runs too long is interrupted (c.Execute.timeout), a notebook
that runs too long in total or a kernel that dies ends the run with a fault, and a flood of output is cut
(also a fault). Cells that never ran keep no outputs, and score.py gives them nothing. No kernel outlives
its run.
"""

from __future__ import annotations

import contextlib
import functools
import os
import signal
import tempfile
import threading

from nbformat import NotebookNode
from traitlets.config import Config, PyFileConfigLoader

from autograder.course import ROOT

NOTEBOOK_TIMEOUT = int(os.environ.get("PTLAB_NOTEBOOK_TIMEOUT", "900"))
MAX_OUTPUT_CHARS = 100_000


class NotebookTimeout(Exception):
    pass


@functools.lru_cache(maxsize=1)
def course_config() -> Config:
    """nbgrader_config.py at the course root: the same timeouts for `check`, `grade` and nbgrader."""
    return PyFileConfigLoader("nbgrader_config.py", path=str(ROOT)).load_config()


@contextlib.contextmanager
def _deadline(seconds: int):
    if threading.current_thread() is not threading.main_thread() or seconds <= 0:
        yield
        return

    def expire(signum, frame):
        raise NotebookTimeout(f"the notebook ran longer than {seconds} s in total")

    previous = signal.signal(signal.SIGALRM, expire)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


def _cap_outputs(nb: NotebookNode) -> list[str]:
    """Cut floods of output (they would bloat the feedback and the gradebook); returns the cells cut."""
    from autograder.pipeline.faults import where

    cut = []
    for i, cell in enumerate(nb.cells):
        flooded = False
        for out in cell.get("outputs", []):
            if out.get("output_type") == "stream" and len(out.get("text", "")) > MAX_OUTPUT_CHARS:
                out["text"] = out["text"][:MAX_OUTPUT_CHARS] + "\n... [output cut by the grader]\n"
                flooded = True
            data = out.get("data", {})
            for mime, value in list(data.items()):
                if isinstance(value, str) and len(value) > 20 * MAX_OUTPUT_CHARS:
                    data[mime] = value[:MAX_OUTPUT_CHARS] if mime.startswith("text/") else ""
                    flooded = True
        if flooded:
            cut.append(where(cell, i))
    return cut


def _announce(progress, nb: NotebookNode, limit):
    """nbclient's on_cell_start hook, reporting which cell runs and the per-cell limit it runs under."""
    from autograder.pipeline.faults import where

    code = [i for i, c in enumerate(nb.cells) if c.cell_type == "code"]

    def hook(cell, cell_index, **_):
        if cell.cell_type == "code":  # "cell 4 of 9" counts what runs
            progress({"cell": where(cell, cell_index), "index": code.index(cell_index), "of": len(code),
                      "limit": limit if isinstance(limit, int) and limit > 0 else None})

    return hook


def execute(nb: NotebookNode, timeout: int | None = None, kernels=None,
            progress=None) -> tuple[NotebookNode, list[str]]:
    """Return the executed notebook and the faults of the run: it ended early, or its output was cut.

    `kernels`: where a started kernel may come from instead of a fresh start, called with a factory
    `make_manager(scratch)` of unstarted sandboxed kernel managers; it returns an object with `km`, `scratch`
    and `discard()`, or None. A class-grading worker passes isolation.warm.take; `check` passes nothing.
    `progress`: called with {"cell", "index", "of", "limit"} as each cell starts (the self-check's live line)."""
    from nbclient.exceptions import DeadKernelError
    from nbgrader.preprocessors import Execute  # imported late: it pulls in the whole of nbconvert

    from autograder.isolation import sandbox
    from autograder.isolation.kernels import kill_kernel, manager_config, plain_manager, sandboxed_manager

    config = Config(course_config())
    if timeout is not None:
        config.Execute.timeout = timeout
    # A graded kernel has nothing to save: a graceful shutdown only makes the next notebook wait for it.
    config.Execute.shutdown_kernel = "immediate"
    notes: list[str] = []
    manager = sandboxed_manager() if sandbox.enabled() else None
    if manager is not None:
        sandbox.namespaces_work()  # probed before this run's scratch directory exists (it cleans up after itself)
    ready = None
    if kernels is not None and manager is not None and nb.metadata.get("kernelspec", {}).get("name") == "python3":
        ready = kernels(lambda scratch: manager(kernel_name="python3",
                                                config=manager_config(config, manager, scratch)))
    with contextlib.ExitStack() as stack:
        if ready is not None:
            scratch = ready.scratch
            stack.callback(ready.discard)
        else:
            scratch = stack.enter_context(tempfile.TemporaryDirectory(prefix="ptlab-run-"))
        kwargs = {"kernel_manager_class": plain_manager()}
        if manager is not None:
            config = manager_config(config, manager, scratch)
            kwargs["kernel_manager_class"] = manager
        if progress is not None:
            kwargs["on_cell_start"] = _announce(progress, nb, config.Execute.timeout)
        executor = Execute(config=config, **kwargs)
        try:
            with _deadline(NOTEBOOK_TIMEOUT):
                executor.preprocess(nb, {"metadata": {"path": scratch}}, km=ready.km if ready else None)
        except NotebookTimeout as e:
            notes.append(str(e))
        except DeadKernelError:
            notes.append("the kernel died (exited, crashed or ran out of memory); later cells did not run")
        except Exception as e:  # nbclient surfaces broken kernels in several ways
            notes.append(f"the run stopped early: {type(e).__name__}")
        finally:
            if ready is not None and getattr(executor, "kc", None) is not None:
                with contextlib.suppress(Exception):
                    executor.kc.stop_channels()
            # nbclient shuts its kernel down however a run ends and then forgets it (km = None). A kernel it
            # still holds is one whose shutdown never ran (a deadline that fired inside nbclient's event loop)
            # or a warmed one, which nbclient never owned.
            kill_kernel(executor.km)
        why = sandbox.stopped_for(scratch) if manager is not None else None
        if why:  # the sandbox stopped the run (or its cgroup's OOM killer struck): that is the fault
            from autograder.pipeline.faults import sandbox_stop

            notes = [sandbox_stop(why),
                     *(n for n in notes if not n.startswith(("the kernel died", "the run stopped early")))]
        if manager is not None:
            sandbox.release(scratch)
    cut = _cap_outputs(nb)
    if cut:
        notes.append(f"output cut at {MAX_OUTPUT_CHARS // 1000} kB a cell: {', '.join(cut)}")
    return nb, notes
