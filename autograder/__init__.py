"""PyTorch Interview Lab's grader: self-check, class grading, linting and release, on top of nbgrader.

Packages by who they serve (docs/architecture.md has the picture). Imports run one way, down this list:

    cli.py        the command line: `python -m autograder ...`; may import anything below
    learner/      self-study: the in-notebook self-check, progress and its dashboard, JupyterLab settings
    classroom/    a class: grading in a process pool or on Dask, the gradebook, feedback
    authoring/    writing the course: the text format, build, release, lint, the notebook template, hints
    pipeline/     one notebook graded: identify, assemble, expected reports, execute, faults, score
    isolation/    where student code runs: the sandbox, the fork server, warm kernels
    course.py     where things live and the syllabus; imports nothing of the grader

learner/ and classroom/ never import each other; authoring/ sits beside them (learner/ may read the release
and the hints it writes); pipeline/ and isolation/ never import upward. tests/test_layout.py holds the rule.
`selfcheck.py` and `progress.py` at this level are the two names a learner's notebook imports; they stay
for the notebooks already in learners' hands and forward to learner/.
"""

__version__ = "0.1.0"
