"""Gradescope: the autograder zip (setup.sh, run_autograder, the grader and the assignment's source
notebooks), and what run_autograder does with a submission: /autograder/submission/*.ipynb graded through
verdicts.grade_folder into /autograder/results/results.json, one test per graded cell.

Gradescope's contract (gradescope-autograders.readthedocs.io, "Autograder Specifications"): the zip holds
setup.sh and run_autograder at its root and is unpacked into /autograder/source; run_autograder runs in
/autograder and must leave results/results.json. PTLAB_AUTOGRADER_ROOT stands in for /autograder in tests.
"""

from __future__ import annotations

import json
import shlex
import sys
import time
import zipfile
from pathlib import Path

from autograder.classroom import course_copy
from autograder.classroom.verdicts import Verdict, expected_sources, grade_folder
from autograder.isolation import sandbox

VISIBILITY = ("visible", "after_due_date", "after_published", "hidden")

SETUP = """#!/usr/bin/env bash
# Gradescope runs this once, as root on its Ubuntu image, when it builds the autograder: the course's Python
# environment in /autograder/venv, then one run of each reference solution, so that the reports every
# submission is compared with are cached in the image and no student waits for them.
# (PTLAB_AUTOGRADER_ROOT stands in for /autograder, as in run_autograder: a local try of an offline image.)
set -euo pipefail
ROOT="${{PTLAB_AUTOGRADER_ROOT:-/autograder}}"
cd "$ROOT/source"
export DEBIAN_FRONTEND=noninteractive
# Only what the image lacks (an offline image that has Python's venv and unshare needs no package list).
if ! python3 -m venv --help > /dev/null 2>&1 || ! command -v unshare > /dev/null; then
    apt-get update -qq
    apt-get install -y -qq python3 python3-venv python3-pip util-linux > /dev/null
fi
python3 -m venv "$ROOT/venv"
PIP="$ROOT/venv/bin/pip"
# An offline image: wheels/ beside this script (bundle --wheels DIR put them there), or PTLAB_WHEELS, holds
# every wheel; pip then reads that folder alone: no index, and neither the image's pip configuration nor PIP_*
# variables (a find-links, an index mirror or a constraints file there would bring in other files).
WHEELS="${{PTLAB_WHEELS:-$ROOT/source/wheels}}"
from_wheels() {{
    if ! PIP_CONFIG_FILE=/dev/null "$PIP" --isolated install -q --no-index --find-links "$WHEELS" "$@"; then
        echo "setup.sh: the wheel cache $WHEELS lacks a wheel this course needs (pip names it above): build" \\
             "the cache with pip wheel on this image's Python, then bundle gradescope --wheels DIR again" >&2
        exit 1
    fi
}}
if [ -d "$WHEELS" ]; then
    from_wheels {torch}
    from_wheels {deps}
else
    $PIP install -q --upgrade pip
    $PIP install -q {torch} --index-url https://download.pytorch.org/whl/cpu
    $PIP install -q {deps}
fi
# The grader in source/ belongs to the environment: its kernel launcher starts in a scratch folder, not here.
"$ROOT/venv/bin/python" -c 'import site, sys; open(site.getsitepackages()[0] + "/ptlab-grader.pth", "w").write(sys.argv[1])' \\
    "$ROOT/source"
if [ "${{PTLAB_SETUP_INSTALL_ONLY:-}}" = 1 ]; then exit 0; fi  # a try of the install alone, with stand-in wheels
"$ROOT/venv/bin/python" -c 'import sys; from autograder.classroom.gradescope import warm; sys.exit(warm(sys.argv[1:]))' \\
    notebooks/*/*.ipynb
"""

RUN = """#!/usr/bin/env bash
# Gradescope runs this for every submission, in /autograder: grade the notebooks in submission/ and write
# results/results.json. Whatever happens, Gradescope gets a results.json (never a crashed autograder).
ROOT="${{PTLAB_AUTOGRADER_ROOT:-/autograder}}"
PY="${{PTLAB_PYTHON:-$ROOT/venv/bin/python}}"
mkdir -p "$ROOT/results"
rm -f "$ROOT/results/results.json"
cd "$ROOT/source" && "$PY" -m autograder grade-in gradescope --root "$ROOT" {args}
if [ ! -s "$ROOT/results/results.json" ]; then
    printf '%s\\n' '{{"score": 0, "tests": [], "output": "The autograder could not run. Your submission is safe; please tell your instructor."}}' \\
        > "$ROOT/results/results.json"
fi
"""


