#!/usr/bin/env python
"""`make ci-colab`: the course on Colab's versions (ci/colab-runtime.txt), before a release.

    python ci/colab.py [--build-only] [--workers 2] [NOTEBOOK ...]

1. Builds, once, an environment outside the repository with Colab's Python (3.12, where this machine has it) and
   the pinned packages: ~/.cache/ptlab/colab-<key> (PTLAB_COLAB_ENV to choose another place); rebuilt when the
   pinned list or the Python changes.
2. Runs every solved notebook there with papermill (CPU, FAST), as ci/run_notebooks.py does locally.
3. Runs every student notebook of release/ with the reference's answers put in its answer cells: what a Colab
   learner with a correct answer sees, visible tests included.
4. The check cell's Colab branch (issue 37): in a throw-away environment over the Colab one, a kernel with a
   stand-in google.colab runs the template's check cell on one notebook, blank and solved: the cell installs the
   grader from a snapshot of this commit with pip off the network (PIP_NO_INDEX; what Colab's runtime lacks comes
   from a folder of wheels downloaded once, ~/.cache/ptlab/colab-grader-wheels-<key>) and grades it.
Writes ci/out/colab/report.json (versions, each notebook's result, the check cell's) and exits non-zero naming
what failed.
`make test` stays on the local versions; this is for maintainers (docs/colab.md).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PINS = ROOT / "ci" / "colab-runtime.txt"
SETUP_INSTALLS = ROOT / "ci" / "colab-setup-installs.txt"
OUT = ROOT / "ci" / "out" / "colab"
COLAB_PYTHON = "3.12"


def colab_python() -> tuple[str, str]:
    """(path, note) of the Python to build with: Colab's version where this machine has it."""
    found = shutil.which(f"python{COLAB_PYTHON}")
    pyenv = Path.home() / ".pyenv" / "versions"
    candidates = [found] if found else []
    candidates += sorted(str(p / "bin" / "python") for p in pyenv.glob(f"{COLAB_PYTHON}.*")) if pyenv.is_dir() else []
    for path in candidates:
        probe = subprocess.run([path, "-c", "import sys; print('%d.%d' % sys.version_info[:2])"],
                               capture_output=True, text=True)
        if probe.returncode == 0 and probe.stdout.strip() == COLAB_PYTHON:
            return path, f"Python {COLAB_PYTHON}, as Colab"
    return sys.executable, (f"Python {sys.version_info.major}.{sys.version_info.minor}: this machine has no "
                            f"Python {COLAB_PYTHON}, so Colab's Python version is not mirrored")


def env_dir(python: str) -> Path:
    if os.environ.get("PTLAB_COLAB_ENV"):
        return Path(os.environ["PTLAB_COLAB_ENV"])
    key = hashlib.sha256(PINS.read_bytes() + python.encode()).hexdigest()[:12]
    return Path.home() / ".cache" / "ptlab" / f"colab-{key}"


def build(python: str) -> Path:
    """The environment's python, built first if need be (a stamp marks a finished build)."""
    where = env_dir(python)
    stamp, py = where / ".built", where / "bin" / "python"
    if stamp.exists() and py.exists():
        return _with_setup_installs(py)
    shutil.rmtree(where, ignore_errors=True)  # a build that stopped half-way
    print(f"ci-colab: building {where} (first time: a few minutes; torch with its CUDA libraries is ~3 GB)",
          flush=True)
    subprocess.run([python, "-m", "venv", str(where)], check=True)
    subprocess.run([str(py), "-m", "pip", "install", "--progress-bar", "off", "-r", str(PINS)], check=True)
    stamp.write_text(time.strftime("%Y-%m-%d %H:%M:%S\n"))
    return _with_setup_installs(py)


def _with_setup_installs(py: Path) -> Path:
    subprocess.run([str(py), "-m", "pip", "install", "-q", "--progress-bar", "off", "-r", str(SETUP_INSTALLS)],
                   check=True)
    return py


