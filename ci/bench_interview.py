"""The bench's interview figures (issue 23, item 7): composing a mock interview, and its check against the
self-checks of the notebooks its exercises come from."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PY = sys.executable


def _seconds(cmd: list[str], env: dict) -> float:
    t0 = time.perf_counter()
    subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True)
    return time.perf_counter() - t0


def interview_latency(level: str = "junior", count: int = 3, seed: int = 1) -> tuple[float, float, float, int]:
    """(seconds to compose an interview, its check, the self-checks of the notebooks its exercises come from,
    summed; how many notebooks): all warm and solved, in a cache of their own so that a learner's history
    stays as it was. Target: composing under 5 s, the interview's check under the self-checks + 3 s."""
    with tempfile.TemporaryDirectory(prefix="ptlab-bench-interview-") as tmp:
        env = dict(os.environ, PTLAB_FAST="0", PTLAB_CACHE_DIR=str(Path(tmp) / "cache"))
        done = subprocess.run([PY, "-m", "autograder", "interview", "--level", level, "--count", str(count), "--seed",
                               str(seed), "--dir", str(Path(tmp) / "work"), "--no-warm"], cwd=ROOT, env=env,
                              capture_output=True, text=True)
        composed = float(done.stdout.split("composed in ")[1].split(" s")[0])
        (path,) = (Path(tmp) / "work" / "interviews").glob("*.ipynb")
        ident = json.loads(path.read_text())["metadata"]["ptlab"]["composed"]
        solved = Path(tmp) / "cache" / "composed" / f"{ident}.ipynb"
        keys = json.loads(solved.with_suffix(".json").read_text())["keys"]
        own = sorted({ROOT / "notebooks" / k.split("/")[0] / f"{k.split('/')[1]}.ipynb" for k in keys})
        for p in [solved, *own]:  # warm-up: the references run, untimed
            subprocess.run([PY, "-m", "autograder", "check", str(p)], cwd=ROOT, env=env, capture_output=True)
        check = _seconds([PY, "-m", "autograder", "check", str(solved)], env)
        selfchecks = sum(_seconds([PY, "-m", "autograder", "check", str(p)], env) for p in own)
    return composed, check, selfchecks, len(own)


def interview_rows() -> list[tuple[str, str]]:
    composed, check, own, n_own = interview_latency()
    print(f"interview: composed in {composed:.1f} s; its check {check:.1f} s, the self-checks of its {n_own} "
          f"notebooks {own:.1f} s\n")
    return [("interview, composing (target under 5 s)", f"{composed:.1f} s"),
            (f"interview check / self-checks of its {n_own} notebooks (target: + 3 s at most)",
             f"{check:.1f} s / {own:.1f} s")]
