"""The self-check a learner runs from inside a notebook (the last cell of every notebook, template.SELFCHECK).

It grades the file as saved on disk with `python -m autograder check PATH --json --record` in a separate
process, which runs the notebook in a fresh sandboxed kernel of its own: the learner's kernel receives only the
verdict table, never a hidden test or a reference answer. This module is imported in the learner's kernel,
so it imports nothing of the grader itself.

Which notebook: jupyter_server 2 starts a notebook's kernel with JPY_SESSION_NAME set to the notebook's path
(ipykernel also exposes it as `__session__`).
"""

from __future__ import annotations

import html
import json
import os
import subprocess
import sys
import time
from pathlib import Path

CHECK_TIMEOUT = 1800  # seconds; the grader's own per-cell and per-notebook limits are far below this
SESSION_ENV = "JPY_SESSION_NAME"


def notebook_path(session: str | None = None) -> Path | None:
    """The notebook this kernel belongs to, from the session name jupyter_server gives the kernel."""
    name = session if session is not None else os.environ.get(SESSION_ENV, "")
    if not name:
        return None
    path = Path(name)
    candidates = [path] if path.is_absolute() else [Path.cwd() / path, Path.cwd() / path.name]
    return next((p for p in candidates if p.is_file()), None)


def _saved_line(path: Path, now: float) -> str:
    saved = path.stat().st_mtime
    ago = max(0, int(now - saved))
    when = time.strftime("%H:%M:%S", time.localtime(saved))
    return (f"Graded {path.name} as saved at {when} ({ago} s ago). Unsaved edits are not graded: "
            "save (Ctrl+S) and run this cell again.")


def run_check(path: Path) -> tuple[dict | None, str]:
    """(report, error): the grader's JSON report of the saved file, or why there is none."""
    env = {k: v for k, v in os.environ.items() if k != SESSION_ENV}
    cmd = [sys.executable, "-m", "autograder", "check", str(path), "--json", "--record"]
    try:
        done = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=CHECK_TIMEOUT)
    except subprocess.TimeoutExpired:
        return None, f"the check took longer than {CHECK_TIMEOUT} s and was stopped"
    try:
        report = json.loads(done.stdout.strip().splitlines()[-1])
    except (ValueError, IndexError):
        tail = (done.stderr.strip().splitlines() or ["no output"])[-1]
        return None, f"the grader did not answer (exit code {done.returncode}): {tail}"
    if "error" in report:
        return None, report["error"]
    return report, ""


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


def render_text(report: dict, hints: dict[str, int] | None = None, saved: str = "") -> str:
    lines = [saved] if saved else []
    for r in rows(report, hints):
        lines.append(f"{r['result']}  {r['cell']}  {r['points']}  {r['message']}".rstrip())
    lines += [f"fault: {f}" for f in report.get("faults", [])]
    lines += [f"flagged for review: {f}" for f in report.get("flags", [])]
    lines.append(f"score {report['score']:g}/{report['max_score']:g} (autograded cells)")
    lines += report.get("next", [])  # after full marks: what is next (learner/next_steps.py)
    return "\n".join(lines)


COLOURS = {"PASS": "#1a7f37", "FAIL": "#cf222e", "TODO": "#9a6700"}


def render_html(report: dict, hints: dict[str, int] | None = None, saved: str = "") -> str:
    e = html.escape
    cells = "".join(
        f"<tr><td style='text-align:left'><code>{e(r['cell'])}</code></td>"
        f"<td style='color:{COLOURS[r['result']]};font-weight:bold'>{r['result']}</td>"
        f"<td>{e(r['points'])}</td><td style='text-align:left'>{e(r['message'])}</td></tr>"
        for r in rows(report, hints))
    extra = "".join(f"<p style='color:#cf222e'>fault: {e(f)}</p>" for f in report.get("faults", []))
    extra += "".join(f"<p style='color:#9a6700'>flagged for review: {e(f)}</p>" for f in report.get("flags", []))
    return (f"<div class='ptlab-selfcheck'><p><i>{e(saved)}</i></p>"
            "<table><thead><tr><th style='text-align:left'>cell</th><th>result</th><th>points</th><th style='text-align:left'>message"
            f"</th></tr></thead><tbody>{cells}</tbody></table>{extra}"
            f"<p><b>score {report['score']:g}/{report['max_score']:g}</b> (autograded cells)</p>"
            + "".join(f"<p>{e(line)}</p>" for line in report.get("next", [])) + "</div>")


def check_this_notebook(session: str | None = None) -> dict | None:
    """What the self-check cell runs. Shows the table in the notebook and returns nothing visible."""
    from IPython.display import display

    path = notebook_path(session)
    if path is None:
        print("Self-check: this kernel was not started by JupyterLab for a saved notebook, so there is nothing "
              "to grade here. From a terminal: make check NB=path/to/notebook.ipynb")
        return None
    saved = _saved_line(path, time.time())
    handle = display({"text/plain": f"{saved}\nchecking..."}, raw=True, display_id=True)
    report, error = run_check(path)
    if report is None:
        handle.update({"text/plain": f"Self-check could not grade {path.name}: {error}"}, raw=True)
        return None
    hints = _hints(path)
    handle.update({"text/plain": render_text(report, hints, saved),
                   "text/html": render_html(report, hints, saved)}, raw=True)
    return None
