"""The progress dashboard: work/00_progress.ipynb, and `show`, what its one code cell runs (`progress --json`
in a separate process, then a table and the picture). `show` runs in the learner's kernel: it reaches the
grader only through that subprocess."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

from autograder.learner.progress import DASHBOARD

DASHBOARD_INTRO = """# Your progress

Run the cell below: it grades every notebook in this folder that changed since its last check (saved files
only; the self-check at the end of each notebook records its result here too), then shows each notebook's
score, the cells still failing, and how much of each syllabus topic you have mastered, what is due for review
today and your past mock interviews. Grading happens in a separate, sandboxed process: this kernel never sees
a hidden test. From a terminal: `make progress`, `make review`, `make interview LEVEL=mid MINUTES=45`."""

DASHBOARD_CODE = """import importlib.util

if importlib.util.find_spec("autograder") is None:
    print("The course's grader is not installed here: clone the course and run `make lab`.")
else:
    from autograder.progress import show

    show()"""


def dashboard_notebook():
    import nbformat
    from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook

    nb = new_notebook(cells=[new_markdown_cell(DASHBOARD_INTRO), new_code_cell(DASHBOARD_CODE)])
    nb.cells[0]["id"], nb.cells[1]["id"] = "progress-intro", "progress-run"
    from autograder.authoring.release import KERNELSPEC, LANGUAGE_INFO, stamp_python

    nb.metadata = {"kernelspec": dict(KERNELSPEC), "language_info": dict(LANGUAGE_INFO)}  # opens unmodified
    stamp_python(nb)
    nbformat.validate(nb)
    return nb


def write_dashboard(work: Path) -> Path | None:
    """work/00_progress.ipynb, unless the learner already has a file of that name (never overwritten)."""
    import nbformat

    target = Path(work) / DASHBOARD
    if target.exists():
        return None
    target.parent.mkdir(parents=True, exist_ok=True)
    nbformat.write(dashboard_notebook(), str(target))
    return target



def _in_words(n: dict) -> str:
    """A notebook's status as a learner reads it: a check that ran is "done" or what is still to go, not "ok"."""
    if n["status"] != "ok":
        return n["status"]
    to_go = sum(c["passed"] is False for c in n["cells"])
    waiting = sum(c["passed"] is None for c in n["cells"])
    words = [f"{to_go} cell{'s' if to_go != 1 else ''} to go"] if to_go else []
    words += [f"{waiting} awaiting a grader"] if waiting else []
    return ", ".join(words) or "done"


CHECKING = "progress: checking "  # progress.collect's line before it grades a notebook again


def _progress_line(doing: str, started: float) -> str:
    from autograder.learner.live_line import seconds

    return f"Progress: {doing} ... {seconds(started)}"


def show(work: Path | None = None) -> None:
    """What the dashboard cell runs: `progress --json` in a separate process, then a table and the figure."""
    import html
    import time

    from IPython.display import Image, display

    from autograder.learner import live_line

    work = Path(work or Path.cwd())
    png = work / "progress.png"
    started, doing = time.monotonic(), ["reading your results"]
    live = live_line.Notebook(_progress_line(doing[0], started))

    def heard(line: str) -> None:  # progress.collect names each notebook it grades again
        if line.startswith(CHECKING):
            doing[0] = "grading " + Path(line[len(CHECKING):].rstrip(". ")).name + " (it changed)"

    env = {k: v for k, v in os.environ.items() if k != "JPY_SESSION_NAME"}
    try:
        done = live_line.run([sys.executable, "-m", "autograder", "progress", str(work), "--json", "--png", str(png)],
                             lambda: live.show(_progress_line(doing[0], started)), env=env, on_err=heard)
    except KeyboardInterrupt:  # the kernel's stop button: one line, never a traceback
        live.end({"text/plain": "Progress stopped: you interrupted it; what was graded so far is kept."})
        return
    try:
        result = json.loads(done.out[-1])
    except (ValueError, IndexError):
        live.end({"text/plain": "progress failed: " + ([ln for ln in done.err if ln.strip()] or ["?"])[-1]})
        return
    e = html.escape
    rows = []
    for n in result["notebooks"]:
        shown = _in_words(n)
        failing = [c["grade_id"] for c in n["cells"] if c["passed"] is False]
        passing = [c["grade_id"] for c in n["cells"] if c["passed"]]
        waiting = [c["grade_id"] for c in n["cells"] if c["passed"] is None]
        detail = ""
        if n["status"] != "not started":
            detail = (f"<span style='color:#1a7f37'>PASS {e(', '.join(passing))}</span><br>" if passing else "")
            detail += (f"<span style='color:#cf222e'>FAIL {e(', '.join(failing))}</span><br>" if failing else "")
            detail += (f"<span style='color:#9a6700'>awaiting a grader: {e(', '.join(waiting))}</span>"
                       if waiting else "")
        rows.append(f"<tr><td>{e(n['tier'])}</td><td>{e(n['notebook'])}</td>"
                    f"<td>{n['score']:g}/{n['max_score']:g}</td><td>{e(shown)}</td>"
                    f"<td style='text-align:left'>{detail}</td></tr>")
    total = result["total"]
    table = ("<div class='ptlab-progress'><table><thead><tr><th>tier</th><th>notebook</th><th>score</th>"
             "<th>status</th><th style='text-align:left'>cells</th></tr></thead><tbody>" + "".join(rows) +
             f"</tbody></table><p><b>total {total['score']:g}/{total['max_score']:g}</b></p>"
             + plan_html(result) + mastery_html(result.get("mastery")) + interviews_html(result.get("interviews"))
             + "</div>")
    text = "\n".join(f"{n['tier']}/{n['notebook']}: {n['score']:g}/{n['max_score']:g} {_in_words(n)}"
                     for n in result["notebooks"])
    from autograder.isolation.sanitize import clean_html

    live.end({"text/plain": text, "text/html": clean_html(table)})
    if png.exists():
        display(Image(filename=str(png)))
    trend = png.with_name("interviews.png")
    if result.get("interviews") and trend.exists():
        display(Image(filename=str(trend)))


