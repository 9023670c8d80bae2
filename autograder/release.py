"""Generate the student notebooks with nbgrader, and tell when the committed ones are stale."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from autograder.course import RELEASE_DIR, ROOT, TIERS, source_notebooks


def generate(tiers=TIERS, release_dir: Path = RELEASE_DIR) -> None:
    """nbgrader generate_assignment, one tier (assignment) at a time, without a database.

    nbgrader writes into a scratch directory; files then move into place one by one (os.replace is
    atomic), so a reader never sees a half-written release, and notebooks without a source disappear."""
    for tier in tiers:
        target = Path(release_dir) / tier
        with tempfile.TemporaryDirectory(prefix="ptlab-gen-") as tmp:
            if source_notebooks(tier):
                cmd = [sys.executable, "-m", "nbgrader", "generate_assignment", tier, "--no-db", "--force",
                       "--log-level=WARN", f"--CourseDirectory.root={ROOT}",
                       f"--CourseDirectory.release_directory={tmp}"]
                done = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True)
                if done.returncode != 0:
                    raise RuntimeError(f"nbgrader generate_assignment {tier} failed:\n{done.stderr[-2000:]}")
            fresh = sorted((Path(tmp) / tier).glob("*.ipynb"))
            target.mkdir(parents=True, exist_ok=True)
            for f in fresh:
                shutil.copy(f, target / f".{f.name}.tmp")
                os.replace(target / f".{f.name}.tmp", target / f.name)
            for old in target.glob("*.ipynb"):
                if old.name not in {f.name for f in fresh}:
                    old.unlink()


def _canonical(path: Path) -> str:
    return json.dumps(json.loads(path.read_text()), sort_keys=True)


def stale(tiers=TIERS) -> list[str]:
    """Release files that differ from what nbgrader would generate now (or that should not exist)."""
    with tempfile.TemporaryDirectory(prefix="ptlab-release-") as tmp:
        generate(tiers, Path(tmp))
        problems = []
        for tier in tiers:
            fresh = {p.name: p for p in sorted((Path(tmp) / tier).glob("*.ipynb"))}
            have = {p.name: p for p in sorted((RELEASE_DIR / tier).glob("*.ipynb"))}
            for name in sorted(fresh.keys() | have.keys()):
                rel = f"release/{tier}/{name}"
                if name not in have:
                    problems.append(f"{rel}: missing")
                elif name not in fresh:
                    problems.append(f"{rel}: has no source notebook")
                elif _canonical(fresh[name]) != _canonical(have[name]):
                    problems.append(f"{rel}: stale")
        return problems
