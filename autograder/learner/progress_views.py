"""What a learner reads of their progress: the terminal table (`make progress`) and the picture (the PNG the
dashboard shows), both drawn from the model in progress.py.

`progress(work)` is the function to time: it returns the same object `--json` prints.
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

from autograder.course import TIERS
from autograder.learner.progress import DEFAULT_DIR, collect, summary


def progress(work: Path = DEFAULT_DIR, png: Path | None = None, log=None) -> dict:
    """Re-check what changed in `work`, return the --json object, and draw the PNG when asked."""
    entries, _, _ = collect(Path(work), log)
    result = summary(entries)
    if png is not None:
        draw(result, Path(png), started_topics(entries))
    return result


def render_text(entries: list[dict], skipped: list[str], result: dict) -> str:
    lines = []
    for tier in TIERS:
        mine = [e for e in entries if e["tier"] == tier]
        if not mine:
            continue
        lines.append(f"{tier}  {sum(e['score'] for e in mine):g}/{sum(e['max_score'] for e in mine):g}")
        for e in mine:
            if e["status"] == "not started":
                continue
            status = "" if e["status"] == "ok" else f"  [{e['status']}]"
            lines.append(f"  {e['notebook']:<40} {e['score']:g}/{e['max_score']:g}{status}")
            for c in e["cells"]:
                if c["passed"] is False:
                    lines.append(f"      FAIL {c['grade_id']}: {c['message']}")
                elif c["passed"] is None:
                    lines.append(f"      TODO {c['grade_id']}: {c['message']}")
        idle = [e["notebook"] for e in mine if e["status"] == "not started"]
        if idle:
            lines.append(f"  not started: {len(idle)} notebook{'s' if len(idle) != 1 else ''} "
                         f"({', '.join(n[:2] for n in idle)})")
    lines += [""] + topic_lines(result["mastery"])
    lines += [f"skipped {s}" for s in skipped]
    total = result["total"]
    lines += ["", f"total {total['score']:g}/{total['max_score']:g} (autograded cells)"]
    return "\n".join(lines)


def topic_lines(mastery: dict) -> list[str]:
    """Topics by name: in progress weakest first, then done, untouched ones counted (never cut short)."""
    rows = mastery["topics"]
    going = [r for r in rows if r["to_go"]]
    lines = ["topics in progress, weakest first:" if going else "topics: none in progress"]
    for r in going:
        lines.append(f"  {r['id']:<4} {r['earned']:g}/{r['max']:g}  mastery {r['mastery']:.0%}  {r['status']}  "
                     f"{r['title']}")
    done = [r for r in rows if not r["to_go"]]
    if done:
        lines.append(f"done: {len(done)} topic{'s' if len(done) != 1 else ''}")
        lines += [f"  {r['id']:<4} mastery {r['mastery']:.0%}  {r['title']}" for r in done]
    lines.append(f"not started yet: {mastery['untouched']} topic{'s' if mastery['untouched'] != 1 else ''}")
    lines.append(mastery["how"])
    return lines


def started_topics(entries: list[dict]) -> set[str]:
    """Topics of a notebook the learner has started or of a cell asked in an interview (as the table counts)."""
    from autograder.learner import mastery

    return mastery.started_topics(entries, mastery.events())


def _tier_rows(ax, width: int, title: str) -> None:
    """One row of tiles per tier, labelled by tier, no axes."""
    ax.set_xlim(0, width)
    ax.set_ylim(len(TIERS), 0)
    ax.set_yticks([i + 0.45 for i in range(len(TIERS))], TIERS)
    ax.set_xticks([])
    ax.set_title(title, fontsize=10)
    for side in ax.spines.values():
        side.set_visible(False)


def draw(result: dict, png: Path, attempted: set[str] | None = None) -> Path:
    """Tiers x notebooks coloured by score; syllabus topics (per tier) coloured by mastery. Grey: nothing to
    show yet (a topic only in notebooks not started, when `attempted` is given)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.colors import ListedColormap

    from autograder.course import source_notebooks, syllabus

    cmap = plt.get_cmap("RdYlGn")
    grey = "#d0d0d0"
    by_nb = {(n["tier"], n["notebook"]): n for n in result["notebooks"]}
    course = {t: [p.stem for p in source_notebooks(t)] for t in TIERS}
    topics = syllabus()
    by_tier = {t: [tid for tid, info in topics.items() if info["tier"] == t] for t in TIERS}
    width = max([len(v) for v in course.values()] + [12])
    twidth = max([len(v) for v in by_tier.values()] + [1])

    fig, (top, bottom) = plt.subplots(2, 1, figsize=(max(10, twidth * 0.42), 7.2),
                                      gridspec_kw={"height_ratios": [1.1, 1]})
    total = result["total"]
    fig.suptitle(f"Your progress: {total['score']:g}/{total['max_score']:g} points", fontsize=13)
    for row, tier in enumerate(TIERS):
        for col, stem in enumerate(course[tier]):
            n = by_nb.get((tier, stem))
            frac = n["score"] / n["max_score"] if n and n["max_score"] else 0.0
            started = n is not None and n["status"] != "not started"
            colour = cmap(frac) if started else grey
            top.add_patch(plt.Rectangle((col, row), 0.94, 0.9, color=colour))
            label = stem[:2] + "\n" + (f"{n['score']:g}/{n['max_score']:g}" if started else "-")
            top.text(col + 0.47, row + 0.45, label, ha="center", va="center", fontsize=8)
    _tier_rows(top, width, "notebooks (colour: score; grey: not started)")

    for row, tier in enumerate(TIERS):
        for col, tid in enumerate(by_tier[tier]):
            v = result["topics"].get(tid)
            shown = v and v["max"] and (attempted is None or tid in attempted)
            colour = cmap(v["earned"] / v["max"]) if shown else grey
            bottom.add_patch(plt.Rectangle((col, row), 0.94, 0.9, color=colour))
            bottom.text(col + 0.47, row + 0.45, tid, ha="center", va="center", fontsize=6.5, rotation=90)
    _tier_rows(bottom, twidth, "syllabus topics (colour: points earned / possible; grey: not started)")
    bar = fig.colorbar(plt.cm.ScalarMappable(cmap=ListedColormap(cmap(range(256)))), ax=[top, bottom],
                       fraction=0.02, pad=0.01)
    bar.set_label("fraction of points")
    png.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(png, dpi=100)
    plt.close(fig)
    return png


