"""The name a notebook's self-check cell imports (`from autograder.selfcheck import check_this_notebook`).

Every course notebook, the ones learners already have in work/ and on their disks included, carries that cell,
so this name stays; the code lives in autograder/learner/selfcheck.py. It runs in the learner's kernel:
nothing here imports the grader (it is reached through a subprocess).
"""

from autograder.learner.selfcheck import check_this_notebook

__all__ = ["check_this_notebook"]
