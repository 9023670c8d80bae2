"""`python -m autograder solution NB EXERCISE` and show_solution(): the reference of a passed exercise only,
never before it passes, never while a notebook is graded, never a written answer's model."""

import nbformat

from tests.tiny_course import cli, make_course, with_answer


def copy_with(tmp, answers: dict[str, str] | None = None):
    nb = nbformat.read(str(make_course(tmp)), 4)
    for gid, code in (answers or {}).items():
        nb = with_answer(nb, gid, code)
    path = tmp / "work" / "junior" / "01_tiny.ipynb"
    path.parent.mkdir(parents=True, exist_ok=True)
    nbformat.write(nb, str(path))
    return path


def test_a_passed_exercise_shows_its_reference_without_nbgrader_markers(tmp_path):
    path = copy_with(tmp_path, {"ex1_double": "def double(x):\n    return x + x\n"})
    done = cli(tmp_path, "solution", str(path), "ex1_double_test")
    assert done.returncode == 0, done.stderr
    assert "return 2 * x" in done.stdout and "BEGIN SOLUTION" not in done.stdout
    assert "square" not in done.stdout  # only the exercise asked for


def test_an_exercise_not_passed_yet_is_refused(tmp_path):
    path = copy_with(tmp_path, {"ex1_double": "def double(x):\n    return abs(2 * x)\n"})
    done = cli(tmp_path, "solution", str(path), "ex1")
    assert done.returncode == 1 and "not passed yet" in done.stderr
    assert "return 2 * x" not in done.stdout + done.stderr


def test_never_while_graded_and_never_a_written_answer(tmp_path):
    path = copy_with(tmp_path)
    graded = cli(tmp_path, "solution", str(path), "ex1", PTLAB_GRADING="1")
    assert graded.returncode == 1 and "being graded" in graded.stderr and "2 * x" not in graded.stdout
    written = cli(tmp_path, "solution", str(path), "ex3")
    assert written.returncode == 1 and "written answer" in written.stderr and "Rubric" not in written.stdout


def test_the_notebook_helper_asks_the_command_and_stays_silent_while_graded(tmp_path, monkeypatch, capsys):
    from autograder.learner import reveal

    path = copy_with(tmp_path)
    shown = []

    class Handle:  # the live line's display, whose last update is what the cell keeps
        def update(self, data, raw=False):
            shown.append(data)

    monkeypatch.setattr("IPython.display.display", lambda data, **kw: (shown.append(data), Handle())[1])
    monkeypatch.setenv("PTLAB_SOURCE_DIR", str(tmp_path / "notebooks"))
    reveal.show_solution("ex2", session=str(path))
    final = shown[-1]["text/markdown"]
    assert "return x * x" in final and final.startswith("```python")
    shown.clear()
    monkeypatch.setenv("PTLAB_GRADING", "1")
    reveal.show_solution("ex2", session=str(path))
    assert not shown and capsys.readouterr().out == ""
