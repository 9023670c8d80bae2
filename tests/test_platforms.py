"""The same grader inside Gradescope, GitHub Classroom and PrairieLearn: each platform's own entry point run on
the tiny course, and what it writes validated against a JSON schema written from the platform's docs
(tests/schemas/). Gradescope's zip is tested by running its own run_autograder against a folder standing in
for /autograder."""

from __future__ import annotations

import base64
import json
import os
import subprocess
import sys
import zipfile
from pathlib import Path

import jsonschema
import nbformat
import pytest

from tests.tiny_course import ROOT, blank, make_course, with_answer
from tests.tiny_course import cli as course_cli

SCHEMAS = Path(__file__).parent / "schemas"
ALT = "def double(x):\n    return x + x\n"  # right, and not the reference's text
WRONG = "def double(x):\n    return x * 3\n"
TAMPERED = "import builtins\nbuiltins.abs = lambda v: v\ndef double(x):\n    return 2 * x\n"
HIDDEN = ("SECRET_HIDDEN_CHECK", "double(-3)", "negative numbers double too", "Traceback")


def cli(tmp: Path, *args: str) -> subprocess.CompletedProcess:
    """The course's CLI on the tiny course, with the reference cache in the test's own folder."""
    return course_cli(tmp, *args, PTLAB_CACHE_DIR=str(tmp / "cache"))


def schema(name: str) -> dict:
    return json.loads((SCHEMAS / f"{name}.schema.json").read_text())


@pytest.fixture(scope="module")
def course(tmp_path_factory):
    """The tiny course, plus a mid notebook (for a wrong-tier hand-in)."""
    tmp = tmp_path_factory.mktemp("platforms")
    src = make_course(tmp)
    mid = tmp / "notebooks" / "mid" / "01_tiny_mid.ipynb"
    mid.parent.mkdir(parents=True)
    nb = nbformat.read(str(src), 4)
    nb.metadata["ptlab"] = dict(nb.metadata.get("ptlab", {}), tier="mid", notebook=mid.stem)
    nbformat.write(nb, str(mid))
    return tmp, src


@pytest.fixture(scope="module")
def gradescope_source(course):
    """The zip built by the command instructors run, unpacked as Gradescope unpacks it into /autograder/source."""
    tmp, _ = course
    zip_path = tmp / "gradescope_junior.zip"
    done = cli(tmp, "bundle", "gradescope", "--tier", "junior", "--notebooks", "01", "--out", str(zip_path))
    assert done.returncode == 0, done.stderr
    source = tmp / "gs_source"
    with zipfile.ZipFile(zip_path) as z:
        z.extractall(source)
        modes = {i.filename: i.external_attr >> 16 for i in z.infolist()}
    for script in ("setup.sh", "run_autograder"):
        assert modes[script] & 0o111, f"{script} must be executable"
        (source / script).chmod(0o755)  # zipfile does not restore modes; Gradescope's unzip does
    return source


