"""docs/teaching.md's "The nbgrader loop" is run as written, line by line, in a fresh shell, on a small class: release,
grade, teach (JupyterLab with formgrader), a grader's points and comment, grade again, export, an assignment of the
course file, a regrade on request. (The loop was the README's "Teaching with nbgrader" until issue 36 made the README
a landing page.)"""

from __future__ import annotations

import csv
import os
import signal
import subprocess
import time

import pytest
from nbgrader.api import Gradebook

from tests.browser import free_port
from tests.classroom_course import course, env, hand_in
from tests.test_classroom_commands import clean_shell
from tests.tiny_course import ROOT

COURSE_ID = "pytorch-interview-lab"


TEACHING = ROOT / "docs" / "teaching.md"
LOOP = "\n## The nbgrader loop\n"


def readme_commands() -> list[str]:
    """The loop's commands as docs/teaching.md shows them (the name is the one tests/test_browser_formgrader.py
    imports)."""
    text = TEACHING.read_text()
    assert LOOP in text, f"{TEACHING.relative_to(ROOT)} has no section {LOOP.strip()!r}: the test runs its commands"
    section = text.split(LOOP, 1)[1].split("\n## ", 1)[0]
    return [line.strip() for line in section.splitlines()
            if line.startswith("    ") and line.strip().startswith(("make ", ".venv/"))]


def test_the_readme_lists_the_loop():
    cmds = readme_commands()
    assert cmds[:4] == ["make release", "make grade", "make teach", "make grade"], cmds
    assert any("nbgrader export --to" in c for c in cmds) and any("--student" in c and "--force" in c for c in cmds)


def _rows(path):
    with path.open() as f:
        return {(r["student"], r["assignment"], r["notebook"]): r for r in csv.DictReader(f)}


def _teach(cmd: str, tmp, environ) -> str:
    """make teach until JupyterLab serves, then stopped: what it printed."""
    port = free_port()
    log = tmp / "teach.log"
    with log.open("w") as out:
        server = subprocess.Popen(cmd, shell=True, cwd=tmp, env=dict(environ, JUPYTER_PORT=str(port), BROWSER="true",
                                                                    JUPYTER_TOKEN="ptlab-teach"),
                                  stdout=out, stderr=subprocess.STDOUT, start_new_session=True)
    try:
        import urllib.request

        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            try:
                page = urllib.request.urlopen(f"http://127.0.0.1:{port}/formgrader?token=ptlab-teach", timeout=5)
                assert page.status == 200
                break
            except OSError:
                assert server.poll() is None, log.read_text()[-2000:]
                time.sleep(0.5)
        else:
            pytest.fail("make teach did not serve formgrader: " + log.read_text()[-2000:])
        time.sleep(1)
    finally:
        os.killpg(server.pid, signal.SIGTERM)
        try:
            server.wait(timeout=20)
        except subprocess.TimeoutExpired:
            os.killpg(server.pid, signal.SIGKILL)
            server.wait()
    return log.read_text()


def _assert_checksums_match_the_release(tmp, db: str) -> None:
    """Locked cells in the gradebook are the release's, checksum for checksum (nbgrader's autograde compares)."""
    import nbformat

    released = nbformat.read(str(tmp / "release" / "junior" / "01_tiny.ipynb"), 4)
    locked = [c for c in released.cells if c.metadata.get("nbgrader", {}).get("locked")
              and not c.metadata["nbgrader"].get("grade") and not c.metadata["nbgrader"].get("solution")]
    assert locked
    with Gradebook(db, course_id=COURSE_ID) as gb:
        for cell in locked:
            gid = cell.metadata["nbgrader"]["grade_id"]
            assert gb.find_source_cell(gid, "01_tiny", "junior").checksum == cell.metadata["nbgrader"]["checksum"], gid


def _grade_by_hand(db: str) -> None:
    """What a grader does in formgrader (the browser test does it through the page)."""
    with Gradebook(db, course_id=COURSE_ID) as gb:
        grade = gb.find_grade("ex3_explain", "01_tiny", "junior", "alice")
        grade.manual_score = 1.5
        grade.needs_manual_grade = False
        gb.find_comment("ex3_explain", "01_tiny", "junior", "alice").manual_comment = "Say why linearity matters."
        gb.db.commit()