def versions(py: Path) -> dict:
    code = ("import json, sys, importlib.metadata as m\n"
            "names = ['torch', 'numpy', 'matplotlib', 'scikit-learn', 'triton']\n"
            "out = {n: (m.version(n) if any(d.metadata['Name'].lower() == n for d in m.distributions()) else None)"
            " for n in names}\n"
            "out['python'] = '%d.%d.%d' % sys.version_info[:3]\nprint(json.dumps(out))")
    return json.loads(subprocess.run([str(py), "-c", code], capture_output=True, text=True, check=True).stdout)


def with_reference_answers(release: Path, source: Path, target: Path) -> None:
    """The student notebook with each answer cell holding the reference's: hidden tests stay hidden (they are
    not in release/), so what runs is what a learner with correct answers runs."""
    import nbformat

    solved = {c.metadata.get("nbgrader", {}).get("grade_id"): c.source
              for c in nbformat.read(str(source), 4).cells if c.metadata.get("nbgrader", {}).get("solution")}
    nb = nbformat.read(str(release), 4)
    for cell in nb.cells:
        gid = cell.metadata.get("nbgrader", {}).get("grade_id")
        if cell.metadata.get("nbgrader", {}).get("solution") and gid in solved:
            cell.source = solved[gid]
    target.parent.mkdir(parents=True, exist_ok=True)
    nbformat.write(nb, str(target))


STANDIN = ROOT / "tests" / "fixtures" / "colab_standin"  # google.colab as the check cell meets it, offline


def colab_check(in_browser: Path, cell: str, cwd: Path, timeout: int = 1200) -> str:
    """The text the check cell `cell` leaves (each display as last updated), run in a fresh kernel of this
    Python as on Colab: the stand-in google.colab imported first, and `in_browser` the notebook its front end
    holds. The kernel gets this process's environment (PTLAB_GRADER, PIP_* for an offline install) as a learner's
    Colab kernel would have it: never with the grader's PTLAB_GRADING mark (a grade run in this process sets it,
    and the check cell then rightly does nothing), and with the stand-in's notebook named for it alone."""
    import nbformat
    from nbclient import NotebookClient

    from autograder.course import GRADING_ENV

    env = {k: v for k, v in os.environ.items() if k != GRADING_ENV}
    env["PTLAB_STANDIN_NOTEBOOK"] = str(in_browser)
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


def grader_wheels(py: Path, snapshot: Path) -> Path:
    """Wheels of what installing the grader adds to Colab's runtime (and setuptools, its build backend),
    downloaded once per dependency list: the install itself then runs with --no-index."""
    key = hashlib.sha256((ROOT / "pyproject.toml").read_bytes() + PINS.read_bytes()
                         + SETUP_INSTALLS.read_bytes()).hexdigest()[:12]
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


