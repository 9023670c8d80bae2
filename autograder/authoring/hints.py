"""Progressive hints: folded markdown blocks between an exercise's statement and its answer cell.

    <details><summary>Hint 1</summary>

    Point at the idea (the API, the shape, the pitfall), never at the answer's code.
    </details>

One markdown cell holds an exercise's hints, numbered 1..n (n <= 3), placed before the exercise's first
solution cell and after the previous exercise's test cell. `problems` holds notebooks to that, and to the
one rule that keeps hints honest: no line of the reference solution appears in a hint.
"""

from __future__ import annotations

import re

from nbformat import NotebookNode

from autograder.pipeline.cells import grade_id, kind

HINT = re.compile(r"<details>\s*<summary>\s*Hint (\d+)\s*</summary>(.*?)</details>", re.S)
MAX_HINTS = 3
# Solution lines shorter than this ("return x", "else:") are too common to count as giving anything away.
MIN_LEAK_CHARS = 12


def in_cell(cell: NotebookNode) -> list[tuple[int, str]]:
    """(number, text) of every hint block in a markdown cell."""
    if cell.cell_type != "markdown":
        return []
    return [(int(n), body.strip()) for n, body in HINT.findall(cell.source)]


def _squash(text: str) -> str:
    return re.sub(r"\s+", "", text)


def _solution_lines(source: str) -> list[str]:
    lines = source.splitlines()
    marks = [i for i, ln in enumerate(lines) if ln.strip() in ("### BEGIN SOLUTION", "### END SOLUTION")]
    if len(marks) >= 2:
        lines = lines[marks[0] + 1:marks[1]]
    code = [ln.split("#", 1)[0] if not ln.lstrip().startswith("#") else "" for ln in lines]
    return [s for s in (_squash(c) for c in code) if len(s) >= MIN_LEAK_CHARS]


def exercises(nb: NotebookNode) -> list[tuple[str, list[NotebookNode], list[NotebookNode]]]:
    """(test grade_id, the cells before its first solution cell, its solution cells), per autograded test
    cell; the cells searched for hints start after the previous graded cell."""
    out, block, solutions = [], [], []
    for cell in nb.cells:
        k = kind(cell)
        if k == "solution":
            solutions.append(cell)
        elif k in ("test", "manual"):
            if k == "test" and solutions:
                out.append((grade_id(cell), block, solutions))
            block, solutions = [], []
        elif not solutions:
            block.append(cell)
    return out


def problems(nb: NotebookNode) -> list[str]:
    found = []
    for test_id, before, solutions in exercises(nb):
        blocks = [h for c in before for h in in_cell(c)]
        if not blocks:
            found.append(f"{test_id}: no hints before its answer cell (add 1 to {MAX_HINTS})")
            continue
        numbers = [n for n, _ in blocks]
        if len(blocks) > MAX_HINTS:
            found.append(f"{test_id}: {len(blocks)} hints, give 1 to {MAX_HINTS}")
        elif numbers != list(range(1, len(numbers) + 1)):
            found.append(f"{test_id}: hints must be numbered 1, 2, 3 in order, found {numbers}")
        elif any(not text for _, text in blocks):
            found.append(f"{test_id}: a hint is empty")
        else:
            hint_text = _squash(" ".join(text.replace("`", "") for _, text in blocks))
            leaks = [ln for s in solutions for ln in _solution_lines(s.source) if ln in hint_text]
            if leaks:
                found.append(f"{test_id}: a hint gives away a line of the reference solution: {leaks[0]}")
    return found


def for_test(nb: NotebookNode) -> dict[str, int]:
    """test grade_id -> how many hints its exercise has (a failing check can point at them)."""
    return {test_id: len([h for c in before for h in in_cell(c)]) for test_id, before, _ in exercises(nb)}
