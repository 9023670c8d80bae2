"""Build a course notebook from the text format (text_format.py): the fixed cells every notebook starts and
ends with (title and badge, setup, parameters, derived; the self-check), nbgrader metadata per role, stable
cell ids. Also `refresh`, which brings the fixed cells of existing notebooks up to date (the derived cell and
the self-check cells)."""

from __future__ import annotations

from pathlib import Path

import nbformat
from nbformat import NotebookNode
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook

from autograder.authoring import template
from autograder.authoring.text_format import parse
from autograder.course import COURSE, SOURCE_DIR
from autograder.pipeline.cells import grade_id


def _nbgrader(role: str, gid: str, pts: float | None = None) -> dict:
    meta = {"grade": role in ("test", "manual"), "solution": role in ("solution", "manual"),
            "locked": role in ("test", "readonly", "header"), "grade_id": gid, "schema_version": 3}
    if role in ("test", "manual"):
        meta["points"] = pts
    return meta


def _cell(role: str, source: str, gid: str | None = None, pts: float | None = None,
          tops: list[str] | None = None, tags: list[str] | None = None) -> NotebookNode:
    markdown = role in ("markdown", "manual", "header")
    cell = new_markdown_cell(source) if markdown else new_code_cell(source)
    if gid:
        cell.metadata["nbgrader"] = _nbgrader(role, gid, pts)
    if tops:
        cell.metadata["topics"] = tops
    if tags:
        cell.metadata["tags"] = tags
    return cell


def build(text: str, stem: str) -> NotebookNode:
    meta, blocks = parse(text)
    tier = meta["tier"]
    intro = ""
    if blocks and blocks[0][0] == "markdown":
        intro = blocks.pop(0)[2]
    cells = [
        _cell("header", template.header(meta["title"], tier, stem, intro), "header"),
        _cell("readonly", template.setup(meta.get("needs", "").split()), "setup"),
        _cell("code", template.PARAMETERS, tags=["parameters"]),
        _cell("readonly", template.DERIVED, "derived"),
    ]
    for role, attrs, source in blocks:
        if role not in ("markdown", "code", "solution", "test", "manual", "readonly"):
            raise ValueError(f"unknown cell role [{role}]")
        pts = float(attrs["points"]) if "points" in attrs else None
        tops = attrs["topics"].split(",") if "topics" in attrs else None
        cells.append(_cell(role, source, attrs.get("id"), pts, tops))
    cells += selfcheck_cells()
    nb = new_notebook(cells=cells)
    nb.metadata = {
        "kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"},
        "language_info": {"name": "python"},
        "accelerator": "GPU",
        "colab": {"gpuType": "T4", "provenance": []},
        "ptlab": {"course": COURSE, "tier": tier, "notebook": stem, "title": meta["title"]},
    }
    for i, cell in enumerate(nb.cells):
        cell["id"] = grade_id(cell) or f"c{i:02d}"  # stable ids keep the release diff quiet
    return nb


def selfcheck_cells() -> list[NotebookNode]:
    """The fixed last cells: "Check your work" and the cell that runs the self-check (autograder/learner/selfcheck.py)."""
    cells = [_cell("header", template.SELFCHECK_INTRO, template.SELFCHECK_INTRO_ID),
             _cell("readonly", template.SELFCHECK, template.SELFCHECK_ID)]
    for cell in cells:
        cell["id"] = grade_id(cell)
    return cells


def refresh(nb: NotebookNode) -> bool:
    """Bring the course's fixed cells of a notebook up to date: the derived cell's source (it holds the helpers
    the tests use, _observe and _by_hand) and the self-check cells at the end, replacing older ones; its other
    cells, ids and metadata are kept. True when it changed."""
    kept = [c for c in nb.cells if grade_id(c) not in template.SELFCHECK_IDS]
    for i, cell in enumerate(kept):
        if grade_id(cell) == "derived" and cell.source != template.DERIVED:
            kept[i] = NotebookNode(dict(cell, source=template.DERIVED))
    fresh = kept + selfcheck_cells()
    if [(c.cell_type, c.source, c.metadata, c.get("id")) for c in fresh] == \
            [(c.cell_type, c.source, c.metadata, c.get("id")) for c in nb.cells]:
        return False
    nb.cells = fresh
    return True


def refresh_file(path: Path) -> bool:
    nb = nbformat.read(str(path), as_version=4)
    if not refresh(nb):
        return False
    nbformat.write(nb, str(path))
    return True


def build_file(src: Path, out: Path | None = None) -> Path:
    text = Path(src).read_text()
    meta, _ = parse(text)
    stem = Path(src).stem
    out = Path(out) if out else SOURCE_DIR / meta["tier"] / f"{stem}.ipynb"
    out.parent.mkdir(parents=True, exist_ok=True)
    nbformat.write(build(text, out.stem), str(out))
    return out
