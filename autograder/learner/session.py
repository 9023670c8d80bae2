"""What a check of an interview or a review notebook adds to the grade: the clock, the check history, the
events for mastery, the schedule, and (at the end of an interview) the scorecard.

`after_check` runs in the `check` process (cli.py), after the pipeline graded the file against its composed
source; everything it reads about the session comes from the course's cache, never from the learner's file
(which gives only the answers: the follow-ups' text and a hash of each answer for the attempt count).
"""

from __future__ import annotations

import json
import time
from pathlib import Path

from autograder.learner import compose, mastery, review, scorecard


def _span(seconds: float) -> str:
    seconds = int(abs(seconds))
    return f"{seconds // 60} min {seconds % 60:02d} s"


def time_line(meta: dict, now: float) -> str:
    left = meta["deadline"] - now
    at = time.strftime("%H:%M", time.localtime(meta["deadline"]))
    if meta.get("finished") and meta["finished"] < now:
        done = time.strftime("%H:%M", time.localtime(meta["finished"]))
        return f"finished at {done}: this check does not count for the scorecard"
    if left >= 0:
        return f"time left: {_span(left)} (deadline {at})"
    return f"over time by {_span(left)} (deadline {at}): this check does not count for the scorecard"


def after_check(path: Path, report, finish: bool = False, now: float | None = None) -> dict | None:
    """The session part of a check's JSON (mode, time line, scorecard), or None for a course notebook."""
    try:
        raw = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    ident = compose.composed_id(raw)
    meta = compose.load_meta(ident) if ident else None
    if meta is None:
        return None
    now = time.time() if now is None else now
    answers = _answers(raw)
    tests = {t.grade_id: t for t in report.tests}
    check = {"at": now, "elapsed": now - meta["started"], "score": report.score,
             "tests": {g: t.passed for g, t in tests.items()}, "points": {g: t.points for g, t in tests.items()},
             "answered": {g: "not answered yet" not in t.message for g, t in tests.items()},
             "answers": {g: mastery.answer_hash(answers.get(g, [])) for g in tests}}
    out: dict = {"mode": meta["mode"], "id": ident}
    if meta["mode"] == "interview":
        out["time_line"] = time_line(meta, now)
        check["over_time"] = now > meta["deadline"] or bool(meta.get("finished"))
    meta.setdefault("checks", []).append(check)
    if not check.get("over_time"):
        mastery.append([mastery.event(ex["key"], meta["mode"], check["tests"].get(ex["test"], False),
                                      check["answered"].get(ex["test"], False), check["answers"].get(ex["test"], ""),
                                      ident) for ex in meta["exercises"]])
    if meta["mode"] == "review":
        _review_step(meta, now)
    elif finish or check.get("over_time"):  # the end; once ended, the scorecard stays as it was then
        first_end = not meta.get("finished")
        if first_end:  # follow-ups written after the end do not count either
            meta["finished"], meta["follow_ups"] = now, scorecard.follow_up_texts(raw)
        card = scorecard.build(meta, meta.get("follow_ups") or {})
        out["scorecard"] = str(scorecard.save(card, path))
        out["card"] = card
        if first_end:
            review.update({r["exercise"]: review.quality(r["attempts"], r["passed"]) for r in card["exercises"]},
                          now)
    compose.save_meta(ident, meta)
    return out


def _answers(raw: dict) -> dict[str, list[str]]:
    from autograder.learner.mastery import answers_by_test

    return answers_by_test(raw)


def _review_step(meta: dict, now: float) -> None:
    """Each exercise of a review session moves its schedule once: at its first pass in the session."""
    results = {}
    for ex in meta["exercises"]:
        if ex["key"] in meta.get("scheduled", []):
            continue
        _, n, ok = scorecard.exercise_history(meta["checks"], ex["test"])
        if ok:
            results[ex["key"]] = review.quality(n, True)
            meta.setdefault("scheduled", []).append(ex["key"])
    if results:
        review.update(results, now)


def close_expired(now: float | None = None) -> list[Path]:
    """Interviews whose deadline passed without a check since: ended at their deadline from the checks they
    had (no grading needed), so that every interview gets its scorecard. Returns the scorecards written."""
    now = time.time() if now is None else now
    written = []
    for meta in compose.all_meta("interview"):
        if meta.get("finished") or now <= meta.get("deadline", now) or not meta.get("notebook"):
            continue
        notebook = Path(meta["notebook"])
        try:
            raw = json.loads(notebook.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            raw = {}
        meta["finished"], meta["follow_ups"] = meta["deadline"], scorecard.follow_up_texts(raw)
        card = scorecard.build(meta, meta["follow_ups"])
        if notebook.parent.is_dir():
            written.append(scorecard.save(card, notebook))
        review.update({r["exercise"]: review.quality(r["attempts"], r["passed"]) for r in card["exercises"]}, now)
        compose.save_meta(meta["id"], meta)
    return written
