"""The pre-commit hooks (`make hooks`) run the project's own checks: each hook is declared right and its
command passes on the tree as committed."""

import subprocess

import yaml

from autograder.course import ROOT, source_notebooks

CONFIG = ROOT / ".pre-commit-config.yaml"
VENV_BIN = ROOT / ".venv" / "bin"


def _hooks() -> dict:
    return {h["id"]: h for repo in yaml.safe_load(CONFIG.read_text())["repos"] for h in repo["hooks"]}


def test_the_config_is_valid_and_runs_our_checks():
    done = subprocess.run([VENV_BIN / "pre-commit", "validate-config", CONFIG], capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr
    assert set(_hooks()) == {"ruff", "notebook-conventions", "release-fresh", "layout"}


def test_every_hook_passes_on_the_tree():
    samples = {"ruff": ["autograder", "ci", "tests"], "notebook-conventions": [str(source_notebooks("junior")[0])]}
    for hook_id, hook in _hooks().items():
        args = hook["entry"].split() + (samples.get(hook_id, []) if hook.get("pass_filenames", True) else [])
        done = subprocess.run(args, cwd=ROOT, capture_output=True, text=True, timeout=300)
        assert done.returncode == 0, f"hook {hook_id} failed: {done.stdout[-2000:]}{done.stderr[-2000:]}"
