"""A class: every hand-in of SUBMITTED/<student>/<assignment>/<notebook>.ipynb graded into grades.csv, in a local
process pool (grade.py) or on a Dask cluster (cluster.py), each hand-in by jobs.grade_one; then the nbgrader
gradebook (gradebook.py) and per-student feedback HTML (feedback.py). Platform adapters and the class report
belong here too.

May import pipeline/, isolation/ and course.py; never learner/ or authoring/.
"""
