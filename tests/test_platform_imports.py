"""The platforms' images have the course's dependencies but not the grader: the grader comes with the course
copy, and every process it starts (the kernel launcher, which starts in its scratch folder; the sandbox's
helpers; the fork server) must import `autograder` from that copy wherever it starts.

The suite's .venv has the project installed (editable), which hid exactly this failure: every hand-in on
PrairieLearn failed with "No module named autograder". The stand-in for the image's python3 here is that .venv
with the project's install hidden (its .pth files bound over by an empty file, in a private mount namespace):
the same dependencies, at the same paths, which the sandbox's file system then holds as it would in the image.
PrairieLearn's own entrypoint (run.sh, from the bundle) grades a right hand-in and a wrong one with it, in the
sandbox this machine offers and in the one PrairieLearn's container leaves (a user of its own).

GitHub Classroom installs the course (`pip install -e course`) into the Python that grades, so its grader is
importable from any folder: test_github_classroom_installs_the_grader_it_runs.
"""

from __future__ import annotations

import json
import os
import shlex
import shutil
import site
import subprocess
import sys
import tempfile
from pathlib import Path

import jsonschema
import nbformat
import pytest

from autograder.classroom import github_classroom
from tests.test_container_mode import container, needs_open_python
from tests.tiny_course import ROOT, make_course, with_answer
from tests.tiny_course import cli as course_cli

SCHEMA = json.loads((Path(__file__).parent / "schemas" / "prairielearn_results.schema.json").read_text())
RIGHT = "def double(x):\n    return x + x\n"  # right, and not the reference's text
WRONG = "def double(x):\n    return x * 3\n"
NOT_THERE = 97  # the stand-in's exit code when its python3 imports the project all the same

needs_root = pytest.mark.skipif(os.geteuid() != 0 or not shutil.which("unshare"),
                                reason="hiding the project's install needs root and unshare (a mount namespace)")


def project_installs() -> list[Path]:
    """What makes the project importable in this Python from any folder: its .pth files (an editable install)
    and an installed copy of the package."""
    found = []
    for folder in map(Path, site.getsitepackages()):
        found += [p for p in folder.glob("*.pth")
                  if "pytorch_interview_lab" in p.name or str(ROOT) in p.read_text(errors="replace")]
        found += [p for p in (folder / "autograder",) if p.is_dir()]
    return found


def image_python(cmd: list[str], blanks: Path) -> list[str]:
    """`cmd` where python3 is the image's: this Python with the project's install hidden. Exits NOT_THERE, and
    runs nothing, when python3 still imports the project from a folder outside it."""
    binds = [f"mount --bind {shlex.quote(str(blanks / ('empty' if p.is_file() else 'empty.d')))} {shlex.quote(str(p))}"
             for p in project_installs()]
    script = "\n".join(["set -e", *binds,
                        f"if (cd / && python3 -c 'import autograder') 2>/dev/null; then exit {NOT_THERE}; fi",
                        'exec "$@"'])
    return ["unshare", "--mount", "--propagation", "private", "sh", "-c", script, "sh", *cmd]


