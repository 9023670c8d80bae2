"""A CSV row's points, cell by cell: what the autograder gave, what a grader gave by hand, and the totals.

Columns (grades.csv, shared with the platform adapters; columns are only ever added):
- `cells`: `grade_id=points` for every autograded test cell, as the autograder scored it;
- `auto_max`: the autograded cells' maximum;
- `manual`: `grade_id=points/max` for each written answer (`?` awaiting a grader, `-` not answered) and for
  each test cell a grader overrode in formgrader;
- `comments`: the grader's comments, `grade_id: text` joined by ` | `;
- `late_penalty`: points taken off for lateness (nbgrader's late-submission plugin);
- `score` and `max_score`: the totals of all of it; `manual_pending`: written answers still awaiting a grader.

Every CSV the course writes (grades.csv, the LMS files) writes its cells through `csv_cell`: names are data,
and a spreadsheet runs a cell that starts with `=`, `+`, `-`, `@`, a tab or a carriage return (CSV
injection), so such a text is written after a single quote (OWASP's rule); a plain number stays a number.
`from_csv_cell` undoes it, so a name reads back as it was.
"""

from __future__ import annotations

import re

PENDING, UNANSWERED = "?", "-"
FORMULA_START = ("=", "+", "-", "@", "\t", "\r")
_NUMBER = re.compile(r"[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?")


def as_text(value) -> str:
    """Text a UTF-8 file can hold: bytes a file name had that are not UTF-8 (lone surrogates, as Python reads
    them) are written as \\udcNN, so a name never stops a file from being written."""
    text = value if isinstance(value, str) else str(value)
    return text.encode("utf-8", "backslashreplace").decode("utf-8")


def _runs(text: str) -> bool:
    """Whether a spreadsheet would read this cell as a formula (or it is already one quoted by csv_cell)."""
    if text[:1] == "'":
        return _runs(text[1:])
    return text[:1] in FORMULA_START and not _NUMBER.fullmatch(text)


def csv_cell(value) -> str:
    """A cell as every CSV of the course writes it: quoted against formulas, a number left as it is."""
    text = as_text(value)
    return "'" + text if _runs(text) else text


def from_csv_cell(text: str) -> str:
    """A cell as it was before csv_cell."""
    return text[1:] if text[:1] == "'" and _runs(text[1:]) else text


def csv_row(values) -> list[str]:
    return [csv_cell(v) for v in values]


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
