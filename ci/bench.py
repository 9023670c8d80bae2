#!/usr/bin/env python
"""Printed figures, measured in one run (not timed tests):

1. CPU wall time of the whole solved curriculum in full mode, papermill with 1 worker and with 2;
2. `autograder check` latency per notebook, reference reports cached (target: 15 s or less for a typical
   notebook);
3. class-grading throughput, notebooks per minute: `autograder grade --workers 2` against plain sequential
   `nbgrader autograde` on the same synthetic class of 10 students (target: at least 1.7x on 2 cores).

    python ci/bench.py [--tier junior] [--students 10] [--skip-curriculum] [--baseline-students N]

The load test (issue 6): make bench BENCH_ARGS="--students 200 --skip-curriculum --skip-check --baseline-students 10"
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
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
    """nbgrader's layout, filled from the release (even students hand in the blank, odd ones the reference)."""
    for i in range(students):
        for src in source_notebooks(tier):
            pick = src if i % 2 else ROOT / "release" / tier / src.name
            dest = course / "submitted" / f"student{i:03d}" / tier / src.name
            dest.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy(pick, dest)


class TreeMemory(threading.Thread):
    """Samples the resident memory of a process and all its descendants (workers, kernels, ranks), so
    "bounded memory" is a measured curve, not the largest single process."""

    def __init__(self, pid: int, every: float = 2.0):
        super().__init__(daemon=True)
        self.pid, self.every, self.samples = pid, every, []
        self.peak_process = 0.0
        self._halt = threading.Event()

    def run(self) -> None:
        import psutil

        while not self._halt.is_set():
            try:
                root = psutil.Process(self.pid)
                procs = [root, *root.children(recursive=True)]
            except psutil.Error:
                break
            total = 0.0
            for proc in procs:
                try:
                    rss = proc.memory_info().rss / 2**20
                except psutil.Error:
                    continue  # a kernel that ended between listing and reading
                total += rss
                self.peak_process = max(self.peak_process, rss)
            self.samples.append(total)
            self._halt.wait(self.every)

    def stop(self) -> None:
        self._halt.set()
        self.join()

    def summary(self) -> str:
        s = self.samples or [0.0]
        tenth = max(1, len(s) // 10)
        return (f"peak tree RSS {max(s):.0f} MB (first tenth of the run {max(s[:tenth]):.0f} MB, last tenth "
                f"{max(s[-tenth:]):.0f} MB), largest single process {self.peak_process:.0f} MB")


def expected_scores(csv_path: Path) -> tuple[int, int, list[str]]:
    """Blank hand-ins must score 0 and reference hand-ins full marks: a load test that grades wrongly fails."""
    with csv_path.open(newline="") as f:
        rows = list(csv.DictReader(f))
    wrong = []
    for r in rows:
        reference = int(r["student"].removeprefix("student")) % 2 == 1
        want = float(r["max_score"]) if reference else 0.0
        if r["status"] != "ok" or float(r["score"]) != want or float(r["max_score"]) == 0:
            wrong.append(f"{r['student']}/{r['notebook']}: {r['score']}/{r['max_score']} {r['status']}")
    return len(rows), len(rows) - len(wrong), wrong


def ours(course: Path, workers: int = 2) -> tuple[float, TreeMemory, subprocess.Popen]:
    cmd = [PY, "-m", "autograder", "grade", str(course / "submitted"), "--workers", str(workers),
           "--out", str(course / "grades.csv")]
    t0 = time.perf_counter()
    proc = subprocess.Popen(cmd, cwd=ROOT)  # its progress bar stays on the terminal: this run takes a while
    mem = TreeMemory(proc.pid)
    mem.start()
    proc.wait()
    mem.stop()
    return time.perf_counter() - t0, mem, proc


def nbgrader_sequential(tier: str, course: Path, students: int) -> tuple[float, TreeMemory]:
    """Plain nbgrader on the first `students` of the same class: generate_assignment into a gradebook of its
    own, then `nbgrader autograde`, which grades every submission in turn."""
    base = course / "nbgrader"
    for s in sorted((course / "submitted").iterdir())[:students]:
        shutil.copytree(s, base / "submitted" / s.name)
    # nbgrader creates its database with the `alembic` script it finds on PATH.
    os.environ["PATH"] = str(Path(PY).parent) + os.pathsep + os.environ.get("PATH", "")
    shutil.copytree(ROOT / "notebooks", base / "notebooks")
    shutil.copy(ROOT / "nbgrader_config.py", base / "nbgrader_config.py")
    gen = [PY, "-m", "nbgrader", "generate_assignment", tier, "--force", "--create", "--log-level=ERROR"]
    subprocess.run(gen, cwd=base, capture_output=True, text=True, check=True)
    for s in sorted(p.name for p in (base / "submitted").iterdir()):
        subprocess.run([PY, "-m", "nbgrader", "db", "student", "add", s, "--log-level=ERROR"], cwd=base,
                       capture_output=True, check=True)
    t0 = time.perf_counter()
    proc = subprocess.Popen([PY, "-m", "nbgrader", "autograde", tier, "--force", "--log-level=ERROR"], cwd=base,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    mem = TreeMemory(proc.pid)
    mem.start()
    proc.wait()
    mem.stop()
    return time.perf_counter() - t0, mem


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--tier", action="append", help="limit to tier(s); default: all")
    ap.add_argument("--students", type=int, default=10)
    ap.add_argument("--class-tier", default="junior", help="tier used for the synthetic class")
    ap.add_argument("--workers", type=int, default=2, help="grading workers for the class (default: 2)")
    ap.add_argument("--baseline-students", type=int, default=0,
                    help="time plain nbgrader on only the first N students of the class (default: all); its "
                         "serial run of a 200-student class takes about 4 hours on 2 cores")
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
    per_student = len(source_notebooks(tier))
    base_students = min(args.students, args.baseline_students or args.students)
    n_ours, n_nbg = args.students * per_student, base_students * per_student
    with tempfile.TemporaryDirectory() as tmp:
        course = Path(tmp)
        synthetic_class(tier, args.students, course)
        secs_ours, mem_ours, proc = ours(course, args.workers)
        graded, right, wrong = expected_scores(course / "grades.csv") if proc.returncode == 0 else (0, 0, ["failed"])
        # Said at once: the baseline that follows takes a while, and a long load run must not lose its figures.
        rate_ours = n_ours / secs_ours * 60
        print(f"\nclass grading, {args.students} students x {per_student} {tier} notebooks = {n_ours}, half blank, "
              f"half the reference, {os.cpu_count()} cores:", flush=True)
        print(f"    autograder grade --workers {args.workers}: {n_ours:5d} nbs {secs_ours:8.1f} s  "
              f"{rate_ours:6.1f} notebooks/min")
        print(f"        {mem_ours.summary()}")
        print(f"        graded {graded}, scored as expected {right}" + "".join(f"\n        WRONG {w}" for w in wrong[:10]),
              flush=True)
        secs_nbg, mem_nbg = nbgrader_sequential(tier, course, base_students)
    rate_nbg = n_nbg / secs_nbg * 60
    print(f"    nbgrader autograde (serial):  {n_nbg:5d} nbs {secs_nbg:8.1f} s  {rate_nbg:6.1f} notebooks/min"
          + (f"  (the first {base_students} students of the same class)" if base_students < args.students else ""))
    print(f"        {mem_nbg.summary()}")
    print(f"    speed-up {rate_ours / rate_nbg:.2f}x (target: at least 1.7x on 2 cores)")
    return 0 if not wrong else 1

if __name__ == "__main__":
    raise SystemExit(main())
