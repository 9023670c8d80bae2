"""The check cell of an interview or a review notebook (compose.CHECK_CODE), run in the learner's kernel.

Like selfcheck.py it grades the saved file with `python -m autograder check PATH --json` in a separate process
and shows the table; it adds the session's line (time left, or how far over) and, when the interview ends,
the scorecard. It imports nothing of the grader itself.
"""

from __future__ import annotations

import html
import json
import os
import subprocess
import sys
import time

from autograder.learner import selfcheck


def _run(path, finish: bool) -> tuple[dict | None, str]:
    env = {k: v for k, v in os.environ.items() if k != selfcheck.SESSION_ENV}
    cmd = [sys.executable, "-m", "autograder", "check", str(path), "--json"] + (["--finish"] if finish else [])
    try:
        done = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=selfcheck.CHECK_TIMEOUT)
    except subprocess.TimeoutExpired:
        return None, f"the check took longer than {selfcheck.CHECK_TIMEOUT} s and was stopped"
    try:
        report = json.loads(done.stdout.strip().splitlines()[-1])
    except (ValueError, IndexError):
        tail = (done.stderr.strip().splitlines() or ["no output"])[-1]
        return None, f"the grader did not answer (exit code {done.returncode}): {tail}"
    if "error" in report:
        return None, report["error"]
    return report, ""


def card_html(card: dict) -> str:
    from autograder.isolation.sanitize import clean_html

    e = html.escape
    rows = "".join(
        f"<tr><td style='text-align:left'>{e(r['title'])}<br><small>{e(r['exercise'])}</small></td>"
        f"<td style='color:{'#1a7f37' if r['passed'] else '#cf222e'};font-weight:bold'>"
        f"{'PASS' if r['passed'] else 'FAIL'}</td><td>{r['points']:g}/{r['max_points']:g}</td>"
        f"<td>{e(_mins(r['seconds_to_first_pass']))}</td><td>{r['attempts']}</td></tr>" for r in card["exercises"])
    follow = "".join(
        f"<details><summary>{e(r['title'])}: follow-up</summary>"
        f"<p>{e(r['follow_up'].replace('**Follow-up.**', '').strip())}</p>"
        f"<p><b>Your answer:</b> {e(r['your_answer'] or '(none)')}</p><p><b>Model answer:</b> "
        f"{e(r['model_answer'])}</p></details>" for r in card["exercises"] if r["follow_up"])
    review = ", ".join(card["topics_to_review"]) or "none"
    return clean_html(
        f"<div class='ptlab-scorecard'><h3>Scorecard: {card['score']:g}/{card['max_score']:g}, "
        f"<span>{e(card['verdict'])}</span> ({e(card['level'])}, {card['minutes']} min)</h3>"
        "<table><thead><tr><th style='text-align:left'>exercise</th><th>result</th><th>points</th>"
        f"<th>first pass after</th><th>attempts</th></tr></thead><tbody>{rows}</tbody></table>"
        f"<p>Topics to review: {e(review)}</p>{follow}</div>")


def _mins(seconds) -> str:
    if seconds is None:
        return "-"
    return f"{int(seconds // 60)} min {int(seconds % 60):02d} s"


def check_this_session(finish: bool = False, session: str | None = None) -> None:
    """What the check cell runs: the table, the time line and (at the end) the scorecard."""
    from IPython.display import display

    path = selfcheck.notebook_path(session)
    if path is None:
        print("Check: this kernel was not started by JupyterLab for a saved notebook, so there is nothing to "
              "grade here. From a terminal: python -m autograder check path/to/notebook.ipynb")
        return
    saved = (f"Graded {path.name} as saved at {time.strftime('%H:%M:%S', time.localtime(path.stat().st_mtime))}. "
             "Unsaved edits are not graded: save (Ctrl+S) first.")
    handle = display({"text/plain": f"{saved}\nchecking..."}, raw=True, display_id=True)
    report, error = _run(path, finish)
    if report is None:
        handle.update({"text/plain": f"Check could not grade {path.name}: {error}"}, raw=True)
        return
    session_info = report.get("session") or {}
    line = session_info.get("time_line", "")
    # Follow-ups carry no points: one line about them instead of a TODO row each.
    follow = [m for m in report.get("manual", []) if not m.get("max_points")]
    report = dict(report, manual=[m for m in report.get("manual", []) if m.get("max_points")])
    if follow:
        written = sum(bool(m.get("answered")) for m in follow)
        note = f"follow-ups answered: {written} of {len(follow)} (their model answers are on the scorecard)"
        line = f"{line}; {note}" if line else note
    text = selfcheck.render_text(report, None, saved) + (f"\n{line}" if line else "")
    page = selfcheck.render_html(report, None, saved)
    if line:
        colour = "#cf222e" if line.startswith("over time") else "#0969da"
        page = f"<p class='ptlab-timeline' style='color:{colour};font-weight:bold'>{html.escape(line)}</p>" + page
    card = session_info.get("card")
    if card:
        page += card_html(card)
        text += f"\nScorecard: {card['score']:g}/{card['max_score']:g} -> {card['verdict']} " \
                f"(saved as {session_info.get('scorecard')})"
    handle.update({"text/plain": text, "text/html": page}, raw=True)
