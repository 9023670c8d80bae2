"""An interview's scorecard: per exercise what passed, when and after how many checks; the follow-ups with
their model answers; a verdict by level; the topics to review. Saved as JSON beside the interview notebook.

Only checks before the deadline count. The verdict compares the fraction of points earned with the level's
thresholds (also in docs/studying.md, "Interview mode"):

    level    strong   pass    borderline   (below: not yet)
    junior   0.90     0.75    0.50
    mid      0.85     0.65    0.45
    senior   0.80     0.60    0.40
"""

from __future__ import annotations

import json
import os
from pathlib import Path

THRESHOLDS = {"junior": (0.90, 0.75, 0.50), "mid": (0.85, 0.65, 0.45), "senior": (0.80, 0.60, 0.40)}
VERDICTS = ("strong", "pass", "borderline", "not yet")
REVIEW_AFTER_ATTEMPTS = 3  # a pass that took this many checks still goes on the list of topics to review


def verdict(level: str, fraction: float) -> str:
    for word, bar in zip(VERDICTS[:3], THRESHOLDS.get(level, THRESHOLDS["mid"]), strict=True):
        if fraction >= bar - 1e-9:
            return word
    return VERDICTS[-1]


def exercise_history(checks: list[dict], test: str) -> tuple[float | None, int, bool]:
    """(seconds to the first pass, attempts = distinct answers checked up to it, passed) from in-time checks."""
    seen: set[str] = set()
    for c in checks:
        answer = c.get("answers", {}).get(test)
        if c.get("answered", {}).get(test):
            seen.add(answer or "")
        if c.get("tests", {}).get(test):
            return c["elapsed"], max(1, len(seen)), True
    return None, len(seen), False


def build(meta: dict, follow_up_answers: dict[str, str]) -> dict:
    in_time = [c for c in meta.get("checks", []) if not c.get("over_time")]
    last = in_time[-1] if in_time else {"tests": {}, "points": {}}
    rows, earned, possible, review = [], 0.0, 0.0, []
    for ex in meta["exercises"]:
        first, n, ok = exercise_history(in_time, ex["test"])
        got = float(last.get("points", {}).get(ex["test"], 0.0))
        earned += got
        possible += ex["points"]
        if not last.get("tests", {}).get(ex["test"]) or n >= REVIEW_AFTER_ATTEMPTS:
            review += [t for t in ex["topics"] if t not in review]
        rows.append({"exercise": ex["key"], "title": ex["title"], "passed": bool(last.get("tests", {}).get(ex["test"])),
                     "points": got, "max_points": ex["points"], "seconds_to_first_pass": first, "attempts": n,
                     "topics": ex["topics"], "follow_up": ex["follow_up"],
                     "your_answer": follow_up_answers.get(ex.get("follow_up_id") or "", ""),
                     "model_answer": ex["model_answer"]})
    fraction = earned / possible if possible else 0.0
    return {"interview": meta["id"], "level": meta["level"], "minutes": meta["minutes"], "seed": meta["seed"],
            "started": meta["started"], "deadline": meta["deadline"], "finished": meta.get("finished"),
            "checks": len(meta.get("checks", [])), "checks_over_time": len(meta.get("checks", [])) - len(in_time),
            "score": earned, "max_score": possible, "fraction": round(fraction, 4),
            "verdict": verdict(meta["level"], fraction), "thresholds": dict(zip(VERDICTS[:3], THRESHOLDS[meta["level"]], strict=True)),
            "exercises": rows, "topics_to_review": review, "topic_titles": topic_titles(review)}


def topic_titles(topics: list[str]) -> dict[str, str]:
    """Topic id -> its name in the syllabus (a scorecard names topics, not codes such as J12)."""
    try:
        from autograder.course import syllabus

        known = syllabus()
    except Exception:  # no syllabus to read: the codes stand alone
        known = {}
    return {t: known.get(t, {}).get("title", t) for t in topics}


