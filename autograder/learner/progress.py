"""The progress map: every notebook in a learner's folder, its score, the cells still failing, and per-topic
mastery, re-checking only what changed.

    python -m autograder progress [DIR] [--json] [--png FILE]      (DIR defaults to work/)

A notebook's result is cached under a hash of what grading depends on: the learner's cells (type, nbgrader id,
source; outputs and execution counts are ignored, since grading clears them), the source notebook's bytes,
the torch version, fast mode and the GPU. The cache lives in .ptlab-cache/progress/, outside release/ and
notebooks/. A notebook whose code is still the release's (not started) scores 0 without a run: the test suite
proves that the blank release scores 0. `check --record` (what the in-notebook self-check runs) stores its
result here too, so the dashboard never re-checks what the self-check just graded.

This module is the model (collect, cache, summary); progress_views.py turns it into a table and a picture,
dashboard.py into the notebook a learner opens.
"""

from __future__ import annotations

import copy
import hashlib
import json
import os
import time
from pathlib import Path

from autograder.course import CACHE_DIR, ROOT, TIERS, GradingInputError

CACHE = CACHE_DIR / "progress"
DASHBOARD = "00_progress.ipynb"
DEFAULT_DIR = ROOT / "work"


# -- keys -----------------------------------------------------------------------------------------------

def _environment() -> str:
    import importlib.metadata

    try:
        torch_version = importlib.metadata.version("torch")
    except importlib.metadata.PackageNotFoundError:
        torch_version = "none"
    return f"{torch_version}|fast={os.environ.get('PTLAB_FAST') == '1'}|gpu={Path('/dev/nvidiactl').exists()}"


def content_key(raw: dict, source_path: Path, environment: str | None = None) -> str:
    """What a grade depends on, hashed: the learner's cells and the source notebook (not outputs)."""
    h = hashlib.sha256()
    for cell in raw.get("cells", []):
        src = cell.get("source", "")
        src = "".join(src) if isinstance(src, list) else str(src)
        gid = ((cell.get("metadata") or {}).get("nbgrader") or {}).get("grade_id")
        h.update(json.dumps([cell.get("cell_type"), gid, src]).encode())
    h.update(Path(source_path).read_bytes())
    h.update((environment or _environment()).encode())
    return h.hexdigest()[:32]


def _identify(path: Path, raw: dict) -> tuple[str, str, Path] | None:
    """(tier, notebook, source path), or None for a file that is not one of the course's notebooks."""
    from nbformat import from_dict

    from autograder.pipeline.sources import source_of

    if ((raw.get("metadata") or {}).get("ptlab") or {}).get("composed"):
        return None  # an interview or a review: its own record (learner/interview.py, review.py)
    try:
        src = source_of(path, from_dict({"metadata": raw.get("metadata", {}), "cells": []}))
    except GradingInputError:
        return None
    return src.parent.name, src.stem, src


# -- results --------------------------------------------------------------------------------------------

def entry_from_report(tier: str, notebook: str, report) -> dict:
    """A cache entry from a check.Report: more than --json shows (failure messages, topics, manual cells)."""
    status = "ok"
    if report.faults:
        status = "; ".join(report.faults)
    elif report.flags:
        status = "flagged for review: " + report.flags[0]
    cells = [{"grade_id": t.grade_id, "points": t.points, "max_points": t.max_points, "passed": t.passed,
              "message": t.message, "topics": list(t.topics)} for t in report.tests]
    cells += [{"grade_id": m.grade_id, "points": None, "max_points": m.max_points, "passed": None,
               "message": "written answer, awaiting a grader" if m.answered else "written answer, not answered yet",
               "topics": list(m.topics)} for m in report.manual]
    return {"tier": tier, "notebook": notebook, "score": report.score, "max_score": report.max_score,
            "status": status, "checked_at": time.strftime("%Y-%m-%dT%H:%M:%S%z"), "cells": cells}


def _blank_entry(tier: str, notebook: str, source) -> dict:
    from autograder.pipeline.cells import grade_id, kind, points, topics

    cells = []
    for c in source.cells:
        if kind(c) == "test":
            cells.append({"grade_id": grade_id(c), "points": 0.0, "max_points": points(c), "passed": False,
                          "message": "not answered yet", "topics": topics(c)})
    for c in source.cells:
        if kind(c) == "manual":
            cells.append({"grade_id": grade_id(c), "points": None, "max_points": points(c), "passed": None,
                          "message": "written answer, not answered yet", "topics": topics(c)})
    return {"tier": tier, "notebook": notebook, "score": 0.0,
            "max_score": sum(c["max_points"] for c in cells if c["passed"] is not None),
            "status": "not started", "checked_at": time.strftime("%Y-%m-%dT%H:%M:%S%z"), "cells": cells}


def _is_blank(raw: dict, source) -> bool:
    """True when running this notebook is running the blank release: every answer cell is still its stub and
    every other code cell the learner could have written is one the course has. Test and locked cells do not
    count: grading restores them from the source (assemble.py)."""
    from nbgrader.preprocessors import ClearHiddenTests, ClearSolutions

    from autograder.authoring.release import finish
    from autograder.pipeline.assemble import STUB_CODE
    from autograder.pipeline.cells import grade_id, kind

    blank = copy.deepcopy(source)
    ClearSolutions(code_stub={"python": STUB_CODE}).preprocess(blank, {})
    ClearHiddenTests().preprocess(blank, {})
    stubs = {grade_id(c): c.source for c in blank.cells if kind(c) in ("solution", "manual")}
    restored = {grade_id(c) for c in source.cells if grade_id(c) and kind(c) not in ("solution", "manual")}
    plain = {c.source for c in blank.cells if c.cell_type == "code" and not grade_id(c)}
    plain |= {c["source"] for c in finish(blank)["cells"] if c["cell_type"] == "code"}
    for cell in raw.get("cells", []):
        src = cell.get("source", "")
        src = "".join(src) if isinstance(src, list) else src
        gid = ((cell.get("metadata") or {}).get("nbgrader") or {}).get("grade_id")
        if gid in stubs:
            if src.strip() != stubs[gid].strip() and src.strip() not in ("", STUB_CODE):
                return False
        elif gid in restored:
            continue
        elif cell.get("cell_type") == "code" and src not in plain and src.strip():
            return False
    return True


