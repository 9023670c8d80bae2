"""The claims folder as docs/authoring.md section 9 describes it: every test names its notebook, every notebook
file names a notebook of the course, every claim names the cell it checks, and the course's text has at least
150 of them."""

from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CLAIMS = ROOT / "tests" / "claims"
FILE = re.compile(r"^test_(junior|mid|senior)(\d\d)\.py$")


def claims() -> list[tuple[Path, ast.FunctionDef]]:
    found = []
    for path in sorted(CLAIMS.glob("test_*.py")):
        tree = ast.parse(path.read_text())
        found += [(path, f) for f in tree.body if isinstance(f, ast.FunctionDef) and f.name.startswith("test_")]
    return found


def test_each_file_is_one_notebook_of_the_course():
    for path in sorted(CLAIMS.glob("test_*.py")):
        m = FILE.match(path.name)
        assert m, f"{path.name}: name it test_<tier><NN>.py after its notebook"
        assert list((ROOT / "notebooks" / m.group(1)).glob(f"{m.group(2)}_*.ipynb")), \
            f"{path.name}: no notebook {m.group(1)}/{m.group(2)}_* in the course"


def test_each_claim_names_its_notebook_and_cell():
    for path, fn in claims():
        prefix = path.stem  # test_junior01
        assert fn.name.startswith(prefix + "_"), f"{path.name}::{fn.name}: name it {prefix}_<what it claims>"
        doc = ast.get_docstring(fn) or ""
        assert re.search(r"\[\d+\]", doc), f"{path.name}::{fn.name}: its docstring names the cell it checks ([i])"


def test_there_are_at_least_150_claims():
    assert len(claims()) >= 150, f"only {len(claims())} claims as code"
