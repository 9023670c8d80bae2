"""The progress map: every notebook in a learner's folder, its score, the cells still failing, and per-topic
mastery, re-checking only what changed.

    python -m autograder progress [DIR] [--json] [--png FILE]      (DIR defaults to work/)

A notebook's result is cached under a hash of what grading depends on: the learner's cells (type, nbgrader id,
source; outputs and execution counts are ignored, since grading clears them), the source notebook's bytes,
the torch version, fast mode and the GPU. The cache lives in .ptlab-cache/progress/, outside release/ and
notebooks/. A notebook whose code is still the release's (not started) scores 0 without a run: the test suite
proves that the blank release scores 0. `check --record` (what the in-notebook self-check runs) stores its
result here too, so the dashboard never re-checks what the self-check just graded.

`progress(work)` is the function to time: it returns the same object `--json` prints.
"""

from __future__ import annotations

import copy
import hashlib
import json
import os
import sys
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
    from autograder.cells import find_source
    from nbformat import from_dict

    try:
        src = find_source(path, from_dict({"metadata": raw.get("metadata", {}), "cells": []}))
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
    from autograder.cells import grade_id, kind, points, topics

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

    from autograder.assemble import STUB_CODE
    from autograder.cells import grade_id, kind
    from autograder.release import finish

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
        _store(content_key(raw, ident[2]), entry_from_report(ident[0], ident[1], report))
    except (OSError, ValueError):
        pass  # remembering is a convenience; the check itself already answered


def notebooks_in(work: Path) -> list[Path]:
    return sorted(p for p in Path(work).rglob("*.ipynb")
                  if ".ipynb_checkpoints" not in p.parts and p.name != DASHBOARD)


def _grade(path: Path, tier: str, notebook: str) -> dict:
    from autograder.check import grade_notebook

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
        ident = _identify(path, raw) if isinstance(raw, dict) else None
        if ident is None:
            skipped.append(f"{path}: not a notebook of this course")
            continue
        tier, notebook, source_path = ident
        key = content_key(raw, source_path, environment)
        entry = cached(key)
        if entry is None:
            from autograder.cells import read

            source = read(source_path)
            if _is_blank(raw, source):
                entry = _blank_entry(tier, notebook, source)
            else:
                if log:
                    log(f"progress: checking {path} ...")
                entry = _grade(path, tier, notebook)
                rechecked += 1
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
    """The object `--json` prints."""
    topics: dict[str, dict] = {}
    for e in entries:
        for c in e["cells"]:
            if c["passed"] is None:
                continue  # written answers wait for a person: not a failure, not yet a mastery
            for t in c.get("topics", []):
                got = topics.setdefault(t, {"earned": 0.0, "max": 0.0})
                got["earned"] += c["points"]
                got["max"] += c["max_points"]
    return {
        "notebooks": [{"tier": e["tier"], "notebook": e["notebook"], "score": e["score"],
                       "max_score": e["max_score"], "status": e["status"], "checked_at": e["checked_at"],
                       "cells": [{k: c[k] for k in ("grade_id", "points", "max_points", "passed")}
                                 for c in e["cells"]]} for e in entries],
        "topics": dict(sorted(topics.items())),
        "total": {"score": sum(e["score"] for e in entries), "max_score": sum(e["max_score"] for e in entries)},
    }


def progress(work: Path = DEFAULT_DIR, png: Path | None = None, log=None) -> dict:
    """Re-check what changed in `work`, return the --json object, and draw the PNG when asked."""
    entries, _, _ = collect(Path(work), log)
    result = summary(entries)
    if png is not None:
        draw(result, Path(png), started_topics(entries))
    return result


# -- text -----------------------------------------------------------------------------------------------

def render_text(entries: list[dict], skipped: list[str], result: dict) -> str:
    from autograder.course import syllabus

    lines = []
    for tier in TIERS:
        mine = [e for e in entries if e["tier"] == tier]
        if not mine:
            continue
        lines.append(f"{tier}  {sum(e['score'] for e in mine):g}/{sum(e['max_score'] for e in mine):g}")
        for e in mine:
            status = "" if e["status"] == "ok" else f"  [{e['status']}]"
            lines.append(f"  {e['notebook']:<40} {e['score']:g}/{e['max_score']:g}{status}")
            if e["status"] == "not started":
                continue
            for c in e["cells"]:
                if c["passed"] is False:
                    lines.append(f"      FAIL {c['grade_id']}: {c['message']}")
                elif c["passed"] is None:
                    lines.append(f"      TODO {c['grade_id']}: {c['message']}")
    names = syllabus()
    weak = [(t, v) for t, v in result["topics"].items() if v["max"] and v["earned"] < v["max"]]
    strong = len(result["topics"]) - len(weak)
    lines.append("")
    lines.append(f"topics: {strong} of {len(result['topics'])} mastered; still to work on:" if weak
                 else f"topics: all {len(result['topics'])} mastered")
    for t, v in sorted(weak, key=lambda tv: tv[1]["earned"] / tv[1]["max"]):
        lines.append(f"  {t:<4} {v['earned']:g}/{v['max']:g}  {names.get(t, {}).get('title', '')[:70]}")
    lines += [f"skipped {s}" for s in skipped]
    total = result["total"]
    lines += ["", f"total {total['score']:g}/{total['max_score']:g} (autograded cells)"]
    return "\n".join(lines)


