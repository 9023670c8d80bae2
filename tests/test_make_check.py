"""`make check`: a graded notebook is a result, not a build failure. It exits 0 and its last line says full
marks or not yet; only a file that cannot be graded fails (make's 2). `python -m autograder check` keeps the
three codes for scripts: 0 full marks, 1 not yet, 2 not gradable."""

import os
import subprocess
import sys

import nbformat
import pytest

from tests.tiny_course import ROOT, blank, cli, make_course


@pytest.fixture(scope="module")
def course(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("course")
    src = make_course(tmp)
    full, partial = tmp / "full.ipynb", tmp / "partial.ipynb"
    nbformat.write(nbformat.read(str(src), 4), str(full))
    nbformat.write(blank(nbformat.read(str(src), 4)), str(partial))
    stamp = tmp / "installed"  # `setup` is done: a stamp newer than pyproject.toml
    stamp.touch()
    return tmp, {"full": full, "partial": partial, "missing": tmp / "missing.ipynb"}, stamp


def make_check(tmp, nb, stamp):
    env = dict(os.environ, PTLAB_SOURCE_DIR=str(tmp / "notebooks"))
    return subprocess.run(["make", "--no-print-directory", "check", f"NB={nb}", f"PY={sys.executable}",
                           f"STAMP={stamp}"], cwd=ROOT, env=env, capture_output=True, text=True, timeout=600)


@pytest.mark.parametrize("case, make_code, cli_code, last", [
    ("full", 0, 0, "check: full marks"),
    ("partial", 0, 1, "check: not yet full marks"),
    ("missing", 2, 2, None),
])
def test_make_check_reads_as_a_result_and_the_command_keeps_its_codes(course, case, make_code, cli_code, last):
    tmp, notebooks, stamp = course
    done = make_check(tmp, notebooks[case], stamp)
    assert done.returncode == make_code, done.stdout + done.stderr
    if last:
        assert done.stdout.strip().splitlines()[-1].startswith(last)
        assert "make: ***" not in done.stdout + done.stderr and done.stderr == ""
    else:
        assert "cannot grade" in done.stderr and "no such file" in done.stderr
    assert cli(tmp, "check", str(notebooks[case])).returncode == cli_code
