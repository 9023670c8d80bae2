"""Hints, per source notebook: every autograded exercise carries 1 to 3 progressive hints, folded, between
its statement and its answer cell, and no hint gives away a line of the reference solution."""

from __future__ import annotations

import pytest

from autograder.authoring import hints
from autograder.course import source_notebooks
from autograder.pipeline import cells

NOTEBOOKS = source_notebooks()


@pytest.mark.parametrize("source", NOTEBOOKS, ids=[f"{p.parent.name}/{p.stem}" for p in NOTEBOOKS])
def test_every_exercise_has_progressive_hints_that_do_not_leak(source):
    assert hints.problems(cells.read(source)) == []


def _nb(*specs):
    from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook

    out = []
    for role, text in specs:
        if role == "md":
            out.append(new_markdown_cell(text))
        else:
            meta = {"solution": role == "sol", "grade": role == "test", "grade_id": f"{role}{len(out)}",
                    "locked": role == "test", "schema_version": 3}
            if role == "test":
                meta["points"] = 1
            out.append(new_code_cell(text, metadata={"nbgrader": meta}))
    return new_notebook(cells=out)


SOLUTION = "def f(x):\n    ### BEGIN SOLUTION\n    return x.transpose(0, 1).contiguous()\n    ### END SOLUTION\n"
GOOD = ("<details><summary>Hint 1</summary>\n\nWhich axes move? Draw the shape before and after.\n</details>\n\n"
        "<details><summary>Hint 2</summary>\n\nA transposed view is not contiguous.\n</details>\n")


def test_a_well_formed_exercise_has_no_problems():
    assert hints.problems(_nb(("md", "## 1. Swap"), ("md", GOOD), ("sol", SOLUTION), ("test", "assert f"))) == []


@pytest.mark.parametrize("hint_cell, why", [
    (None, "no hints"),
    ("<details><summary>Hint 2</summary>\n\nskip one\n</details>", "numbered 1, 2, 3"),
    ("<details><summary>Hint 1</summary>\n\n</details>", "empty"),
    ("".join(f"<details><summary>Hint {i}</summary>\n\nidea {i}\n</details>\n" for i in range(1, 5)), "1 to 3"),
    ("<details><summary>Hint 1</summary>\n\nWrite `return x.transpose(0, 1).contiguous()`.\n</details>",
     "gives away"),
])
def test_missing_misnumbered_empty_too_many_or_leaking_hints_are_named(hint_cell, why):
    specs = [("md", "## 1. Swap"), *([("md", hint_cell)] if hint_cell else []), ("sol", SOLUTION),
             ("test", "assert f")]
    found = hints.problems(_nb(*specs))
    assert len(found) == 1 and why in found[0], found


def test_hints_after_the_answer_cell_do_not_count():
    found = hints.problems(_nb(("md", "## 1"), ("sol", SOLUTION), ("md", GOOD), ("test", "assert f")))
    assert len(found) == 1 and "no hints" in found[0]
