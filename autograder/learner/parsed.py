"""What is parsed out of a course's source notebooks (its exercises, its reference pieces), kept on disk in
the course's cache under a hash of the source's bytes: a catalogue of the whole course costs seconds to parse
and milliseconds to load, and a changed source is parsed again."""

from __future__ import annotations

from pathlib import Path


def kept(path: Path, what: str, compute):
    """`compute(path)`, kept on disk in the course's cache under a hash of the source's bytes: a catalogue of
    the whole course costs seconds to parse and milliseconds to load."""
    import hashlib
    import os
    import pickle

    from autograder.course import CACHE_DIR

    data = Path(path).read_bytes()
    key = hashlib.sha256(data + what.encode()).hexdigest()[:24]
    file = CACHE_DIR / "exercises" / f"{Path(path).parent.name}__{Path(path).stem}__{what}__{key}.pickle"
    try:
        return pickle.loads(file.read_bytes())
    except (OSError, pickle.UnpicklingError, EOFError, AttributeError, ImportError):
        pass
    value = compute(path)
    file.parent.mkdir(parents=True, exist_ok=True)
    tmp = file.with_name(f"{file.name}.{os.getpid()}.tmp")
    tmp.write_bytes(pickle.dumps(value))
    os.replace(tmp, file)
    return value
