"""Write notebooks as plain text and build them, or turn a notebook back into text.

A percent-format file (like jupytext's) is easy to write, review and diff. Format:

    # ---
    # title: Tensors and autograd basics
    # tier: junior
    # needs: onnx onnxruntime          (optional: extra imports the setup cell installs on Colab)
    # ---
    # %% [markdown]
    # Intro text: the first markdown cell goes under the title and Colab badge.
    # %% [solution] id=ex1_grid
    def grid(n): ...
    # %% [test] id=ex1_grid_test points=2 topics=J01,J02
    assert ...
    # %% [manual] id=m30_answer points=4 topics=M30
    # ### BEGIN SOLUTION
    # model answer and rubric
    # ### END SOLUTION
    # %% [readonly] id=data
    shared context the learner should not edit
    # %%
    a plain code cell

The builder adds the header (title + badge), setup, parameters and derived cells itself.
"""

from __future__ import annotations

import re
from pathlib import Path

import nbformat
from nbformat import NotebookNode
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook

from autograder import template
from autograder.cells import grade_id, kind, nbg, topics
from autograder.course import COURSE, SOURCE_DIR

_CELL = re.compile(r"^# %%(?: \[(\w+)\])?(.*)$")
_FIXED = ("header", "setup", "derived")


def _attrs(text: str) -> dict[str, str]:
    return dict(re.findall(r"(\w+)=(\S+)", text))


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


def parse(text: str) -> tuple[dict, list[tuple[str, dict, str]]]:
    lines = text.splitlines()
    meta: dict[str, str] = {}
    if lines and lines[0].strip() == "# ---":
        end = lines.index("# ---", 1)
        for ln in lines[1:end]:
            key, _, val = ln[2:].partition(":")
            meta[key.strip()] = val.strip()
        lines = lines[end + 1:]
    blocks: list[tuple[str, dict, list[str]]] = []
    for ln in lines:
        m = _CELL.match(ln)
        if m:
            blocks.append((m.group(1) or "code", _attrs(m.group(2)), []))
        elif blocks:
            blocks[-1][2].append(ln)
        elif ln.strip():
            raise ValueError(f"text before the first '# %%' cell marker: {ln!r}")
    out = []
    for role, attrs, body in blocks:
        if role in ("markdown", "manual"):
            body = [b[2:] if b.startswith("# ") else b.lstrip("#") for b in body]
        out.append((role, attrs, "\n".join(body).strip("\n")))
    return meta, out


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
    """The fixed last cells: "Check your work" and the cell that runs the self-check (autograder/selfcheck.py)."""
    cells = [_cell("header", template.SELFCHECK_INTRO, template.SELFCHECK_INTRO_ID),
             _cell("readonly", template.SELFCHECK, template.SELFCHECK_ID)]
    for cell in cells:
        cell["id"] = grade_id(cell)
    return cells


def refresh(nb: NotebookNode) -> bool:
    """Put the current self-check cells at the end of a notebook, replacing older ones; True when it changed."""
    kept = [c for c in nb.cells if grade_id(c) not in template.SELFCHECK_IDS]
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


def export(nb: NotebookNode) -> str:
    """Turn a course notebook back into the text format (the inverse of build)."""
    meta = nb.metadata.get("ptlab", {})
    extra = []
    for cell in nb.cells:
        if grade_id(cell) == "setup":
            found = re.search(r"NEEDS = \{(.*)\}", cell.source)
            names = re.findall(r'"(\w+)":', found.group(1)) if found else []
            extra = [n for n in names if n not in template.BASE_NEEDS]
    head = ["# ---", f"# title: {meta.get('title', '')}", f"# tier: {meta.get('tier', '')}"]
    if extra:
        head.append(f"# needs: {' '.join(extra)}")
    head.append("# ---")
    out = head
    for cell in nb.cells:
        gid = grade_id(cell)
        if gid in _FIXED or gid in template.SELFCHECK_IDS or "parameters" in cell.metadata.get("tags", []):
            if gid == "header":
                intro = cell.source.split("\n\n", 2)
                if len(intro) == 3 and intro[2].strip():
                    out += ["# %% [markdown]"] + [("# " + ln).rstrip() for ln in intro[2].strip().splitlines()]
            continue
        k = kind(cell)
        role = {"solution": "solution", "test": "test", "manual": "manual", "readonly": "readonly"}.get(k)
        if role is None:
            role = "markdown" if cell.cell_type == "markdown" else ""
        attrs = f" id={gid}" if gid else ""
        if k in ("test", "manual"):
            attrs += f" points={nbg(cell).get('points', 0):g}"
        if topics(cell):
            attrs += " topics=" + ",".join(topics(cell))
        out.append(f"# %% [{role}]{attrs}" if role else f"# %%{attrs}")
        if cell.cell_type == "markdown":
            out += [("# " + ln).rstrip() for ln in cell.source.splitlines()]
        else:
            out += cell.source.splitlines()
    return "\n".join(out) + "\n"


def build_file(src: Path, out: Path | None = None) -> Path:
    text = Path(src).read_text()
    meta, _ = parse(text)
    stem = Path(src).stem
    out = Path(out) if out else SOURCE_DIR / meta["tier"] / f"{stem}.ipynb"
    out.parent.mkdir(parents=True, exist_ok=True)
    nbformat.write(build(text, out.stem), str(out))
    return out
