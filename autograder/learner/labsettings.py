"""JupyterLab settings for the course, as JupyterLab's own switches (no patch of JupyterLab itself).

- Settings overrides, written to <venv>/share/jupyter/lab/settings/overrides.d/ptlab.json: a file of our own
  next to the user's overrides.json, which stays the user's. Overrides change defaults; a learner can still
  change both settings.
- The "Save and check" extension (labextension/, built assets in labextension/dist, committed so that no
  setup needs npm): linked into <venv>/share/jupyter/labextensions/ as `jupyter labextension develop` does,
  so an editable install serves the checked-out build.
- The learner's launch (`make lab`) hides nbgrader's instructor tools (Validate, Create Assignment,
  Formgrader, Assignment List, the Nbgrader menu) so that one grader, the self-check, speaks to a learner.
  They are switched off in a config directory of their own, <venv>/etc/ptlab-learner, which only `make lab`
  puts on JUPYTER_CONFIG_PATH: `make teach` and any other `jupyter lab` keep every nbgrader tool.
"""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

AUTOSAVE_SECONDS = 10
OVERRIDES = {
    # "Would you like to get notified about official Jupyter news?": never asked, no news fetched.
    "@jupyterlab/apputils-extension:notification": {"fetchNews": "false", "checkForUpdates": False},
    # The self-check grades the saved file: save often.
    "@jupyterlab/docmanager-extension:plugin": {"autosave": True, "autosaveInterval": AUTOSAVE_SECONDS},
}

EXTENSION_NAME = "@ptlab/selfcheck"
EXTENSION_BUILD = Path(__file__).parent / "labextension" / "dist"

# nbgrader's lab plugins (page_config disabledExtensions) and server extensions (ServerApp.jpserver_extensions)
# that are for instructors: a learner who presses Validate gets a second verdict that ignores hidden tests.
INSTRUCTOR_LAB_PLUGINS = [f"@jupyter/nbgrader:{p}" for p in (
    "validate-assignment", "create-assignment", "formgrader", "assignment-list", "course-list", "menu")]
INSTRUCTOR_SERVER_EXTENSIONS = [f"nbgrader.server_extensions.{e}" for e in (
    "formgrader", "validate_assignment", "assignment_list", "course_list")]


def settings_dir(prefix: str | None = None) -> Path:
    return Path(prefix or sys.prefix) / "share" / "jupyter" / "lab" / "settings"


def _write(target: Path, text: str) -> Path:
    target.parent.mkdir(parents=True, exist_ok=True)
    if not target.exists() or target.read_text() != text:
        target.write_text(text)
    return target


def write_overrides(prefix: str | None = None) -> Path:
    return _write(settings_dir(prefix) / "overrides.d" / "ptlab.json", json.dumps(OVERRIDES, indent=2) + "\n")


def install_extension(data_dir: Path | None = None) -> Path:
    """<data_dir>/labextensions/@ptlab/selfcheck -> the committed build (data_dir: <venv>/share/jupyter, or a
    folder on JUPYTER_PATH)."""
    target = Path(data_dir or Path(sys.prefix) / "share" / "jupyter") / "labextensions" / EXTENSION_NAME
    if target.is_symlink() and target.resolve() == EXTENSION_BUILD.resolve():
        return target
    if target.is_symlink() or target.is_file():
        target.unlink()
    elif target.is_dir():
        shutil.rmtree(target)
    target.parent.mkdir(parents=True, exist_ok=True)
    target.symlink_to(EXTENSION_BUILD.resolve(), target_is_directory=True)
    return target


def learner_config_dir(prefix: str | None = None) -> Path:
    return Path(prefix or sys.prefix) / "etc" / "ptlab-learner"


def write_learner_config(prefix: str | None = None) -> Path:
    """The config directory `make lab` adds to JUPYTER_CONFIG_PATH; returns it."""
    config = learner_config_dir(prefix)
    page = {"disabledExtensions": {p: True for p in INSTRUCTOR_LAB_PLUGINS}}
    server = {"ServerApp": {"jpserver_extensions": {e: False for e in INSTRUCTOR_SERVER_EXTENSIONS}}}
    _write(config / "labconfig" / "page_config.json", json.dumps(page, indent=2) + "\n")
    _write(config / "jupyter_server_config.json", json.dumps(server, indent=2) + "\n")
    return config
