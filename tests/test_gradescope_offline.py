"""The Gradescope zip's setup.sh in an offline image: with `bundle gradescope --wheels DIR`, it installs from the
wheel cache in the zip and nothing else, and stops, naming what is missing, when the cache lacks a wheel.

The image stand-in is a fresh /autograder folder (PTLAB_AUTOGRADER_ROOT) and a process with no network (its own
network namespace where this user may make one; else a proxy that answers nothing), keeping this machine's pip
configuration and PIP_* variables, which point at other wheels: setup.sh must ignore them.

The suite's version installs stand-ins (empty wheels named and versioned as the course's dependencies): the real
ones are some 1 GB. The maintainer check with the real wheels, which then grades a hand-in with run_autograder,
runs when PTLAB_GRADESCOPE_WHEELS names a wheel cache built for this machine's python3 (`pip wheel -w DIR` of
`course_copy.dependencies()`; see test_real_wheel_cache_grades_a_handin_offline)."""

from __future__ import annotations

import importlib.metadata
import json
import os
import shutil
import subprocess
import zipfile
from pathlib import Path

import nbformat
import pytest
from packaging.requirements import Requirement

from autograder.classroom import course_copy
from tests.tiny_course import make_course, with_answer
from tests.tiny_course import cli as course_cli

ANSWER = "def double(x):\n    return x + x\n"
STAND_IN = "ptlab stand-in wheel"
REAL_WHEELS = os.environ.get("PTLAB_GRADESCOPE_WHEELS", "")


def _no_network() -> list[str]:
    """The command prefix that takes the network away, where this user may: a network namespace of its own."""
    unshare = shutil.which("unshare")
    if unshare and subprocess.run([unshare, "-n", "true"], capture_output=True).returncode == 0:
        return [unshare, "-n"]
    return []


def _offline_env(root: Path) -> dict:
    """This machine's environment (its PIP_* variables included), pip settings of the image's own that no
    wheel in the cache satisfies (a constraints file: with it, an install that reads them fails), a proxy that
    answers nothing for whatever still reaches out, and the /autograder stand-in."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PTLAB_SOURCE_DIR", "PTLAB_CACHE_DIR"))}
    image_pins = root / "image-constraints.txt"
    image_pins.write_text("torch==0.0.1\nnumpy==0.0.1\n")
    dead = "http://127.0.0.1:9"
    env.update(PTLAB_AUTOGRADER_ROOT=str(root), PIP_CONSTRAINT=str(image_pins), http_proxy=dead, https_proxy=dead,
               HTTP_PROXY=dead, HTTPS_PROXY=dead, no_proxy="", PIP_DEFAULT_TIMEOUT="5", PIP_RETRIES="0")
    return env


def _stand_in_wheel(folder: Path, name: str, version: str) -> Path:
    """A wheel that installs nothing but its name and version (the metadata says it is a stand-in)."""
    dist = name.replace("-", "_")
    info = f"{dist}-{version}.dist-info"
    files = {f"{info}/METADATA": f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\nSummary: {STAND_IN}\n",
             f"{info}/WHEEL": "Wheel-Version: 1.0\nGenerator: ptlab-test\nRoot-Is-Purelib: true\nTag: py3-none-any\n"}
    files[f"{info}/RECORD"] = "".join(f"{f},,\n" for f in files) + f"{info}/RECORD,,\n"
    path = folder / f"{dist}-{version}-py3-none-any.whl"
    with zipfile.ZipFile(path, "w") as z:
        for fname, text in files.items():
            z.writestr(fname, text)
    return path


def _stand_in_cache(folder: Path) -> dict[str, Path]:
    """{name: stand-in wheel} for torch and each dependency setup.sh installs, at the versions this machine
    has (so every pin and lower bound holds)."""
    folder.mkdir()
    torch, deps = course_copy.dependencies()
    names = [Requirement(torch).name] + [Requirement(d).name for d in deps]
    return {n: _stand_in_wheel(folder, n, importlib.metadata.version(n).split("+")[0]) for n in names}


def _image(tmp: Path, name: str, wheels: Path) -> Path:
    """The course's zip with `wheels` (built by the command instructors run), unpacked as Gradescope unpacks it
    into /autograder/source; returns the /autograder stand-in."""
    zip_path = tmp / f"{name}.zip"
    done = course_cli(tmp, "bundle", "gradescope", "--tier", "junior", "--notebooks", "01", "--out", str(zip_path),
                      "--wheels", str(wheels), PTLAB_CACHE_DIR=str(tmp / "cache"))
    assert done.returncode == 0, f"bundle gradescope --wheels failed:\n{done.stderr[-3000:]}"
    root = tmp / name
    with zipfile.ZipFile(zip_path) as z:
        z.extractall(root / "source")
    for script in ("setup.sh", "run_autograder"):
        (root / "source" / script).chmod(0o755)  # zipfile does not restore modes; Gradescope's unzip does
    return root


def _setup(root: Path, timeout: int, **env: str) -> subprocess.CompletedProcess:
    return subprocess.run([*_no_network(), str(root / "source" / "setup.sh")], cwd=root, text=True,
                          env=dict(_offline_env(root), **env), capture_output=True, timeout=timeout)


def _installed(root: Path) -> dict[str, str]:
    """{name: summary} of what setup.sh installed into the image's environment."""
    site = next((root / "venv" / "lib").glob("python3*/site-packages"))
    out = {}
    for meta in site.glob("*.dist-info/METADATA"):
        fields = dict(line.split(": ", 1) for line in meta.read_text(errors="replace").splitlines()[:20]
                      if ": " in line)
        out[fields.get("Name", "").lower()] = fields.get("Summary", "")
    return out


