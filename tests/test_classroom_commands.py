"""Every command the teaching pages show (docs/teaching.md, docs/platforms.md: the README's teaching sections until
issue 36) works as written in a fresh shell: after `make setup`, a
shell with nothing of the course's environment on its PATH (no activated .venv, no PYTHONPATH). So each
command either is `make ...` or names the environment (`.venv/bin/...`), and each one starts there.
(tests/test_classroom_readme.py runs the whole nbgrader loop in such a shell.)"""

from __future__ import annotations

import os
import re
import subprocess

import pytest

from tests.tiny_course import ROOT

# The pages that instruct an instructor. What measures or explains (docs/figures.md, whose `nbgrader autograde` is
# what was timed, and docs/threat-model.md) is not instructions.
TEACHING_PAGES = ("docs/teaching.md", "docs/platforms.md")
BARE = ("python", "python3", "nbgrader", "jupyter", "dask", "pip", "papermill")


def teaching_text() -> str:
    return "\n".join((ROOT / page).read_text() for page in TEACHING_PAGES)


def shown_commands() -> list[str]:
    """The indented lines of the code blocks, and each inline code span (joined where it wraps a line)."""
    text = teaching_text()
    blocks = [line.split("  #", 1)[0].strip() for line in text.splitlines()
              if line.startswith("    ") and not line.startswith("     ")]
    spans = [" ".join(s.split()) for s in re.findall(r"`([^`]+)`", text)]
    return [c for c in blocks + spans if c.split(" ", 1)[0] in BARE or c.startswith((".venv/", "make "))]


def clean_shell(home) -> dict:
    """What a fresh login shell has: the system's PATH, a home, a locale; nothing of the course's Python."""
    return {"PATH": "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin", "HOME": str(home), "LANG": "C.UTF-8"}


def test_the_teaching_commands_name_the_environment():
    commands = shown_commands()
    assert any(c.startswith(".venv/bin/nbgrader ") for c in commands), commands
    bare = [c for c in commands if c.split(" ", 1)[0] in BARE]
    assert not bare, ("these commands of the teaching pages fail in a fresh shell (command not found or ModuleNotFoundError); "
                      f"write them as `.venv/bin/...`: {bare}")
    assert "source .venv/bin/activate" in teaching_text(), "docs/teaching.md says how to type the commands bare"


def _entry_points() -> list[list[str]]:
    """Each distinct program and subcommand the teaching pages run: `.venv/bin/python -m autograder grade`,
    `.venv/bin/python -m pip download`, `.venv/bin/nbgrader export`, ..."""
    seen: dict[str, list[str]] = {}
    for cmd in shown_commands():
        words = cmd.split()
        head = words[:4] if words[1:2] == ["-m"] else words[:2]
        if words[0].startswith(".venv/bin/") and len(words) > 1 and not any(w == "..." or "<" in w for w in head):
            seen.setdefault(" ".join(head), head)
    return list(seen.values())


@pytest.mark.parametrize("head", _entry_points(), ids=" ".join)
def test_each_teaching_command_starts_in_a_fresh_shell(head, tmp_path):
    done = subprocess.run([*head, "--help"], cwd=ROOT, env=clean_shell(tmp_path), capture_output=True, text=True,
                          timeout=600)
    assert done.returncode == 0, (f"`{' '.join(head)} --help` from the course root, in a fresh shell, failed; "
                                  f"{' or '.join(TEACHING_PAGES)} shows it as a command:\n{done.stderr[-2000:]}")
    assert "Traceback" not in done.stderr, done.stderr[-2000:]


def test_student_grade_files_are_git_ignored(tmp_path):
    """What grade, nbgrader's export, lms and report write about students never goes into a commit."""
    names = ["grades.csv", "gradebook.db", "gradebook-export.csv", "canvas_export.csv", "canvas_import.csv",
             "moodle_import.csv", "participants.csv", "roster.csv", "report/report.html", "results.json",
             "submitted/alice/junior/01.ipynb", "autograded/alice/junior/01.ipynb",
             "feedback/alice/junior/01.html", "exchange/x"]
    done = subprocess.run(["git", "check-ignore", "--no-index", *names], cwd=ROOT, capture_output=True, text=True,
                          timeout=60, env=dict(os.environ, GIT_CONFIG_NOSYSTEM="1"))
    ignored = set(done.stdout.split())
    assert ignored == set(names), f"add these to .gitignore (student grades would be committed): " \
                                  f"{sorted(set(names) - ignored)}"
