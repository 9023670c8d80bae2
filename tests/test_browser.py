"""The learner's loop in a real browser: JupyterLab on a learner's folder, an answer typed into a release
notebook, saved, the self-check run from the notebook, then the progress dashboard (tests/browser.py has the
shared machinery)."""

from __future__ import annotations

import os

import nbformat
import pytest

from tests.browser import (CURRENT_TAB, assert_opened_unmodified, jupyterlab, learner_folder, need_chromium,
                           open_from_file_browser, open_notebook, panel, run_cell, saved_source, shot)

ANSWER = "def double(x):\n    return x + x\n"  # a correct answer, not the reference's text


@pytest.fixture(scope="module")
def lab(tmp_path_factory):
    """JupyterLab on a learner's folder made as `make lab` makes work/: the release copied in, the dashboard
    added, the course's JupyterLab settings written."""
    need_chromium()
    from autograder.learner.labsettings import write_overrides

    tmp = tmp_path_factory.mktemp("lab")
    work = learner_folder(tmp)
    write_overrides()
    env = dict(os.environ, PTLAB_SOURCE_DIR=str(tmp / "notebooks"), PTLAB_CACHE_DIR=str(tmp / "cache"))
    with jupyterlab(work, tmp, env) as url:
        yield url, work


def test_the_learners_loop_in_jupyterlab(lab, page):
    try:
        _loop(lab, page)
    except Exception:
        shot(page, "failure")
        raise


def _loop(lab, page):
    url, work = lab
    nb = nbformat.read(str(work / "junior" / "01_tiny.ipynb"), 4)
    ids = [c.metadata.get("nbgrader", {}).get("grade_id") for c in nb.cells]

    open_notebook(page, url, "junior/01_tiny.ipynb")
    assert_opened_unmodified(page, work / "junior" / "01_tiny.ipynb", "the release notebook")
    assert panel(page, "A tiny notebook").locator(".jp-InputPlaceholder").count() >= 2, \
        "the derived and self-check cells should open collapsed"

    tiny = panel(page, "A tiny notebook")
    answer = tiny.locator(".jp-Notebook .jp-Cell").nth(ids.index("ex1_double"))
    answer.locator(".cm-content").click()
    page.keyboard.press("Control+a")
    page.keyboard.insert_text(ANSWER)  # inserted as text: no auto-indent on top of ours
    page.keyboard.press("Control+s")
    page.wait_for_selector(CURRENT_TAB + ":not(.jp-mod-dirty)", timeout=20_000)
    assert saved_source(work / "junior" / "01_tiny.ipynb", ids.index("ex1_double"), ANSWER) == ANSWER.strip(), \
        "the typed answer did not reach the file on disk"

    run_cell(page, tiny, ids.index("selfcheck"))
    table = tiny.locator(".ptlab-selfcheck")
    table.wait_for(timeout=150_000)
    rows = {r.locator("td").nth(0).inner_text(): r.locator("td").nth(1).inner_text()
            for r in table.locator("tbody tr").all()}
    table.scroll_into_view_if_needed()
    shot(page, "selfcheck")
    assert rows.get("ex1_double_test") == "PASS", rows
    assert rows.get("ex2_square_test") == "FAIL", rows
    assert rows.get("ex3_explain") == "TODO", rows
    assert "Unsaved edits are not graded" in table.inner_text()
    assert "SECRET_HIDDEN_CHECK" not in page.content(), "hidden test code reached the browser"

    page.keyboard.press("Control+s")
    page.wait_for_selector(CURRENT_TAB + ":not(.jp-mod-dirty)", timeout=20_000)
    open_from_file_browser(page, "00_progress.ipynb")
    board = panel(page, "Your progress")
    # Release notebooks must open unmodified (issue 14); the dashboard should, but a dirty mark on it costs a
    # learner nothing and was seen once on a loaded CI machine: reported, with what changed, not failed.
    assert_opened_unmodified(page, work / "00_progress.ipynb", "the dashboard", strict=False)
    run_cell(page, board, 1)
    dashboard = board.locator(".ptlab-progress")
    dashboard.wait_for(timeout=120_000)
    board.locator(".jp-OutputArea-output img").wait_for(timeout=30_000)
    text = dashboard.inner_text()
    shot(page, "dashboard")
    assert "01_tiny" in text and "2/5" in text
    assert "PASS ex1_double_test" in text and "FAIL ex2_square_test" in text
    assert "awaiting a grader: ex3_explain" in text
    assert page.get_by_text("official Jupyter news").count() == 0, "the news prompt is still on"
