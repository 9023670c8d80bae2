"""Which cells make up one exercise of a notebook, by the name a learner types: `ex3`, its answer cell's id
(`ex3_bce`) or its test cell's id (`ex3_bce_test`). Shared by `reset` and `solution`."""

from __future__ import annotations

from dataclasses import dataclass

from nbformat import NotebookNode

from autograder.authoring.hints import exercises
from autograder.pipeline.cells import grade_id, kind


@dataclass
class Exercise:
    name: str  # the test cell's id, or a written answer's own id
    answers: list[str]  # the answer cells' ids
    tests: list[str]  # the test cells' ids (none for a written answer)


def all_of(source: NotebookNode) -> list[Exercise]:
    found = [Exercise(test, [grade_id(s) for s in solutions], [test]) for test, _, solutions in exercises(source)]
    found += [Exercise(grade_id(c), [grade_id(c)], []) for c in source.cells if kind(c) == "manual"]
    return found


def find(source: NotebookNode, name: str) -> Exercise:
    """The exercise `name` means; ValueError listing the choices when it means none or several."""
    name = name.strip()
    every = all_of(source)
    hits = [e for e in every if name == e.name or name in e.answers]
    hits = hits or [e for e in every if e.name.startswith(f"{name}_")]
    if len(hits) == 1:
        return hits[0]
    choices = ", ".join(e.answers[0] for e in every if e.answers)
    what = "no exercise" if not hits else "more than one exercise matches"
    raise ValueError(f"{what} '{name}'; choose one of: {choices}")