def grader_check(py: Path, tmp: Path) -> dict:
    """The check cell's Colab branch, blank and solved, with the grader installed off the network."""
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
    house = grader_wheels(where, snapshot)
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
    subprocess.run([str(where), str(Path(__file__).resolve()), "--inside-check", str(tmp)], cwd=tmp, env=env,
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
    import re

    wrong = []
    if "Installed the course's grader." not in result["shown"]["blank"]:
        wrong.append("the check cell did not install the grader")
    scores = {k: re.findall(r"score ([0-9.]+)/([0-9.]+)", v) for k, v in result["shown"].items()}
    if not scores["blank"] or float(scores["blank"][-1][0]) != 0:
        wrong.append(f"the blank notebook should score 0: {scores['blank']}")
    if not scores["solved"] or scores["solved"][-1][0] != scores["solved"][-1][1]:
        wrong.append(f"the solved notebook should score full marks: {scores['solved']}")
    return wrong


def run_inside(workers: int, notebooks: list[str]) -> int:
    """In the Colab environment: the solved notebooks, then the release with the reference's answers."""
    sys.path.insert(0, str(ROOT))
    from autograder.course import RELEASE_DIR, SOURCE_DIR, source_notebooks
    from ci.run_notebooks import run_many

    sources = [SOURCE_DIR / f"{n}.ipynb" for n in notebooks] if notebooks else source_notebooks()
    with tempfile.TemporaryDirectory(prefix="ptlab-colab-") as tmp:
        students = []
        for source in sources:
            target = Path(tmp) / "release" / source.parent.name / source.name
            with_reference_answers(RELEASE_DIR / source.parent.name / source.name, source, target)
            students.append(target)
        jobs = [(s, OUT / "solved", "solved") for s in sources] + [(s, OUT / "release", "release") for s in students]
        results = run_many(jobs, "cpu", workers, fast=True)
    (OUT / "results.json").write_text(json.dumps(results, indent=2))
    return 0 if all(r["status"] == "ok" for r in results) else 1


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--build-only", action="store_true")
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--check-only", action="store_true", help="only the check cell's Colab branch (step 4)")
    ap.add_argument("--inside", action="store_true", help=argparse.SUPPRESS)  # run by main in the environment
    ap.add_argument("--inside-check", default=None, help=argparse.SUPPRESS)  # run by grader_check
    ap.add_argument("notebooks", nargs="*", help="tier/NN_name (default: all)")
    args = ap.parse_args(argv)
    if args.inside:
        return run_inside(args.workers, args.notebooks)
    if args.inside_check:
        run_check_cells(Path(args.inside_check))
        return 0

    python, note = colab_python()
    py = build(python)
    found = versions(py)
    print(f"ci-colab: {note}; " + ", ".join(f"{k} {v}" for k, v in found.items() if k != "python"), flush=True)
    if args.build_only:
        return 0
    shutil.rmtree(OUT, ignore_errors=True)
    OUT.mkdir(parents=True)
    t0 = time.perf_counter()
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    # The kernel papermill starts must be the environment's own: its bin first on PATH, its kernelspec only.
    env.update(PATH=f"{py.parent}{os.pathsep}{env.get('PATH', '')}", PTLAB_FAST="1", MPLBACKEND="Agg",
               JUPYTER_PATH=str(py.parent.parent / "share" / "jupyter"), PYTHONNOUSERSITE="1")
    code = 0 if args.check_only else subprocess.run(
        [str(py), str(Path(__file__).resolve()), "--inside", "--workers", str(args.workers), *args.notebooks],
        cwd=ROOT, env=env).returncode
    results = json.loads((OUT / "results.json").read_text()) if (OUT / "results.json").exists() else []
    with tempfile.TemporaryDirectory(prefix="ptlab-colab-check-") as tmp:
        check = grader_check(py, Path(tmp))
    wrong = check_verdict(check)
    print(f"ci-colab: check cell on {check['notebook']}: " + ("installed the grader offline, blank 0, solved full marks"
                                                             if not wrong else "; ".join(wrong)))
    code = code or (1 if wrong else 0)
    report = {"date": time.strftime("%Y-%m-%d"), "note": note, "versions": found,
              "wall_seconds": round(time.perf_counter() - t0, 1), "results": results, "check_cell": check}
    (OUT / "report.json").write_text(json.dumps(report, indent=2))
    for kind in () if args.check_only else ("solved", "release"):
        mine = [r for r in results if r["kind"] == kind]
        ok = sum(r["status"] == "ok" for r in mine)
        print(f"ci-colab: {kind:7s} {ok}/{len(mine)} ran clean")
    for r in results:
        if r["status"] != "ok":
            print(f"FAILED {r['kind']} {r['notebook']}" + (f" at cell {r['cell']}" if r["cell"] else "")
                  + f": {r['error']}", file=sys.stderr)
    return code


if __name__ == "__main__":
    raise SystemExit(main())
