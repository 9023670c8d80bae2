# The repository is the nbgrader course root: notebooks/<tier>/ is the source, release/<tier>/ the student
# version. Each tier is one assignment; assignments.yaml defines more (sets of notebooks, due dates).
import os
import sys
import warnings

c = get_config()  # noqa: F821  (provided by traitlets when nbgrader loads this file)
HERE = os.path.dirname(os.path.abspath(__file__))  # traitlets sets __file__ for a config file

c.CourseDirectory.course_id = "pytorch-interview-lab"
c.CourseDirectory.source_directory = "notebooks"
c.CourseDirectory.release_directory = "release"
c.CourseDirectory.submitted_directory = "submitted"
c.CourseDirectory.autograded_directory = "autograded"
c.CourseDirectory.feedback_directory = "feedback"
# nbgrader's exchange (release_assignment, collect) inside the course, not /usr/local/share: no root needed,
# and formgrader does not warn that it is missing (nbgrader creates it on first use; git ignores it).
c.Exchange.root = os.path.join(HERE, "exchange")
# Students get an assignments.yaml assignment without the .gitignore that keeps its folders out of the
# course's git (autograder/classroom/exchange.py).
c.ExchangeFactory.release_assignment = "autograder.classroom.exchange.ReleaseAssignment"

# Late work (nbgrader's plugin; due dates: assignments.yaml). 'none' records lateness without a penalty,
# 'zero' gives a late notebook 0; a plugin class of your own can subtract per hour late.
c.AssignLatePenalties.plugin_class = "nbgrader.plugins.LateSubmissionPlugin"
c.LateSubmissionPlugin.penalty_method = "none"

# Training and distributed cells take longer than nbgrader's 30 s default; a runaway cell still stops.
c.Execute.timeout = 180
c.Execute.interrupt_on_timeout = True

# The stubs learners see in place of the reference solutions.
c.ClearSolutions.code_stub = {"python": "# YOUR CODE HERE\nraise NotImplementedError()"}
c.ClearSolutions.text_stub = "YOUR ANSWER HERE"

# Plain `nbgrader autograde` restores hidden tests without reporting every untouched test cell as changed
# (nbgrader compares with a checksum taken before they were cleared: jupyter/nbgrader#1961).
c.Autograde.sanitize_preprocessors = [
    "nbgrader.preprocessors.ClearOutput",
    "nbgrader.preprocessors.DeduplicateIds",
    "nbgrader.preprocessors.OverwriteKernelspec",
    "autograder.classroom.released_cells.OverwriteReleasedCells",
    "nbgrader.preprocessors.CheckCellMetadata",
]

# A plain `nbgrader generate_assignment <tier> --force` writes release/ as `make release` does: the kernel
# JupyterLab reports and the course's helper cells collapsed (otherwise the notebooks open as modified).
from nbgrader.converters import GenerateAssignment  # noqa: E402  (after get_config: a config file's order)

c.GenerateAssignment.preprocessors = [*GenerateAssignment.class_traits()["preprocessors"].default(),
                                      "autograder.authoring.release.FinishRelease"]

# Feedback never shows hidden tests (nbgrader shows them by default: jupyter/nbgrader#917, #1363), in
# `nbgrader generate_feedback` and formgrader's "Generate Feedback" button alike (the same converter).
# LearnerFeedback, before ClearHiddenTests clears the sources: drops the grader's notes (the model answer and
# rubric formgrader shows) and cuts each test cell's error to one line, "a hidden test failed" when a hidden
# test raised it (a traceback quotes the hidden lines), and the other outputs of cells with hidden tests.
c.GenerateFeedback.preprocessors = [
    "nbgrader.preprocessors.GetGrades",
    "autograder.classroom.autograded.LearnerFeedback",
    "nbgrader.preprocessors.ClearHiddenTests",
    "nbconvert.preprocessors.CSSHTMLHeaderPreprocessor",
]

# nbgrader makes a new gradebook by running `alembic` from PATH: the one beside this Python, so that
# `.venv/bin/nbgrader ...` works in a shell that never activated the environment.
_BIN = os.path.dirname(sys.executable)
if _BIN not in os.environ.get("PATH", "").split(os.pathsep):
    os.environ["PATH"] = _BIN + os.pathsep + os.environ.get("PATH", "")

# An assignments.yaml assignment is an nbgrader assignment like a tier: nbgrader knows one by its source
# folder, so each gets notebooks/<name>/ (links to its notebooks, kept out of git) whenever nbgrader starts;
# the folder of an assignment the file no longer lists goes (without the file too: it lists none).
try:
    from autograder.classroom.assignments import as_nbgrader_folders

    as_nbgrader_folders(HERE)
except Exception as e:  # a wrong course file: said, and nbgrader still starts for the tiers
    if os.path.exists(os.path.join(HERE, "assignments.yaml")):
        print(f"nbgrader_config: assignments.yaml: {e}")

# nbgrader's models make SQLAlchemy warn about overlapping relationships: noise for an instructor.
try:
    from sqlalchemy.exc import SAWarning

    warnings.filterwarnings("ignore", category=SAWarning)
except ImportError:
    pass
