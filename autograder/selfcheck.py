"""The names a notebook's self-check cell imports (`from autograder.selfcheck import check_this_notebook`, and on
Colab `check_on_colab`).

Every course notebook, the ones learners already have in work/ and on their disks included, carries that cell,
so these names stay; the code lives in autograder/learner/selfcheck.py and colab.py. It runs in the learner's kernel:
nothing here imports the grader (it is reached through a subprocess).
"""

from autograder.learner.colab import check_on_colab
from autograder.learner.selfcheck import check_this_notebook

__all__ = ["check_on_colab", "check_this_notebook"]
