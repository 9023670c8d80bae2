"""Files a reader may open at any moment (formgrader, a browser, a resumed batch) are written whole or not at
all: into a temporary name beside the target, then renamed over it. The target's name comes from a hand-in's
(any length, any bytes): the temporary one is a hash of it, never longer, and text a file name brought in
that is not UTF-8 is written escaped rather than stopping the write."""

from __future__ import annotations

import hashlib
import os
from pathlib import Path


def write_whole(text: str, path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    digest = hashlib.sha256(os.fsencode(path.name)).hexdigest()[:16]
    tmp = path.with_name(f".{digest}.{os.getpid()}.tmp")
    try:
        tmp.write_bytes(text.encode("utf-8", "backslashreplace"))
        os.replace(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)
