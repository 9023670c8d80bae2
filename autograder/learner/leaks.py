"""The lint of a composed notebook (an interview or a review): what it gives away, checked against every
source notebook of the course: a region of any exercise's reference solution (also of exercises it does not
draw), a long line of one outside visible tests, a hint (unless asked for), a follow-up's folded answer, hidden
tests. What the course's own releases already show anywhere (statements, visible tests, data cells) is public
and never counts: boilerplate such as a seeded generator is not a secret.
"""

from __future__ import annotations

import re
from pathlib import Path

from nbformat import NotebookNode

from autograder.authoring.hints import _solution_lines, _squash, in_cell
from autograder.pipeline.cells import grade_id, kind


def _regions(source: str) -> list[str]:
    """The reference solution's regions of an answer cell, squashed (whitespace out, comments kept out)."""
    lines = source.splitlines()
    out, inside, cur = [], False, []
    for ln in lines:
        if ln.strip() == "### BEGIN SOLUTION":
            inside, cur = True, []
        elif ln.strip() == "### END SOLUTION":
            inside = False
            out.append(_squash("\n".join(x.split("#", 1)[0] for x in cur)))
        elif inside:
            cur.append(ln)
    if not out and "### BEGIN SOLUTION" not in source:
        out.append(_squash("\n".join(x.split("#", 1)[0] for x in lines)))
    return [r for r in out if len(r) >= 12]


def leaks(nb: NotebookNode, allow_hints: bool = False) -> list[str]:
    """What a learner's composed notebook gives away, checked against every source notebook of the course:
    a whole reference region or a long line of one (in any cell), a hint block, a follow-up's answer."""
    from autograder.course import source_notebooks
    from autograder.learner.parsed import kept

    text = {i: _squash(c.source) for i, c in enumerate(nb.cells)}
    where = {i: grade_id(c) or f"cell {i}" for i, c in enumerate(nb.cells)}
    found = []
    for i, c in enumerate(nb.cells):
        if not allow_hints and in_cell(c):
            found.append(f"{where[i]}: holds a hint")
        if "<summary>Answer" in c.source:
            found.append(f"{where[i]}: holds a folded answer")
        if "### BEGIN HIDDEN TESTS" in c.source:
            found.append(f"{where[i]}: holds hidden tests")
    facts = [kept(path, "secrets", _secrets) for path in source_notebooks()]
    # What the course's own releases already show (statements, visible tests, data cells), in any notebook:
    # boilerplate such as a seeded generator, never a secret.
    public = " ".join(f["public"] for f in facts)
    for f in facts:
        for gid, pieces in f["pieces"]:
            for piece, everywhere in pieces:
                hit = next((i for i, t in text.items()
                            if piece in t and (everywhere or kind(nb.cells[i]) != "test")), None)
                if hit is not None and piece not in public:
                    found.append(f"{where[hit]}: holds the reference solution of {f['name']} {gid}")
                    break
    return found


def _secrets(path: Path) -> dict:
    """One source notebook's reference pieces (per answer cell: whole regions, which count anywhere, and long
    lines, which count outside visible tests since those may compute a truth the same way) and its public
    text (what its release shows)."""
    from autograder.learner.exercises import _read

    source = _read(path)
    hidden = re.compile(r"### BEGIN HIDDEN TESTS.*?### END HIDDEN TESTS", re.S)
    public = _squash(" ".join(hidden.sub("", c.source) for c in source.cells if kind(c) not in ("solution", "manual")))
    pieces = []
    for cell in source.cells:
        if kind(cell) in ("solution", "manual"):
            mine = [(r, True) for r in _regions(cell.source)]
            mine += [(ln, False) for ln in _solution_lines(cell.source) if len(ln) >= 30]
            pieces.append((grade_id(cell), mine))
    return {"name": f"{path.parent.name}/{path.stem}", "public": public, "pieces": pieces}

