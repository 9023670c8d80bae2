"""The review queue: every graded exercise comes back on a spaced-repetition schedule (SM-2).

Each result becomes a quality q (0-5):

    first-try pass 5, second attempt 4, third or fourth 3, later passes 2, a failure 1

and SM-2 moves the exercise's schedule (easiness factor EF, starting at 2.5; repetitions n; interval I days):

    q >= 3:  n += 1;  I = 1 if n == 1, 6 if n == 2, else round(I * EF)
    q <  3:  n = 0;   I = 1                   (back tomorrow)
    EF = max(1.3, EF + 0.1 - (5 - q) * (0.08 + (5 - q) * 0.02));   due = day of the result + I

Results that move it: the first pass of an exercise in study mode; each exercise of a finished interview
(a failure is q = 1); each exercise of a review session, at its first pass there (q from the attempts in
that session), or as a failure when the next session is composed without it having passed.

    python -m autograder review [--max 5]      writes work/review/<id>.ipynb: the exercises due today, blank,
                                               with their hints; its check updates the schedule.
"""

from __future__ import annotations

import datetime
import json
import os
import time
from pathlib import Path

from autograder.course import CACHE_DIR, GradingInputError
from autograder.learner import compose, live_line
from autograder.learner.leaks import leaks
from autograder.learner.mastery import attempts

START_EF = 2.5
REVIEW_DIR = "review"


def _file() -> Path:
    return CACHE_DIR / "learner" / "schedule.json"


def load() -> dict[str, dict]:
    try:
        return json.loads(_file().read_text())
    except (OSError, ValueError):
        return {}


def save(schedule: dict[str, dict]) -> None:
    path = _file()
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f"schedule.{os.getpid()}.tmp")
    tmp.write_text(json.dumps(schedule, indent=1, sort_keys=True))
    os.replace(tmp, path)


def quality(n_attempts: int, passed: bool) -> int:
    if not passed:
        return 1
    return 5 if n_attempts <= 1 else 4 if n_attempts == 2 else 3 if n_attempts <= 4 else 2


def today(now: float | None = None) -> datetime.date:
    return datetime.date.fromtimestamp(now if now is not None else time.time())


def step(state: dict | None, q: int, day: datetime.date) -> dict:
    """SM-2's update of one exercise's schedule after a result of quality q on `day`."""
    s = dict(state or {"ef": START_EF, "reps": 0, "interval": 0})
    if q >= 3:
        s["reps"] += 1
        s["interval"] = 1 if s["reps"] == 1 else 6 if s["reps"] == 2 else round(s["interval"] * s["ef"])
    else:
        s["reps"], s["interval"] = 0, 1
    s["ef"] = round(max(1.3, s["ef"] + 0.1 - (5 - q) * (0.08 + (5 - q) * 0.02)), 4)
    s["due"] = (day + datetime.timedelta(days=s["interval"])).isoformat()
    s["last_q"] = q
    s["last"] = day.isoformat()
    return s


def update(results: dict[str, int], now: float | None = None) -> dict[str, dict]:
    """Apply results (exercise key -> q) and save; returns the new schedule."""
    schedule = load()
    day = today(now)
    for key, q in results.items():
        schedule[key] = step(schedule.get(key), q, day)
    save(schedule)
    return schedule


def due(now: float | None = None, schedule: dict | None = None) -> list[str]:
    """Keys due today or earlier, most overdue first."""
    schedule = load() if schedule is None else schedule
    day = today(now).isoformat()
    return sorted((k for k, s in schedule.items() if s.get("due", "9999") <= day),
                  key=lambda k: (schedule[k]["due"], schedule[k].get("ef", START_EF), k))


def on_study_check(evs_by_key: dict[str, list[dict]], keys_passed_now: list[str], now: float | None = None) -> None:
    """A study-mode check: an exercise passing for the first time there enters the schedule."""
    schedule = load()
    fresh = {}
    for key in keys_passed_now:
        if key in schedule:
            continue
        n, ok = attempts([e for e in evs_by_key.get(key, []) if e.get("mode") == "study"])
        if ok:
            fresh[key] = quality(n, True)
    if fresh:
        update(fresh, now)


def _close_open_sessions(now: float) -> None:
    """Exercises of earlier review sessions that never passed count as failures, once."""
    results = {}
    for meta in compose.all_meta("review"):
        if meta.get("closed"):
            continue
        for ex in meta["exercises"]:
            if ex["key"] not in meta.get("scheduled", []):
                results[ex["key"]] = 1
        meta["closed"] = now
        compose.save_meta(meta["id"], meta)
    if results:
        update(results, now)


MOST = 5  # exercises one review session draws


