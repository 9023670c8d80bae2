"""Class grading, timed (ci/bench.py prints it): `autograder grade` and plain serial `nbgrader autograde` on one
synthetic class, with the memory of each one's whole process tree, beside the floor (ci/floor.py)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

from autograder.course import ROOT, source_notebooks
from ci.classes import expected_scores, synthetic_class

PY = sys.executable


class TreeMemory(threading.Thread):
    """Samples the memory of a process and all its descendants (workers, kernels, ranks), so "bounded
    memory" is a measured curve, not the largest single process. Each process counts its proportional set
    size (PSS: pages it shares, with the fork server and its sibling kernels, count once across them);
    where PSS cannot be read, its resident set size."""

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
                    try:
                        rss = proc.memory_full_info().pss / 2**20
                    except (psutil.AccessDenied, AttributeError):
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
        return (f"peak tree PSS {max(s):.0f} MB (first tenth of the run {max(s[:tenth]):.0f} MB, last tenth "
                f"{max(s[-tenth:]):.0f} MB), largest single process {self.peak_process:.0f} MB")


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


def class_grading(args, table: list[tuple[str, str]]) -> list[str]:
    """Ours, the floor and plain nbgrader on one synthetic class; the hand-ins scored wrongly."""
    from ci.floor import class_handins, floor

    tier = args.class_tier
    per_student = len(source_notebooks(tier))
    base_students = min(args.students, args.baseline_students or args.students)
    n_ours, n_nbg = args.students * per_student, base_students * per_student
    beside: list[tuple[str, str]] = []
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
        if args.floor_handins:
            low = floor(class_handins(tier, args.floor_handins, course / "floor"))
            wrong += [f"{name}: a reference hand-in raised in the floor's kernel" for name in low.failed]
            print(f"    floor, {low.line()}", flush=True)
            beside = [("floor: the hand-ins' own cells, one warm kernel per core", f"{low.per_minute:.1f} nb/min"),
                      ("grading against the floor", f"{rate_ours / low.per_minute:.0%} of it")]
        if not args.skip_cluster:
            from ci.bench_cluster import cluster_throughput

            for n_workers, rate in cluster_throughput(course / "submitted").items():
                table.append((f"grading on Dask, {n_workers} local worker(s)", f"{rate:.1f} nb/min"))
        secs_nbg, mem_nbg = nbgrader_sequential(tier, course, base_students)
    rate_nbg = n_nbg / secs_nbg * 60
    print(f"    nbgrader autograde (serial):  {n_nbg:5d} nbs {secs_nbg:8.1f} s  {rate_nbg:6.1f} notebooks/min"
          + (f"  (the first {base_students} students of the same class)" if base_students < args.students else ""))
    print(f"        {mem_nbg.summary()}")
    print(f"    speed-up {rate_ours / rate_nbg:.2f}x (target: at least 2.5x on 2 cores)")
    table += [(f"grading, autograder --workers {args.workers}", f"{rate_ours:.1f} nb/min"),
              *beside,
              ("grading, nbgrader autograde (serial)", f"{rate_nbg:.1f} nb/min"),
              ("grading speed-up", f"{rate_ours / rate_nbg:.2f}x"),
              ("peak memory of the grading tree, ours / nbgrader",
               f"{max(mem_ours.samples or [0]):.0f} MB / {max(mem_nbg.samples or [0]):.0f} MB")]
    return wrong
