"""What a class gets wrong, from grades.csv alone (no re-grading): each notebook's scores, the cells most
of the class failed, per-topic class mastery, the hand-ins with faults or flags, and who has not handed in.

Which syllabus topics a cell examines, its points and what a learner reads about it come from the source
notebooks (the course, not the hand-ins); a cell the course no longer has still counts, without topics.
report_page.py draws the figures and writes the page (`write_report`).
"""

from __future__ import annotations

import ast
import functools
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from pathlib import Path

from autograder.classroom.lms import POINTS_POSSIBLE, number, read_csv
from autograder.course import SOURCE_DIR, TIERS, GradingInputError, syllabus
from autograder.pipeline import cells

NEEDED = {"student", "assignment", "notebook", "score", "max_score", "status", "failed", "cells"}
# Roster columns that name a student, as grades.csv's folder names do (ours, Canvas's, Moodle's).
ROSTER_COLUMNS = ("student", "Student ID", "SIS Login ID", "SIS User ID", "Username", "ID number", "login", "ID",
                  "Email address")


@dataclass
class CellInfo:
    points: float = 0.0
    topics: list[str] = field(default_factory=list)
    section: str = ""  # the heading of the exercise, as the notebook shows it
    says: str = ""  # the first message of the cell's visible checks: what a failing learner reads first


@dataclass
class ClassReport:
    rows: list[dict]
    scores: dict[str, list[float]]  # "tier/notebook" -> each hand-in's fraction of its points
    failed: list[tuple[str, str, int, int, CellInfo]]  # (tier/notebook, grade id, failed by, graded, info), worst first
    mastery: dict[str, tuple[float, float]]  # topic -> (earned, possible) over the class
    troubled: list[dict]  # rows with a fault, an error or a flag
    absent: list[str] | None  # roster students with no row; None without a roster
    incomplete: dict[str, list[str]]  # student -> notebooks of their assignments they did not hand in


def _first_message(source: str) -> str:
    """The message of the first visible assert (or err_msg=/msg=), with interpolated values elided."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return ""
    for node in ast.walk(tree):
        candidates = [node.msg] if isinstance(node, ast.Assert) and node.msg is not None else []
        if isinstance(node, ast.Call):
            candidates += [k.value for k in node.keywords if k.arg in ("msg", "err_msg")]
        for c in candidates:
            text = _literal(c)
            if text:
                return text
    return ""


def _literal(node: ast.AST) -> str:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.JoinedStr):
        return "".join(v.value if isinstance(v, ast.Constant) else "…" for v in node.values)
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        return _literal(node.left) + _literal(node.right)
    return ""


@functools.lru_cache(maxsize=None)
def course_cells(tier: str, notebook: str) -> dict[str, CellInfo]:
    from autograder.pipeline.assemble import without_hidden

    if tier not in TIERS or not notebook or any(c in notebook for c in "/\\\0") or notebook.startswith("."):
        return {}  # a name from the CSV, never a path: only the course's own notebooks are read
    try:
        nb = cells.read(SOURCE_DIR / tier / f"{notebook}.ipynb")
    except (GradingInputError, OSError, ValueError):
        return {}
    out, section = {}, ""
    for cell in nb.cells:
        if cell.cell_type == "markdown" and cell.source.lstrip().startswith("## "):
            section = cell.source.lstrip()[3:].splitlines()[0].strip()
        if cells.kind(cell) == "test":
            out[cells.grade_id(cell)] = CellInfo(cells.points(cell), cells.topics(cell), section,
                                                 _first_message(without_hidden(cell)))
    return out


def notebook_tiers() -> dict[str, dict[str, str]]:
    """{assignment: {notebook stem: tier}} for the course file's assignments (a tier's rows name their tier);
    a course file that cannot be read leaves its assignments without cell details, never the report."""
    from autograder.classroom import assignments

    try:
        found = assignments.load()
    except GradingInputError:
        return {}
    return {name: {i.split("/", 1)[1]: i.split("/", 1)[0] for i in ids} for name, ids in found.items()
            if name not in TIERS}


def cells_of(assignment: str, notebook: str, tiers: dict[str, dict[str, str]]) -> dict[str, CellInfo]:
    """The course's cells of a CSV row's notebook, for a tier's row and an assignments.yaml row alike."""
    tier = assignment if assignment in TIERS else tiers.get(assignment, {}).get(notebook, "")
    return course_cells(tier, notebook)


