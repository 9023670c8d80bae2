"""`make ci-colab` (ci/colab.py): the pinned runtime says what it mirrors, the student notebooks it runs carry the
reference's answers and nothing hidden, and the environment lives outside the repository."""

from __future__ import annotations

import re

import nbformat
import pytest

from autograder.course import ROOT, release_path, source_notebooks
from ci import colab, colab_check_cell

SOURCES = source_notebooks()


def test_the_pinned_runtime_is_colabs_torch_and_pins_every_package_exactly():
    lines = [ln.split("#")[0].strip() for ln in colab.PINS.read_text().splitlines()]
    pins = dict(ln.split("==", 1) for ln in lines if ln)
    assert pins["torch"].startswith("2.11"), "Colab ships torch 2.11: ci/colab-runtime.txt must mirror it"
    assert {"numpy", "matplotlib", "scikit-learn"} <= set(pins), "the packages Colab ships that notebooks import"
    assert all(re.fullmatch(r"[0-9][0-9A-Za-z.]*", v) for v in pins.values()), "pins are exact versions"
    assert "Colab" in colab.PINS.read_text().splitlines()[0], "the file says which runtime it mirrors"


def test_the_environment_is_outside_the_repository_and_keyed_by_the_pins(monkeypatch):
    monkeypatch.delenv("PTLAB_COLAB_ENV", raising=False)
    where = colab.env_dir("/usr/bin/python3.12")
    assert ROOT not in where.parents and where.name.startswith("colab-")
    assert where != colab.env_dir("/usr/bin/python3.11"), "another Python builds another environment"


@pytest.mark.parametrize("source", SOURCES[::9], ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_a_student_notebook_gets_the_references_answers_and_nothing_hidden(source, tmp_path):
    target = tmp_path / source.parent.name / source.name
    colab.with_reference_answers(release_path(source), source, target)
    nb, solved = nbformat.read(str(target), 4), nbformat.read(str(source), 4)
    answers = {c.metadata["nbgrader"]["grade_id"]: c.source for c in solved.cells
               if c.metadata.get("nbgrader", {}).get("solution")}
    mine = {c.metadata["nbgrader"]["grade_id"]: c.source for c in nb.cells
            if c.metadata.get("nbgrader", {}).get("solution")}
    assert mine == answers
    code = [c.source for c in nb.cells if c.cell_type == "code"]
    assert not any(line.strip() == "### BEGIN HIDDEN TESTS" for src in code for line in src.splitlines())
    assert not any("raise NotImplementedError" in src for src in mine.values())
    assert len(nb.cells) == len(nbformat.read(str(release_path(source)), 4).cells)


def test_what_a_setup_cell_installs_on_colab_is_installed_in_the_colab_environment():
    import ast

    shipped = {"torch", "numpy", "matplotlib", "scikit-learn"}
    listed = {ln.split("==")[0].strip().lower() for ln in colab.SETUP_INSTALLS.read_text().splitlines()
              if ln.split("#")[0].strip()}
    for source in SOURCES:
        for cell in nbformat.read(str(source), 4).cells:
            for line in cell.source.splitlines() if cell.cell_type == "code" else []:
                if line.startswith("NEEDS = {"):
                    wanted = {v.lower() for v in ast.literal_eval(line.split("=", 1)[1]).values()} - shipped
                    assert wanted <= listed, (
                        f"{source.parent.name}/{source.stem} installs {sorted(wanted - listed)} on Colab: "
                        "list them in ci/colab-setup-installs.txt")


def test_the_check_cells_run_fails_unless_the_grader_installed_and_scored_blank_zero_and_solved_full():
    installed = "Installed the course's grader.\n"
    good = {"notebook": colab_check_cell.GRADER_NOTEBOOK, "shown": {"blank": installed + "score 0/21 (autograded cells)",
                                                        "solved": "score 21/21 (autograded cells)"}}
    assert colab_check_cell.check_verdict(good) == []
    not_installed = {"notebook": "x", "shown": {"blank": "Could not install the course's grader, so only the visible "
                                                         "tests above ran: ERROR: no matching distribution",
                                                "solved": "score 21/21"}}
    assert any("did not install" in w for w in colab_check_cell.check_verdict(not_installed))
    assert any("score 0" in w for w in colab_check_cell.check_verdict(not_installed)), "no score line is no score of 0"
    half = {"notebook": "x", "shown": {"blank": installed + "score 0/21", "solved": "score 19/21"}}
    assert any("full marks" in w for w in colab_check_cell.check_verdict(half))


def test_the_stand_in_colab_is_where_the_check_cells_run_puts_it_first_on_sys_path():
    assert (colab_check_cell.STANDIN / "google" / "colab" / "_message.py").is_file()
    assert not (colab_check_cell.STANDIN / "google" / "__init__.py").exists(), \
        "google must stay a namespace package, or it would hide google.protobuf beside it"