@pytest.fixture(scope="module")
def course(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("gradescope_offline")
    make_course(tmp)
    return tmp


@pytest.fixture(scope="module")
def stand_ins(course):
    """The zip with a stand-in wheel cache, unpacked in an /autograder stand-in; {name: wheel}."""
    cache = _stand_in_cache(course / "standins")
    return _image(course, "complete", course / "standins"), cache


def test_setup_installs_from_the_wheel_cache_alone(stand_ins):
    root, cache = stand_ins
    done = _setup(root, timeout=600, PTLAB_SETUP_INSTALL_ONLY="1")  # stand-ins cannot run the references
    assert done.returncode == 0, ("setup.sh failed offline with every wheel in its cache (a conflict with the "
                                  f"image's constraints means it read pip settings besides the cache):\n"
                                  f"{done.stderr[-3000:]}")
    installed = _installed(root)
    missing = [n for n in cache if n.lower() not in installed]
    assert not missing, f"setup.sh installed no {missing} from the cache in the zip"
    grader = subprocess.run([str(root / "venv" / "bin" / "python"), "-c", "import autograder; print(autograder.__file__)"],
                            cwd="/", capture_output=True, text=True, timeout=60)
    assert grader.stdout.startswith(str(root / "source")), \
        f"the image's Python imports the zip's grader from any folder (its kernel launcher starts elsewhere): {grader}"
    elsewhere = [n for n in cache if installed[n.lower()] != STAND_IN]
    assert not elsewhere, (f"setup.sh installed {elsewhere} from somewhere else than the zip's wheel cache "
                           "(this machine's pip configuration or PIP_* variables reached it)")


def test_setup_stops_and_names_a_wheel_the_cache_lacks(course, stand_ins):
    """The same zip, told (PTLAB_WHEELS) to install from a copy of its cache without numpy."""
    image, cache = stand_ins
    lacking = course / "without_numpy"
    lacking.mkdir()
    for name, wheel in cache.items():
        if name != "numpy":
            shutil.copy(wheel, lacking / wheel.name)
    root = course / "lacking"
    root.mkdir()
    (root / "source").symlink_to(image / "source")
    done = _setup(root, timeout=600, PTLAB_WHEELS=str(lacking))
    assert done.returncode != 0, "setup.sh went on with numpy missing from its wheel cache"
    assert "numpy" in done.stderr and "lacks a wheel" in done.stderr, \
        f"setup.sh says which wheel its cache lacks and what to do:\n{done.stderr[-3000:]}"
    assert "torch" in _installed(root), "the wheels that are there install (torch comes first)"


@pytest.mark.kernel
@pytest.mark.skipif(not REAL_WHEELS, reason="a maintainer check: PTLAB_GRADESCOPE_WHEELS=DIR, a wheel cache of the "
                    "course's dependencies for this machine's python3 (about 1 GB)")
def test_real_wheel_cache_grades_a_handin_offline(course):
    """The whole offline image: setup.sh installs the real wheels with no network and caches the references,
    then run_autograder grades a right hand-in with the environment it built."""
    root = _image(course, "real", Path(REAL_WHEELS))
    done = _setup(root, timeout=1800)
    assert done.returncode == 0, f"setup.sh failed offline from the real wheel cache:\n{done.stderr[-3000:]}"
    assert _installed(root).get("torch") not in (None, STAND_IN), "setup.sh installed no torch from the real cache"
    ref = nbformat.read(str(root / "source" / "notebooks" / "junior" / "01_tiny.ipynb"), 4)
    (root / "submission").mkdir()
    nbformat.write(with_answer(ref, "ex1_double", ANSWER), str(root / "submission" / "01_tiny.ipynb"))
    env = {k: v for k, v in _offline_env(root).items() if k != "PTLAB_PYTHON"}  # the image's own Python
    ran = subprocess.run([*_no_network(), str(root / "source" / "run_autograder")], cwd=root, env=env,
                         capture_output=True, text=True, timeout=900)
    assert ran.returncode == 0, ran.stdout[-2000:] + ran.stderr[-3000:]
    results = json.loads((root / "results" / "results.json").read_text())
    scores = {t["name"]: (t["score"], t["max_score"]) for t in results["tests"]}
    assert results["score"] == pytest.approx(5) and len(scores) == 2, \
        f"run_autograder in the offline image gives the right hand-in 5 / 5 over two graded cells: {results}"

