"""A CSV row's points, cell by cell: what the autograder gave, what a grader gave by hand, and the totals.

Columns (grades.csv, shared with the platform adapters; columns are only ever added):
- `cells`: `grade_id=points` for every autograded test cell, as the autograder scored it;
- `auto_max`: the autograded cells' maximum;
- `manual`: `grade_id=points/max` for each written answer (`?` awaiting a grader, `-` not answered) and for
  each test cell a grader overrode in formgrader;
- `comments`: the grader's comments, `grade_id: text` joined by ` | `;
- `late_penalty`: points taken off for lateness (nbgrader's late-submission plugin);
- `score` and `max_score`: the totals of all of it; `manual_pending`: written answers still awaiting a grader.
"""

from __future__ import annotations

PENDING, UNANSWERED = "?", "-"


def cell_points(row: dict) -> dict[str, float]:
    out = {}
    for item in (row.get("cells") or "").split():
        gid, _, pts = item.partition("=")
        out[gid] = float(pts)
    return out


def manual(row: dict) -> dict[str, tuple[str, float]]:
    """{grade_id: (points as text: a number, PENDING or UNANSWERED; max)}."""
    out = {}
    for item in (row.get("manual") or "").split():
        gid, _, rest = item.partition("=")
        value, _, top = rest.partition("/")
        out[gid] = (value, float(top or 0))
    return out


def format_manual(items: dict[str, tuple[str, float]]) -> str:
    return " ".join(f"{gid}={value}/{top:g}" for gid, (value, top) in items.items())


def comments(row: dict) -> dict[str, str]:
    out = {}
    for item in (row.get("comments") or "").split(" | "):
        gid, sep, text = item.partition(": ")
        if sep:
            out[gid] = text
    return out


def format_comments(items: dict[str, str]) -> str:
    # one line per row: a newline or the separator inside a comment would split it
    return " | ".join(f"{gid}: {' '.join(text.replace('|', '/').split())}" for gid, text in items.items() if text)


def _num(value: str) -> float | None:
    try:
        return float(value)
    except ValueError:
        return None


def per_cell(row: dict) -> dict[str, tuple[float | None, float]]:
    """Every graded cell's final points (a grader's override wins; None: awaiting a grader) and maximum."""
    auto = cell_points(row)
    man = manual(row)
    tops = {gid: top for gid, (_, top) in man.items()}
    out: dict[str, tuple[float | None, float]] = {gid: (pts, tops.get(gid, 0.0)) for gid, pts in auto.items()}
    for gid, (value, top) in man.items():
        out[gid] = (0.0 if value == UNANSWERED else _num(value), top)
    return out


def settle(row: dict) -> dict:
    """score, max_score and manual_pending recomputed from the row's cells (changed in place, returned).
    A row without cells (a hand-in that could not be graded) keeps what it has."""
    if not row.get("cells") and not row.get("manual"):
        return row
    auto = cell_points(row)
    man = manual(row)
    overrides = {gid: _num(v) for gid, (v, _) in man.items() if gid in auto and _num(v) is not None}
    total = sum(overrides.get(gid, pts) for gid, pts in auto.items())
    total += sum(_num(v) or 0.0 for gid, (v, _) in man.items() if gid not in auto)
    total -= float(row.get("late_penalty") or 0)
    auto_max = float(row.get("auto_max") or row.get("max_score") or 0)
    row["auto_max"] = f"{auto_max:g}"
    row["score"] = f"{max(0.0, total):g}"
    row["max_score"] = f"{auto_max + sum(top for gid, (_, top) in man.items() if gid not in auto):g}"
    row["manual_pending"] = sum(1 for gid, (v, _) in man.items() if v == PENDING)
    return row
