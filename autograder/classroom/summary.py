"""What a batch did, said at its end: graded, skipped (already graded), faulted, flagged, and the class mean
per notebook over every graded row of the CSV."""

from __future__ import annotations

from collections import defaultdict


def faulted(row: dict) -> bool:
    return row.get("status", "ok") != "ok" and not row.get("flags")


def means(rows) -> dict[tuple[str, str], tuple[float, float, int]]:
    """{(assignment, notebook): (mean score, max score, students)} over rows that were graded."""
    got: dict[tuple, list] = defaultdict(list)
    top: dict[tuple, float] = {}
    for r in rows:
        if r.get("cells") or r.get("manual"):
            key = (r["assignment"], r["notebook"])
            got[key].append(float(r["score"]))
            top[key] = max(top.get(key, 0.0), float(r["max_score"]))
    return {k: (sum(v) / len(v), top[k], len(v)) for k, v in sorted(got.items())}


def text(graded: list[dict], skipped: int, rows, out, unreadable: int = 0) -> str:
    """graded: the rows this run graded; unreadable: hand-ins it could not even start on (layout); rows:
    every row of the CSV."""
    bad = sum(1 for r in graded if faulted(r)) + unreadable
    flagged = sum(1 for r in graded if r.get("flags"))
    pending = sum(int(r.get("manual_pending") or 0) for r in rows)
    lines = [f"graded {len(graded)} notebook(s), skipped {skipped} (already graded), faulted {bad}, "
             f"flagged {flagged} -> {out}"]
    if bad:
        lines.append(f"  {bad} could not be graded fully: see the status column")
    if pending:
        lines.append(f"  {pending} written answer(s) await a grader (formgrader)")
    for (assignment, notebook), (mean, top, n) in means(rows).items():
        lines.append(f"  class mean {assignment}/{notebook}: {mean:.2f} / {top:g} ({n} student(s))")
    return "\n".join(lines)