@pytest.fixture(scope="module")
def course(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("platform_imports")
    return tmp, make_course(tmp)


@pytest.fixture
def grade_root(course):
    """/grade: the PrairieLearn bundle (serverFilesCourse/ptlab, with its run.sh), in a folder open to every
    user, as the container's is (a kernel's own user must reach its scratch folder in /tmp); and a folder for
    the stand-in's mounts (`hold`, empty, for container()) and the empty file and folder it mounts (`blanks`)."""
    tmp, _ = course
    made = [Path(tempfile.mkdtemp(prefix="ptlab-pl-image-", dir="/tmp")) for _ in range(3)]
    top, hold, blanks = made
    top.chmod(0o755)
    (blanks / "empty").touch()
    (blanks / "empty.d").mkdir()
    done = course_cli(tmp, "bundle", "prairielearn", "--tier", "junior", "--notebooks", "01", "--out", str(top),
                      PTLAB_CACHE_DIR=str(tmp / "cache"))
    assert done.returncode == 0, f"bundle prairielearn failed:\n{done.stderr[-3000:]}"
    yield top, hold, blanks
    for p in made:
        shutil.rmtree(p, ignore_errors=True)


def grade(top: Path, hold: Path, blanks: Path, src: Path, answer: str, in_container: bool, **env_vars: str) -> dict:
    """One PrairieLearn job: the hand-in in /grade/student, the question's entrypoint run from elsewhere by the
    image's python3; returns results.json, checked against PrairieLearn's format."""
    student = top / "student"
    shutil.rmtree(student, ignore_errors=True)
    shutil.rmtree(top / "results", ignore_errors=True)
    student.mkdir(mode=0o755)
    nbformat.write(with_answer(nbformat.read(str(src), 4), "ex1_double", answer), str(student / "01_tiny.ipynb"))
    info = json.loads((top / "questions" / "ptlab_junior_01_tiny" / "info.json").read_text())
    entry = shlex.split(info["externalGradingOptions"]["entrypoint"].replace("/grade", str(top), 1))
    # the container stand-in inside the image's python3: its seccomp filter refuses the unshare that hides the project
    cmd = image_python(container(entry, hold, seccomp=True) if in_container else entry, blanks)
    env = {k: v for k, v in os.environ.items()
           if k != "PYTHONPATH" and not k.startswith(("PTLAB_SOURCE_DIR", "PTLAB_CACHE_DIR"))}
    env.update(PTLAB_GRADE_ROOT=str(top), PATH=f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}",
               TMPDIR="/tmp", **env_vars)  # the suite's own temporary folder is closed to other users
    done = subprocess.run(cmd, cwd="/", env=env, capture_output=True, text=True, timeout=400)
    assert done.returncode != NOT_THERE, (f"the stand-in for the image's python3 still imports autograder from / "
                                          f"(hidden: {project_installs()}): this test would prove nothing")
    assert done.returncode == 0, f"run.sh failed:\n{done.stdout[-2000:]}{done.stderr[-3000:]}"
    res = json.loads((top / "results" / "results.json").read_text())
    jsonschema.validate(res, SCHEMA)
    return res


def assert_right_and_wrong(top: Path, hold: Path, blanks: Path, src: Path, in_container: bool, **env_vars: str) -> None:
    right = grade(top, hold, blanks, src, RIGHT, in_container, **env_vars)
    assert right["gradable"] and right["score"] == pytest.approx(1.0), (
        "PrairieLearn's run.sh, with a python3 that has the dependencies but not the grader, gives a right "
        f"hand-in full marks (every process it starts imports the grader from the course copy): {right}")
    assert "No module named" not in json.dumps(right)
    # which sandbox graded it: the namespaces leave no note; a user of its own (the container's) says so
    assert ("user of its own" in right["output"]) == in_container and "sandbox REFUSED" not in right["output"], \
        f"the sandbox meant for this test did not grade it: {right['output']}"
    wrong = grade(top, hold, blanks, src, WRONG, in_container, **env_vars)
    assert wrong["gradable"] and wrong["score"] < 1.0, f"the same run.sh gives a wrong hand-in less: {wrong}"
    assert [(t["points"], t["max_points"]) for t in wrong["tests"]] == [(0, 2), (3, 3)], \
        f"ex1 wrong (0 of 2), ex2 answered by the reference's text in the hand-in (3 of 3): {wrong['tests']}"


@pytest.mark.kernel
@needs_root
def test_prairielearn_grades_with_the_images_python_in_this_machines_sandbox(course, grade_root):
    _, src = course
    assert_right_and_wrong(*grade_root, src, in_container=False)


@pytest.mark.kernel
@needs_root
@needs_open_python
def test_prairielearn_grades_with_the_images_python_in_its_container(course, grade_root):
    """PrairieLearn's container refuses unshare: the kernel runs as a user of its own, its launcher as root."""
    _, src = course
    assert_right_and_wrong(*grade_root, src, in_container=True, PTLAB_SANDBOX="limits")


def test_github_classroom_installs_the_grader_it_runs():
    """The workflow's steps run the grader from the course checkout, and its launcher elsewhere: the course is
    installed into the Python that grades (editable, so from the checkout), before any step grades."""
    text = github_classroom.workflow("junior", ["01"])
    install = text.index("python -m pip install -q -e course")
    assert install < text.index("python -m autograder check"), \
        "the workflow installs the course (pip install -e course) before it grades, so any folder imports it"
