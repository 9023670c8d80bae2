#!/usr/bin/env python
"""Printed figures, measured in one run (not timed tests):

1. CPU wall time of the whole solved curriculum in full mode, papermill with 1 worker and with 2;
2. `autograder check` latency per notebook, reference reports cached (target: 15 s or less for a typical
   notebook);
3. class-grading throughput, notebooks per minute: `autograder grade --workers 2` against plain sequential
   `nbgrader autograde` on the same synthetic class of 10 students (target: at least 1.7x on 2 cores).

    python ci/bench.py [--tier junior] [--students 10] [--skip-curriculum]
"""

from __future__ import annotations

import argparse
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
sys.path.insert(0, str(ROOT))

from autograder.course import source_notebooks  # noqa: E402

PY = sys.executable


def timed(cmd: list[str], **kw) -> tuple[float, subprocess.CompletedProcess]:
    t0 = time.perf_counter()
    done = subprocess.run(cmd, capture_output=True, text=True, **kw)
    return time.perf_counter() - t0, done


def peak_child_mb() -> float:
    """Largest resident set of any finished child process so far (Linux reports KiB)."""
    import resource

    return resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024


def curriculum_wall(workers: int, notebooks: list[Path]) -> tuple[float, dict]:
    with tempfile.TemporaryDirectory() as out:
        secs, done = timed([PY, str(ROOT / "ci" / "run_notebooks.py"), "--device", "cpu", "--full",
                            "--workers", str(workers), "--out", out, *map(str, notebooks)], cwd=ROOT)
        report = json.loads((Path(out) / "report.json").read_text()) if (Path(out) / "report.json").exists() else {}
    return secs, report


def check_latency(notebooks: list[Path]) -> dict[str, float]:
    """What a learner waits for a check, once the machine has the reference's reports (the very first
    check of a notebook also runs its reference, about twice the time)."""
    env = dict(os.environ, PTLAB_FAST="0")
    for p in notebooks:  # warm-up: the reference runs, untimed
        subprocess.run([PY, "-m", "autograder", "check", str(p)], cwd=ROOT, env=env, capture_output=True)
    return {f"{p.parent.name}/{p.stem}": timed([PY, "-m", "autograder", "check", str(p)], cwd=ROOT, env=env)[0]
            for p in notebooks}


def synthetic_class(tier: str, students: int, course: Path) -> None:
    """nbgrader's layout, filled from the release (half the class blank, half handing in the reference)."""
    for i in range(students):
        for src in source_notebooks(tier):
            pick = src if i % 2 else ROOT / "release" / tier / src.name
            dest = course / "submitted" / f"student{i:02d}" / tier / src.name
            dest.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy(pick, dest)


def nbgrader_sequential(tier: str, course: Path) -> float:
    """Plain nbgrader: generate_assignment into the gradebook, then autograde every student in turn."""
    # nbgrader creates its database with the `alembic` script it finds on PATH.
    os.environ["PATH"] = str(Path(PY).parent) + os.pathsep + os.environ.get("PATH", "")
    shutil.copytree(ROOT / "notebooks", course / "notebooks", dirs_exist_ok=True)
    shutil.copy(ROOT / "nbgrader_config.py", course / "nbgrader_config.py")
    gen = [PY, "-m", "nbgrader", "generate_assignment", tier, "--force", "--create", "--log-level=ERROR"]
    subprocess.run(gen, cwd=course, capture_output=True, text=True, check=True)
    students = sorted(p.name for p in (course / "submitted").iterdir())
    for s in students:
        subprocess.run([PY, "-m", "nbgrader", "db", "student", "add", s, "--log-level=ERROR"], cwd=course,
                       capture_output=True, check=True)
    secs, _ = timed([PY, "-m", "nbgrader", "autograde", tier, "--force", "--log-level=ERROR"], cwd=course)
    return secs


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--tier", action="append", help="limit to tier(s); default: all")
    ap.add_argument("--students", type=int, default=10)
    ap.add_argument("--class-tier", default="junior", help="tier used for the synthetic class")
    ap.add_argument("--skip-curriculum", action="store_true")
    ap.add_argument("--skip-check", action="store_true")
    args = ap.parse_args()
    notebooks = [p for t in (args.tier or ["junior", "mid", "senior"]) for p in source_notebooks(t)]
    if not notebooks:
        print("bench: no notebooks")
        return 1
    env_threads = {k: os.environ.get(k) for k in ("OMP_NUM_THREADS",)}
    print(f"bench: {len(notebooks)} notebooks, {os.cpu_count()} cores, threads env {env_threads}\n")

    if not args.skip_curriculum:
        for workers in (1, 2):
            secs, report = curriculum_wall(workers, notebooks)
            bad = [n["notebook"] for n in report.get("notebooks", []) if n["status"] != "ok"]
            print(f"curriculum, full mode, {workers} worker(s): {secs:7.1f} s wall" + (f"  FAILED: {bad}" if bad else ""))
            if workers == 1:
                for n in report.get("notebooks", []):
                    print(f"    {n['seconds']:6.1f} s  {n['notebook']}")
        print()

    if not args.skip_check:
        lat = check_latency(notebooks)
        for name, secs in lat.items():
            print(f"check latency {secs:6.1f} s  {name}")
        print(f"check latency: median {statistics.median(lat.values()):.1f} s, max {max(lat.values()):.1f} s "
              f"(target: 15 s or less for a typical notebook)\n")

    tier = args.class_tier
    n_nb = args.students * len(source_notebooks(tier))
    with tempfile.TemporaryDirectory() as tmp:
        course = Path(tmp)
        synthetic_class(tier, args.students, course)
        secs_ours, done = timed([PY, "-m", "autograder", "grade", str(course / "submitted"), "--workers", "2",
                                 "--out", str(course / "grades.csv")], cwd=ROOT)
        mem_ours = peak_child_mb()
        secs_nbg = nbgrader_sequential(tier, course)
        mem_nbg = peak_child_mb()
    ours, theirs = n_nb / secs_ours * 60, n_nb / secs_nbg * 60
    print(f"class grading, {args.students} students x {len(source_notebooks(tier))} {tier} notebooks = {n_nb}:")
    print(f"    autograder grade --workers 2: {secs_ours:7.1f} s  {ours:6.1f} notebooks/min  "
          f"peak process RSS {mem_ours:.0f} MB")
    print(f"    nbgrader autograde (serial):  {secs_nbg:7.1f} s  {theirs:6.1f} notebooks/min  "
          f"peak process RSS so far {mem_nbg:.0f} MB")
    print(f"    speed-up {ours / theirs:.2f}x (target: at least 1.7x on 2 cores)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
