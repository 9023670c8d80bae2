"""A synthetic class for the benches (bench.py, bench_cluster.py): nbgrader's layout filled from the course, half
blank hand-ins and half references, and the check that a batch graded it as built."""

from __future__ import annotations

import csv
import shutil
from pathlib import Path

from autograder.course import ROOT, source_notebooks


def synthetic_class(tier: str, students: int, course: Path) -> None:
    """nbgrader's layout, filled from the release (even students hand in the blank, odd ones the reference)."""
    for i in range(students):
        for src in source_notebooks(tier):
            pick = src if i % 2 else ROOT / "release" / tier / src.name
            dest = course / "submitted" / f"student{i:03d}" / tier / src.name
            dest.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy(pick, dest)


def expected_scores(csv_path: Path) -> tuple[int, int, list[str]]:
    """Blank hand-ins must score 0 and reference hand-ins full marks: a load test that grades wrongly fails."""
    with csv_path.open(newline="") as f:
        rows = list(csv.DictReader(f))
    wrong = []
    for r in rows:
        reference = int(r["student"].removeprefix("student")) % 2 == 1
        # a reference hand-in earns every autograded point; its written answers await a grader
        top = float(r.get("auto_max") or r["max_score"])
        want = top if reference else 0.0
        if r["status"] != "ok" or float(r["score"]) != want or top == 0:
            wrong.append(f"{r['student']}/{r['notebook']}: {r['score']}/{r['max_score']} {r['status']}")
    return len(rows), len(rows) - len(wrong), wrong
