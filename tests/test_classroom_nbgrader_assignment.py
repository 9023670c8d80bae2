"""An assignments.yaml assignment is an nbgrader assignment like a tier: in a fresh shell, `nbgrader
generate_assignment week1`, `release_assignment`, `collect` and `generate_feedback` work on it, and formgrader's
API (what Manage Assignments, Manual Grading and a student's page list) has it with its submission."""

from __future__ import annotations

import json
import subprocess

import pytest

from tests.classroom_course import course, env, hand_in
from tests.test_classroom_commands import clean_shell

API = """
from nbgrader.apps import NbGraderAPI
from nbgrader.coursedir import CourseDirectory
from traitlets.config.loader import PyFileConfigLoader
import json
c = PyFileConfigLoader('nbgrader_config.py', path='.').load_config()
api = NbGraderAPI(CourseDirectory(config=c, root='.'), config=c)
print(json.dumps({'assignments': {a['name']: a['num_submissions'] for a in api.get_assignments()},
                  'submissions': [s['student'] for s in api.get_submissions('week1')],
                  'student': [s['name'] for s in api.get_student_submissions('alice')],
                  'notebooks': [n['name'] for n in api.get_notebooks('week1')]}))
"""


@pytest.mark.kernel
def test_an_assignment_of_the_course_file_is_nbgraders(tmp_path):
    tmp = course(tmp_path)
    hand_in(tmp, "alice", "week1", "02_tiny", answered=True)
    environ = dict(clean_shell(tmp), **{k: v for k, v in env(tmp).items() if k.startswith(("PTLAB_", "JUPYTER"))})

    def sh(cmd: str) -> str:
        done = subprocess.run(cmd, shell=True, cwd=tmp, env=environ, capture_output=True, text=True, timeout=900)
        assert done.returncode == 0, f"{cmd}\n{done.stdout[-2000:]}\n{done.stderr[-3000:]}"
        assert "Traceback" not in done.stderr, done.stderr[-3000:]
        return done.stdout

    sh(".venv/bin/nbgrader generate_assignment week1")
    released = (tmp / "release" / "week1" / "02_tiny.ipynb").read_text()
    assert "raise NotImplementedError()" in released and "SECRET_HIDDEN_CHECK" not in released, \
        "generate_assignment week1 writes the student version of week1's notebooks"
    assert (tmp / "notebooks" / "week1" / ".gitignore").read_text().splitlines()[-1] == "*", "kept out of git"
    sh(".venv/bin/nbgrader release_assignment week1")
    assert (tmp / "exchange" / "pytorch-interview-lab" / "outbound" / "week1" / "02_tiny.ipynb").exists()
    sh(".venv/bin/nbgrader collect week1")
    sh(".venv/bin/python -m autograder grade submitted --assignment week1 --feedback feedback "
       "--gradebook sqlite:///gradebook.db")
    seen = json.loads(sh(f".venv/bin/python -c \"{API}\"").strip().splitlines()[-1])
    assert seen["assignments"].get("week1") == 1, f"formgrader's Manage Assignments lists week1: {seen}"
    assert seen["submissions"] == ["alice"] and "week1" in seen["student"] and seen["notebooks"] == ["02_tiny"], seen
    sh(".venv/bin/nbgrader generate_feedback week1 --force")
    page = (tmp / "feedback" / "alice" / "week1" / "02_tiny.html").read_text()
    assert "SECRET_HIDDEN_CHECK" not in page and "Rubric" not in page