def run_gradescope(tmp: Path, source: Path, name: str, files: dict[str, str], python: str = sys.executable) -> dict:
    """The bundle's own run_autograder on a fresh /autograder stand-in holding `files` as the submission."""
    root = tmp / f"gs_{name}"
    (root / "submission").mkdir(parents=True)
    (root / "source").symlink_to(source)
    for fname, text in files.items():
        (root / "submission" / fname).write_text(text)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PTLAB_SOURCE_DIR", "PTLAB_CACHE_DIR"))}
    env.update(PTLAB_AUTOGRADER_ROOT=str(root), PTLAB_PYTHON=python)
    done = subprocess.run([str(root / "source" / "run_autograder")], cwd=root, env=env, capture_output=True,
                          text=True, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    results = json.loads((root / "results" / "results.json").read_text())
    jsonschema.validate(results, schema("gradescope_results"))
    return results


def nb_text(nb) -> str:
    return nbformat.writes(nb)


def test_gradescope_bundle_holds_the_contract_and_installs_the_course(gradescope_source):
    names = {p.relative_to(gradescope_source).as_posix() for p in gradescope_source.rglob("*") if p.is_file()}
    assert {"setup.sh", "run_autograder", "notebooks/junior/01_tiny.ipynb", "nbgrader_config.py",
            "autograder/pipeline/check.py", "curriculum/topics.yaml"} <= names
    assert not any(n.startswith("notebooks/mid") for n in names)
    setup = (gradescope_source / "setup.sh").read_text()
    assert "torch==" in setup and "nbgrader==" in setup and "gradescope import warm" in setup, \
        "setup.sh installs the pinned torch and the dependencies, then caches the reference reports"
    assert subprocess.run(["bash", "-n", str(gradescope_source / "setup.sh")]).returncode == 0


def test_gradescope_solved_gets_full_marks_one_test_per_cell(course, gradescope_source):
    tmp, src = course
    res = run_gradescope(tmp, gradescope_source, "solved",
                         {"01_tiny.ipynb": nb_text(with_answer(nbformat.read(str(src), 4), "ex1_double", ALT))})
    assert res["score"] == 5
    assert [(t["name"], t["score"], t["max_score"], t["status"]) for t in res["tests"]] == [
        ("01_tiny: ex1_double_test", 2, 2, "passed"), ("01_tiny: ex2_square_test", 3, 3, "passed")]
    assert {t["visibility"] for t in res["tests"]} == {"visible"}
    # the bundle's own copy of the grader ran, with its own reference cache
    assert (gradescope_source / ".ptlab-cache").is_dir()


def test_gradescope_blank_says_why_without_hidden_tests(course, gradescope_source):
    tmp, src = course
    ref = nbformat.read(str(src), 4)
    res = run_gradescope(tmp, gradescope_source, "blank", {"01_tiny.ipynb": nb_text(blank(ref))})
    assert res["score"] == 0 and all(t["status"] == "failed" for t in res["tests"])
    assert all("not answered yet" in t["output"] for t in res["tests"])
    assert not any(h in json.dumps(res) for h in HIDDEN)  # a wrong answer's message: the GitHub Classroom test


def test_gradescope_wrong_tier_missing_and_broken_get_a_message_and_zero(course, gradescope_source):
    tmp, _ = course
    mid = (tmp / "notebooks" / "mid" / "01_tiny_mid.ipynb").read_text()
    res = run_gradescope(tmp, gradescope_source, "wrong_tier", {"01_tiny_mid.ipynb": mid})
    assert res["score"] == 0
    assert "01_tiny_mid (mid) is not part of this assignment" in res["output"]
    assert "no 01_tiny.ipynb in the submission" in res["output"]
    assert sum(t["max_score"] for t in res["tests"]) == 5  # out of the assignment's whole, whatever came in
    broken = run_gradescope(tmp, gradescope_source, "broken", {"01_tiny.ipynb": "{not json"})
    assert broken["score"] == 0 and "not valid JSON" in broken["output"]
    empty = run_gradescope(tmp, gradescope_source, "empty", {})
    assert empty["score"] == 0 and "no .ipynb file" in empty["output"]


def test_gradescope_tampered_is_flagged_and_scores_zero(course, gradescope_source):
    tmp, src = course
    res = run_gradescope(tmp, gradescope_source, "tampered",
                         {"01_tiny.ipynb": nb_text(with_answer(nbformat.read(str(src), 4), "ex1_double", TAMPERED))})
    assert res["score"] == 0
    assert "flagged for review" in res["output"] and "builtins" in res["output"]
    assert all(t["score"] == 0 for t in res["tests"])


def test_gradescope_always_leaves_a_results_file(course, gradescope_source):
    tmp, src = course
    res = run_gradescope(tmp, gradescope_source, "no_python", {"01_tiny.ipynb": src.read_text()}, python="/bin/false")
    assert res["score"] == 0 and "could not run" in res["output"]


def test_gradescope_dry_run_prints_each_handins_results(course):
    """The instructor's local try: the same zip's run_autograder on a folder of hand-ins, one per student."""
    tmp, src = course
    handins = tmp / "handins"
    ref = nbformat.read(str(src), 4)
    for student, nb in (("ada", with_answer(ref, "ex1_double", ALT)), ("bob", blank(ref))):
        (handins / student).mkdir(parents=True)
        nbformat.write(nb, str(handins / student / "01_tiny.ipynb"))
    zip_path = tmp / "dry.zip"
    done = cli(tmp, "bundle", "gradescope", "--tier", "junior", "--notebooks", "01", "--out", str(zip_path),
               "--dry-run", str(handins))
    assert done.returncode == 0, done.stderr
    assert "== ada: 5 / 5" in done.stdout and "== bob: 0 / 5" in done.stdout, done.stdout
    assert "passed 2/2 01_tiny: ex1_double_test" in done.stdout and "not answered yet" in done.stdout
    assert not any(h in done.stdout for h in HIDDEN)


def test_gradescope_bundle_carries_a_wheel_cache(course):
    tmp, _ = course
    wheels = tmp / "wheelhouse"
    wheels.mkdir()
    (wheels / "torch-2.0.0-py3-none-any.whl").write_bytes(b"stand-in")
    zip_path = tmp / "offline.zip"
    done = cli(tmp, "bundle", "gradescope", "--tier", "junior", "--notebooks", "01", "--out", str(zip_path),
               "--wheels", str(wheels))
    assert done.returncode == 0, done.stderr
    with zipfile.ZipFile(zip_path) as z:
        assert "wheels/torch-2.0.0-py3-none-any.whl" in z.namelist(), "the wheel cache travels in the zip"
    # setup.sh installing from it alone, offline: tests/test_gradescope_offline.py


def test_gradescope_visibility_is_configurable(course):
    tmp, _ = course
    zip_path = tmp / "after.zip"
    done = cli(tmp, "bundle", "gradescope", "--tier", "junior", "--visibility", "after_due_date", "--out", str(zip_path))
    assert done.returncode == 0, done.stderr
    with zipfile.ZipFile(zip_path) as z:
        assert "--visibility=after_due_date" in z.read("run_autograder").decode()
    assert cli(tmp, "bundle", "gradescope", "--tier", "junior", "--notebooks", "99", "--out",
               str(tmp / "x.zip")).returncode == 2


def decode(stdout: str) -> dict:
    result = json.loads(base64.b64decode(stdout.strip()))
    jsonschema.validate(result, schema("github_classroom_result"))
    return result


def test_github_classroom_runner_result(course):
    tmp, src = course
    path = tmp / "gh" / "01_tiny.ipynb"
    path.parent.mkdir()
    nbformat.write(with_answer(nbformat.read(str(src), 4), "ex1_double", WRONG), str(path))
    done = cli(tmp, "check", str(path), "--format", "github-classroom")
    res = decode(done.stdout)
    assert res["max_score"] == 5 and res["status"] == "fail"
    assert [(t["name"], t["status"], t["score"]) for t in res["tests"]] == [
        ("01_tiny: ex1_double_test", "fail", 0), ("01_tiny: ex2_square_test", "pass", 3)]
    assert "double(2) should be 4" in res["tests"][0]["message"]
    assert not any(h in json.dumps(res) for h in HIDDEN)
    missing = decode(cli(tmp, "check", str(tmp / "gh" / "nowhere" / "01_tiny.ipynb"), "--format",
                         "github-classroom").stdout)
    assert missing["status"] == "error" and missing["max_score"] == 5  # still out of the notebook's points
    assert "no such file" in missing["tests"][0]["message"]


def test_github_classroom_template_is_fresh_and_a_valid_workflow(tmp_path):
    committed = ROOT / "classroom" / "github" / ".github" / "workflows" / "classroom.yml"
    env = {k: v for k, v in os.environ.items() if k != "PTLAB_SOURCE_DIR"}
    done = subprocess.run([sys.executable, "-m", "autograder", "bundle", "github-classroom", "--tier", "junior",
                           "--out", str(tmp_path)], cwd=ROOT, env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    fresh = (tmp_path / ".github" / "workflows" / "classroom.yml").read_text()
    assert committed.read_text() == fresh, "classroom/github is stale: run the bundle command in its header"
    assert "classroom-resources/autograding-grading-reporter@v1" in fresh
    assert "--format github-classroom" in fresh
    check = Path(sys.executable).with_name("check-jsonschema")
    done = subprocess.run([str(check), "--builtin-schema", "vendor.github-workflows", str(committed)],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr


def test_prairielearn_results(course):
    tmp, src = course
    root = tmp / "pl"
    (root / "student").mkdir(parents=True)
    nbformat.write(blank(nbformat.read(str(src), 4)), str(root / "student" / "01_tiny.ipynb"))
    done = cli(tmp, "grade-in", "prairielearn", "--root", str(root), "--tier", "junior", "--notebooks", "01")
    assert done.returncode == 0, done.stderr
    res = json.loads((root / "results" / "results.json").read_text())
    jsonschema.validate(res, schema("prairielearn_results"))
    assert res["gradable"] is True and res["score"] == 0
    assert [(t["points"], t["max_points"]) for t in res["tests"]] == [(0, 2), (0, 3)]
    assert not any(h in json.dumps(res) for h in HIDDEN)
    (root / "student" / "01_tiny.ipynb").write_text("\x00 not a notebook")
    done = cli(tmp, "grade-in", "prairielearn", "--root", str(root), "--tier", "junior", "--notebooks", "01")
    res = json.loads((root / "results" / "results.json").read_text())
    jsonschema.validate(res, schema("prairielearn_results"))
    assert res["gradable"] is False and "01_tiny.ipynb" in res["message"] and res["format_errors"]


def test_prairielearn_bundle_is_a_course_folder(course):
    tmp, _ = course
    out = tmp / "pl_course"
    done = cli(tmp, "bundle", "prairielearn", "--tier", "junior", "--out", str(out))
    assert done.returncode == 0, done.stderr
    info = json.loads((out / "questions" / "ptlab_junior_01_tiny" / "info.json").read_text())
    grading = info["externalGradingOptions"]
    assert grading["enabled"] and grading["entrypoint"].startswith("/grade/serverFilesCourse/ptlab/run.sh")
    run = out / "serverFilesCourse" / "ptlab" / "run.sh"
    assert os.access(run, os.X_OK) and "grade-in prairielearn" in run.read_text()
    assert (out / "serverFilesCourse" / "ptlab" / "notebooks" / "junior" / "01_tiny.ipynb").exists()
    assert "pl-file-upload" in (out / "questions" / "ptlab_junior_01_tiny" / "question.html").read_text()
    assert "FROM prairielearn/grader-python" in (out / "Dockerfile").read_text()
    # test_prairielearn_results cached the reference here: the course copy carries it, so jobs skip that run
    assert list((out / "serverFilesCourse" / "ptlab" / ".ptlab-cache" / "expected").glob("junior__01_tiny__*.json"))
