"""GitHub Classroom: the runner result its autograding reporter reads, and the workflow that produces it.

The reporter (classroom-resources/autograding-grading-reporter) takes a list of runner ids and, for each,
reads the environment variable `<ID>_RESULTS`: base64 of a JSON object with `version`, `status` ("pass",
"fail" or "error"), `max_score` and `tests[]` (`name`, `status`, `score`, `message`, ...). It adds up the
tests' scores out of the runners' max scores and posts the total to GitHub Classroom. Here a runner is one
notebook: its step runs `check NB --format github-classroom`, the same grading as `check`.

The student's repository holds only the student notebooks; the workflow checks out the course (the source
notebooks with their hidden tests) from a private repository with a token the instructor stores as a secret.
"""

from __future__ import annotations

import base64
import json
from pathlib import Path

from autograder.classroom import course_copy
from autograder.classroom.verdicts import Verdict, expected_sources

TEMPLATE_DIR = Path("classroom") / "github"
WORKFLOW = Path(".github") / "workflows" / "classroom.yml"


def runner_result(verdict: Verdict) -> dict:
    tests = [{"name": c.name, "status": "pass" if c.passed else "fail", "score": c.score,
              "message": "" if c.passed else c.message, "test_code": "", "filename": f"{c.notebook}.ipynb",
              "line_no": 0, "duration": 0} for c in verdict.cells]
    if verdict.problem or verdict.faults or verdict.flags:
        # The reporter prints each test's message: the notebook's own news goes in as one test worth nothing.
        tests.insert(0, {"name": f"{verdict.notebook}: the notebook", "status": "error" if verdict.problem else "fail",
                         "score": 0, "message": "; ".join(verdict.summary()[1:]), "test_code": "",
                         "filename": f"{verdict.notebook}.ipynb", "line_no": 0, "duration": 0})
    status = "error" if verdict.problem else "pass" if all(c.passed for c in verdict.cells) else "fail"
    return {"version": 1, "status": status, "max_score": verdict.max_score, "tests": tests}


def encode(result: dict) -> str:
    return base64.b64encode(json.dumps(result).encode()).decode()


def _runner(stem: str) -> str:
    return "nb-" + stem.split("_")[0]


def workflow(tier: str, notebooks: list[str] | None = None) -> str:
    """The workflow file for an assignment (a tier, or some of its notebooks)."""
    sources = expected_sources(tier, notebooks)
    steps = "".join(f"""      - name: "{s.stem}"
        id: {_runner(s.stem)}
        working-directory: course
        run: |
          result=$(python -m autograder check "../submission/{s.name}" --format github-classroom) || true
          echo "result=$result" >> "$GITHUB_OUTPUT"
""" for s in sources)
    env = "".join(f"""
          {_runner(s.stem).upper()}_RESULTS: "${{{{ steps.{_runner(s.stem)}.outputs.result }}}}\"""" for s in sources)
    runners = ",".join(_runner(s.stem) for s in sources)
    torch = course_copy.dependencies()[0]  # the reference reports are computed with the same torch
    return f"""# GitHub Classroom autograding for the {tier} notebooks of the PyTorch Interview Lab.
# Written by `python -m autograder bundle github-classroom --tier {tier}`; README.md beside it says how to set it up.
name: Autograding Tests
"on":
  - push
  - workflow_dispatch
  - repository_dispatch
permissions:
  checks: write
  actions: read
  contents: read
jobs:
  run-autograding-tests:
    runs-on: ubuntu-latest
    if: github.actor != 'github-classroom[bot]'
    timeout-minutes: 60
    steps:
      - name: Check out the student's notebooks
        uses: actions/checkout@v4
        with:
          path: submission
      - name: Check out the course (source notebooks with the hidden tests)
        uses: actions/checkout@v4
        with:
          repository: ${{{{ vars.PTLAB_COURSE_REPOSITORY }}}}
          token: ${{{{ secrets.PTLAB_COURSE_TOKEN }}}}
          path: course
      - uses: actions/setup-python@v5
        with:
          python-version: "3.11"
      - name: Install the grader's environment
        run: |
          python -m pip install -q {torch} --index-url https://download.pytorch.org/whl/cpu
          python -m pip install -q -e course
{steps}
      - name: Autograding Reporter
        uses: classroom-resources/autograding-grading-reporter@v1
        env:{env}
        with:
          runners: {runners}
"""


def write_template(tier: str, notebooks: list[str] | None, out: Path) -> Path:
    path = Path(out) / WORKFLOW
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(workflow(tier, notebooks))
    return path
