"""What the learner's checks say about each exercise, and mastery that weighs how a pass came.

Every recorded check (the self-check, `progress`, an interview's or a review's check) appends one event per
graded exercise to .ptlab-cache/learner/events.jsonl: when, which exercise (tier/notebook/test id), in which
mode, passed or not, and a hash of the learner's answer cells. The *attempts* an exercise took in a mode are
the distinct answers checked up to its first pass there (the same answer checked twice counts once).

Mastery of a topic = sum over its graded cells of (points earned x weight) / points possible, where the weight
says how the pass came:

    passed in an interview, or on the first attempt       1.0
    passed on the second attempt                          0.85
    passed on the third or fourth attempt                 0.7
    passed after more attempts                            0.5

(a cell passing now with no recorded history counts as a first attempt; a cell passed in an interview counts
in full even where its notebook's copy does not pass). `WEIGHT_TEXT` is what the dashboard prints.
"""

from __future__ import annotations

import hashlib
import json
import time
from pathlib import Path

from autograder.course import CACHE_DIR

WEIGHT_TEXT = ("Mastery of a topic = points earned on its cells, each weighted by how the pass came "
               "(in an interview or on the first attempt 1.0, second attempt 0.85, third or fourth 0.7, "
               "later 0.5), divided by the points possible.")


def _log() -> Path:
    return CACHE_DIR / "learner" / "events.jsonl"


def answer_hash(sources: list[str]) -> str:
    return hashlib.sha256("\x00".join(s.strip() for s in sources).encode()).hexdigest()[:16]


def append(events: list[dict]) -> None:
    if not events:
        return
    path = _log()
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "a", encoding="utf-8") as f:  # one write per check: lines stay whole
        f.write("".join(json.dumps(e) + "\n" for e in events))


def events() -> list[dict]:
    try:
        lines = _log().read_text(encoding="utf-8").splitlines()
    except OSError:
        return []
    out = []
    for ln in lines:
        try:
            out.append(json.loads(ln))
        except ValueError:
            continue  # a line cut by a crash: the others still count
    return out


def event(key: str, mode: str, passed: bool, answered: bool, answer: str, session: str = "") -> dict:
    return {"at": time.time(), "key": key, "mode": mode, "passed": bool(passed), "answered": bool(answered),
            "answer": answer, "session": session}


def attempts(evs: list[dict]) -> tuple[int, bool]:
    """(distinct answers checked up to the first pass, whether it passed) over one exercise's events."""
    seen: set[str] = set()
    for e in evs:
        if not e.get("answered"):
            continue
        seen.add(e.get("answer", ""))
        if e.get("passed"):
            return len(seen), True
    return len(seen), False


def weight(n_attempts: int, interview: bool = False) -> float:
    if interview or n_attempts <= 1:
        return 1.0
    if n_attempts == 2:
        return 0.85
    if n_attempts <= 4:
        return 0.7
    return 0.5


def by_key(evs: list[dict] | None = None) -> dict[str, list[dict]]:
    out: dict[str, list[dict]] = {}
    for e in evs if evs is not None else events():
        out.setdefault(e["key"], []).append(e)
    return out


def weights(evs: list[dict] | None = None) -> dict[str, float]:
    """Exercise key -> the best weight any of its passes earned (study, review or interview)."""
    out = {}
    for key, mine in by_key(evs).items():
        best = 0.0
        for mode in ("study", "review"):
            n, ok = attempts([e for e in mine if e.get("mode") == mode])
            if ok:
                best = max(best, weight(n))
        if any(e.get("passed") and e.get("mode") == "interview" for e in mine):
            best = 1.0
        out[key] = best
    return out


def passed_keys(evs: list[dict] | None = None) -> set[str]:
    return {e["key"] for e in (evs if evs is not None else events()) if e.get("passed")}


def interview_passes(evs: list[dict]) -> set[str]:
    return {e["key"] for e in evs if e.get("mode") == "interview" and e.get("passed")}