def plan_html(result: dict) -> str:
    """Where to start (day one only), due today, and the three weakest topics with the exercise to do next."""
    import html

    review = result.get("review") or {}
    if not review:
        return ""
    e = html.escape
    weak = "".join(f"<li>{e(w['title'] or w['id'])} ({e(w['id'])}, mastery {w['mastery']:.0%}): next "
                   f"<code>{e(w['next'] or '-')}</code></li>" for w in review.get("weakest", []))
    start = review.get("start_here")
    return ((f"<p class='ptlab-start'><b>{e(start)}</b></p>" if start else "") + "<h3>Review</h3>"
            + schedule_html(review)
            + (f"<p>Weakest topics:</p><ol>{weak}</ol>" if weak else ""))


def schedule_html(review: dict) -> str:
    """Due today (what `make review` would draw of it) and a row of the next 7 days, from the schedule file."""
    import html

    from autograder.learner.progress_views import _weekday

    e = html.escape
    drawn, elsewhere = review.get("drawn", []), review.get("elsewhere", [])
    what = ""
    if drawn:
        what = f" (<code>make review</code> writes {len(drawn)} of them into a notebook, with their hints)"
    out = f"<p class='ptlab-due'><b>due today: {review.get('due_today', 0)}</b>{what}</p>"
    if elsewhere:
        out += f"<p>Redo in their own notebooks: {e(', '.join(elsewhere))}</p>"
    ahead = review.get("next_days") or []
    if ahead:
        head = "".join(f"<th>{e(_weekday(d['date']))}</th>" for d in ahead)
        counts = "".join(f"<td title='{e(', '.join(d['keys']))}'>{len(d['keys'])}</td>" for d in ahead)
        out += ("<table class='ptlab-schedule'><thead><tr><th style='text-align:left'>next 7 days</th>"
                f"{head}</tr></thead><tbody><tr><td style='text-align:left'>due</td>{counts}</tr></tbody></table>")
    return out


def mastery_html(mastery: dict | None) -> str:
    """Topics by name: in progress weakest first, then done; untouched ones counted; how it is computed."""
    import html

    if not mastery:
        return ""
    e = html.escape
    rows = "".join(
        f"<tr><td style='text-align:left'>{e(r['title'])} <small>({e(r['id'])})</small></td>"
        f"<td>{r['mastery']:.0%}</td><td>{r['earned']:g}/{r['max']:g}</td>"
        f"<td style='color:{'#1a7f37' if not r['to_go'] else '#9a6700'}'>{e(r['status'])}</td></tr>"
        for r in mastery["topics"])
    return ("<h3>Topics</h3><table><thead><tr><th style='text-align:left'>topic</th><th>mastery</th>"
            f"<th>points</th><th>status</th></tr></thead><tbody>{rows}</tbody></table>"
            f"<p>Not started yet: {mastery['untouched']} topics. <i>{e(mastery['how'])}</i></p>")


def interviews_html(rows: list[dict] | None) -> str:
    import html
    import time

    if not rows:
        return ("<h3>Mock interviews</h3><p>None yet: <code>make interview LEVEL=mid MINUTES=45</code> "
                "draws one.</p>")
    e = html.escape
    body = "".join(
        f"<tr><td>{e(time.strftime('%Y-%m-%d %H:%M', time.localtime(r['started'])))}</td><td>{e(r['level'])}</td>"
        f"<td>{r['minutes']} min</td><td>{r['score']:g}/{r['max_score']:g}</td><td><b>{e(r['verdict'])}</b></td>"
        f"<td style='text-align:left'>{e(', '.join(r['topics_to_review']) or '-')}</td></tr>" for r in rows)
    return ("<h3>Mock interviews</h3><table class='ptlab-interviews'><thead><tr><th>when</th><th>level</th>"
            "<th>time</th><th>score</th><th>verdict</th><th style='text-align:left'>topics to review</th></tr>"
            f"</thead><tbody>{body}</tbody></table>")
