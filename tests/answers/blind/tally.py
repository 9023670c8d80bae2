"""The verdict on every answer of a blind set, one line each (the suite stops at the first it disagrees with):

    .venv/bin/python -m tests.answers.blind.tally junior/02_autograd_basics [mid/04_... ...]

Prints, per answer, `caught`/`MISSED` (a shortcut or wrong answer; `NOT RUN` when an earlier answer stopped the run)
or `accepted`/`REJECTED` (an alternative; a tamper flag rejects them all, as the suite does), with the test's
message, then the totals."""

from __future__ import annotations

import os
import sys

# As the suite runs them (conftest.py), so a tally's verdict is the suite's: the notebooks' fast mode, and one
# thread per kernel (on a busy machine, kernels with a thread per core spin against each other for minutes).
os.environ.setdefault("PTLAB_FAST", "1")
for _var in ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS"):
    os.environ.setdefault(_var, "1")
os.environ.setdefault("MPLBACKEND", "Agg")

from autograder.course import SOURCE_DIR  # noqa: E402
from autograder.pipeline import cells  # noqa: E402
from autograder.pipeline.check import grade_submission  # noqa: E402
from tests import answers  # noqa: E402


def tally(name: str) -> list[tuple[str, str, str, bool, str]]:
    """(kind, cell, what, right, message) for each answer of notebook `name`'s blind set."""
    source = SOURCE_DIR / f"{name}.ipynb"
    wrong, alt = answers.load_blind(source)
    nb = cells.read(source)
    graded_by = answers.test_cell_of(nb)
    rows = []
    for sid, why, verdict in answers.wrong_verdicts(source, wrong):
        message = verdict.message or ""
        if message.startswith("did not run"):  # an earlier answer stopped the run: no verdict on this one
            rows.append(("unrun", sid, why, False, message))
        else:
            rows.append(("wrong", sid, why, not verdict.passed, message))
    if alt:
        report = grade_submission(answers.substitute(nb, alt), source, f"{source.stem}+blind-tally")
        failed = {t.grade_id: t.message for t in report.tests if not t.passed}
        for sid in alt:
            rows.append(("alt", sid, "alternative", graded_by[sid] not in failed, failed.get(graded_by[sid], "")))
        if report.flags:  # the suite fails an alternative that trips the tamper scan, whatever its score
            rows.append(("alt", "(tamper scan)", "alternatives together", False, "; ".join(map(str, report.flags))))
    return rows


def main(names: list[str]) -> int:
    totals = {"wrong": [0, 0], "alt": [0, 0], "unrun": [0, 0]}
    for name in names:
        for kind, sid, what, right, message in tally(name):
            word = {("wrong", True): "caught", ("wrong", False): "MISSED", ("unrun", False): "NOT RUN",
                    ("alt", True): "accepted", ("alt", False): "REJECTED"}[kind, right]
            totals[kind][0] += right
            totals[kind][1] += 1
            print(f"{name} {sid:28} {word:8} {what}" + (f"  [{message.splitlines()[0][:100]}]" if message else ""))
    print(f"wrong caught {totals['wrong'][0]}/{totals['wrong'][1]}, "
          f"alternatives accepted {totals['alt'][0]}/{totals['alt'][1]}, not run {totals['unrun'][1]}")
    return 0 if all(a == b for a, b in totals.values()) else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
