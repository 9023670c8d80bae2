"""The self-check a learner runs from inside a notebook (the last cell of every notebook, template.SELFCHECK).

It grades the file as saved on disk with `python -m autograder check PATH --json --record --progress` in a
separate process, which runs the notebook in a fresh sandboxed kernel of its own: the learner's kernel
receives only the verdict table and the name of the cell being run, never a hidden test or a reference answer.
This module is imported in the learner's kernel, so it imports nothing of the grader itself.

Which notebook: jupyter_server 2 starts a notebook's kernel with JPY_SESSION_NAME set to the notebook's path
(ipykernel also exposes it as `__session__`).

Three things a learner must never be left guessing (issues 24, 36): what was graded (the saved file, read once
by the grader, whose save time heads the table; answer cells whose version in the editor, or without the
extension the kernel's last run, differs from the file graded are named in red: unsaved.py), whether it is
still running (a line naming the running cell and the seconds, updated every second: live_line.py), and how to stop it (an
interrupt ends the check with one line). JupyterLab's "Save and check" command (autograder/learner/labextension)
saves first, so after it nothing is named.
"""

from __future__ import annotations

import html
import json
import os
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

from autograder.learner import live_line, unsaved

CHECK_TIMEOUT = 1800  # seconds; the grader's own per-cell and per-notebook limits are far below this
SESSION_ENV = "JPY_SESSION_NAME"
PROGRESS_PREFIX = "ptlab-progress "  # what `check --progress` puts before each JSON line on stderr
COLOURS = {"PASS": "#1a7f37", "FAIL": "#cf222e", "TODO": "#9a6700"}
RED = "#cf222e"


def notebook_path(session: str | None = None) -> Path | None:
    """The notebook this kernel belongs to, from the session name jupyter_server gives the kernel."""
    name = session if session is not None else os.environ.get(SESSION_ENV, "")
    if not name:
        return None
    path = Path(name)
    candidates = [path] if path.is_absolute() else [Path.cwd() / path, Path.cwd() / path.name]
    return next((p for p in candidates if p.is_file()), None)


def _saved_line(path: Path, saved: float, now: float) -> str:
    ago = max(0, int(now - saved))
    when = time.strftime("%H:%M:%S", time.localtime(saved))
    return f"Graded {path.name} as saved at {when} ({ago} s ago). Unsaved edits are not graded."


def what_was_graded(path: Path, report: dict, editor: dict[str, str] | None, now: float) -> tuple[str, str]:
    """(the "saved at" line, the red unsaved line), both of the file the grader read: the check's JSON carries
    its save time and answers (check_server.run). `editor`: the editor's answers, told by the extension."""
    graded = report.get("graded") or {}
    saved_at = graded.get("saved_at")
    line = _saved_line(path, saved_at if saved_at is not None else path.stat().st_mtime, now)
    answers = graded.get("answers")
    if not isinstance(answers, dict):
        return line, ""
    try:
        saved = json.loads(path.read_text()) if editor is None else None  # the kernel-history fallback only
    except (OSError, ValueError):
        saved = None
    return line, unsaved.warning(answers, editor, saved)


# --- running the grader ----------------------------------------------------------------------------------------

@dataclass
class CheckProgress:
    """What the grader last said it is doing, read from its progress lines."""
    started: float
    phase: str = "starting"  # "starting" (a fresh kernel), "reference", "cells"
    cell: str = ""
    index: int = 0
    of: int = 0
    limit: int | None = None
    cell_started: float = 0.0
    stderr: list[str] = field(default_factory=list)

    def take(self, line: str, now: float) -> None:
        if not line.startswith(PROGRESS_PREFIX):
            self.stderr = (self.stderr + [line])[-20:]
            return
        try:
            event = json.loads(line[len(PROGRESS_PREFIX):])
        except ValueError:
            return
        if event.get("phase") == "reference":
            self.phase = "reference"
        elif "cell" in event:
            self.phase, self.cell, self.cell_started = "cells", str(event["cell"]), now
            self.index, self.of, self.limit = int(event.get("index", 0)), int(event.get("of", 0)), event.get("limit")


