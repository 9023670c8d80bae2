"""How long a learner waits for a check (ci/bench.py prints it): the first check of a notebook and later ones."""

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


def timed(cmd: list[str], **kw) -> float:
    t0 = time.perf_counter()
    subprocess.run(cmd, capture_output=True, text=True, **kw)
    return time.perf_counter() - t0


def check_latency(notebooks: list[Path], server: bool = True) -> tuple[dict[str, float], dict[str, float]]:
    """(first check, mean of two later checks) per notebook, in seconds, as a learner waits for them: the command
    a notebook's check cell runs (progress streamed), on a solved copy with a note of the learner's (so its
    check is not itself the reference run), a cache of its own (so the first check also runs the reference),
    and, with `server`, the check server `make lab` gives the self-check (the very first check starts it)."""
    from autograder.learner.selfcheck import check_command

    first, later = {}, {}
    with tempfile.TemporaryDirectory(prefix="ptlab-bench-") as tmp:
        env = dict(os.environ, PTLAB_FAST="0", PTLAB_CACHE_DIR=str(Path(tmp) / "cache"), TMPDIR=tmp,
                   PTLAB_CHECK_SERVER="1" if server else "0")
        try:
            for p in notebooks:
                copy = Path(tmp) / p.parent.name / p.name
                copy.parent.mkdir(exist_ok=True)
                raw = json.loads(p.read_text())
                raw["cells"].append({"cell_type": "markdown", "metadata": {}, "source": ["my notes"]})
                copy.write_text(json.dumps(raw))
                name = f"{p.parent.name}/{p.stem}"
                cmd = check_command(copy)
                first[name] = timed(cmd, cwd=ROOT, env=env)
                later[name] = sum(timed(cmd, cwd=ROOT, env=env) for _ in range(2)) / 2
        finally:
            subprocess.run([PY, "-c", "from autograder.learner.check_client import stop_all; stop_all()"],
                           cwd=ROOT, env=env, capture_output=True)
    return first, later
