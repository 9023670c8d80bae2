"""`python -m autograder lms`: grades.csv -> Canvas's and Moodle's gradebook imports, every student of the CSV
either matched to the roster or named on stderr."""

from __future__ import annotations

import csv
import subprocess
import sys

from tests.tiny_course import ROOT

GRADES = [
    # student, assignment, notebook, score, max_score, status (+ a column a newer grader may add)
    ("ada", "junior", "01_tensors_and_memory", "10", "14", "ok"),
    ("ada", "junior", "02_autograd_basics", "4", "12", "ok"),
    ("bob", "junior", "01_tensors_and_memory", "0", "14", "flagged for review: rebinds the builtin name 'abs'"),
    ("cy", "junior", "01_tensors_and_memory", "14", "14", "ok"),
    ("zed", "junior", "01_tensors_and_memory", "7", "14", "ok"),  # not on the roster
    ("ada", "mid", "01_training_bugs", "3", "6", "ok"),
]


def write_grades(path):
    with path.open("w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["student", "assignment", "notebook", "score", "max_score", "status", "sha256", "failed",
                    "cells", "late_penalty"])
        for r in GRADES:
            w.writerow([*r, "abc", "", "", "0"])
    return path


def write(path, rows):
    with path.open("w", newline="", encoding="utf-8-sig") as f:
        csv.writer(f).writerows(rows)
    return path


def run(*args):
    return subprocess.run([sys.executable, "-m", "autograder", "lms", *map(str, args)], cwd=ROOT,
                          capture_output=True, text=True, timeout=120)


def read(path):
    with path.open(newline="") as f:
        return list(csv.reader(f))


def test_canvas_import_file_matches_login_user_id_and_lists_the_unmatched(tmp_path):
    grades = write_grades(tmp_path / "grades.csv")
    roster = write(tmp_path / "roster.csv", [
        ["Student", "ID", "SIS User ID", "SIS Login ID", "Section", "Homework 1"],
        ["    Points Possible", "", "", "", "", "10"],
        ["Lovelace, Ada", "101", "S001", "ada@uni.example", "A", "9"],
        ["Builder, Bob", "102", "bob", "bbuilder", "A", ""],
        ["Young, Cy", "cy", "S003", "cyoung", "B", ""],
        ["Nobody, Ned", "104", "S004", "ned", "B", ""],
    ])
    out = tmp_path / "canvas.csv"
    done = run(grades, "--canvas", roster, "--out", out)
    assert done.returncode == 0, done.stderr
    assert "zed" in done.stderr and "not in the roster" in done.stderr
    rows = read(out)
    assert rows[0] == ["Student", "ID", "SIS User ID", "SIS Login ID", "Section", "PyTorch Lab junior",
                       "PyTorch Lab mid"]
    assert rows[1] == ["Points Possible", "", "", "", "", "26", "6"]
    body = {r[0]: r[5:] for r in rows[2:]}
    assert body == {"Lovelace, Ada": ["14", "3"], "Builder, Bob": ["0", ""], "Young, Cy": ["14", ""]}


def test_canvas_per_notebook_columns(tmp_path):
    grades = write_grades(tmp_path / "grades.csv")
    roster = write(tmp_path / "roster.csv", [["Student", "ID", "SIS User ID", "SIS Login ID", "Section"],
                                             ["Lovelace, Ada", "1", "", "ada", ""]])
    out = tmp_path / "canvas.csv"
    assert run(grades, "--canvas", roster, "--out", out, "--per-notebook").returncode == 0
    rows = read(out)
    assert rows[0][5:] == ["junior/01_tensors_and_memory", "junior/02_autograd_basics", "mid/01_training_bugs"]
    assert rows[2][5:] == ["10", "4", "3"]


def test_moodle_import_file_has_user_id_columns(tmp_path):
    grades = write_grades(tmp_path / "grades.csv")
    roster = write(tmp_path / "participants.csv", [
        ["First name", "Last name", "ID number", "Email address"],
        ["Ada", "Lovelace", "S001", "ada@uni.example"],
        ["Bob", "Builder", "bob", "bob@uni.example"],
        ["Cy", "Young", "S003", "cy@uni.example"],
    ])
    out = tmp_path / "moodle.csv"
    done = run(grades, "--moodle", roster, "--out", out)
    assert done.returncode == 0, done.stderr
    assert "zed" in done.stderr
    rows = read(out)
    assert rows[0] == ["ID number", "Email address", "PyTorch Lab junior", "PyTorch Lab mid"]
    assert ["S001", "ada@uni.example", "14", "3"] in rows and len(rows) == 4  # no Points Possible row


def test_a_roster_without_identities_is_a_clear_error(tmp_path):
    grades = write_grades(tmp_path / "grades.csv")
    roster = write(tmp_path / "roster.csv", [["name"], ["Ada"]])
    done = run(grades, "--canvas", roster, "--out", tmp_path / "c.csv")
    assert done.returncode == 2 and "SIS Login ID" in done.stderr and "Traceback" not in done.stderr


def test_canvas_fills_the_existing_assignment_whose_name_matches(tmp_path):
    """Canvas's import fills an assignment it knows by the "Name (id)" column of its own export; a column
    named otherwise would be a second, new assignment."""
    grades = write_grades(tmp_path / "grades.csv")
    roster = write(tmp_path / "roster.csv", [
        ["Student", "ID", "SIS User ID", "SIS Login ID", "Section", "Junior  (4411)", "PyTorch Lab mid (4412)"],
        ["    Points Possible", "", "", "", "", "26", "6"],
        ["Lovelace, Ada", "101", "S001", "ada", "A", "", ""],
    ])
    out = tmp_path / "canvas.csv"
    done = run(grades, "--canvas", roster, "--out", out)
    assert done.returncode == 0, done.stderr
    assert read(out)[0][5:] == ["Junior  (4411)", "PyTorch Lab mid (4412)"], \
        "each assignment fills the export's column of the same name, with Canvas's id, not a new column"
    assert "fills the existing Canvas column 'Junior  (4411)'" in done.stderr
    assert read(out)[2][5:] == ["14", "3"]
    for student in ("bob", "cy", "zed"):
        assert f"lms: {student} is in {grades} but not in the roster: not exported" in done.stderr, done.stderr
    assert "3 student(s) not exported" in done.stdout

    done = run(grades, "--canvas", roster, "--out", out, "--column", "junior=Week 1 quiz (5000)",
               "--column", "mid=PyTorch Lab mid (4412)")
    assert done.returncode == 0, done.stderr
    assert read(out)[0][5:] == ["Week 1 quiz (5000)", "PyTorch Lab mid (4412)"], "--column names the column"
    assert run(grades, "--canvas", roster, "--out", out, "--column", "junior").returncode == 2
