"""`python -m autograder reset NB [--exercise ID]`: blank answer cells back, everything else kept."""

import nbformat

from autograder.pipeline.cells import grade_id
from tests.tiny_course import cli, make_course


def answers(path):
    return {grade_id(c): c.source for c in nbformat.read(str(path), 4).cells if grade_id(c)}


def solved_copy_with_a_note(tmp):
    src = make_course(tmp)
    nb = nbformat.read(str(src), 4)
    nb.cells.insert(1, nbformat.v4.new_markdown_cell("my notes: doubling is linear"))
    for c in nb.cells:
        if c.cell_type == "code":
            c.outputs, c.execution_count = [nbformat.v4.new_output("stream", text="ran\n")], 3
    path = tmp / "work" / "junior" / "01_tiny.ipynb"
    path.parent.mkdir(parents=True)
    nbformat.write(nb, str(path))
    return path


def test_reset_of_one_exercise_blanks_only_its_answer_and_keeps_the_rest(tmp_path):
    path = solved_copy_with_a_note(tmp_path)
    before = answers(path)
    done = cli(tmp_path, "reset", str(path), "--exercise", "ex1")
    assert done.returncode == 0, done.stderr
    assert "ex1_double" in done.stdout and "follows it" in done.stdout
    after = answers(path)
    assert "raise NotImplementedError" in after["ex1_double"] and "return 2 * x" not in after["ex1_double"]
    assert after["ex1_double"].startswith("def double(x):")  # the stub the release has, not an empty cell
    assert after["ex2_square"] == before["ex2_square"] and after["ex3_explain"] == before["ex3_explain"]
    nb = nbformat.read(str(path), 4)
    assert nb.cells[1].source == "my notes: doubling is linear"
    reset_cell = next(c for c in nb.cells if grade_id(c) == "ex1_double")
    assert reset_cell.outputs == [] and reset_cell.execution_count is None
    assert "return 2 * x" in (tmp_path / "work" / "junior" / "01_tiny.ipynb.bak").read_text()
    # what an open JupyterLab view follows (the Save and check extension): which cells were reset
    assert nb.metadata["ptlab"]["reset"]["cells"] == ["ex1_double"], nb.metadata


def test_reset_of_the_whole_notebook_blanks_every_answer_and_the_check_agrees(tmp_path):
    path = solved_copy_with_a_note(tmp_path)
    assert cli(tmp_path, "reset", str(path)).returncode == 0
    after = answers(path)
    assert "YOUR ANSWER HERE" in after["ex3_explain"] and "raise NotImplementedError" in after["ex2_square"]
    check = cli(tmp_path, "check", str(path))
    assert check.returncode == 1 and "score 0/5" in check.stdout


def test_an_unknown_exercise_or_file_is_one_line_and_exit_2(tmp_path):
    path = solved_copy_with_a_note(tmp_path)
    done = cli(tmp_path, "reset", str(path), "--exercise", "ex9")
    assert done.returncode == 2 and "choose one of: ex1_double, ex2_square, ex3_explain" in done.stderr
    assert "Traceback" not in done.stderr and "return 2 * x" in answers(path)["ex1_double"]
    missing = cli(tmp_path, "reset", str(tmp_path / "nothere.ipynb"))
    assert missing.returncode == 2 and "no such file" in missing.stderr
