"""A grading worker starts the next kernel while a notebook runs (autograder/isolation/warm.py). A notebook graded on a
warmed kernel scores and reads exactly like one graded on a fresh kernel, and no warmed kernel outlives
its worker."""

import json
import os
import subprocess
import sys

import nbformat
import pytest

from tests.tiny_course import ROOT, alive, blank, make_course

# Grades the same notebooks one after another in one process with warming on, and prints what a notebook
# could observe of its kernel: execution counts, the tests' verdicts, and whether it ran on a warmed kernel.
PROBE = r"""
import json, sys
from pathlib import Path
from autograder.pipeline import cells
from autograder.pipeline.sources import source_of
from autograder.isolation import warm
from autograder.pipeline.check import grade_submission
from autograder.pipeline.score import score

warm.enable()
marker = sys.argv[1]
taken = []
_take = warm.take
def spy(make):
    got = _take(make)
    taken.append(got is not None)
    return got
out = []
for path in sys.argv[2:]:
    r = grade_submission(cells.read(Path(path)), source_of(Path(path), cells.read(Path(path))), path,
                         kernels=spy)
    counts = [c.get("execution_count") for c in r.executed.cells if c.cell_type == "code"]
    out.append({"score": r.score, "passed": [t.passed for t in r.tests], "counts": counts, "faults": r.faults})
print(json.dumps({"runs": out, "warm": taken}))
"""


@pytest.mark.kernel
def test_a_warmed_kernel_grades_like_a_fresh_one_and_none_outlives_the_worker(tmp_path):
    src = make_course(tmp_path)
    ref = nbformat.read(str(src), 4)
    subs = []
    for name, nb in [("a", ref), ("b", blank(ref)), ("c", ref)]:
        path = tmp_path / "sub" / name / "junior" / "01_tiny.ipynb"
        path.parent.mkdir(parents=True)
        nbformat.write(nb, str(path))
        subs.append(str(path))
    marker = f"ptlab-warm-probe-{os.getpid()}"
    env = dict(os.environ, PTLAB_SOURCE_DIR=str(tmp_path / "notebooks"), PTLAB_WARM_PROBE=marker)
    done = subprocess.run([sys.executable, "-c", PROBE, marker, *subs], cwd=ROOT, env=env, capture_output=True,
                          text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    result = json.loads(done.stdout.strip().splitlines()[-1])
    first, second, third = result["runs"]
    assert result["warm"][1:] == [True, True], "later notebooks should run on the kernel warmed meanwhile"
    assert third == first, "the reference scored differently on a warmed kernel than on a fresh one"
    assert second["score"] == 0 and not any(second["passed"])
    # A warmed kernel's silent imports leave no trace a notebook can see: its cells count from 1.
    assert [c for c in third["counts"] if c is not None] == list(range(1, len(third["counts"]) + 1))
    assert alive(marker) == [], "a warmed kernel outlived the process that started it"