def _cache_file(key: str) -> Path:
    return CACHE / f"{key}.json"


def _store(key: str, entry: dict) -> None:
    CACHE.mkdir(parents=True, exist_ok=True)
    tmp = _cache_file(key).with_name(f"{key}.{os.getpid()}.tmp")
    tmp.write_text(json.dumps(entry))
    os.replace(tmp, _cache_file(key))


def cached(key: str) -> dict | None:
    try:
        return json.loads(_cache_file(key).read_text())
    except (OSError, ValueError):
        return None


def record(path: Path, report) -> None:
    """Remember a check's result for `progress` (check --record: what the self-check cell runs)."""
    try:
        raw = json.loads(Path(path).read_text(encoding="utf-8"))
        ident = _identify(Path(path), raw)
        if ident is None:
            return
        entry = entry_from_report(ident[0], ident[1], report)
        _store(content_key(raw, ident[2]), entry)
        from autograder.learner.review import remember_attempts

        remember_attempts(raw, entry)
    except (OSError, ValueError):
        pass  # remembering is a convenience; the check itself already answered


def notebooks_in(work: Path) -> list[Path]:
    return sorted(p for p in Path(work).rglob("*.ipynb")
                  if ".ipynb_checkpoints" not in p.parts and p.name != DASHBOARD)


def _grade(path: Path, tier: str, notebook: str) -> dict:
    from autograder.pipeline.check import grade_notebook

    try:
        return entry_from_report(tier, notebook, grade_notebook(path))
    except GradingInputError as e:
        return {"tier": tier, "notebook": notebook, "score": 0.0, "max_score": 0.0,
                "status": f"cannot grade: {e}", "checked_at": time.strftime("%Y-%m-%dT%H:%M:%S%z"), "cells": []}


def collect(work: Path = DEFAULT_DIR, log=None) -> tuple[list[dict], list[str], int]:
    """(one full entry per course notebook in work, files skipped with why, how many were re-checked)."""
    environment = _environment()
    entries, skipped, rechecked = [], [], 0
    for path in notebooks_in(work):
        try:
            raw = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            skipped.append(f"{path}: not a readable notebook")
            continue
        if isinstance(raw, dict) and ((raw.get("metadata") or {}).get("ptlab") or {}).get("composed"):
            continue  # an interview or a review: the dashboard shows their scorecards and the schedule
        ident = _identify(path, raw) if isinstance(raw, dict) else None
        if ident is None:
            skipped.append(f"{path}: not a notebook of this course")
            continue
        tier, notebook, source_path = ident
        key = content_key(raw, source_path, environment)
        entry = cached(key)
        if entry is None:
            from autograder.pipeline.cells import read

            source = read(source_path)
            if _is_blank(raw, source):
                entry = _blank_entry(tier, notebook, source)
            else:
                if log:
                    log(f"progress: checking {path} ...")
                entry = _grade(path, tier, notebook)
                rechecked += 1
                if not entry["status"].startswith("cannot grade"):
                    from autograder.learner.review import remember_attempts

                    remember_attempts(raw, entry)
            if not entry["status"].startswith("cannot grade"):
                _store(key, entry)
        entry = dict(entry, path=str(path))
        entries.append(entry)
    order = {t: i for i, t in enumerate(TIERS)}
    # Two copies of one notebook count once: the better one (the usual name first among equals).
    entries.sort(key=lambda e: (order.get(e["tier"], 9), e["notebook"], -e["score"],
                                Path(e["path"]).stem != e["notebook"], e["path"]))
    kept: list[dict] = []
    for e in entries:
        if kept and (kept[-1]["tier"], kept[-1]["notebook"]) == (e["tier"], e["notebook"]):
            skipped.append(f"{e['path']}: another copy of {e['tier']}/{e['notebook']} (counted: {kept[-1]['path']})")
        else:
            kept.append(e)
    return kept, skipped, rechecked


def summary(entries: list[dict]) -> dict:
    """The object `--json` prints: `topics` (points per topic), `mastery` (the readable, weighted view of
    learner/mastery.py)."""
    from autograder.learner.mastery import events, readable, topic_mastery

    evs = events()
    # One count behind the picture's colours and the topic table: an interview pass counts in both.
    topics = {t: {"earned": v["earned"], "max": v["max"]} for t, v in topic_mastery(entries, evs).items()}
    return {
        "notebooks": [{"tier": e["tier"], "notebook": e["notebook"], "score": e["score"],
                       "max_score": e["max_score"], "status": e["status"], "checked_at": e["checked_at"],
                       "cells": [{k: c[k] for k in ("grade_id", "points", "max_points", "passed")}
                                 for c in e["cells"]]} for e in entries],
        "topics": dict(sorted(topics.items())),
        "total": {"score": sum(e["score"] for e in entries), "max_score": sum(e["max_score"] for e in entries)},
        "mastery": readable(entries, evs),
    }
