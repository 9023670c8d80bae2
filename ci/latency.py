"""How long a learner waits for a check (ci/bench.py prints it): the first check of a notebook and later ones,
through the check server and one-off, and a progress call over a tier when one notebook changed."""

from __future__ import annotations

import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PY = sys.executable
# Issue 38: every notebook's check within a minute on 2 busy cores, most well under 15 s.
SLOW, TOO_SLOW = 15.0, 60.0


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


def check_rows(how: str, first: dict[str, float], later: dict[str, float]) -> list[tuple[str, str]]:
    """The bench table's lines for one way of checking: medians per tier, the slowest notebook, and how many
    checks took over SLOW and over TOO_SLOW seconds (a first check counts: a learner waits for it too)."""
    rows = []
    for tier in sorted({n.split("/")[0] for n in later}):
        med = statistics.median(v for n, v in later.items() if n.startswith(tier + "/"))
        med_first = statistics.median(v for n, v in first.items() if n.startswith(tier + "/"))
        rows.append((f"self-check, {tier}, {how}: first check / later median", f"{med_first:.1f} s / {med:.1f} s"))
    worst = max(first, key=lambda n: max(first[n], later[n]))
    checks = [*first.values(), *later.values()]
    rows.append((f"self-check, {how}: slowest notebook (first / later)",
                 f"{worst} {first[worst]:.1f} s / {later[worst]:.1f} s"))
    rows.append((f"self-check, {how}: checks over {SLOW:.0f} s / over {TOO_SLOW:.0f} s",
                 f"{sum(t > SLOW for t in checks)} / {sum(t > TOO_SLOW for t in checks)} of {len(checks)}"))
    return rows


def progress_latency(notebooks: list[Path]) -> tuple[float, float, float]:
    """(progress with nothing changed, progress after one notebook changed, check of that notebook), in s:
    a learner's folder with these notebooks solved, progress run once to fill its cache."""
    env = dict(os.environ, PTLAB_FAST="0")
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp) / "work"
        for src in notebooks:
            (work / src.parent.name).mkdir(parents=True, exist_ok=True)
            shutil.copy(src, work / src.parent.name / src.name)
        cmd = [PY, "-m", "autograder", "progress", str(work), "--json"]
        timed(cmd, cwd=ROOT, env=env)  # fills the progress cache
        unchanged = timed(cmd, cwd=ROOT, env=env)
        changed = work / notebooks[0].parent.name / notebooks[0].name
        raw = json.loads(changed.read_text())
        # a note never written before: the progress cache outlives a bench run, and must miss here
        raw["cells"].append({"cell_type": "markdown", "metadata": {}, "source": [f"my notes {time.time_ns()}"]})
        changed.write_text(json.dumps(raw))
        one = timed(cmd, cwd=ROOT, env=env)
        check = timed([PY, "-m", "autograder", "check", str(changed)], cwd=ROOT, env=env)
    return unchanged, one, check
