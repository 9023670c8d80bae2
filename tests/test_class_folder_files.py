"""Every file the grader reads from a class folder is opened as a hand-in is (issue 32, item 3): never through a
link, only a regular file (a named pipe is refused at once, never waited on), never past a size cap. Today that
is the hand-ins themselves (pipeline/handin.py, tests/test_isolation_files.py) and timestamp.txt, which sets a
row's submission time and so its lateness: a bad one is ignored with a note in the row's status."""

from __future__ import annotations

import csv
import os
import threading

import nbformat
import pytest

from autograder.classroom import late
from autograder.classroom.jobs import sha
from tests.tiny_course import blank, cli, make_course

GOOD = "2026-12-01 18:30:00.000000 UTC"


def _within(seconds: float, fn, *args):
    """fn(*args), or a failure when it takes longer (a FIFO opened for reading blocks forever)."""
    out: list = []
    t = threading.Thread(target=lambda: out.append(fn(*args)), daemon=True)
    t.start()
    t.join(seconds)
    assert out, f"{fn.__name__} did not return within {seconds} s"
    return out[0]


@pytest.fixture
def folder(tmp_path):
    nb = tmp_path / "submitted" / "ann" / "junior" / "01_tiny.ipynb"
    nb.parent.mkdir(parents=True)
    nb.write_text("{}")
    return nb


def test_a_plain_timestamp_is_read(folder):
    (folder.parent / "timestamp.txt").write_text(GOOD + "\n")
    when, note = late.read_stamp(folder)
    assert when is not None and when.hour == 18 and note == ""


def test_no_timestamp_is_no_time_and_no_note(folder):
    assert late.read_stamp(folder) == (None, "")


def test_a_linked_timestamp_is_ignored_with_a_note(folder, tmp_path):
    outside = tmp_path / "elsewhere.txt"
    outside.write_text("2000-01-01 00:00:00 UTC")  # years early: never late
    (folder.parent / "timestamp.txt").symlink_to(outside)
    when, note = late.read_stamp(folder)
    assert when is None and "symbolic link" in note


def test_a_named_pipe_never_hangs_the_batch(folder):
    os.mkfifo(folder.parent / "timestamp.txt")
    when, note = _within(10, late.read_stamp, folder)
    assert when is None and "not a regular file" in note


@pytest.mark.parametrize("content, why", [
    (" " * 4096 + GOOD, "larger than"),
    (b"\xff\xfe" + GOOD.encode(), "not a time"),
    ("soon, honestly", "not a time"),
])
def test_an_oversized_or_unreadable_timestamp_is_ignored(folder, content, why):
    stamp = folder.parent / "timestamp.txt"
    stamp.write_bytes(content if isinstance(content, bytes) else content.encode())
    when, note = late.read_stamp(folder)
    assert when is None and why in note


def test_a_directory_named_timestamp_is_ignored(folder):
    (folder.parent / "timestamp.txt").mkdir()
    when, note = late.read_stamp(folder)
    assert when is None and "directory" in note


def test_a_timestamp_in_a_linked_folder_is_ignored(tmp_path):
    real = tmp_path / "real" / "junior"
    real.mkdir(parents=True)
    (real / "timestamp.txt").write_text(GOOD)
    (real / "01_tiny.ipynb").write_text("{}")
    (tmp_path / "sub" / "ann").mkdir(parents=True)
    (tmp_path / "sub" / "ann" / "junior").symlink_to(real)
    when, note = late.read_stamp(tmp_path / "sub" / "ann" / "junior" / "01_tiny.ipynb")
    assert when is None and "linked folder" in note


def test_stamp_puts_the_note_in_the_rows_status_and_no_time(folder):
    os.mkfifo(folder.parent / "timestamp.txt")
    row = {"status": "ok", "submitted_at": "", "seconds_late": ""}
    late.stamp(row, folder, None)
    assert row["submitted_at"] == "" and row["seconds_late"] == ""
    assert row["status"].startswith("timestamp.txt ignored")
    faulted = {"status": "timed out", "submitted_at": "", "seconds_late": ""}
    late.stamp(faulted, folder, None)
    assert faulted["status"].startswith("timed out; timestamp.txt ignored")


def test_the_hash_column_never_waits_on_a_pipe(folder):
    pipe = folder.with_name("02_pipe.ipynb")
    os.mkfifo(pipe)
    assert _within(10, sha, pipe) == ""


def test_a_class_with_a_pipe_and_a_link_for_timestamps_gets_every_row(tmp_path):
    """End to end: the batch finishes, every row is written, neither time is taken."""
    src = make_course(tmp_path)
    ref = blank(nbformat.read(str(src), 4))
    sub = tmp_path / "submitted"
    outside = tmp_path / "outside.txt"
    outside.write_text("2000-01-01 00:00:00 UTC")
    for student in ("pipe", "link", "plain"):
        nb = sub / student / "junior" / "01_tiny.ipynb"
        nb.parent.mkdir(parents=True)
        nbformat.write(ref, str(nb))
    os.mkfifo(sub / "pipe" / "junior" / "timestamp.txt")
    (sub / "link" / "junior" / "timestamp.txt").symlink_to(outside)
    (sub / "plain" / "junior" / "timestamp.txt").write_text(GOOD)
    out = tmp_path / "grades.csv"
    done = cli(tmp_path, "grade", str(sub), "--workers", "1", "--out", str(out))
    assert done.returncode == 0, done.stderr
    rows = {r["student"]: r for r in csv.DictReader(out.open())}
    assert set(rows) == {"pipe", "link", "plain"}
    assert rows["plain"]["submitted_at"].startswith("2026-12-01 18:30")
    for who, why in (("pipe", "not a regular file"), ("link", "symbolic link")):
        assert rows[who]["submitted_at"] == "" and why in rows[who]["status"], rows[who]


def test_a_platforms_submission_folder_with_a_pipe_and_a_link_gets_its_results_at_once(tmp_path, monkeypatch,
                                                                                     adapter_in_process):
    """Gradescope's and PrairieLearn's submission folder is a class folder too: a named pipe or a link under a
    notebook's name is a 0 with a reason, read through nothing and waited on by nothing."""
    import json

    from autograder import course
    from autograder.classroom import gradescope, prairielearn

    src = make_course(tmp_path)

    monkeypatch.setattr(course, "SOURCE_DIR", tmp_path / "notebooks")
    for platform, folder in (("gs-pipe", "submission"), ("pl-link", "student")):
        sub = tmp_path / platform / folder
        sub.mkdir(parents=True)
        if platform == "gs-pipe":
            os.mkfifo(sub / "01_tiny.ipynb")
            out = _within(60, gradescope.run, tmp_path / platform, "junior", ["01"], "visible", 30)
        else:
            (sub / "01_tiny.ipynb").symlink_to(src)  # the solved source itself
            out = _within(60, prairielearn.run, tmp_path / platform, "junior", ["01"], 30)
        res = json.loads(out.read_text())
        assert res["score"] == 0, res
        assert ("not a regular file" if platform == "gs-pipe" else "symbolic link") in res["output"], res
