"""grades.csv -> a file an LMS gradebook imports: Canvas (its gradebook export's identity columns, then one
column per assignment, and a "Points Possible" row) or Moodle (the roster's user-id columns, then the
grades; Moodle's import maps one of them to its users).

A student is a folder name in grades.csv. It is matched against the roster's identities (Canvas: SIS Login
ID, SIS User ID, ID; Moodle: Username, ID number, Email address), exactly or as the part of an address
before its @, case aside. Students the roster lacks are not exported (the LMS has no row for them) and are
returned, so the caller names each one. Canvas: a grades column fills the export's column of the same
assignment when its name matches (`canvas_columns`), else it is a new column (a new Canvas assignment). Reads only the columns grades.csv has always had; any others are ignored. Names are data: every
cell is written through scores.csv_cell (no spreadsheet formula), and read back through its inverse.
"""

from __future__ import annotations

import csv
import re
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
    column = (lambda a, n: f"{a}/{n}") if per_notebook else (lambda a, n: f"{OURS}{a}")
    possible: dict[str, float] = {}
    for (a, n), pts in sorted(possible_per_nb.items()):
        possible[column(a, n)] = possible.get(column(a, n), 0.0) + pts
    earned: dict[tuple[str, str], float] = {}
    for r in grades:
        key = (r["student"], column(r["assignment"], r["notebook"]))
        earned[key] = earned.get(key, 0.0) + number(r["score"])
    return possible, earned


CANVAS_ID = re.compile(r"\s*\((\d+)\)\s*$")  # Canvas writes an assignment's column as "Name (12345)"
OURS = "PyTorch Lab "


def _name(header: str) -> str:
    return " ".join(CANVAS_ID.sub("", header).split()).casefold()


def canvas_columns(ours: list[str], header: list[str], given: dict[str, str]) -> dict[str, str]:
    """Our column -> the column of the Canvas export that fills the same Canvas assignment: the one `given`
    for it (by assignment or by our column's name), else the one whose name, without Canvas's " (id)", is the
    assignment's (`week1`) or ours (`PyTorch Lab week1`), case and spacing aside. Canvas's import fills an
    assignment whose column it knows by its id; a column it does not know becomes a new assignment."""
    existing: dict[str, str] = {}
    for h in header:
        if h not in IDENTITY["canvas"]:
            existing.setdefault(_name(h), h)
    out = {}
    for col in ours:
        short = col[len(OURS):] if col.startswith(OURS) else col
        wanted = given.get(short) or given.get(col)
        if wanted is not None:
            out[col] = existing.get(_name(wanted), wanted)
            continue
        out[col] = existing.get(_name(short)) or existing.get(_name(col)) or col
    return out


# Where a roster keeps a student's name: nbgrader's own import (`nbgrader db student import`), Moodle's
# participants, a plain list; Canvas's "Student" column is "Last, First".
FIRST = ("first_name", "First name", "First Name", "first name")
LAST = ("last_name", "Last name", "Last Name", "Surname", "last name")
WHOLE = ("Student", "name", "Name", "Full name")
NAMED_BY = ("id", "student", "Student ID", "SIS Login ID", "SIS User ID", "Username", "ID number", "login", "ID",
            "Email address", "email")


def roster_names(roster_csv: Path, students: set[str]) -> dict[str, dict[str, str]]:
    """Student folder -> {first_name, last_name, email} from a roster (ours, Canvas's, Moodle's or the CSV
    `nbgrader db student import` takes), matched as the LMS export matches; formgrader shows these names."""
    roster = [r for r in read_csv(roster_csv) if POINTS_POSSIBLE not in r.get("Student", "")]
    on = tuple(c for c in NAMED_BY if roster and c in roster[0])
    if not on:
        raise GradingInputError(f"{roster_csv}: no column naming students ({', '.join(NAMED_BY)})")
    out = {}
    for student, r in match(students, roster, on).items():
        first = next((r[c] for c in FIRST if r.get(c)), "")
        last = next((r[c] for c in LAST if r.get(c)), "")
        whole = next((r[c] for c in WHOLE if r.get(c)), "")
        if whole and not (first or last):
            last, _, first = whole.partition(", ") if ", " in whole else ("", "", whole)
            if not last:
                first, _, last = whole.rpartition(" ") if " " in whole else ("", "", whole)
        email = next((r[c] for c in ("email", "Email address", "Email") if "@" in r.get(c, "")), "")
        names = {"first_name": first.strip(), "last_name": last.strip(), "email": email.strip()}
        out[student] = {k: printable(v)[:128] for k, v in names.items() if v.strip()}
    return out


def number(text) -> float:
    """A CSV cell as a number; an empty or unreadable one counts 0."""
    try:
        return float(text)
    except (TypeError, ValueError):
        return 0.0


def export(grades_csv: Path, roster_csv: Path, out: Path, lms: str, per_notebook: bool = False,
           columns: dict[str, str] | None = None) -> tuple[list[str], dict[str, str]]:
    """Writes `out`; returns the students of grades.csv that the roster does not have (not exported), as a
    terminal may show them (summary.printable), and, for Canvas, each of our columns with the export's column
    it fills (itself where none matched: a new assignment)."""
    grades = read_csv(grades_csv)
    missing = {"student", "assignment", "notebook", "score", "max_score"} - set(grades[0] if grades else {})
    if grades and missing:
        raise GradingInputError(f"{grades_csv}: not a grades.csv (no {', '.join(sorted(missing))} column)")
    everyone = read_csv(roster_csv)
    header = list(everyone[0]) if everyone else []
    roster = [r for r in everyone if POINTS_POSSIBLE not in r.get("Student", "")]
    identity = [c for c in IDENTITY[lms] if roster and c in roster[0]]
    if not any(c in identity for c in MATCH_ON[lms]):
        raise GradingInputError(f"{roster_csv}: no {' / '.join(MATCH_ON[lms])} column to match students with")
    students = {r["student"] for r in grades}
    matched = match(students, roster, MATCH_ON[lms])
    possible, earned = totals(grades, per_notebook)
    filled = canvas_columns(list(possible), header, columns or {}) if lms == "canvas" else {c: c for c in possible}
    out.parent.mkdir(parents=True, exist_ok=True)
    with out.open("w", newline="", encoding="utf-8") as f:
        w = csv.writer(f)
        w.writerow(csv_row(identity + [filled[c] for c in possible]))
        if lms == "canvas":
            w.writerow(csv_row([POINTS_POSSIBLE] + [""] * (len(identity) - 1) + [f"{p:g}" for p in possible.values()]))
        for student in sorted(matched):
            r = matched[student]
            w.writerow(csv_row([r.get(c, "") for c in identity]
                               + [f"{earned[(student, col)]:g}" if (student, col) in earned else "" for col in possible]))
    return [printable(s) for s in sorted(students - matched.keys())], filled if lms == "canvas" else {}
