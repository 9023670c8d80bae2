#!/usr/bin/env python
"""`make ci-colab`: the course on Colab's versions (ci/colab-runtime.txt), before a release.

    python ci/colab.py [--build-only] [--workers 2] [NOTEBOOK ...]

1. Builds, once, an environment outside the repository with Colab's Python (3.12, where this machine has it) and
   the pinned packages: ~/.cache/ptlab/colab-<key> (PTLAB_COLAB_ENV to choose another place); rebuilt when the
   pinned list or the Python changes.
2. Runs every solved notebook there with papermill (CPU, FAST), as ci/run_notebooks.py does locally.
3. Runs every student notebook of release/ with the reference's answers put in its answer cells: what a Colab
   learner with a correct answer sees, visible tests included.
4. The check cell's Colab branch, installing the grader offline: ci/colab_check_cell.py.
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
    ap.add_argument("notebooks", nargs="*", help="tier/NN_name (default: all)")
    args = ap.parse_args(argv)
    if args.inside:
        return run_inside(args.workers, args.notebooks)

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
    sys.path.insert(0, str(ROOT))
    from ci.colab_check_cell import check_verdict, grader_check

    with tempfile.TemporaryDirectory(prefix="ptlab-colab-check-") as tmp:
        check = grader_check(py, Path(tmp), [PINS, SETUP_INSTALLS])
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