@pytest.mark.kernel
def test_every_command_of_the_teaching_section_runs_as_written(tmp_path):
    tmp = course(tmp_path)
    hand_in(tmp, "alice", "junior", "01_tiny", answered=True)
    hand_in(tmp, "bob", "junior", "01_tiny", answered=False)
    hand_in(tmp, "alice", "week1", "02_tiny", answered=True, stamp="2026-12-02 11:00:00 UTC")  # 18 h late
    # A fresh shell (nothing of the course's Python on PATH, no PYTHONPATH) plus where the small class lives.
    environ = dict(clean_shell(tmp), **{k: v for k, v in env(tmp).items() if k.startswith(("PTLAB_", "JUPYTER"))})
    db = f"sqlite:///{tmp / 'gradebook.db'}"
    grades = tmp / "grades.csv"
    makes, seen = 0, set()
    for cmd in readme_commands():
        if cmd == "make teach":
            log = _teach(cmd, tmp, environ)
            assert "exchange" not in log.lower() or "does not exist" not in log, log[-2000:]
            assert "SAWarning" not in log and "Traceback" not in log, log[-2000:]
            assert (tmp / "exchange").is_dir(), "the exchange lives inside the course"
            _grade_by_hand(db)
            continue
        done = subprocess.run(cmd, shell=True, cwd=tmp, env=environ, capture_output=True, text=True, timeout=600)
        assert done.returncode == 0, f"{cmd}\n{done.stdout[-2000:]}\n{done.stderr[-3000:]}"
        assert "Traceback" not in done.stderr and "SAWarning" not in done.stderr, done.stderr[-3000:]
        if cmd == "make release":
            assert (tmp / "release" / "junior" / "02_tiny.ipynb").exists()
        elif cmd == "make grade":
            makes += 1
            rows = _rows(grades)
            alice = rows[("alice", "junior", "01_tiny")]
            if makes == 1:
                assert "graded 3 notebook(s), skipped 0" in done.stderr, done.stderr
                assert "class mean junior/01_tiny: 2.50 / 7 (2 student(s))" in done.stderr, done.stderr
                assert (alice["score"], alice["max_score"], alice["manual_pending"]) == ("5", "7", "1")
                assert (tmp / "autograded" / "alice" / "junior" / "01_tiny.ipynb").exists()
                _assert_checksums_match_the_release(tmp, db)
            else:
                assert "graded 0 notebook(s), skipped 3" in done.stderr, done.stderr
                assert (alice["score"], alice["max_score"], alice["manual_pending"]) == ("6.5", "7", "0")
                assert alice["manual"] == "ex3_explain=1.5/2" and "linearity" in alice["comments"]
                page = (tmp / "feedback" / "alice" / "junior" / "01_tiny.html").read_text()
                assert "1.5 / 2" in page and "Say why linearity matters." in page
                assert "Rubric" not in page, "the model answer is the grader's"
        elif "nbgrader export" in cmd:
            seen.add("export")
            export = list(csv.DictReader((tmp / "gradebook-export.csv").open()))
            alice = next(r for r in export if r["student_id"] == "alice" and r["assignment"] == "junior")
            assert float(alice["score"]) == pytest.approx(6.5) and float(alice["max_score"]) == pytest.approx(14)  # the junior tier: both notebooks
            assert ("alice", "junior", "01_tiny") in _rows(grades), "the export wrote a file of its own"
        elif "--assignment week1" in cmd:
            seen.add("assignment")
            row = _rows(grades)[("alice", "week1", "02_tiny")]
            assert row["submitted_at"] == "2026-12-02 11:00:00 UTC" and float(row["seconds_late"]) == 18 * 3600
            assert (row["score"], row["max_score"]) == ("5", "7")
            late_page = (tmp / "feedback" / "alice" / "week1" / "02_tiny.html").read_text()
            assert "18.0 h after the due date; no points off for lateness" in late_page, \
                "docs/teaching.md step 6: the late student's feedback shows lateness (penalty_method 'none')"
            with Gradebook(db, course_id=COURSE_ID) as gb:
                week1 = gb.find_assignment("week1")
                assert [n.name for n in week1.notebooks] == ["02_tiny"] and week1.max_score == 7
                assert gb.find_submission("week1", "alice").total_seconds_late == 18 * 3600
                assert len(gb.find_assignment("junior").notebooks) == 2
        elif "--student alice --force" in cmd:
            seen.add("regrade")
            assert "graded 2 notebook(s)" in done.stderr, done.stderr
            alice = _rows(grades)[("alice", "junior", "01_tiny")]
            assert (alice["score"], alice["manual_pending"]) == ("6.5", "0"), "a regrade keeps the grader's points"
    assert makes == 2
    steps = {"export", "assignment", "regrade"}
    assert seen == steps, f"docs/teaching.md's loop no longer has these steps: {sorted(steps - seen)}"