def drawn(keys: list[str], most: int = MOST) -> tuple[list, list[str]]:
    """What a review session of these due keys draws (the first `most` that stand alone) and the keys left to
    redo in their own notebooks (they build on another exercise, or did not fit)."""
    from autograder.learner.exercises import by_key

    exercises = [ex for ex in by_key_lenient(keys, by_key) if ex.standalone][:most]
    return exercises, [k for k in keys if k not in {ex.key for ex in exercises}]


def outlook(now: float | None = None, days: int = 7, most: int = MOST) -> dict:
    """The schedule as the dashboard shows it: what is due today (and which of it `make review` would draw),
    then how many exercises fall due on each of the next `days` days."""
    schedule = load()
    keys = due(now, schedule)
    exercises, elsewhere = drawn(keys, most)
    start_day = today(now)
    ahead = []
    for n in range(1, days + 1):
        day = (start_day + datetime.timedelta(days=n)).isoformat()
        ahead.append({"date": day, "keys": sorted(k for k, s in schedule.items() if s.get("due") == day)})
    return {"due_today": len(keys), "today": keys, "drawn": [ex.key for ex in exercises], "elsewhere": elsewhere,
            "next_days": ahead, "scheduled": len(schedule)}


def start(work: Path, most: int = MOST, now: float | None = None, warm: bool = True, log=None) -> Path | None:
    """Write today's review notebook; None when nothing is due. A live line on stdout says what runs meanwhile;
    `log`: where the lines that stay go (printed above the live line)."""
    with live_line.step("review", "reading today's schedule") as step:
        return _start(step, log or step.print, work, most, now, warm)


def _start(step, log, work: Path, most: int, now: float | None, warm: bool) -> Path | None:
    now = time.time() if now is None else now
    _close_open_sessions(now)
    keys = due(now)
    if not keys:
        log("review: nothing is due today")
        return None
    exercises, elsewhere = drawn(keys, most)
    if not exercises:
        log("review: due today, redo in their notebooks (they build on another exercise): " + ", ".join(keys))
        return None
    step.doing(f"composing {len(exercises)} exercise(s) into one notebook")
    ident = compose.new_id("review")
    head = (f"# Review, {today(now).isoformat()}\n\n{len(exercises)} exercise(s) due today, blank again, with "
            "their hints. Solve each, save and run the check at the end: an exercise that passes at the first "
            "check comes back much later, one that needed many tries comes back soon.")
    if elsewhere:
        head += "\n\nAlso due, in their own notebooks (reset the answer cell and redo): " + ", ".join(elsewhere)
    source = compose.compose(exercises, head, "review", hints=True, finish=False)
    learner = compose.student_version(source, ident, "review")
    problems = leaks(learner, allow_hints=True)
    if problems:
        raise GradingInputError("the review notebook would give answers away: " + "; ".join(problems))
    meta = {"id": ident, "mode": "review", "started": now, "keys": [ex.key for ex in exercises],
            "exercises": compose.describe(exercises, source), "checks": [], "scheduled": []}
    target = Path(work) / REVIEW_DIR / f"{ident}.ipynb"
    meta["notebook"] = str(target)
    src_path = compose.store(ident, source, meta)
    compose.write(learner, target)
    log(f"review: {target} ({len(exercises)} exercise(s) due: {', '.join(ex.key for ex in exercises)})")
    if warm:
        step.doing("running the reference solution once, so that your first check is quick")
        compose.prepare(src_path)
    return target


def by_key_lenient(keys: list[str], by_key) -> list:
    """The exercises of these keys that the course still has (one may have been renamed since)."""
    out = []
    for k in keys:
        try:
            out += by_key([k])
        except GradingInputError:
            continue
    return out


def weakest(rows: list[dict], n: int = 3) -> list[tuple[str, float, str | None]]:
    """(topic, mastery, the exercise to do next) for the n weakest topics in progress: `rows` as
    mastery.readable gives them (started topics with cells still to go)."""
    from autograder.learner.exercises import catalogue
    from autograder.learner.mastery import passed_keys

    going = sorted((r for r in rows if r["to_go"]), key=lambda r: (r["mastery"], r["id"]))
    schedule, passed, course = load(), passed_keys(), catalogue()
    out = []
    for r in going[:n]:
        # Next: an exercise of the topic not passed yet (in course order), else the one due soonest.
        options = [(ex.key in passed, schedule.get(ex.key, {}).get("due", ""), i)
                   for i, ex in enumerate(course) if r["id"] in ex.topics]
        best = min(options, default=None)
        out.append((r["id"], r["mastery"], course[best[2]].key if best else None))
    return out

def remember_attempts(raw: dict, entry: dict) -> None:
    """A graded study-mode check, for mastery's attempt counts and the review schedule."""
    from autograder.learner import mastery

    mastery.record_study(entry["tier"], entry["notebook"], raw, entry["cells"])
    passed = [f"{entry['tier']}/{entry['notebook']}/{c['grade_id']}" for c in entry["cells"] if c["passed"]]
    on_study_check(mastery.by_key(), passed)
