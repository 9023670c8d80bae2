"""JupyterLab settings for the course, as a JupyterLab settings override (no patch of JupyterLab itself).

Written to <venv>/share/jupyter/lab/settings/overrides.d/ptlab.json: a file of our own next to the user's
overrides.json, which stays the user's. Overrides change defaults; a learner can still change both settings.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

AUTOSAVE_SECONDS = 10
OVERRIDES = {
    # "Would you like to get notified about official Jupyter news?": never asked, no news fetched.
    "@jupyterlab/apputils-extension:notification": {"fetchNews": "false", "checkForUpdates": False},
    # The self-check grades the saved file: save often.
    "@jupyterlab/docmanager-extension:plugin": {"autosave": True, "autosaveInterval": AUTOSAVE_SECONDS},
}


def settings_dir(prefix: str | None = None) -> Path:
    return Path(prefix or sys.prefix) / "share" / "jupyter" / "lab" / "settings"


def write_overrides(prefix: str | None = None) -> Path:
    target = settings_dir(prefix) / "overrides.d" / "ptlab.json"
    target.parent.mkdir(parents=True, exist_ok=True)
    text = json.dumps(OVERRIDES, indent=2) + "\n"
    if not target.exists() or target.read_text() != text:
        target.write_text(text)
    return target
