"""The check cell of an interview or a review notebook (compose.CHECK_CODE), run in the learner's kernel.

Like selfcheck.py it grades the saved file with `python -m autograder check PATH --json --progress` in a
separate process, under the same live line (live_line.py) with the same interrupt, and shows the table; it adds the session's line (time left, or how far over) and, when the interview ends,
the scorecard. It imports nothing of the grader itself.
"""

from __future__ import annotations

import html
import time

from autograder.learner import selfcheck, unsaved


def _markdown(text: str) -> str:
    """A statement or a model answer as the notebook shows it (Markdown rendered; clean_html then keeps only
    safe markup)."""
    try:
        import mistune

        return mistune.html(text)
    except Exception:  # no renderer: the text, escaped
        return f"<p>{html.escape(text)}</p>"


def card_html(card: dict) -> str:
    from autograder.isolation.sanitize import clean_html
    from autograder.learner.scorecard import named_topics

    e = html.escape
    rows = "".join(
        f"<tr><td style='text-align:left'>{e(r['title'])}<br><small>{e(r['exercise'])}</small></td>"
        f"<td style='color:{'#1a7f37' if r['passed'] else '#cf222e'};font-weight:bold'>"
        f"{'PASS' if r['passed'] else 'FAIL'}</td><td>{r['points']:g}/{r['max_points']:g}</td>"
        f"<td>{e(_mins(r['seconds_to_first_pass']))}</td><td>{r['attempts']}</td></tr>" for r in card["exercises"])
    follow = "".join(
        f"<details><summary>{e(r['title'])}: follow-up</summary>"
        f"{_markdown(r['follow_up'].replace('**Follow-up.**', '').strip())}"
        f"<p><b>Your answer:</b> {e(r['your_answer'] or '(none)')}</p><p><b>Model answer:</b></p>"
        f"{_markdown(r['model_answer'])}</details>" for r in card["exercises"] if r["follow_up"])
    review = ", ".join(named_topics(card)) or "none"
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


def _counted(line: str) -> bool:
    """Whether this check counts for the scorecard (its time line says when it does not)."""
    return not line.startswith(("over time", "finished at"))


def check_this_session(finish: bool = False, session: str | None = None) -> None:
    """What the check cell runs: a live line while the grader runs, then the table, the time line and (at the
    end) the scorecard."""
    path = selfcheck.notebook_path(session)
    if path is None:
        print("Check: this kernel was not started by JupyterLab for a saved notebook, so there is nothing to "
              "grade here. From a terminal: python -m autograder check path/to/notebook.ipynb")
        return
    editor = unsaved.take_editor()
    live, report = selfcheck.checked_under_a_line(path, "Check", options=("--finish",) if finish else ())
    if report is None:
        return
    saved, unsaved_text = selfcheck.what_was_graded(path, report, editor, time.time())
    session_info = report.get("session") or {}
    line = session_info.get("time_line", "")
    # Follow-ups carry no points: one line about them instead of a TODO row each.
    follow = [m for m in report.get("manual", []) if not m.get("max_points")]
    report = dict(report, manual=[m for m in report.get("manual", []) if m.get("max_points")])
    card = session_info.get("card")
    if follow:
        written = sum(bool(m.get("answered")) for m in follow)
        where = "their model answers are on the scorecard" if card or session_info.get("mode") == "interview" \
            else "a review shows no model answers"
        note = f"follow-ups answered: {written} of {len(follow)} ({where})"
        line = f"{line}; {note}" if line else note
    # A check after the deadline is graded but not counted: its score must not read as the scorecard's.
    scored = selfcheck.SCORED if _counted(line) else "(this check only: after the deadline, not on the scorecard)"
    text = selfcheck.render_text(report, None, saved, unsaved_text, scored) + (f"\n{line}" if line else "")
    page = selfcheck.render_html(report, None, saved, unsaved_text, scored)
    if line:
        colour = "#0969da" if _counted(line) else "#cf222e"
        page = f"<p class='ptlab-timeline' style='color:{colour};font-weight:bold'>{html.escape(line)}</p>" + page
    if card:
        page = card_html(card) + page  # the verdict first; the check's own table below it
        text = f"Scorecard: {card['score']:g}/{card['max_score']:g} -> {card['verdict']} " \
               f"(saved as {session_info.get('scorecard')})\n" + text
    live.end({"text/plain": text, "text/html": page})