def main_text(work: Path, as_json: bool, png: Path | None) -> int:
    """`progress`: the table (with a live line while it works) or, for the dashboard, the JSON alone on stdout
    and a line on stderr per notebook graded again (the dashboard's live line names it)."""
    if as_json:
        result, _, _ = _collected(work, png, lambda msg: print(msg, file=sys.stderr, flush=True), lambda _: None)
        print(json.dumps(result))
        return 0
    from autograder.learner.live_line import step

    with step("progress", "reading your notebooks' results") as live:
        result, entries, skipped = _collected(work, png, live.print, live.doing)
    print(render_text(entries, skipped, result) + plan_text(result))
    return 0


def _collected(work: Path, png: Path | None, log, doing) -> tuple[dict, list[dict], list[str]]:
    def told(msg: str) -> None:
        log(msg)
        doing(msg.removeprefix("progress: ").rstrip(". "))

    entries, skipped, _ = collect(work, log=told)
    doing("reading the review schedule and past interviews")
    result = summary(entries)
    result.update(study_plan(work, result["mastery"]["topics"], entries))
    if png is not None:
        doing("drawing the progress map")
        draw(result, png, started_topics(entries))
        if result["interviews"]:
            from autograder.learner.scorecard import draw_trend

            draw_trend(result["interviews"], png.with_name("interviews.png"))
    return result, entries, skipped


def study_plan(work: Path, topics: list[dict], entries: list[dict] | None = None) -> dict:
    """Past interviews (their scorecards under work/interviews/) and the review queue: due today, and the
    three weakest topics of the learner's level with the exercise to do next; on day one, where to start."""
    from autograder.course import syllabus
    from autograder.learner import review, scorecard
    from autograder.learner.next_steps import level_of, start_here
    from autograder.learner.session import close_expired

    close_expired()  # an interview left past its deadline still gets its scorecard
    names = syllabus()
    level = level_of(e["tier"] for e in entries or [] if e["status"] != "not started")
    mine = [r for r in topics if r["to_go"] and names.get(r["id"], {}).get("tier") == level]
    weakest = [{"id": t, "title": names.get(t, {}).get("title", ""), "mastery": m, "next": nxt}
               for t, m, nxt in review.weakest(mine or topics)]
    interviews = scorecard.summary_rows(scorecard.past(work))
    fresh = not topics and not interviews and not any(e["status"] != "not started" for e in entries or [])
    return {"interviews": interviews,
            "review": {**review.outlook(), "weakest": weakest, "start_here": start_here(work) if fresh else ""}}


def schedule_lines(review: dict) -> list[str]:
    """Due today (what `make review` draws of it, what stays for its own notebook) and the next days' counts."""
    lines = [f"review: due today: {review.get('due_today', 0)}"
             + (f" (make review draws {len(review.get('drawn', []))} into a notebook)" if review.get("drawn") else "")]
    if review.get("elsewhere"):
        lines.append("  redo in their own notebooks: " + ", ".join(review["elsewhere"]))
    ahead = review.get("next_days") or []
    if ahead:
        lines.append("  next 7 days: " + ", ".join(f"{_weekday(d['date'])} {len(d['keys'])}" for d in ahead))
    return lines


def _weekday(iso: str) -> str:
    import datetime

    day = datetime.date.fromisoformat(iso)
    return f"{day:%a} {day.day}"


def plan_text(result: dict) -> str:
    start = result["review"].get("start_here")
    lines = [""] + ([start] if start else []) + schedule_lines(result["review"])
    for w in result["review"]["weakest"]:
        lines.append(f"  weak: {w['id']} {w['title']} (mastery {w['mastery']:.0%}); next: {w['next']}")
    if result["interviews"]:
        lines.append("interviews:")
        for r in result["interviews"]:
            when = time.strftime("%Y-%m-%d %H:%M", time.localtime(r["started"]))
            lines.append(f"  {when}  {r['level']:<6} {r['score']:g}/{r['max_score']:g}  {r['verdict']}")
    return "\n".join(lines)
