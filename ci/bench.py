#!/usr/bin/env python
"""Printed figures, measured in one run (not timed tests):

1. CPU wall time of the whole solved curriculum in full mode, papermill with 1 worker and with 2;
2. `autograder check` time of every notebook, first check (the reference runs too) and later ones, through the
   check server a learner's self-check asks in `make lab` and as a one-off command; medians per tier, the
   slowest notebook and how many checks took over 15 s and over 60 s (targets: junior median under 3 s, a first
   check under 8 s; every check within 60 s on 2 cores under --load 2, most well under 15 s), and a progress
   call over a junior folder when one notebook changed (target: the check of that notebook + 3 s);
3. class-grading throughput, notebooks per minute: `autograder grade --workers 2` against plain sequential
   `nbgrader autograde` on the same synthetic class, side by side in one run (target: at least 2.5x on 2
   cores), beside the floor (ci/floor.py: the hand-ins' own cells in one warm kernel, the rate grading can
   approach and never pass), and through a local Dask scheduler with 1 and 2 worker processes;
4. with --suite: the test suite (`make test`'s pytest session), seconds per notebook;
5. a mock interview: composing it, its check against the self-checks of its notebooks (ci/bench_interview.py);
then one short table of all of it.

    python ci/bench.py [--tier junior] [--notebooks junior/02,mid/16] [--load 2] [--students 10]
                       [--skip-curriculum] [--skip-check] [--skip-class] [--baseline-students N] [--suite]

The load test (issue 6): make bench BENCH_ARGS="--students 200 --skip-curriculum --skip-check --baseline-students 10"
Check times and the floor on a loaded machine (issue 38), quickly on two notebooks:
    make bench BENCH_ARGS="--notebooks junior/02,mid/16 --load 2 --skip-curriculum --skip-interview
                           --skip-cluster --students 2 --baseline-students 2"
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from autograder.course import source_notebooks  # noqa: E402
from ci.burners import burning  # noqa: E402
from ci.class_bench import class_grading  # noqa: E402
from ci.latency import check_latency, check_rows, progress_latency  # noqa: E402
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


def pick(notebooks: list[Path], names: str | None) -> list[Path]:
    """The notebooks `--notebooks junior/02,mid/16` names (each a prefix of `tier/NN_name`); all without it."""
    if not names:
        return notebooks
    wanted = [n.strip() for n in names.split(",") if n.strip()]
    unknown = [w for w in wanted if not any(f"{p.parent.name}/{p.stem}".startswith(w) for p in notebooks)]
    if unknown:
        raise SystemExit(f"bench: no notebook is named {', '.join(unknown)} (write tier/NN, e.g. junior/02)")
    return [p for p in notebooks if any(f"{p.parent.name}/{p.stem}".startswith(w) for w in wanted)]


def check_times(notebooks: list[Path], table: list[tuple[str, str]]) -> None:
    for server in (True, False):
        first, later = check_latency(notebooks, server)
        how = "check server (make lab)" if server else "one-off python -m autograder check"
        for name, secs in later.items():
            print(f"check time, {how}: first {first[name]:6.1f} s, later {secs:6.1f} s  {name}", flush=True)
        table += check_rows(how, first, later)
    # a learner's junior folder, or the notebooks the run is narrowed to
    folder = notebooks if len(notebooks) < len(source_notebooks()) else source_notebooks("junior")
    unchanged, one, check = progress_latency(folder)
    table.append((f"progress over {len(folder)} notebooks, nothing changed", f"{unchanged:.1f} s"))
    table.append(("progress, one notebook changed / its check", f"{one:.1f} s / {check:.1f} s"))
    print()


def suite_rows(table: list[tuple[str, str]]) -> None:
    secs, n, per = suite_seconds()
    table.append(("make test (set up)", f"{secs:.0f} s, {secs / n:.1f} s of wall time per notebook ({n})"))
    if per:
        table.append(("suite seconds per notebook", f"median {statistics.median(per.values()):.1f} s, "
                      f"max {max(per.values()):.1f} s, all notebooks {sum(per.values()):.0f} s of worker time"))
        print("\nsuite: seconds of worker time per notebook (contract + nbval), slowest first")
        for name, t in sorted(per.items(), key=lambda kv: -kv[1]):
            print(f"  {t:6.1f}  {name}")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--tier", action="append", help="limit to tier(s); default: all")
    ap.add_argument("--notebooks", help="limit the curriculum and check figures to these, e.g. junior/02,mid/16")
    ap.add_argument("--load", type=float, default=0.0,
                    help="busy processes per core beside the whole run (ci/burners.py), e.g. 2; default: none")
    ap.add_argument("--students", type=int, default=10)
    ap.add_argument("--class-tier", default="junior", help="tier used for the synthetic class")
    ap.add_argument("--workers", type=int, default=2, help="grading workers for the class (default: 2)")
    ap.add_argument("--baseline-students", type=int, default=0,
                    help="time plain nbgrader on only the first N students of the class (default: all); its "
                         "serial run of a 200-student class takes about 4 hours on 2 cores")
    ap.add_argument("--floor-handins", type=int, default=12,
                    help="hand-ins of the class run for the floor (default: 12; 0: no floor)")
    ap.add_argument("--skip-curriculum", action="store_true")
    ap.add_argument("--skip-check", action="store_true")
    ap.add_argument("--skip-class", action="store_true", help="skip class grading, its floor and nbgrader's")
    ap.add_argument("--skip-cluster", action="store_true")
    ap.add_argument("--suite", action="store_true", help="also time the test suite (about 12 min)")
    ap.add_argument("--skip-interview", action="store_true", help="skip composing and checking a mock interview")
    args = ap.parse_args()
    notebooks = pick([p for t in (args.tier or ["junior", "mid", "senior"]) for p in source_notebooks(t)],
                     args.notebooks)
    if not notebooks:
        print("bench: no notebooks")
        return 1
    env_threads = {k: os.environ.get(k) for k in ("OMP_NUM_THREADS",)}
    with burning(args.load) as burners:
        load = f", {len(burners)} busy processes beside it ({args.load:g} per core)" if burners else ""
        print(f"bench: {len(notebooks)} notebooks, {os.cpu_count()} cores, threads env {env_threads}{load}\n")
        table: list[tuple[str, str]] = []
        wrong: list[str] = []
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
            check_times(notebooks, table)
        if not args.skip_interview:
            from ci.bench_interview import interview_rows

            table += interview_rows()
        if not args.skip_class:
            wrong = class_grading(args, table)
        if args.suite:
            suite_rows(table)
    if table:
        width = max(len(k) for k, _ in table)
        print(f"\nbench {time.strftime('%Y-%m-%d %H:%M')}, {os.cpu_count()} cores{load}")
        for k, v in table:
            print(f"  {k:<{width}}  {v}")
    return 0 if not wrong else 1


if __name__ == "__main__":
    raise SystemExit(main())
