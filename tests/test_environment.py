"""One source of truth for dependencies: environment.yml must install exactly what pyproject.toml asks for."""

import tomllib

import yaml

from autograder.course import ROOT


def test_environment_yml_mirrors_pyproject():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    wanted = set(project["dependencies"]) | set(project["optional-dependencies"]["dev"])
    env = yaml.safe_load((ROOT / "environment.yml").read_text())
    pip = next(d["pip"] for d in env["dependencies"] if isinstance(d, dict) and "pip" in d)
    listed = {p for p in pip if not p.startswith("-e")}
    assert listed - wanted == set(), "environment.yml installs packages pyproject.toml does not declare"
    assert wanted - listed == set(), "pyproject.toml declares packages environment.yml does not install"


def test_makefile_installs_the_cpu_wheel_first():
    text = (ROOT / "Makefile").read_text()
    assert "TORCH ?= torch==2.13.0" in text, "make setup must pin the on-disk CPU wheel, not an open torch range"


def test_make_test_installs_triton_and_make_lab_only_when_asked():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    assert project["optional-dependencies"]["kernels"] == ["triton==3.9.0"]
    rules = {line.split(":")[0]: line for line in (ROOT / "Makefile").read_text().splitlines()
             if line and not line[0].isspace() and ":" in line}
    assert "setup-triton" in rules["test"].split("##")[0], "make test must install Triton: senior/20 is graded"
    assert "$(if $(TRITON),setup-triton)" in rules["lab"], "make lab adds Triton only with TRITON=1"
