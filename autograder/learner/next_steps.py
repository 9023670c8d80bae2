"""What to do after full marks, said under the check's table: the next notebook of the course not yet done,
the weakest topic so far, and where to review; and, with no progress at all, where to start. Advice stays in
the learner's level (the tier of the notebooks they have worked on, the lowest when they span several) while
that level has something left. Read from the progress cache only (the last check of each notebook as it is
now): nothing is graded again to say it."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from autograder.course import ROOT, TIERS, source_notebooks, syllabus


def _entries(work: Path) -> dict[str, dict]:
    """tier/notebook -> the progress cache's entry for each course notebook in `work` as it is now."""
    from nbformat import from_dict

    from autograder.learner.progress import cached, content_key, notebooks_in
    from autograder.pipeline.sources import source_of

    found = {}
    for path in notebooks_in(work):
        try:
            raw = json.loads(path.read_text(encoding="utf-8"))
            src = source_of(path, from_dict({"metadata": raw.get("metadata", {}), "cells": []}))
            entry = cached(content_key(raw, src))
        except Exception:  # a broken or foreign file tells nothing about progress
            continue
        if entry is not None:
            found[f"{src.parent.name}/{src.stem}"] = entry
    return found


def _work_dir(path: Path) -> Path:
    return path.parent.parent if path.parent.name in TIERS else path.parent


def level_of(tiers) -> str | None:
    """The learner's level: the lowest of the tiers they have worked in (a junior who peeked at a senior
    notebook is still a junior); None when they have worked in none."""
    seen = set(tiers)
    return next((t for t in TIERS if t in seen), None)


def _worked(done: dict[str, dict]) -> dict[str, dict]:
    """The entries of notebooks the learner has actually checked: an untouched copy says nothing of a topic."""
    return {k: e for k, e in done.items() if e.get("status", "ok") != "not started"}


def start_here(work: Path) -> str:
    """Day one, in words: the first notebook of the course and how to open it."""
    first = source_notebooks()[0]
    where = Path(work) / first.parent.name / first.name
    return (f"Start here: {first.parent.name}/{first.stem}. Run `make lab` (it copies the student notebooks into "
            f"work/ and opens JupyterLab), open {where}, work through it top to bottom, then run its last cell "
            "(the self-check); this table fills in as you go.")


def _next_notebook(source: Path, work: Path, done: dict[str, dict], level: str | None = None) -> str:
    order = source_notebooks()
    after = order[order.index(source) + 1:] + order[:order.index(source)] if source in order else order
    # The learner's own level first; another tier only once theirs has nothing left.
    for src in sorted(after, key=lambda p: level is not None and p.parent.name != level):
        key = f"{src.parent.name}/{src.stem}"
        entry = done.get(key)
        if entry and entry["score"] >= entry["max_score"] > 0:
            continue
        where = work / src.parent.name / src.name
        return f"next notebook: {key}" + (f" ({where})" if where.exists() else "")
    return "next notebook: none left, every notebook of the course has full marks"


def _weakest(done: dict[str, dict], level: str | None = None) -> str:
    topics: dict[str, list[float]] = {}
    for entry in _worked(done).values():
        for c in entry["cells"]:
            if c.get("passed") is not None:
                for t in c.get("topics", []):
                    got = topics.setdefault(t, [0.0, 0.0])
                    got[0] += c["points"]
                    got[1] += c["max_points"]
    weak = [(earned / most, t, earned, most) for t, (earned, most) in topics.items() if most and earned < most]
    names = syllabus()
    mine = [w for w in weak if names.get(w[1], {}).get("tier") == level]
    weak = mine or weak
    if not weak:
        return ""
    _, topic, earned, most = min(weak)
    title = names.get(topic, {}).get("title", topic)
    return f"weakest topic so far: {title} ({topic}, {earned:g}/{most:g} points in the notebooks you checked)"


def after(path: Path, source: Path, score: float, max_score: float) -> list[str]:
    """The lines to show under a check of `path` (a copy of `source`); none before full marks."""
    if max_score <= 0 or score < max_score:
        return []
    work = _work_dir(Path(path))
    done = _entries(work)
    level = level_of([Path(source).parent.name] + [k.split("/")[0] for k in _worked(done)])
    lines = [f"Full marks. {_next_notebook(Path(source), work, done, level)}"]
    weakest = _weakest(done, level)
    if weakest:
        lines.append(weakest)
    if "google.colab" in sys.modules:  # no make and no work folder there: reviews and solutions need a clone
        return lines
    makefile = ROOT / "Makefile"  # a platform's copy of the course has none
    if makefile.is_file() and "\nreview:" in makefile.read_text():
        review = ("`make review` writes the exercises due for review today into a notebook (work/review/), "
                  "blank, with their hints")
    else:
        review = "`make progress` shows what is still failing across your notebooks"
    lines.append(f"review: {review}; compare an exercise with the reference: "
                 "`python -m autograder solution NB EXERCISE` (or show_solution(\"ex1\") from "
                 "autograder.learner.reveal in a cell)")
    return lines
