"""What a batch did, said at its end: graded, skipped (already graded), faulted, flagged, and the class mean
per notebook over every graded row of the CSV. Names in it are a hand-in's: `printable` shows their control
characters (escape sequences, newlines, bidi overrides, bytes that are not UTF-8) escaped, never acted on."""

from __future__ import annotations

import unicodedata
from collections import defaultdict


def printable(text) -> str:
    """A name as a terminal may show it: every control, format or unassigned character (and a lone surrogate,
    as a file name's non-UTF-8 byte reads) written as a Python escape, the rest as it is."""
    out = []
    for ch in str(text):
        if unicodedata.category(ch)[0] == "C":
            code = ord(ch)
            out.append(f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}" if code < 0x10000 else f"\\U{code:08x}")
        else:
            out.append(ch)
    return "".join(out)


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
        lines.append(f"  class mean {printable(assignment)}/{printable(notebook)}: {mean:.2f} / {top:g} "
                     f"({n} student(s))")
    return "\n".join(lines)
