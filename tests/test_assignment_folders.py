"""The nbgrader source folder made for an assignments.yaml assignment (notebooks/<name>/) goes when the course
file no longer lists that assignment; a folder the instructor made there is never touched."""

from __future__ import annotations

from pathlib import Path

from autograder.classroom.assignments import as_nbgrader_folders

TWO_WEEKS = """assignments:
  week1:
    notebooks: [junior/01_tiny]
  week2:
    notebooks: [junior/02_tiny]
"""


def _course(root: Path) -> Path:
    tier = root / "notebooks" / "junior"
    tier.mkdir(parents=True)
    for stem in ("01_tiny", "02_tiny"):
        (tier / f"{stem}.ipynb").write_text("{}")
    (root / "assignments.yaml").write_text(TWO_WEEKS)
    return root / "notebooks"


def _theirs(folder: Path) -> None:
    folder.mkdir()
    (folder / ".gitignore").write_text("*.bak\n")
    (folder / "01_own.ipynb").write_text("{}")


def test_the_folder_of_an_assignment_no_longer_listed_goes(tmp_path):
    source = _course(tmp_path)
    _theirs(source / "mine")
    _theirs(source / "week3")  # named like an assignment, but made by hand
    assert sorted(as_nbgrader_folders(tmp_path)) == ["week1", "week2"]
    assert (source / "week2" / "02_tiny.ipynb").read_text() == "{}", "week2's folder links its notebook"

    (tmp_path / "assignments.yaml").write_text(TWO_WEEKS.split("  week2:")[0])
    assert as_nbgrader_folders(tmp_path) == ["week1"]
    assert not (source / "week2").exists(), \
        "week2 left assignments.yaml, so the folder made for it should be gone (formgrader would still list it)"
    assert (source / "week1" / "01_tiny.ipynb").exists(), "week1 is still listed: its folder stays"

    (source / "week1" / "notes.md").write_text("the instructor's own file")
    (tmp_path / "assignments.yaml").unlink()
    assert as_nbgrader_folders(tmp_path) == []
    assert sorted(p.name for p in (source / "week1").iterdir()) == ["notes.md"], \
        "without the course file week1's links and marker go, and a file the instructor put there stays"
    for theirs in ("mine", "week3"):
        assert sorted(p.name for p in (source / theirs).iterdir()) == [".gitignore", "01_own.ipynb"], \
            f"notebooks/{theirs}/ was made by the instructor, not from assignments.yaml: it must not be touched"
    assert sorted(p.name for p in (source / "junior").iterdir()) == ["01_tiny.ipynb", "02_tiny.ipynb"]
