"""Self-study: the self-check a notebook runs on itself (selfcheck.py), progress over a work folder (progress.py
the model, progress_views.py the table and picture, dashboard.py the notebook), JupyterLab settings
(labsettings.py). Interview mode and the review queue belong here too.

May import authoring/ (the release it copies, the hints it points at), pipeline/, isolation/ and course.py;
never classroom/. selfcheck.py and dashboard.show run inside a learner's kernel: they reach the grader only
through a subprocess.
"""