def progress_line(name: str, p: CheckProgress, now: float) -> str:
    """One line: which cell runs and for how long; the per-cell limit once a cell has used half of it."""
    total = int(now - p.started)
    if p.phase == "starting":
        return f"Checking {name}: starting a fresh kernel ... {total} s"
    if p.phase == "reference":
        return (f"Checking {name}: the first check of this notebook runs its reference solution once ... "
                f"{total} s")
    line = f"Checking {name}: running {p.cell} (cell {p.index + 1} of {p.of}) ... {total} s"
    on_cell = now - p.cell_started
    if p.limit and on_cell >= p.limit / 2:
        line += (f"; {p.cell} has run {int(on_cell)} s of its {p.limit} s limit and is stopped at the limit "
                 "(interrupt the kernel to stop the check now)")
    return line


def check_command(path: Path, timeout: int | None = None, options: tuple[str, ...] = ("--record",)) -> list[str]:
    cmd = [sys.executable, "-m", "autograder", "check", str(path), "--json", *options, "--progress"]
    return cmd + (["--timeout", str(timeout)] if timeout else [])


def run_check(path: Path, show=None, timeout: int | None = None,
              options: tuple[str, ...] = ("--record",)) -> tuple[dict | None, str]:
    """(report, error): the grader's JSON report of the saved file, or why there is none. `show(progress)` is
    called about every second while the grader runs. An interrupt (KeyboardInterrupt) stops the grader and
    propagates. `options`: the check's own (a course notebook's result is recorded; an interview's finish)."""
    env = {k: v for k, v in os.environ.items() if k != SESSION_ENV}
    p = CheckProgress(started=time.monotonic())
    done = live_line.run(check_command(path, timeout, options), lambda: show and show(p), env=env,
                         limit=CHECK_TIMEOUT, on_err=lambda line: p.take(line, time.monotonic()))
    if done.code is None:
        return None, f"the check took longer than {CHECK_TIMEOUT} s and was stopped"
    try:
        report = json.loads(done.out[-1])
    except (ValueError, IndexError):
        tail = (p.stderr or ["no output"])[-1]
        return None, f"the grader did not answer (exit code {done.code}): {tail}"
    if "error" in report:
        return None, report["error"]
    return report, ""


def checked_under_a_line(path: Path, name: str, timeout: int | None = None,
                         options: tuple[str, ...] = ("--record",)) -> tuple[live_line.Notebook, dict | None]:
    """A check cell's check of `path`: the live line in the cell while it runs, then (that line, the report).
    Without a report the line already says why in one line: the grader's error, or the learner's interrupt
    (never a traceback). `name`: the cell's name for itself ("Self-check", "Check")."""
    line = live_line.Notebook(progress_line(path.name, CheckProgress(time.monotonic()), time.monotonic()))
    try:
        report, error = run_check(path, lambda p: line.show(progress_line(path.name, p, time.monotonic())),
                                  timeout, options)
    except KeyboardInterrupt:  # the kernel's stop button
        line.end({"text/plain": f"{name} stopped: you interrupted it; {path.name} was not graded."})
        return line, None
    if report is None:
        line.end({"text/plain": f"{name} could not grade {path.name}: {error}"})
    return line, report


# --- the table -------------------------------------------------------------------------------------------------

def _hints(path: Path) -> dict[str, int]:
    """test grade_id -> number of hints above its exercise, read from the learner's own file."""
    try:
        import nbformat

        from autograder.authoring.hints import for_test

        return for_test(nbformat.read(str(path), as_version=4))
    except Exception:
        return {}


