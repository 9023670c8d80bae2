"""PyTorch Interview Lab autograder: self-check, class grading, linting and release, on top of nbgrader."""

__version__ = "0.1.0"
