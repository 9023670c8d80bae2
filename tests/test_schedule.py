"""The suite's scheduler (conftest.py): a notebook's contract tests and its nbval cells share one scope, so
they run on one worker in order (the reference first, nbval's cells in one kernel); other tests are scoped by
module, so a module fixture is built once."""

import importlib.util

from autograder.course import ROOT

_spec = importlib.util.spec_from_file_location("suite_conftest", ROOT / "conftest.py")
suite = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(suite)


def test_a_notebooks_contract_and_its_nbval_cells_share_a_scope():
    scopes = {suite.scope_of(n) for n in (
        "notebooks/mid/17_tokenization_and_retrieval.ipynb::Cell 3",
        "tests/test_notebooks.py::test_known_wrong_answers_fail[mid/17_tokenization_and_retrieval]",
        "tests/test_hints.py::test_every_exercise_has_progressive_hints_that_do_not_leak[mid/17_tokenization_and_retrieval]")}
    assert scopes == {"notebook:mid/17_tokenization_and_retrieval"}


def test_other_tests_are_scoped_by_module():
    assert suite.scope_of("tests/test_grade.py::test_rerun_resumes_without_regrading") == "tests/test_grade.py"
    assert suite.scope_of("tests/test_check_cli.py::test_bad_input_exits_2[not json]") == "tests/test_check_cli.py"
    assert suite.scope_of("notebooks/mid/17_tokenization_and_retrieval.ipynb::Cell 3") != \
        suite.scope_of("notebooks/mid/16_llama_block_and_tiny_lm.ipynb::Cell 3")
