"""The class report as a page: report.html with its PNGs beside it (matplotlib, Agg). Every string that
came from a hand-in or the CSV (student names, statuses, flags) is escaped, and the page passes through
isolation.sanitize.clean_page like every page the course writes (its own <style> kept). A figure's labels
are names too: drawn as plain text (no mathtext, no TeX), control characters escaped, cut to a length; a
figure that still cannot be drawn is left out with a line that says so, never the report."""

from __future__ import annotations

import html
import re
from pathlib import Path

from autograder.classroom.report import ClassReport, build
from autograder.classroom.summary import printable
from autograder.classroom.whole_file import write_whole
from autograder.course import syllabus
from autograder.isolation.sanitize import clean_page

STYLE = """body{font-family:system-ui,sans-serif;margin:2em auto;max-width:72em;color:#222}
table{border-collapse:collapse;margin:.5em 0 1.5em}td,th{border:1px solid #ccc;padding:.25em .6em;text-align:left;
vertical-align:top}th{background:#f3f3f3}td.num{text-align:right}img{max-width:100%}.muted{color:#777}"""


def _e(text) -> str:
    return html.escape(str(text), quote=True)


def _table(head: list[str], rows: list[list[str]], numeric: set[int] = frozenset()) -> str:
    """Cells are HTML already escaped by the caller."""
    th = "".join(f"<th>{_e(h)}</th>" for h in head)
    body = "".join("<tr>" + "".join(f'<td class="num">{c}</td>' if i in numeric else f"<td>{c}</td>"
                                    for i, c in enumerate(r)) + "</tr>" for r in rows)
    return f"<table><thead><tr>{th}</tr></thead><tbody>{body}</tbody></table>"


LABEL_CHARS = 60
PLAIN_TEXT = {"text.usetex": False, "text.parse_math": False}  # a `$` in a name is a dollar sign


def _label(text) -> str:
    text = printable(text)
    return text if len(text) <= LABEL_CHARS else text[:LABEL_CHARS - 1] + "…"


def _figures(rep: ClassReport, out: Path) -> tuple[dict[str, str], list[str]]:
    """The figures drawn ({name: file}), and a line for each one that could not be."""
    import matplotlib

    matplotlib.use("Agg")
    made, failed = {}, []
    tiers = sorted({k.split("/")[0] for k in rep.scores})
    for n, tier in enumerate(tiers):
        name = f"scores_{tier}.png" if re.fullmatch(r"[A-Za-z0-9_-]{1,64}", tier) else f"scores_{n}.png"
        _draw(made, failed, tier, name, out, lambda ax, tier=tier: _scores(ax, rep, tier))
    if rep.mastery:
        _draw(made, failed, "mastery", "mastery.png", out, lambda ax: _mastery(ax, rep))
    return made, failed


def _draw(made: dict, failed: list, key: str, name: str, out: Path, plot) -> None:
    import matplotlib
    import matplotlib.pyplot as plt

    fig = None
    try:
        with matplotlib.rc_context(PLAIN_TEXT):
            fig, ax = plt.subplots()
            height = plot(ax)
            fig.set_size_inches(8, height)
            fig.tight_layout()
            fig.savefig(out / name, dpi=90)
        made[key] = name
    except Exception as e:  # a figure is worth less than the report
        failed.append(f"{_label(key)}: not drawn ({type(e).__name__})")
    finally:
        if fig is not None:
            plt.close(fig)


def _scores(ax, rep: ClassReport, tier: str) -> float:
    keys = [k for k in rep.scores if k.startswith(tier + "/")]
    ax.boxplot([[100 * s for s in rep.scores[k]] for k in keys], vert=False, widths=0.6)
    ax.set_yticks(range(1, len(keys) + 1), [_label(k.split("/", 1)[1]) for k in keys], fontsize=8)
    ax.invert_yaxis()
    ax.set_xlim(-2, 102)
    ax.set_xlabel("score (% of the notebook's points)")
    ax.set_title(f"{_label(tier)}: score distribution per notebook")
    return 0.4 * len(keys) + 1.2


