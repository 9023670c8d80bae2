"""The grading mark (PTLAB_GRADING) and OpenMP's passive wait reach every kernel the grader starts, sandboxed or
not (PTLAB_SANDBOX=0, a trusted machine), and never the grader's own process: a grade run in a process does not
change what runs there afterwards (a check cell, a Colab check, a test in the same pytest worker)."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import nbformat
import pytest

from tests.tiny_course import ROOT, blank, make_course, with_answer

pytestmark = pytest.mark.kernel

# Right only in a kernel that carries both: a kernel without them fails the visible and hidden tests of ex1.
SEES_THE_MARKS = ("import os\n\n\n"
                  "def double(x):\n"
                  "    marked = os.environ.get('PTLAB_GRADING') == '1' and os.environ.get('OMP_WAIT_POLICY') == 'PASSIVE'\n"
                  "    return x + x if marked else None\n")

GRADE = """
import json, os, sys
from pathlib import Path
import nbformat
from autograder.pipeline.check import grade_submission
report = grade_submission(nbformat.read(sys.argv[1], 4), Path(sys.argv[2]), "01_tiny")
ex1 = [t for t in report.tests if t.grade_id == "ex1_double_test"][0]
print(json.dumps({"ex1": [ex1.points, ex1.max_points], "faults": report.faults,
                  "grader": os.environ.get("PTLAB_GRADING")}))
"""


@pytest.mark.parametrize("sandbox", ["1", "0"])
def test_every_grading_kernel_is_marked_and_the_grader_process_is_not(tmp_path, sandbox):
    source = make_course(tmp_path)
    hand_in = tmp_path / "hand-in.ipynb"
    nbformat.write(with_answer(blank(nbformat.read(str(source), 4)), "ex1_double", SEES_THE_MARKS), str(hand_in))
    env = {k: v for k, v in os.environ.items() if k not in ("PTLAB_GRADING", "OMP_WAIT_POLICY")}
    env.update(PTLAB_SANDBOX=sandbox, PTLAB_SOURCE_DIR=str(tmp_path / "notebooks"),
               PTLAB_CACHE_DIR=str(tmp_path / "cache"))
    done = subprocess.run([sys.executable, "-c", GRADE, str(hand_in), str(source)], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    seen = json.loads(done.stdout.strip().splitlines()[-1])
    assert seen["faults"] == [], seen
    assert seen["ex1"][0] == seen["ex1"][1] > 0, (
        f"with PTLAB_SANDBOX={sandbox} the graded kernel should carry PTLAB_GRADING=1 and OMP_WAIT_POLICY=PASSIVE; "
        f"ex1 scored {seen['ex1']}")
    assert seen["grader"] is None, "grading set PTLAB_GRADING in the grader's own process; only its kernels get it"