# -- picture --------------------------------------------------------------------------------------------

def started_topics(entries: list[dict]) -> set[str]:
    """Topics examined by at least one notebook the learner has started."""
    return {t for e in entries if e["status"] != "not started" for c in e["cells"] for t in c.get("topics", [])}


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
    top.set_xlim(0, width)
    top.set_ylim(len(TIERS), 0)
    top.set_yticks([i + 0.45 for i in range(len(TIERS))], TIERS)
    top.set_xticks([])
    top.set_title("notebooks (colour: score; grey: not started)", fontsize=10)
    for side in top.spines.values():
        side.set_visible(False)

    for row, tier in enumerate(TIERS):
        for col, tid in enumerate(by_tier[tier]):
            v = result["topics"].get(tid)
            shown = v and v["max"] and (attempted is None or tid in attempted)
            colour = cmap(v["earned"] / v["max"]) if shown else grey
            bottom.add_patch(plt.Rectangle((col, row), 0.94, 0.9, color=colour))
            bottom.text(col + 0.47, row + 0.45, tid, ha="center", va="center", fontsize=6.5, rotation=90)
    bottom.set_xlim(0, twidth)
    bottom.set_ylim(len(TIERS), 0)
    bottom.set_yticks([i + 0.45 for i in range(len(TIERS))], TIERS)
    bottom.set_xticks([])
    bottom.set_title("syllabus topics (colour: points earned / possible; grey: not started)", fontsize=10)
    for side in bottom.spines.values():
        side.set_visible(False)
    bar = fig.colorbar(plt.cm.ScalarMappable(cmap=ListedColormap(cmap(range(256)))), ax=[top, bottom],
                       fraction=0.02, pad=0.01)
    bar.set_label("fraction of points")
    png.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(png, dpi=100)
    plt.close(fig)
    return png


# -- the dashboard notebook -----------------------------------------------------------------------------

DASHBOARD_INTRO = """# Your progress

Run the cell below: it grades every notebook in this folder that changed since its last check (saved files
only; the self-check at the end of each notebook records its result here too), then shows each notebook's
score, the cells still failing, and how much of each syllabus topic you have mastered. Grading happens in a
separate, sandboxed process: this kernel never sees a hidden test. From a terminal: `make progress`."""

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
    from autograder.release import KERNELSPEC, LANGUAGE_INFO, stamp_python

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


def show(work: Path | None = None) -> None:
    """What the dashboard cell runs: `progress --json` in a separate process, then a table and the figure."""
    import html
    import subprocess

    from IPython.display import Image, display

    work = Path(work or Path.cwd())
    png = work / "progress.png"
    handle = display({"text/plain": "checking the notebooks that changed..."}, raw=True, display_id=True)
    env = {k: v for k, v in os.environ.items() if k != "JPY_SESSION_NAME"}
    done = subprocess.run([sys.executable, "-m", "autograder", "progress", str(work), "--json", "--png", str(png)],
                          env=env, capture_output=True, text=True)
    try:
        result = json.loads(done.stdout.strip().splitlines()[-1])
    except (ValueError, IndexError):
        handle.update({"text/plain": "progress failed: " + (done.stderr.strip().splitlines() or ["?"])[-1]},
                      raw=True)
        return
    e = html.escape
    rows = []
    for n in result["notebooks"]:
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
                    f"<td>{n['score']:g}/{n['max_score']:g}</td><td>{e(n['status'])}</td>"
                    f"<td style='text-align:left'>{detail}</td></tr>")
    total = result["total"]
    table = ("<div class='ptlab-progress'><table><thead><tr><th>tier</th><th>notebook</th><th>score</th>"
             "<th>status</th><th style='text-align:left'>cells</th></tr></thead><tbody>" + "".join(rows) +
             f"</tbody></table><p><b>total {total['score']:g}/{total['max_score']:g}</b></p></div>")
    text = "\n".join(f"{n['tier']}/{n['notebook']}: {n['score']:g}/{n['max_score']:g} {n['status']}"
                     for n in result["notebooks"])
    handle.update({"text/plain": text, "text/html": table}, raw=True)
    if png.exists():
        display(Image(filename=str(png)))


def main_text(work: Path, as_json: bool, png: Path | None) -> int:
    entries, skipped, _ = collect(work, log=lambda msg: print(msg, file=sys.stderr, flush=True))
    result = summary(entries)
    if png is not None:
        draw(result, png, started_topics(entries))
    print(json.dumps(result) if as_json else render_text(entries, skipped, result))
    return 0

