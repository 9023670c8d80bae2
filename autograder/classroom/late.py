"""Late work, by nbgrader's conventions: a hand-in's time is `timestamp.txt` beside it (what `nbgrader collect`
and the exchange write), its assignment's due date comes from assignments.yaml, and the penalty from the
late-submission plugin configured in nbgrader_config.py (`c.AssignLatePenalties.plugin_class`, by default
nbgrader's LateSubmissionPlugin with `c.LateSubmissionPlugin.penalty_method` 'none' or 'zero')."""

from __future__ import annotations

import functools
from datetime import datetime
from pathlib import Path

from autograder.classroom import scores


TIMESTAMP_BYTES = 1024  # nbgrader writes one line of some 30 bytes
TIMESTAMP = "timestamp.txt"


def read_stamp(notebook: Path) -> tuple[datetime | None, str]:
    """(the hand-in's time in UTC, naive as nbgrader keeps it, or None; a note when timestamp.txt is there but
    ignored). Opened as a hand-in is (pipeline.handin.read_bytes): never through a link, in a linked folder or
    from anything but a regular file (a named pipe is refused, not waited on), and never past a small cap."""
    from nbgrader.utils import parse_utc

    from autograder.course import GradingInputError
    from autograder.pipeline import handin

    folder = Path(notebook).parent
    if folder.is_symlink() or folder.parent.is_symlink():
        return None, f"{TIMESTAMP} ignored: in a linked folder"
    try:
        data = handin.read_bytes(folder / TIMESTAMP, limit=TIMESTAMP_BYTES)
    except GradingInputError as e:
        why = str(e).rsplit(f"{TIMESTAMP}: ", 1)[-1]
        return None, "" if why == "no such file" else f"{TIMESTAMP} ignored: {why}"
    try:
        text = data.decode("utf-8").strip()
        return (parse_utc(text), "") if text else (None, "")
    except (UnicodeDecodeError, ValueError, OverflowError, TypeError):
        return None, f"{TIMESTAMP} ignored: not a time"


def submitted_at(notebook: Path) -> datetime | None:
    """The hand-in's time in UTC (naive, as nbgrader keeps it), or None when there is no readable timestamp."""
    return read_stamp(notebook)[0]


def stamp(row: dict, notebook: Path, due: datetime | None) -> dict:
    """The row's submitted_at and seconds_late columns (changed in place, returned); a timestamp.txt that is
    there but ignored says why in the row's status."""
    when, note = read_stamp(notebook)
    row["submitted_at"] = when.strftime("%Y-%m-%d %H:%M:%S UTC") if when else ""
    row["seconds_late"] = f"{max(0.0, (when - due).total_seconds()):g}" if when and due else ""
    if note and note not in row.get("status", ""):
        row["status"] = note if row.get("status", "ok") == "ok" else f"{row['status']}; {note}"[:200]
    return row


@functools.lru_cache(maxsize=4)
def _plugin(course_root: str):
    from nbgrader.preprocessors import AssignLatePenalties
    from traitlets.config.loader import PyFileConfigLoader

    path = Path(course_root) / "nbgrader_config.py"
    config = PyFileConfigLoader(path.name, path=str(path.parent)).load_config() if path.exists() else None
    step = AssignLatePenalties(config=config) if config is not None else AssignLatePenalties()
    step.init_plugin()
    return step.plugin_inst


def penalize(course_root: Path):
    """late(row): the row's late_penalty by the course's plugin, between 0 and the score (as nbgrader clips it)."""
    import logging

    plugin = _plugin(str(course_root))
    plugin.log.setLevel(logging.ERROR)  # the plugin logs every call at INFO: one line per notebook is noise

    def late(row: dict) -> None:
        row["late_penalty"] = ""
        secs = float(row.get("seconds_late") or 0)
        if secs <= 0:
            return
        score = float(scores.settle(row)["score"])
        penalty = plugin.late_submission_penalty(row["student"], score, secs)
        row["late_penalty"] = f"{min(max(0.0, penalty), score):g}" if penalty is not None else ""
    return late


def course_penalize():
    """penalize() for the course being graded: its nbgrader_config.py, or the repository's."""
    from autograder.classroom import assignments
    from autograder.course import ROOT

    root = assignments.course_dir()
    return penalize(root if (root / "nbgrader_config.py").exists() else ROOT)


def as_shown(row: dict, notebook: Path) -> dict:
    """A copy of a just-graded row with its lateness (time, how late, the course's penalty), for the feedback
    page a worker writes: the page says so with or without a gradebook (the batch settles the row itself)."""
    from autograder.classroom import assignments
    from autograder.course import GradingInputError

    try:
        shown = stamp(dict(row), notebook, assignments.due_dates().get(row["assignment"]))
        course_penalize()(shown)
    except (OSError, ValueError, GradingInputError):  # a name no path takes, a broken course file: no lateness
        return dict(row)
    return shown
