"""Answer cells the check did not grade as the learner has them: the check grades the file on disk, so an
answer whose version in the editor differs from the version the grader read is named in red above the table
(issues 24, 36).

Runs in the learner's kernel, after the check, against the answers of the very file the grader read (the
check's JSON carries them: check_server.run). What the learner has: in JupyterLab, the editor's answer cells,
which the Save and check extension tells this kernel just before a check cell runs (`remember_editor`); so
after Save and check nothing is ever named. Without the extension (Colab, another front end) the kernel's own
input history stands in for the editor (IPython keeps no cell ids there): which answer cell a source it ran
was a version of is told by its text and the names it defines.
"""

from __future__ import annotations

import ast
import difflib
import json


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


_editor: dict[str, str] | None = None  # the editor's answer cells, told by the extension for the next check


def remember_editor(state: str) -> None:
    """What the extension calls (silently, unrecorded) as a check cell is about to run: the editor's answer
    cells as JSON {"answers": {grade id: source}}. The next check takes them."""
    global _editor
    try:
        answers = json.loads(state).get("answers")
    except (ValueError, AttributeError):
        return
    if isinstance(answers, dict):
        _editor = {str(k): str(v) for k, v in answers.items()}


def take_editor() -> dict[str, str] | None:
    """The editor's answer cells told for this check, once (a later check without the extension's word must
    not compare against an old editor)."""
    global _editor
    got, _editor = _editor, None
    return got


def as_notebook(answers: dict[str, str], saved: dict | None = None) -> dict:
    """The graded answers ({grade id: source}) in the shape `unsaved_cells` reads, with the other cells of the
    `saved` notebook (read-only cells: the same in every save), which a kernel runs too and which claim nothing."""
    others = [c for c in (saved or {}).get("cells", [])
              if not (c.get("metadata", {}).get("nbgrader", {}).get("solution") and c.get("cell_type") == "code")]
    return {"cells": [{"cell_type": "code", "source": src, "metadata": {"nbgrader": {"solution": True, "grade_id": gid}}}
                      for gid, src in answers.items()] + others}


def edited_cells(graded: dict[str, str], editor: dict[str, str]) -> list[str]:
    """Answer cells (in the graded file's order) whose editor source differs from the source graded."""
    return [gid for gid, src in graded.items() if gid in editor and editor[gid].strip() != src.strip()]


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


def _unsaved_line(cells: list[str], source: str) -> str:
    these = "this cell" if len(cells) == 1 else "these cells"
    return (f"Not saved: {', '.join(cells)}. {source} a version of {these} that differs from the file this "
            "check graded: Save and check (Ctrl+Shift+Enter) to grade what you see.")


def warning(graded: dict[str, str], editor: dict[str, str] | None = None, saved: dict | None = None) -> str:
    """The red line for the answers the grader read (`graded`: {grade id: source}) and what the learner has:
    the editor's answers when the extension told them, else this kernel's history (`saved`: the notebook, for
    its other cells); empty when nothing differs."""
    if editor is not None:
        cells = edited_cells(graded, editor)
        return _unsaved_line(cells, "The editor holds") if cells else ""
    cells = unsaved_cells(as_notebook(graded, saved), kernel_history())
    return _unsaved_line(cells, "This kernel last ran") if cells else ""