def _per_cell(row: dict) -> dict[str, float]:
    return {gid: number(pts) for gid, _, pts in (item.partition("=") for item in (row.get("cells") or "").split())}


def roster_students(roster: Path | None, submitted: Path | None) -> set[str] | None:
    if submitted:
        if not submitted.is_dir():
            raise GradingInputError(f"{submitted}: not a directory of submissions")
        return {p.name for p in submitted.iterdir() if p.is_dir() and not p.name.startswith(".")}
    if roster:
        rows = read_csv(roster)
        column = next((c for c in ROSTER_COLUMNS if rows and c in rows[0]), None)
        if column is None:
            raise GradingInputError(f"{roster}: no column naming students ({', '.join(ROSTER_COLUMNS)})")
        return {r[column] for r in rows if r[column] and POINTS_POSSIBLE not in r.get("Student", "")}
    return None


def build(grades_csv: Path, roster: Path | None = None, submitted: Path | None = None, top: int = 15) -> ClassReport:
    rows = read_csv(grades_csv)
    missing = NEEDED - set(rows[0] if rows else NEEDED)
    if missing:
        raise GradingInputError(f"{grades_csv}: not a grades.csv (no {', '.join(sorted(missing))} column)")
    scores: dict[str, list[float]] = defaultdict(list)
    fails: Counter = Counter()
    graded: Counter = Counter()
    earned: dict[str, float] = defaultdict(float)
    possible: dict[str, float] = defaultdict(float)
    tiers = notebook_tiers()
    for r in rows:
        key = f"{r['assignment']}/{r['notebook']}"
        most = number(r["max_score"])
        per_cell = _per_cell(r)
        if not per_cell:
            continue  # not graded at all (a status says why): no verdict on any cell
        scores[key].append(number(r["score"]) / most if most else 0.0)
        info = cells_of(r["assignment"], r["notebook"], tiers)
        failed = set(r["failed"].split())
        for gid, pts in per_cell.items():
            graded[(key, gid)] += 1
            fails[(key, gid)] += gid in failed
            cell = info.get(gid)
            for topic in cell.topics if cell else []:
                earned[topic] += pts
                possible[topic] += cell.points
    worst = sorted(((k, g, n, graded[(k, g)]) for (k, g), n in fails.items() if n),
                   key=lambda t: (-t[2] / t[3], -t[2], t[0], t[1]))[:top]
    failed_cells = [(k, g, n, of, cells_of(*k.split("/", 1), tiers).get(g, CellInfo())) for k, g, n, of in worst]
    known = syllabus()
    mastery = {t: (earned[t], possible[t]) for t in sorted(possible, key=lambda t: (t not in known, t))}
    troubled = [r for r in rows if r["status"] != "ok" or r.get("flags")]
    everyone = roster_students(roster, submitted)
    handed_in = {r["student"] for r in rows}
    absent = sorted(everyone - handed_in) if everyone is not None else None
    return ClassReport(rows, dict(sorted(scores.items())), failed_cells, mastery, troubled, absent,
                       _incomplete(rows))


def _incomplete(rows: list[dict]) -> dict[str, list[str]]:
    """Per student, the notebooks of an assignment they handed in part of that others handed in."""
    by_assignment: dict[str, set[str]] = defaultdict(set)
    mine: dict[tuple[str, str], set[str]] = defaultdict(set)
    for r in rows:
        by_assignment[r["assignment"]].add(r["notebook"])
        mine[(r["student"], r["assignment"])].add(r["notebook"])
    out: dict[str, list[str]] = defaultdict(list)
    for (student, assignment), have in sorted(mine.items()):
        out[student] += [f"{assignment}/{n}" for n in sorted(by_assignment[assignment] - have)]
    return {s: v for s, v in out.items() if v}

