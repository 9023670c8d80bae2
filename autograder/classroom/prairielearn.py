"""PrairieLearn's external grader: the student's files are in /grade/student, the result goes to
/grade/results/results.json (PrairieLearn's docs, "External Grading"): `score` in [0, 1], `tests[]` with
`name`, `points`, `max_points`, `message`, `output`; and `gradable: false` with `format_errors` when the
hand-in cannot be graded at all, so that the student loses no attempt over an unreadable file.

The entrypoint (`python -m autograder grade-in prairielearn --root /grade --tier T --notebooks NN`) runs in
an image with the course's environment and a copy of the course, as Gradescope's run_autograder does.

The image's python3 has the course's dependencies but not the grader, which PrairieLearn mounts with the
course (serverFilesCourse/ptlab). run.sh exports that folder as PYTHONPATH: every process of the grading
imports `autograder` from it wherever it starts, the kernel launcher above all, which starts in its scratch
folder (with only a `cd`, every hand-in failed there with "No module named autograder"). PYTHONPATH is on
the kernels' allow-list (isolation/environment.py), and no image needs building again for it. In the
sandbox a kernel's user cannot read the course, so the kernel itself finds nothing there, and needs nothing.
PTLAB_GRADE_ROOT stands in for /grade (a local try; tests/test_platform_imports.py).
"""

from __future__ import annotations

import json
import shlex
import shutil
from pathlib import Path

from autograder.classroom import course_copy
from autograder.classroom.verdicts import Verdict, expected_sources, grade_folder
from autograder.isolation import sandbox

IMAGE = "ptlab/grader"  # built from the Dockerfile the bundle writes, pushed where PrairieLearn can pull it
DOCKERFILE = """# The grading image: PrairieLearn's Python grader with the course's environment.
FROM prairielearn/grader-python
RUN pip install --no-cache-dir {torch} --index-url https://download.pytorch.org/whl/cpu \\
 && pip install --no-cache-dir {deps}
"""
RUN = """#!/usr/bin/env bash
# PrairieLearn's entrypoint for a {tier} notebook question: the student's file is in /grade/student.
set -euo pipefail
ROOT="${{PTLAB_GRADE_ROOT:-/grade}}"
COURSE="$ROOT/serverFilesCourse/ptlab"
# The image has the course's dependencies, not the grader: every process of the grading imports it from here,
# wherever it starts (the kernel launcher starts in its scratch folder).
export PYTHONPATH="$COURSE${{PYTHONPATH:+:$PYTHONPATH}}"
cd "$COURSE"
exec python3 -m autograder grade-in prairielearn --root "$ROOT" --tier {tier} "$@"
"""
QUESTION = """<pl-question-panel>
  <p>Upload your <code>{name}</code> (File, Download in JupyterLab). It is graded against the full test
  suite, visible and hidden, in a sandbox.</p>
</pl-question-panel>
<pl-file-upload file-names="{name}"></pl-file-upload>
<pl-submission-panel>
  <pl-external-grader-results></pl-external-grader-results>
  <pl-file-preview></pl-file-preview>
</pl-submission-panel>
"""


def results(verdicts: list[Verdict], strays: list[str]) -> dict:
    problems = [f"{v.notebook}: {v.problem}" for v in verdicts if v.problem]
    lines = [line for v in verdicts for line in v.summary()] + strays
    if problems:
        return {"gradable": False, "score": 0.0, "format_errors": problems,
                "message": "Not graded: " + "; ".join(problems), "output": "\n".join(lines), "tests": []}
    total, most = sum(v.score for v in verdicts), sum(v.max_score for v in verdicts)
    tests = [{"name": c.name, "description": f"graded cell {c.grade_id} of {c.notebook}",
              "points": c.score, "max_points": c.max_score, "message": "passed" if c.passed else c.message,
              "output": ""} for v in verdicts for c in v.cells]
    return {"gradable": True, "score": min(1.0, total / most) if most else 0.0,
            "message": f"{total:g} / {most:g} points (autograded cells)", "output": "\n".join(lines),
            "tests": tests}


def run(root: Path, tier: str, notebooks: list[str] | None, timeout: int | None = None) -> Path:
    out = Path(root) / "results" / "results.json"
    out.parent.mkdir(parents=True, exist_ok=True)  # PrairieLearn does not create it
    # PrairieLearn's container refuses unshare: the kernels run as users of their own, closed out of these
    sandbox.guard([out.parent, Path(root) / "student", Path(root) / "serverFilesCourse"])
    verdicts, strays = grade_folder(Path(root) / "student", expected_sources(tier, notebooks), timeout)
    strays += sandbox.settle()  # nothing a kernel started is left to touch what is written next
    out.write_text(json.dumps(results(verdicts, strays), indent=1))
    return out


def bundle(tier: str, notebooks: list[str] | None, out: Path) -> list[str]:
    """A folder to merge into a PrairieLearn course: serverFilesCourse/ptlab (the grader and the sources),
    one question per notebook, and the Dockerfile of the grading image."""
    sources = expected_sources(tier, notebooks)
    base = Path(out) / "serverFilesCourse" / "ptlab"
    for path, name in course_copy.files(tier, sources):
        (base / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(path, base / name)
    run = base / "run.sh"
    run.write_text(RUN.format(tier=tier))
    run.chmod(0o755)
    torch, deps = course_copy.dependencies()
    (Path(out) / "Dockerfile").write_text(DOCKERFILE.format(torch=shlex.quote(torch),
                                                            deps=" ".join(map(shlex.quote, deps))))
    for src in sources:
        q = Path(out) / "questions" / f"ptlab_{tier}_{src.stem}"
        q.mkdir(parents=True, exist_ok=True)
        (q / "question.html").write_text(QUESTION.format(name=src.name))
        info = {"uuid": _uuid(tier, src.stem), "title": f"{tier}: {src.stem}", "topic": f"PyTorch {tier}",
                "type": "v3", "gradingMethod": "External", "singleVariant": True,
                "externalGradingOptions": {
                    "enabled": True, "image": IMAGE, "serverFilesCourse": ["ptlab/"],
                    "entrypoint": f"/grade/serverFilesCourse/ptlab/run.sh --notebooks {src.stem}",
                    "timeout": 600}}
        (q / "info.json").write_text(json.dumps(info, indent=2) + "\n")
    return [s.stem for s in sources]


def _uuid(tier: str, stem: str) -> str:
    """Stable across rebuilds: PrairieLearn keys a question's history by its uuid."""
    import uuid

    return str(uuid.uuid5(uuid.NAMESPACE_URL, f"pytorch-interview-lab/{tier}/{stem}"))
