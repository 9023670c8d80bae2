"""The check cell on Colab (template.SELFCHECK): the JupyterLab check, of the notebook Colab's browser holds.

On Colab the notebook is not a file on disk. `check_on_colab` asks Colab's front end, through
`google.colab._message.blocking_request` (Colab's own channel, undocumented: it returns the reply's data, None
when the front end does not answer in time, and raises MessageError when it refuses), to save the notebook
(`save_notebook`) and for its content (`get_ipynb`, {"ipynb": the notebook}). That content is what the editor
shows, so it is graded whether or not the save went through (a notebook opened from GitHub has no Drive copy).
It is written to a private folder as <tier>/<notebook>.ipynb, named from the course metadata only when that
names one of the course's notebooks, and the grader holds the file's metadata to that name again
(pipeline/sources.py). Then `selfcheck.check_this_notebook` grades the file: the same subprocess, live line and
table as in JupyterLab, with a line above it naming the isolation the grader found on this runtime (Colab runs
the kernel as root in a container, so that line usually says the kernel is held by resource limits only).

Progress: with PTLAB_PROGRESS_DIR set (a folder of the learner's Drive, mounted on first use), the grader's
cache (each check's result, the reference reports) and a copy of each checked notebook live there, so a later
session finds them and `python -m autograder progress DIR` shows them. Without it they last as long as the
runtime.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

PROGRESS_ENV = "PTLAB_PROGRESS_DIR"
DRIVE = os.environ.get("PTLAB_COLAB_DRIVE", "/content/drive")  # where Colab mounts the learner's Drive (tests: elsewhere)
ASK_SECONDS = 30  # a save or a read of a large notebook by the front end
KEEP_PROGRESS = (f"Your progress lasts as long as this runtime. To keep it in your Drive, run "
                 f"`%env {PROGRESS_ENV}={DRIVE}/MyDrive/pytorch-interview-lab` before checking.")


class NotGraded(Exception):
    """Why the notebook in the browser cannot be graded: one line for the learner."""


def ask(message, request_type: str):
    """The front end's reply to one request; None when it did not answer or refused."""
    try:
        return message.blocking_request(request_type, request="", timeout_sec=ASK_SECONDS)
    except Exception:  # MessageError: the front end said no (a notebook with no Drive copy cannot be saved)
        return None


def notebook_in_browser(message) -> tuple[dict, bool]:
    """(the notebook as the editor holds it, whether Colab saved it first)."""
    saved = ask(message, "save_notebook") is not None
    reply = ask(message, "get_ipynb")
    nb = reply.get("ipynb") if isinstance(reply, dict) else None
    if not isinstance(nb, dict) or not isinstance(nb.get("cells"), list):
        raise NotGraded("Colab did not hand over this notebook's content (reload the page and run the cell again)")
    return nb, saved


def course_name(nb: dict) -> tuple[str, str]:
    """(tier, notebook) of one of the course's notebooks, from the metadata the release writes; a copy Colab
    renamed ("Copy of 03_modules.ipynb") keeps it."""
    from autograder.pipeline.sources import listed

    meta = (nb.get("metadata") or {}).get("ptlab")
    if isinstance(meta, dict) and listed(meta.get("tier"), meta.get("notebook")) is not None:
        return meta["tier"], meta["notebook"]
    raise NotGraded("this is not one of the course's notebooks (its metadata names none): open the notebook "
                    "from the course's Colab badge")


def progress_dir() -> Path | None:
    """The learner's chosen folder for progress, its Drive mounted first when it lies there."""
    chosen = os.environ.get(PROGRESS_ENV, "").strip()
    if not chosen:
        return None
    folder = Path(chosen).expanduser()
    if folder.is_relative_to(DRIVE) and not Path(DRIVE, "MyDrive").is_dir():
        from google.colab import drive

        drive.mount(DRIVE)
    folder.mkdir(parents=True, exist_ok=True)
    return folder


_isolation: list[str] = []


def isolation() -> str:
    """What holds the check's kernel here, as the grader says it (sandbox.status), asked once per runtime in a
    process of the grader's own: the probe starts a fenced process, which this kernel must not become."""
    if not _isolation:
        done = subprocess.run([sys.executable, "-c", "from autograder.isolation import sandbox; print(sandbox.status())"],
                              capture_output=True, text=True, timeout=120)
        _isolation.append(done.stdout.strip() or "sandbox: unknown (the grader did not say)")
    return _isolation[0]


def answers(nb: dict) -> dict[str, str]:
    """The answer cells as the editor holds them: what the check compares the graded file with."""
    out = {}
    for cell in nb.get("cells", []):
        meta = (cell.get("metadata") or {}).get("nbgrader") or {}
        if cell.get("cell_type") == "code" and meta.get("solution") and meta.get("grade_id"):
            src = cell.get("source", "")
            out.setdefault(str(meta["grade_id"]), "".join(src) if isinstance(src, list) else str(src))
    return out


def check_on_colab(timeout: int | None = None) -> None:
    """What the check cell runs on Colab. `timeout`: seconds per cell instead of nbgrader_config.py's."""
    from google.colab import _message

    from autograder.learner import unsaved
    from autograder.learner.selfcheck import check_this_notebook

    try:
        nb, saved = notebook_in_browser(_message)
        tier, name = course_name(nb)
        keep = progress_dir()
    except NotGraded as e:
        print(f"Self-check could not grade this notebook: {e}.")
        return
    if keep is not None:  # the grader's cache: each check's result (progress) and the reference reports
        os.environ["PTLAB_CACHE_DIR"] = str(keep / ".ptlab-cache")
    private = Path(tempfile.mkdtemp(prefix="ptlab-colab-"))  # 0700: this runtime's other users never read it
    try:
        print(f"Graded as the editor holds it{'' if saved else ' (Colab could not save it first)'}. "
              f"Isolation on this runtime: {isolation()}")
        path = private / tier / f"{name}.ipynb"
        path.parent.mkdir()
        path.write_text(json.dumps(nb), encoding="utf-8")
        unsaved.remember_editor(json.dumps({"answers": answers(nb)}))
        check_this_notebook(session=str(path), timeout=timeout)
        if keep is not None:
            (keep / tier).mkdir(exist_ok=True)
            shutil.copyfile(path, keep / tier / path.name)
    finally:
        shutil.rmtree(private, ignore_errors=True)
    print(f"Progress kept in {keep}." if keep is not None else KEEP_PROGRESS)