def rows(report: dict, hints: dict[str, int] | None = None) -> list[dict]:
    """One row per graded cell: cell, result (PASS/FAIL/TODO), points, message."""
    out = []
    for t in report.get("tests", []):
        message = t.get("message", "")
        n = (hints or {}).get(t["grade_id"], 0)
        if not t["passed"] and n and not t.get("cause"):  # a cell that raised needs fixing, not a hint
            message += f" (stuck? open Hint 1{'-%d' % n if n > 1 else ''} above the answer cell)"
        out.append({"cell": t["grade_id"], "result": "PASS" if t["passed"] else "FAIL",
                    "points": f"{t['points']:g}/{t['max_points']:g}", "message": message})
    for m in report.get("manual", []):
        state = "written answer, awaiting a grader" if m.get("answered") else "written answer: not answered yet"
        out.append({"cell": m["grade_id"], "result": "TODO", "points": f"-/{m['max_points']:g}", "message": state})
    return out


SCORED = "(autograded cells)"


def render_text(report: dict, hints: dict[str, int] | None = None, saved: str = "", unsaved: str = "",
                scored: str = SCORED) -> str:
    lines = [line for line in (unsaved, saved) if line]
    for r in rows(report, hints):
        lines.append(f"{r['result']}  {r['cell']}  {r['points']}  {r['message']}".rstrip())
    lines += [f"fault: {f}" for f in report.get("faults", [])]
    lines += [f"flagged for review: {f}" for f in report.get("flags", [])]
    lines.append(f"score {report['score']:g}/{report['max_score']:g} {scored}")
    lines += report.get("next", [])  # after full marks: what is next (learner/next_steps.py)
    return "\n".join(lines)


def render_html(report: dict, hints: dict[str, int] | None = None, saved: str = "", unsaved: str = "",
                scored: str = SCORED) -> str:
    from autograder.isolation.sanitize import clean_html

    e = html.escape
    cells = "".join(
        f"<tr><td style='text-align:left'><code>{e(r['cell'])}</code></td>"
        f"<td style='color:{COLOURS[r['result']]};font-weight:bold'>{r['result']}</td>"
        f"<td>{e(r['points'])}</td><td style='text-align:left'>{e(r['message'])}</td></tr>"
        for r in rows(report, hints))
    extra = "".join(f"<p style='color:{RED}'>fault: {e(f)}</p>" for f in report.get("faults", []))
    extra += "".join(f"<p style='color:#9a6700'>flagged for review: {e(f)}</p>" for f in report.get("flags", []))
    warning = f"<p class='ptlab-unsaved' style='color:{RED};font-weight:bold'>{e(unsaved)}</p>" if unsaved else ""
    return clean_html(
        f"<div class='ptlab-selfcheck'>{warning}<p><i>{e(saved)}</i></p>"
        "<table><thead><tr><th style='text-align:left'>cell</th><th>result</th><th>points</th><th style='text-align:left'>message"
        f"</th></tr></thead><tbody>{cells}</tbody></table>{extra}"
        f"<p><b>score {report['score']:g}/{report['max_score']:g}</b> {e(scored)}</p>"
        + "".join(f"<p>{e(line)}</p>" for line in report.get("next", [])) + "</div>")


# --- the cell ----------------------------------------------------------------------------------------------------

def check_this_notebook(session: str | None = None, timeout: int | None = None) -> dict | None:
    """What the self-check cell runs. Shows the table in the notebook and returns nothing visible.
    `timeout`: seconds per cell instead of nbgrader_config.py's (tests)."""
    path = notebook_path(session)
    if path is None:
        print("Self-check: this kernel was not started by JupyterLab for a saved notebook, so there is nothing "
              "to grade here. From a terminal: make check NB=path/to/notebook.ipynb")
        return None
    editor = unsaved.take_editor()
    live, report = checked_under_a_line(path, "Self-check", timeout)
    if report is not None:
        hints = _hints(path)
        saved, unsaved_text = what_was_graded(path, report, editor, time.time())
        live.end({"text/plain": render_text(report, hints, saved, unsaved_text),
                  "text/html": render_html(report, hints, saved, unsaved_text)})
    return None
