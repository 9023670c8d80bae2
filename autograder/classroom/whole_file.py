"""Files a reader may open at any moment (formgrader, a browser, a resumed batch) are written whole or not at
all: into a temporary name beside the target, then renamed over it."""

from __future__ import annotations

import os
from pathlib import Path


def write_whole(text: str, path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.tmp")
    tmp.write_text(text, encoding="utf-8")
    os.replace(tmp, path)
