"""No verdict on a correct answer depends on the machine's speed (issue 38): the class grader, as an instructor
runs it (`autograder grade --workers 2`, full mode, a cold reference cache, so the references run under load
too), gives every solved notebook full marks while two CPU-bound processes per core run beside it.

Long (the whole curriculum, on a loaded machine): marked `under_load`, so `make test` skips it and
`make test-load` (`pytest -m under_load`) runs it. PTLAB_UNDER_LOAD_NOTEBOOKS=junior/02,mid/16 narrows it to
those notebooks, for a quick proof.
"""

import csv
import os
import subprocess
import sys

import pytest

from autograder.course import ROOT, TIERS, source_notebooks
from ci.bench import pick
from ci.burners import burning

pytestmark = pytest.mark.under_load
PER_CORE = 2
# Far above what a tier takes even under load (a junior tier: minutes): reached only when grading hangs.
LIMIT_S = 3 * 3600


@pytest.fixture(autouse=True)
def _asked_for(request):
    if "under_load" not in (request.config.getoption("markexpr") or ""):
        pytest.skip("long: runs with -m under_load (make test-load)")


def _notebooks(tier: str):
    chosen = pick(source_notebooks(), os.environ.get("PTLAB_UNDER_LOAD_NOTEBOOKS"))
    return [p for p in chosen if p.parent.name == tier]


@pytest.mark.parametrize("tier", TIERS)
def test_every_solved_notebook_earns_full_marks_on_a_busy_machine(tier, tmp_path):
    notebooks = _notebooks(tier)
    if not notebooks:
        pytest.skip(f"no {tier} notebook among PTLAB_UNDER_LOAD_NOTEBOOKS")
    for src in notebooks:  # one student who hands in every reference of the tier
        dest = tmp_path / "submitted" / "solver" / tier / src.name
        dest.parent.mkdir(parents=True, exist_ok=True)
        dest.write_bytes(src.read_bytes())
    out = tmp_path / "grades.csv"
    env = {k: v for k, v in os.environ.items() if k != "PTLAB_FAST"}
    env.update(PTLAB_CACHE_DIR=str(tmp_path / "cache"))
    with burning(PER_CORE) as burners:
        assert burners, "no burner started: the grading below would not be under load"
        done = subprocess.run([sys.executable, "-m", "autograder", "grade", str(tmp_path / "submitted"),
                               "--workers", "2", "--out", str(out)], cwd=ROOT, env=env, capture_output=True,
                              text=True, timeout=LIMIT_S)
    assert done.returncode == 0, f"grading the {tier} references under load failed:\n{done.stderr[-3000:]}"
    with out.open(newline="") as f:
        rows = {r["notebook"]: r for r in csv.DictReader(f)}
    assert sorted(rows) == sorted(p.stem for p in notebooks), "some hand-ins got no row in grades.csv"
    short = [f"{tier}/{name}: {r['score']}/{r['auto_max']} ({r['status']}; failed: {r['failed'] or '-'})"
             for name, r in sorted(rows.items())
             if r["status"] != "ok" or float(r["auto_max"] or 0) <= 0
             or abs(float(r["score"]) - float(r["auto_max"])) > 1e-9]
    assert not short, (f"with {len(burners)} busy processes beside the grader, these references lost points "
                       "(a time limit, or a test whose verdict depends on speed):\n  " + "\n  ".join(short))
