"""The text format of a course notebook, both ways: parse a text file into cells, export a notebook as text.

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

`build.py` turns parsed cells into a notebook; it adds the header (title + badge), setup, parameters and derived cells itself.
"""

from __future__ import annotations

import re

from nbformat import NotebookNode

from autograder.authoring import template
from autograder.pipeline.cells import grade_id, kind, nbg, topics

_CELL = re.compile(r"^# %%(?: \[(\w+)\])?(.*)$")
# Cells `build` writes itself: never part of the text.
FIXED = ("header", "setup", "derived")


def _attrs(text: str) -> dict[str, str]:
    return dict(re.findall(r"(\w+)=(\S+)", text))


def parse(text: str) -> tuple[dict, list[tuple[str, dict, str]]]:
    """(front matter, [(role, attributes, body)]) of a text file."""
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
        if gid in FIXED or gid in template.SELFCHECK_IDS or "parameters" in cell.metadata.get("tags", []):
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