def _mastery(ax, rep: ClassReport) -> float:
    topics = list(rep.mastery)
    pct = [100 * e / p if p else 0 for e, p in rep.mastery.values()]
    ax.barh(range(len(topics)), pct, color=["#c0392b" if v < 50 else "#e6a23c" if v < 80 else "#2e8b57"
                                             for v in pct])
    ax.set_yticks(range(len(topics)), [_label(t) for t in topics], fontsize=7)
    ax.invert_yaxis()
    ax.set_xlim(0, 100)
    ax.set_xlabel("class mastery (% of the topic's points earned)")
    return 0.22 * len(topics) + 1.2


def write_page(rep: ClassReport, source_name: str, out: Path) -> Path:
    out.mkdir(parents=True, exist_ok=True)
    figs, not_drawn = _figures(rep, out)
    topics = syllabus()
    parts = [f"<h1>Class report</h1><p class=\"muted\">From {_e(source_name)}: {len(rep.rows)} row(s), "
             f"{len({r['student'] for r in rep.rows})} student(s).</p>"]

    parts.append('<h2 id="scores">Scores per notebook</h2>')
    parts += [f'<img src="{_e(f)}" alt="{_e(t)} score distribution">' for t, f in figs.items() if t != "mastery"]
    parts += [f'<p class="muted">Figure {_e(line)}.</p>' for line in not_drawn]
    stats = []
    for key, s in rep.scores.items():
        ordered = sorted(s)
        stats.append([_e(key), str(len(s)), f"{100 * sum(s) / len(s):.0f}%", f"{100 * ordered[len(s) // 2]:.0f}%",
                      f"{100 * sum(v >= 1 for v in s) / len(s):.0f}%"])
    parts.append(_table(["notebook", "graded", "mean", "median", "full marks"], stats, {1, 2, 3, 4}))

    parts.append('<h2 id="failed">Most-failed cells</h2>')
    parts.append('<p class="muted">What the learner reads first: the message of the cell\'s first visible '
                 "check (hidden checks are never shown).</p>")
    parts.append(_table(["notebook", "cell", "failed by", "exercise", "what the learner reads"],
                        [[_e(k), f"<code>{_e(g)}</code>", f"{n} of {of} ({100 * n / of:.0f}%)", _e(i.section),
                          _e(i.says)] for k, g, n, of, i in rep.failed], {2})
                 if rep.failed else "<p>No cell failed.</p>")

    parts.append('<h2 id="mastery">Class mastery per topic</h2>')
    if "mastery" in figs:
        parts.append(f'<img src="{_e(figs["mastery"])}" alt="class mastery per topic">')
    parts.append(_table(["topic", "title", "earned / possible", "mastery"],
                        [[_e(t), _e(topics.get(t, {}).get("title", "")), f"{e:g} / {p:g}",
                          f"{100 * e / p:.0f}%" if p else "-"] for t, (e, p) in rep.mastery.items()], {2, 3}))

    parts.append('<h2 id="troubled">Faults and flags</h2>')
    parts.append(_table(["student", "notebook", "status", "flags"],
                        [[_e(r["student"]), _e(f"{r['assignment']}/{r['notebook']}"), _e(r["status"]),
                          _e(r.get("flags", ""))] for r in rep.troubled])
                 if rep.troubled else "<p>None: every hand-in ran cleanly.</p>")

    parts.append('<h2 id="absent">Not submitted</h2>')
    if rep.absent is None:
        parts.append('<p class="muted">Give a roster (--roster) or the submitted folder (--submitted) to list '
                     "the students with no hand-in at all.</p>")
    else:
        parts.append("<p>No hand-in at all: " + (", ".join(_e(s) for s in rep.absent) or "nobody") + ".</p>")
    if rep.incomplete:
        parts.append(_table(["student", "notebooks missing"],
                            [[_e(s), _e(", ".join(v))] for s, v in sorted(rep.incomplete.items())]))
    page = (f"<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>Class report</title>"
            f"<style>{STYLE}</style></head><body>{''.join(parts)}</body></html>")
    path = out / "report.html"
    write_whole(clean_page(page, [STYLE]), path)
    return path


def write_report(grades_csv: Path, out: Path, roster: Path | None = None, submitted: Path | None = None) -> Path:
    return write_page(build(grades_csv, roster, submitted), grades_csv.name, out)
