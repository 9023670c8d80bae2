"""Answer cells the learner ran but did not save: the self-check grades the file on disk, so an answer this
kernel last ran in another version than the file holds is named in red above the table (issue 24).

Runs in the learner's kernel: it reads the kernel's own input history (IPython keeps no cell ids there), and
tells which answer cell a source it ran was a version of by its text and the names it defines.
"""

from __future__ import annotations

import ast
import difflib
import json
from pathlib import Path


def _defined_names(source: str) -> set[str] | None:
    """Top-level names a cell defines (functions, classes, assignments); None when it does not parse."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return None
    names = set()
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, (ast.Assign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            names |= {n.id for t in targets for n in ast.walk(t) if isinstance(n, ast.Name)}
    return names


def _owner(ran: str, answers: dict[str, str]) -> str | None:
    """Which answer cell a source the kernel ran was a version of: the one it equals, else the one defining
    the same names, else the one it resembles most (a half-typed edit that does not parse)."""
    same = [gid for gid, src in answers.items() if src == ran]
    if same:
        return same[0] if len(same) == 1 else None  # identical blank cells: no way to tell which one ran
    names = _defined_names(ran)
    if names:
        overlap = {gid: len(names & (_defined_names(src) or set())) for gid, src in answers.items()}
        best = max(overlap, key=overlap.get, default=None)
        if best is not None and overlap[best] > 0:
            return best
    ratios = {gid: difflib.SequenceMatcher(None, ran, src).ratio() for gid, src in answers.items()}
    best = max(ratios, key=ratios.get, default=None)
    return best if best is not None and ratios[best] >= 0.6 else None


def unsaved_cells(saved: dict, history: list[str]) -> list[str]:
    """Answer cells (grade ids, in notebook order) whose last version run by the kernel is not what the saved
    notebook holds. `saved`: the notebook as JSON; `history`: the sources the kernel ran, oldest first."""
    answers, others = {}, set()
    for cell in saved.get("cells", []):
        source = "".join(cell.get("source", "")).strip()
        meta = cell.get("metadata", {}).get("nbgrader", {})
        if cell.get("cell_type") == "code" and meta.get("solution") and meta.get("grade_id"):
            answers[meta["grade_id"]] = source
        else:
            others.add(source)
    last: dict[str, str] = {}
    for ran in (h.strip() for h in history):
        if ran and ran not in others:
            gid = _owner(ran, answers)
            if gid is not None:
                last[gid] = ran
    return [gid for gid, src in answers.items() if gid in last and last[gid] != src]


def kernel_history() -> list[str]:
    """The sources this IPython kernel ran, oldest first (the running self-check cell is among them)."""
    try:
        from IPython import get_ipython

        return list(get_ipython().history_manager.input_hist_raw)
    except Exception:  # not in IPython (a script, a test): nothing known, nothing claimed
        return []


def _unsaved_line(cells: list[str]) -> str:
    return (f"Not saved: {', '.join(cells)}. This kernel last ran a version of "
            f"{'this cell' if len(cells) == 1 else 'these cells'} that differs from the saved file, and the "
            "saved file is what was graded: save (Ctrl+S) and check again.")


def warning(path: Path) -> str:
    """The red line for the saved notebook at `path` and this kernel's history; empty when nothing differs."""
    try:
        cells = unsaved_cells(json.loads(path.read_text()), kernel_history())
    except (OSError, ValueError):
        return ""
    return _unsaved_line(cells) if cells else ""
