#!/usr/bin/env python
"""Printed figures, measured in one run (not timed tests):

1. CPU wall time of the whole solved curriculum in full mode, papermill with 1 worker and with 2;
2. `autograder check` latency per notebook, first check (the reference runs too) and later ones, medians per
   tier, through the check server a learner's self-check asks in `make lab` and as a one-off command
   (targets: junior median under 3 s, a first check under 8 s), and a progress call over all notebooks when
   one changed (target: the check of that notebook + 3 s);
3. class-grading throughput, notebooks per minute: `autograder grade --workers 2` against plain sequential
   `nbgrader autograde` on the same synthetic class, side by side in one run (target: at least 2.5x on 2
   cores), and through a local Dask scheduler with 1 and 2 worker processes;
4. with --suite: the test suite (`make test`'s pytest session), seconds per notebook;
5. a mock interview: composing it, its check against the self-checks of its notebooks (ci/bench_interview.py);
then one short table of all of it.

    python ci/bench.py [--tier junior] [--students 10] [--skip-curriculum] [--baseline-students N] [--suite]

The load test (issue 6): make bench BENCH_ARGS="--students 200 --skip-curriculum --skip-check --baseline-students 10"
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
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from autograder.course import source_notebooks  # noqa: E402
from ci.classes import expected_scores, synthetic_class  # noqa: E402
from ci.latency import check_latency  # noqa: E402
from ci.nodes import notebook_named  # noqa: E402

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


def progress_latency(tier: str) -> tuple[float, float, float]:
    """(progress with nothing changed, progress after one notebook changed, check of that notebook), in s:
    a learner's folder with every notebook of the tier solved, progress run once to fill its cache."""
    env = dict(os.environ, PTLAB_FAST="0")
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp) / "work"
        for src in source_notebooks(tier):
            (work / tier).mkdir(parents=True, exist_ok=True)
            shutil.copy(src, work / tier / src.name)
        cmd = [PY, "-m", "autograder", "progress", str(work), "--json"]
        timed(cmd, cwd=ROOT, env=env)  # fills the progress cache
        unchanged = timed(cmd, cwd=ROOT, env=env)[0]
        changed = work / tier / source_notebooks(tier)[0].name
        raw = json.loads(changed.read_text())
        # a note never written before: the progress cache outlives a bench run, and must miss here
        raw["cells"].append({"cell_type": "markdown", "metadata": {}, "source": [f"my notes {time.time_ns()}"]})
        changed.write_text(json.dumps(raw))
        one = timed(cmd, cwd=ROOT, env=env)[0]
        check = timed([PY, "-m", "autograder", "check", str(changed)], cwd=ROOT, env=env)[0]
    return unchanged, one, check


def suite_seconds() -> tuple[float, int, dict[str, float]]:
    """`make test` once set up (lint, unit tests, every notebook's contract, nbval): wall seconds, and the
    seconds each notebook's tests took (contract and nbval cells, summed over the workers that ran them)."""
    with tempfile.TemporaryDirectory(prefix="ptlab-bench-") as tmp:
        report = Path(tmp) / "suite.xml"
        env = dict(os.environ, PYTEST_ADDOPTS=f"--junitxml={report}")
        secs, done = timed(["make", "test"], cwd=ROOT, env=env)
        if done.returncode != 0:
            print(done.stdout[-2000:])
            raise SystemExit("bench: the suite failed; its time is no figure")
        return secs, len(source_notebooks()), seconds_per_notebook(report)


def seconds_per_notebook(junit_xml: Path) -> dict[str, float]:
    """tier/notebook -> seconds of the test items about it, from pytest's JUnit report."""
    import xml.etree.ElementTree as ET

    out: dict[str, float] = {}
    for case in ET.parse(junit_xml).iter("testcase"):
        key = notebook_named(case.get("name", "")) or notebook_named(case.get("classname", ""))
        if key:
            out[key] = out.get(key, 0.0) + float(case.get("time", 0) or 0)
    return out


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
    ap.add_argument("--skip-cluster", action="store_true")
    ap.add_argument("--suite", action="store_true", help="also time the test suite (about 12 min)")
    ap.add_argument("--skip-interview", action="store_true", help="skip composing and checking a mock interview")
    args = ap.parse_args()
    table: list[tuple[str, str]] = []
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
        for server in (True, False):
            first, lat = check_latency(notebooks, server)
            how = "check server (make lab)" if server else "one-off python -m autograder check"
            for name, secs in lat.items():
                print(f"check latency, {how}: first {first[name]:6.1f} s, later {secs:6.1f} s  {name}")
            for t in sorted({n.split("/")[0] for n in lat}):
                med = statistics.median(v for n, v in lat.items() if n.startswith(t + "/"))
                med_first = statistics.median(v for n, v in first.items() if n.startswith(t + "/"))
                table.append((f"self-check, {t}, {how}: first check / later median",
                              f"{med_first:.1f} s / {med:.1f} s"))
        unchanged, one, check = progress_latency("junior")
        table.append(("progress, nothing changed", f"{unchanged:.1f} s"))
        table.append(("progress, one notebook changed / its check", f"{one:.1f} s / {check:.1f} s"))
        print()

    if not args.skip_interview:
        from ci.bench_interview import interview_rows

        table += interview_rows()

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
              ("grading, nbgrader autograde (serial)", f"{rate_nbg:.1f} nb/min"),
              ("grading speed-up", f"{rate_ours / rate_nbg:.2f}x"),
              ("peak memory of the grading tree, ours / nbgrader",
               f"{max(mem_ours.samples or [0]):.0f} MB / {max(mem_nbg.samples or [0]):.0f} MB")]
    if args.suite:
        secs, n, per = suite_seconds()
        table.append(("make test (set up)", f"{secs:.0f} s, {secs / n:.1f} s of wall time per notebook ({n})"))
        if per:
            table.append(("suite seconds per notebook", f"median {statistics.median(per.values()):.1f} s, "
                          f"max {max(per.values()):.1f} s, all notebooks {sum(per.values()):.0f} s of worker time"))
            print("\nsuite: seconds of worker time per notebook (contract + nbval), slowest first")
            for name, t in sorted(per.items(), key=lambda kv: -kv[1]):
                print(f"  {t:6.1f}  {name}")
    width = max(len(k) for k, _ in table)
    print(f"\nbench {time.strftime('%Y-%m-%d %H:%M')}, {os.cpu_count()} cores")
    for k, v in table:
        print(f"  {k:<{width}}  {v}")
    return 0 if not wrong else 1

if __name__ == "__main__":
    raise SystemExit(main())
