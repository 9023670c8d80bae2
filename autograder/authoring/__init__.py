"""Writing the course: the text format (text_format.py) and the builder (build.py), the fixed cells every
notebook has (template.py), the conventions as checks (lint.py), hints (hints.py) and the student release
(release.py, nbgrader's generate step).

May import pipeline/ (to read a notebook's cells) and course.py; never learner/, classroom/ or isolation/.
"""
