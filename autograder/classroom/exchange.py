"""What the course adds to nbgrader's exchange (release_assignment, fetch_assignment, submit, collect,
release_feedback, fetch_feedback; nbgrader_config.py names the release class):

- `carry`: the records nbgrader's exchange keeps beside a collected hand-in (`timestamp.txt`,
  `submission_secret.txt`) go to the hand-in's autograded/ and feedback/ folders, as nbgrader's own autograde
  and generate_feedback carry them. `nbgrader release_feedback` reads both beside each feedback page (the
  secret names the page in the exchange, so that `fetch_feedback` finds it for the one student who submitted
  it) and stops at the first page without them.
- `ReleaseAssignment`: the released folder goes out without the .gitignore that keeps an assignments.yaml
  assignment's folders out of the course's git (assignments.as_nbgrader_folders): in a student's copy it
  would hide their work from their own git.
"""

from __future__ import annotations

from pathlib import Path

from nbgrader.exchange.default import ExchangeReleaseAssignment

from autograder.classroom import assignments
from autograder.classroom.whole_file import write_whole
from autograder.course import GradingInputError
from autograder.pipeline import handin

RECORDS = ("timestamp.txt", "submission_secret.txt")
RECORD_BYTES = 1024  # nbgrader writes one line of some 30 bytes (a time, a hex digest)


def carry(handin_folder: Path, *targets: Path | None) -> None:
    """Each record of `handin_folder` into each target folder that exists (a page or notebook was written there);
    a record that is missing, a link or no plain text is left behind, as a hand-in would be refused."""
    folders = [t for t in targets if t is not None and t.is_dir()]
    if not folders or handin_folder.is_symlink():
        return
    for name in RECORDS:
        try:
            text = handin.read_bytes(handin_folder / name, limit=RECORD_BYTES).decode("utf-8")
        except (GradingInputError, UnicodeDecodeError):
            continue
        for folder in folders:
            write_whole(text, folder / name)


class ReleaseAssignment(ExchangeReleaseAssignment):
    """nbgrader's release, less the course's marker (a .gitignore of the instructor's own still goes out)."""

    def do_copy(self, src, dest, log=None):
        super().do_copy(src, dest, log)
        if assignments.made_here(Path(dest)):
            (Path(dest) / ".gitignore").unlink()
