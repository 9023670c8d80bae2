#!/usr/bin/env python
"""Step 4 of `make ci-colab` (ci/colab.py): the check cell's Colab branch (issue 37), proven offline.

In a throw-away environment over the Colab one, a kernel with a stand-in google.colab runs the template's check
cell on one notebook, blank and solved: the cell installs the grader from a snapshot of this commit with pip off
the network (PIP_NO_INDEX; what Colab's runtime lacks comes from a folder of wheels downloaded once,
~/.cache/ptlab/colab-grader-wheels-<key>) and grades it. tests/test_colab_check.py drives `colab_check` with the
grader already importable.

    python ci/colab_check_cell.py TMP   # inside the throw-away environment: what grader_check runs
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

STANDIN = ROOT / "tests" / "fixtures" / "colab_standin"  # google.colab as the check cell meets it, offline


def colab_check(in_browser: Path, cell: str, cwd: Path, timeout: int = 1200) -> str:
    """The text the check cell `cell` leaves (each display as last updated), run in a fresh kernel of this
    Python as on Colab: the stand-in google.colab imported first, and `in_browser` the notebook its front end
    holds. The kernel gets this process's environment (PTLAB_GRADER, PIP_* for an offline install) as a learner's
    Colab kernel would have it, and with the stand-in's notebook named for it alone."""
    import nbformat
    from nbclient import NotebookClient

    env = dict(os.environ, PTLAB_STANDIN_NOTEBOOK=str(in_browser))
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell(f"import sys\nsys.path.insert(0, {str(STANDIN)!r})\nimport google.colab"),
                nbformat.v4.new_code_cell(cell)]
    NotebookClient(nb, timeout=timeout, kernel_name="python3",
                   resources={"metadata": {"path": str(cwd)}}).execute(env=env)
    shown = []
    for out in nb.cells[-1].outputs:
        shown.append(out.get("text") or out.get("data", {}).get("text/plain", "")
                     or "".join(out.get("traceback", [])))
    return "\n".join(shown)


GRADER_NOTEBOOK = "junior/01_tensors_and_memory"  # the check cell's run: a quick notebook


def overlay(py: Path, where: Path) -> Path:
    """A venv at `where` that sees the Colab environment's packages after its own (a .pth line): the grader
    installs into it, and the Colab environment stays as Colab ships it. Returns its python."""
    subprocess.run([str(py), "-m", "venv", str(where)], check=True)
    below = subprocess.run([str(py), "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"],
                           capture_output=True, text=True, check=True).stdout.strip()
    mine = subprocess.run([str(where / "bin" / "python"), "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"],
                          capture_output=True, text=True, check=True).stdout.strip()
    Path(mine, "ptlab-colab-runtime.pth").write_text(below + "\n")
    return where / "bin" / "python"


def grader_wheels(py: Path, snapshot: Path, pins: list[Path]) -> Path:
    """Wheels of what installing the grader adds to Colab's runtime (and setuptools, its build backend),
    downloaded once per dependency list: the install itself then runs with --no-index."""
    key = hashlib.sha256(b"".join(p.read_bytes() for p in [ROOT / "pyproject.toml", *pins])).hexdigest()[:12]
    house = Path.home() / ".cache" / "ptlab" / f"colab-grader-wheels-{key}"
    if (house / ".done").exists():
        return house
    shutil.rmtree(house, ignore_errors=True)
    report = house / "report.json"
    house.mkdir(parents=True)
    subprocess.run([str(py), "-m", "pip", "install", "-q", "--dry-run", "--report", str(report), "-e",
                    str(snapshot)], check=True)
    urls = [item["download_info"]["url"] for item in json.loads(report.read_text())["install"]
            if item["metadata"]["name"] != "pytorch-interview-lab"]
    subprocess.run([str(py), "-m", "pip", "download", "-q", "--no-deps", "-d", str(house), "setuptools>=68", *urls],
                   check=True)
    (house / ".done").write_text(time.strftime("%Y-%m-%d %H:%M:%S\n"))
    return house


def grader_check(py: Path, tmp: Path, pins: list[Path]) -> dict:
    """The check cell's Colab branch, blank and solved, with the grader installed off the network (`pins`: the
    lists the Colab environment was built from, which key the folder of wheels)."""
    import nbformat

    sys.path.insert(0, str(ROOT))
    from autograder.authoring import template
    from autograder.authoring.build import refresh
    from autograder.course import SOURCE_DIR, release_path

    snapshot = tmp / "snapshot"  # the commit a tag would name: what Colab's pip gets
    snapshot.mkdir()
    archive = subprocess.run(["git", "archive", "HEAD"], cwd=ROOT, capture_output=True, check=True).stdout
    subprocess.run(["tar", "-x", "-C", str(snapshot)], input=archive, check=True)
    where = overlay(py, tmp / "overlay")
    house = grader_wheels(where, snapshot, pins)
    source = SOURCE_DIR / f"{GRADER_NOTEBOOK}.ipynb"
    for name, path in (("blank", release_path(source)), ("solved", source)):
        nb = nbformat.read(str(path), as_version=4)
        refresh(nb)
        nbformat.write(nb, str(tmp / f"{name}.ipynb"))
    (tmp / "cell.py").write_text(template.SELFCHECK)
    (tmp / "home").mkdir()
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    # PTLAB_SANDBOX=limits: no namespaces, as in a container that refuses unshare (the fence's file system would
    # hold the venv and Python, not the Colab environment its .pth line reaches).
    env.update(PTLAB_GRADER=str(snapshot), PIP_NO_INDEX="1", PIP_FIND_LINKS=str(house), PTLAB_FAST="1",
               PTLAB_SANDBOX="limits",
               PTLAB_CACHE_DIR=str(tmp / "cache"), HOME=str(tmp / "home"), PYTHONNOUSERSITE="1",
               PATH=f"{where.parent}{os.pathsep}{env.get('PATH', '')}", MPLBACKEND="Agg",
               JUPYTER_PATH=str(where.parent.parent / "share" / "jupyter"))
    subprocess.run([str(where), str(Path(__file__).resolve()), str(tmp)], cwd=tmp, env=env,
                   check=True)
    shown = json.loads((tmp / "shown.json").read_text())
    return {"notebook": GRADER_NOTEBOOK, "shown": shown}


def run_check_cells(tmp: Path) -> None:
    """In the throw-away environment: the check cell on the blank notebook (it installs the grader), then on
    the solved one (already installed)."""
    cell = (tmp / "cell.py").read_text()
    shown = {name: colab_check(tmp / f"{name}.ipynb", cell, tmp) for name in ("blank", "solved")}
    (tmp / "shown.json").write_text(json.dumps(shown, indent=2))


def check_verdict(result: dict) -> list[str]:
    """What is wrong with the check cell's run; nothing when the grader installed and graded both."""
    wrong = []
    if "Installed the course's grader." not in result["shown"]["blank"]:
        wrong.append("the check cell did not install the grader")
    scores = {k: re.findall(r"score ([0-9.]+)/([0-9.]+)", v) for k, v in result["shown"].items()}
    if not scores["blank"] or float(scores["blank"][-1][0]) != 0:
        wrong.append(f"the blank notebook should score 0: {scores['blank']}")
    if not scores["solved"] or scores["solved"][-1][0] != scores["solved"][-1][1]:
        wrong.append(f"the solved notebook should score full marks: {scores['solved']}")
    return wrong


if __name__ == "__main__":
    run_check_cells(Path(sys.argv[1]))
