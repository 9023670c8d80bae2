"""grades.csv -> a file an LMS gradebook imports: Canvas (its gradebook export's identity columns, then one
column per assignment, and a "Points Possible" row) or Moodle (the roster's user-id columns, then the
grades; Moodle's import maps one of them to its users).

A student is a folder name in grades.csv. It is matched against the roster's identities (Canvas: SIS Login
ID, SIS User ID, ID; Moodle: Username, ID number, Email address), exactly or as the part of an address
before its @, case aside. Students the roster lacks are returned, so the caller can list them: never dropped
silently. Reads only the columns grades.csv has always had; any others are ignored. Names are data: every
cell is written through scores.csv_cell (no spreadsheet formula), and read back through its inverse.
"""

from __future__ import annotations

import csv
from pathlib import Path

from autograder.classroom.scores import csv_row, from_csv_cell
from autograder.classroom.summary import printable
from autograder.course import GradingInputError

IDENTITY = {
    "canvas": ("Student", "ID", "SIS User ID", "SIS Login ID", "Section"),
    "moodle": ("Username", "ID number", "Email address"),
}
MATCH_ON = {
    "canvas": ("SIS Login ID", "SIS User ID", "ID"),
    "moodle": ("Username", "ID number", "Email address"),
}
POINTS_POSSIBLE = "Points Possible"


def read_csv(path: Path) -> list[dict]:
    if not path.is_file():
        raise GradingInputError(f"{path}: no such file")
    with path.open(newline="", encoding="utf-8-sig") as f:  # spreadsheet exports often start with a BOM
        rows = list(csv.DictReader(f))
    return [{from_csv_cell((k or "").strip()): from_csv_cell((v or "").strip()) for k, v in r.items()} for r in rows]


def _keys(value: str) -> set[str]:
    v = value.strip().casefold()
    return {v, v.split("@")[0]} - {""}


def match(students: set[str], roster: list[dict], on: tuple[str, ...]) -> dict[str, dict]:
    """Student folder -> roster row, trying the columns in order of preference."""
    found = {}
    for column in on:
        index: dict[str, dict] = {}
        for r in roster:
            for k in _keys(r.get(column, "")):
                index.setdefault(k, r)
        for s in sorted(students - found.keys()):
            hit = index.get(s.strip().casefold())
            if hit is not None:
                found[s] = hit
    return found


def totals(grades: list[dict], per_notebook: bool) -> tuple[dict[str, float], dict[tuple[str, str], float]]:
    """The columns with their points possible, and each (student, column)'s points."""
    possible_per_nb: dict[tuple[str, str], float] = {}
    for r in grades:
        key = (r["assignment"], r["notebook"])
        possible_per_nb[key] = max(possible_per_nb.get(key, 0.0), number(r["max_score"]))
    column = (lambda a, n: f"{a}/{n}") if per_notebook else (lambda a, n: f"PyTorch Lab {a}")
    possible: dict[str, float] = {}
    for (a, n), pts in sorted(possible_per_nb.items()):
        possible[column(a, n)] = possible.get(column(a, n), 0.0) + pts
    earned: dict[tuple[str, str], float] = {}
    for r in grades:
        key = (r["student"], column(r["assignment"], r["notebook"]))
        earned[key] = earned.get(key, 0.0) + number(r["score"])
    return possible, earned


def number(text) -> float:
    """A CSV cell as a number; an empty or unreadable one counts 0."""
    try:
        return float(text)
    except (TypeError, ValueError):
        return 0.0


def export(grades_csv: Path, roster_csv: Path, out: Path, lms: str, per_notebook: bool = False) -> list[str]:
    """Writes `out`; returns the students of grades.csv that the roster does not have, as a terminal may show
    them (summary.printable)."""
    grades = read_csv(grades_csv)
    missing = {"student", "assignment", "notebook", "score", "max_score"} - set(grades[0] if grades else {})
    if grades and missing:
        raise GradingInputError(f"{grades_csv}: not a grades.csv (no {', '.join(sorted(missing))} column)")
    roster = [r for r in read_csv(roster_csv) if POINTS_POSSIBLE not in r.get("Student", "")]
    identity = [c for c in IDENTITY[lms] if roster and c in roster[0]]
    if not any(c in identity for c in MATCH_ON[lms]):
        raise GradingInputError(f"{roster_csv}: no {' / '.join(MATCH_ON[lms])} column to match students with")
    students = {r["student"] for r in grades}
    matched = match(students, roster, MATCH_ON[lms])
    possible, earned = totals(grades, per_notebook)
    out.parent.mkdir(parents=True, exist_ok=True)
    with out.open("w", newline="", encoding="utf-8") as f:
        w = csv.writer(f)
        w.writerow(csv_row(identity + list(possible)))
        if lms == "canvas":
            w.writerow(csv_row([POINTS_POSSIBLE] + [""] * (len(identity) - 1) + [f"{p:g}" for p in possible.values()]))
        for student in sorted(matched):
            r = matched[student]
            w.writerow(csv_row([r.get(c, "") for c in identity]
                               + [f"{earned[(student, col)]:g}" if (student, col) in earned else "" for col in possible]))
    return [printable(s) for s in sorted(students - matched.keys())]
