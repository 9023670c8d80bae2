# The repository is the nbgrader course root: notebooks/<tier>/ is the source, release/<tier>/ the student
# version. Each tier is one assignment.
c = get_config()  # noqa: F821  (provided by traitlets when nbgrader loads this file)

c.CourseDirectory.course_id = "pytorch-interview-lab"
c.CourseDirectory.source_directory = "notebooks"
c.CourseDirectory.release_directory = "release"
c.CourseDirectory.submitted_directory = "submitted"
c.CourseDirectory.autograded_directory = "autograded"
c.CourseDirectory.feedback_directory = "feedback"

# Training and distributed cells take longer than nbgrader's 30 s default; a runaway cell still stops.
c.Execute.timeout = 180
c.Execute.interrupt_on_timeout = True

# The stubs learners see in place of the reference solutions.
c.ClearSolutions.code_stub = {"python": "# YOUR CODE HERE\nraise NotImplementedError()"}
c.ClearSolutions.text_stub = "YOUR ANSWER HERE"

# Feedback never shows hidden tests (nbgrader shows them by default: jupyter/nbgrader#917, #1363).
c.GenerateFeedback.preprocessors = [
    "nbgrader.preprocessors.GetGrades",
    "nbgrader.preprocessors.ClearHiddenTests",
    "nbconvert.preprocessors.CSSHTMLHeaderPreprocessor",
]