def results(verdicts: list[Verdict], strays: list[str], visibility: str = "visible", seconds: float = 0) -> dict:
    tests = [{"name": c.name, "score": c.score, "max_score": c.max_score,
              "status": "passed" if c.passed else "failed",
              "output": "passed" if c.passed else c.message, "visibility": visibility}
             for v in verdicts for c in v.cells]
    total, most = sum(v.score for v in verdicts), sum(v.max_score for v in verdicts)
    lines = [f"Score {total:g} / {most:g} (autograded cells; written answers are graded by hand)."]
    lines += [line for v in verdicts for line in v.summary()] + strays
    return {"score": total, "output": "\n".join(lines), "output_format": "text", "visibility": visibility,
            "stdout_visibility": "hidden", "execution_time": round(seconds), "tests": tests}


def run(root: Path, tier: str, notebooks: list[str] | None, visibility: str, timeout: int | None = None) -> Path:
    """What run_autograder does: never raises for anything a student hands in."""
    started = time.monotonic()
    out = Path(root) / "results" / "results.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    # Gradescope's container refuses unshare: the kernels run as users of their own, closed out of these
    sandbox.guard([out.parent, Path(root) / "submission", Path(root) / "source"])
    verdicts, strays = grade_folder(Path(root) / "submission", expected_sources(tier, notebooks), timeout)
    strays += sandbox.settle()  # nothing a kernel started is left to touch what is written next
    out.write_text(json.dumps(results(verdicts, strays, visibility, time.monotonic() - started), indent=1))
    return out


def warm(paths: list[str]) -> int:
    """setup.sh's last step: each source notebook's reference reports, computed once into the image's cache so
    that no student waits for them. 1, saying why, when a reference does not pass its own tests in this image
    (every submission would get 0 there)."""
    from autograder.course import GradingInputError
    from autograder.pipeline import cells, expected

    for path in map(Path, paths):
        try:
            expected.Reference(path).reports(cells.read(path))
        except GradingInputError as e:
            print(f"setup.sh: {e}", file=sys.stderr)
            return 1
    return 0


def bundle(tier: str, notebooks: list[str] | None, visibility: str, out: Path, wheels: Path | None = None) -> list[str]:
    """Writes the zip (with `wheels`' *.whl files under wheels/, for setup.sh offline); returns the names of
    the notebooks it grades."""
    sources = expected_sources(tier, notebooks)
    torch, deps = course_copy.dependencies()
    args = [f"--tier={tier}", f"--visibility={visibility}"] + [f"--notebooks={s.stem}" for s in sources]
    out.parent.mkdir(parents=True, exist_ok=True)
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as z:
        _add_script(z, "setup.sh", SETUP.format(torch=shlex.quote(torch), deps=" ".join(map(shlex.quote, deps))))
        _add_script(z, "run_autograder", RUN.format(args=" ".join(args)))
        for path, name in course_copy.files(tier, sources):
            z.write(path, name)
        for wheel in sorted(Path(wheels).glob("*.whl")) if wheels else []:
            z.write(wheel, f"wheels/{wheel.name}", compress_type=zipfile.ZIP_STORED)  # zipped already
    return [s.stem for s in sources]


def dry_run(zip_path: Path, handins: Path, timeout: int = 1800) -> list[tuple[str, dict]]:
    """The zip's own run_autograder, run as Gradescope runs it (a fresh /autograder stand-in per submission,
    the zip unpacked as its source/), on each hand-in of a local folder, with this machine's Python in place
    of setup.sh's: a folder of .ipynb files is one submission, a folder of folders one per student.
    Returns (submission, its results.json)."""
    import os
    import shutil
    import subprocess
    import tempfile

    handins = Path(handins)
    subs = [handins] if any(handins.glob("*.ipynb")) else sorted(
        p for p in handins.iterdir() if p.is_dir() and not p.name.startswith("."))
    out = []
    with tempfile.TemporaryDirectory(prefix="ptlab-gradescope-") as tmp:
        source = Path(tmp) / "source"
        with zipfile.ZipFile(zip_path) as z:
            z.extractall(source)
        for script in ("setup.sh", "run_autograder"):
            (source / script).chmod(0o755)  # zipfile does not restore modes; Gradescope's unzip does
        env = {k: v for k, v in os.environ.items() if not k.startswith(("PTLAB_SOURCE_DIR", "PTLAB_CACHE_DIR"))}
        for i, sub in enumerate(subs):
            root = Path(tmp) / f"run{i}"
            shutil.copytree(sub, root / "submission", symlinks=True)
            (root / "source").symlink_to(source)
            subprocess.run([str(source / "run_autograder")], cwd=root, timeout=timeout, capture_output=True,
                           env=dict(env, PTLAB_AUTOGRADER_ROOT=str(root), PTLAB_PYTHON=sys.executable))
            out.append((sub.name, json.loads((root / "results" / "results.json").read_text())))
    return out


def _add_script(z: zipfile.ZipFile, name: str, text: str) -> None:
    info = zipfile.ZipInfo(name)
    info.external_attr = 0o100755 << 16  # an executable file: Gradescope runs both directly
    info.compress_type = zipfile.ZIP_DEFLATED
    z.writestr(info, text)