def topic_mastery(entries: list[dict], evs: list[dict] | None = None) -> dict[str, dict]:
    """Topic -> {earned, max, weighted}: `weighted` is the mastery the dashboard shows (0..1). A cell passed in an
    interview counts in full even where its own notebook's copy does not pass (yet), in `earned` as in
    `weighted`: the points beside a mastery never say less than the mastery does."""
    evs = events() if evs is None else evs
    w = weights(evs)
    interviewed = interview_passes(evs)
    topics: dict[str, dict] = {}
    for e in entries:
        for c in e["cells"]:
            if c["passed"] is None:
                continue  # written answers wait for a person: not a failure, not yet a mastery
            key = f"{e['tier']}/{e['notebook']}/{c['grade_id']}"
            credit = c["points"] * (w.get(key) or 1.0) if c["passed"] else 0.0
            earned = c["points"]
            if key in interviewed:
                credit = earned = c["max_points"]
            for t in c.get("topics", []):
                got = topics.setdefault(t, {"earned": 0.0, "max": 0.0, "credit": 0.0})
                got["earned"] += earned
                got["max"] += c["max_points"]
                got["credit"] += credit
    for v in topics.values():
        v["weighted"] = round(v.pop("credit") / v["max"], 4) if v["max"] else 0.0
    return topics


def record_study(tier: str, notebook: str, raw: dict, cells: list[dict]) -> None:
    """Events of one study-mode check: cells as progress entries hold them; answers from the learner's file."""
    answers = answers_by_test(raw)
    evs = []
    for c in cells:
        if c["passed"] is None:
            continue
        answered = "not answered yet" not in (c.get("message") or "")
        evs.append(event(f"{tier}/{notebook}/{c['grade_id']}", "study", c["passed"], answered,
                         answer_hash(answers.get(c["grade_id"], []))))
    append(evs)


def started_topics(entries: list[dict], evs: list[dict]) -> set[str]:
    """Topics of a notebook the learner has started, or of a cell they were asked in an interview: the one
    meaning of "started" that the table, the picture and the advice share."""
    tried = {e["key"] for e in evs if e.get("mode") == "interview"}
    return {t for e in entries for c in e["cells"] for t in c.get("topics", [])
            if e["status"] != "not started" or f"{e['tier']}/{e['notebook']}/{c['grade_id']}" in tried}


def readable(entries: list[dict], evs: list[dict] | None = None) -> dict:
    """Topics as a learner reads them: in progress (weakest first), then done; untouched ones counted.

    {"topics": [{id, title, mastery (0..1), earned, max, to_go (cells still failing), status}], "done": n,
     "untouched": n, "how": WEIGHT_TEXT}; status is "3 cells to go", "1 cell to go" or "done"."""
    from autograder.course import syllabus

    names = syllabus()
    evs = events() if evs is None else evs
    weighted = topic_mastery(entries, evs)
    passed = interview_passes(evs)
    started = started_topics(entries, evs)
    to_go: dict[str, int] = {}  # over every notebook, as mastery's points are: "done" means all of it
    for e in entries:
        for c in e["cells"]:
            missing = c["passed"] is False and f"{e['tier']}/{e['notebook']}/{c['grade_id']}" not in passed
            for t in c.get("topics", []):
                to_go[t] = to_go.get(t, 0) + missing
    rows = []
    for t in sorted(started & set(weighted)):
        v, n = weighted[t], to_go.get(t, 0)
        rows.append({"id": t, "title": names.get(t, {}).get("title", ""), "mastery": v["weighted"],
                     "earned": v["earned"], "max": v["max"], "to_go": n,
                     "status": "done" if n == 0 else f"{n} cell{'s' if n != 1 else ''} to go"})
    rows.sort(key=lambda r: (r["to_go"] == 0, r["mastery"], r["id"]))
    return {"topics": rows, "done": sum(r["to_go"] == 0 for r in rows),
            "untouched": len([t for t in names if t not in started]), "how": WEIGHT_TEXT}


def answers_by_test(raw: dict) -> dict[str, list[str]]:
    """Test grade_id -> the sources of the answer cells before it, from a notebook as JSON (a learner's file)."""
    out: dict[str, list[str]] = {}
    pending: list[str] = []
    for cell in raw.get("cells", []):
        meta = (cell.get("metadata") or {}).get("nbgrader") or {}
        src = cell.get("source", "")
        src = "".join(src) if isinstance(src, list) else str(src)
        if meta.get("solution") and not meta.get("grade"):
            pending.append(src)
        elif meta.get("grade") and not meta.get("solution"):
            out[meta.get("grade_id", "")], pending = pending, []
    return out