def named_topics(card: dict) -> list[str]:
    """The topics to review as a learner reads them: "Tensors and memory (J01)"; an older card without names
    keeps its codes."""
    titles = card.get("topic_titles") or {}
    return [f"{titles[t]} ({t})" if titles.get(t, t) != t else t for t in card.get("topics_to_review", [])]


def path_for(notebook: Path) -> Path:
    return Path(notebook).with_suffix(".scorecard.json")


def save(card: dict, notebook: Path) -> Path:
    target = path_for(notebook)
    tmp = target.with_name(f".{target.name}.{os.getpid()}.tmp")
    tmp.write_text(json.dumps(card, indent=1))
    os.replace(tmp, target)
    return target


def follow_up_texts(raw: dict) -> dict[str, str]:
    """The learner's written follow-up answers (manual cells), by grade id, from their file."""
    out = {}
    for cell in raw.get("cells", []):
        meta = (cell.get("metadata") or {}).get("nbgrader") or {}
        if meta.get("solution") and meta.get("grade"):
            src = cell.get("source", "")
            src = "".join(src) if isinstance(src, list) else str(src)
            out[meta.get("grade_id", "")] = "" if src.strip() == "YOUR ANSWER HERE" else src.strip()
    return out


def past(work: Path) -> list[dict]:
    """Every scorecard under work/interviews/, oldest first."""
    cards = []
    for p in sorted((Path(work) / "interviews").glob("*.scorecard.json")):
        try:
            cards.append(json.loads(p.read_text()))
        except (OSError, ValueError):
            continue
    return sorted(cards, key=lambda c: c.get("started", 0))


def minutes(seconds: float | None) -> str:
    if seconds is None:
        return "-"
    return f"{int(seconds // 60)} min {int(seconds % 60):02d} s"


def render_text(card: dict) -> str:
    lines = [f"Scorecard ({card['level']}, {card['minutes']} min): {card['score']:g}/{card['max_score']:g} "
             f"-> {card['verdict']}"]
    for r in card["exercises"]:
        mark = "PASS" if r["passed"] else "FAIL"
        lines.append(f"  {mark}  {r['exercise']}  {r['points']:g}/{r['max_points']:g}  first pass "
                     f"{minutes(r['seconds_to_first_pass'])}  attempts {r['attempts']}")
    if card["topics_to_review"]:
        lines.append("  topics to review: " + ", ".join(named_topics(card)))
    return "\n".join(lines)


def summary_rows(cards: list[dict]) -> list[dict]:
    """One row per past interview, for the dashboard's table and trend."""
    return [{"interview": c["interview"], "level": c["level"], "minutes": c["minutes"],
             "started": c["started"], "score": c["score"], "max_score": c["max_score"],
             "fraction": c["fraction"], "verdict": c["verdict"], "topics_to_review": c["topics_to_review"]}
            for c in cards]


def draw_trend(rows: list[dict], png: Path) -> Path:
    """Fraction of points per interview over time, with the level's pass bar."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7, 3))
    colours = {"junior": "#1a7f37", "mid": "#0969da", "senior": "#8250df"}
    for level, colour in colours.items():
        mine = [(i, r["fraction"]) for i, r in enumerate(rows, 1) if r["level"] == level]
        if mine:
            ax.plot([m[0] for m in mine], [m[1] for m in mine], "o-", color=colour, label=level)
            ax.axhline(THRESHOLDS[level][1], color=colour, lw=0.8, ls="--")
    ax.set_ylim(0, 1.05)
    ax.set_xlabel("interview")
    ax.set_ylabel("fraction of points")
    ax.set_title("Mock interviews (dashed: the pass bar of each level)", fontsize=10)
    ax.set_xticks(range(1, len(rows) + 1))
    ax.legend(loc="lower right", fontsize=8)
    fig.tight_layout()
    png.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(png, dpi=100)
    plt.close(fig)
    return png
