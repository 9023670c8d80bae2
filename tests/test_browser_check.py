"""The check in a real browser, as `make lab` launches JupyterLab (issues 24, 36): Save and check grades an
unsaved edit (toolbar button and shortcut) and leaves the notebook unmodified; a running check names its cell
and counts seconds, and an interrupt stops it with one line; the check names answer cells whose edits it did not
grade, and never after Save and check; a reset from a terminal is followed by the open notebook, with no
dialog; nbgrader's instructor tools are hidden in the learner's launch and only there.

Autosave is off in this module's JupyterLab (a settings folder of its own): an unsaved edit must stay unsaved
for as long as a test needs it to. tests/test_browser_interview.py keeps the course's 10 s autosave."""

from __future__ import annotations

import contextlib
import json
import os
import re
import subprocess
import sys

import nbformat
import pytest
from playwright.sync_api import expect

from tests.browser import (CURRENT_TAB, jupyterlab, learner_folder, need_chromium, open_notebook, panel, run_cell,
                           saved_source, shot)
from tests.tiny_course import ROOT

NB = "junior/01_tiny.ipynb"
DOUBLE = "def double(x):\n    return x + x\n"  # correct answers, not the reference's text
SQUARE = "def square(x):\n    return x ** 2\n"
SLOW = "import time\n\ntime.sleep(60)\n\n\ndef double(x):\n    return x + x\n"
NBGRADER_TOOLS = {"Validate button": ".validate-button", "Create Assignment sidebar": "[data-id='nbgrader-create_assignemnt']",
                  "Nbgrader menu": ".lm-MenuBar-itemLabel:text-is('Nbgrader')"}


@pytest.fixture(scope="module")
def course(tmp_path_factory):
    """A learner's work folder as `make lab` makes it, the extension linked and the learner's config written
    into folders of the test's own (JUPYTER_PATH, JUPYTER_CONFIG_PATH), as make lab's launch sets them."""
    need_chromium()
    from autograder.learner.labsettings import install_extension, write_learner_config

    tmp = tmp_path_factory.mktemp("labcheck")
    work = learner_folder(tmp)
    install_extension(tmp / "data")
    settings = tmp / "settings" / "@jupyterlab" / "docmanager-extension" / "plugin.jupyterlab-settings"
    settings.parent.mkdir(parents=True)
    settings.write_text(json.dumps({"autosave": False}))
    env = dict(os.environ, PTLAB_SOURCE_DIR=str(tmp / "notebooks"), PTLAB_CACHE_DIR=str(tmp / "cache"),
               JUPYTER_PATH=str(tmp / "data"), JUPYTERLAB_SETTINGS_DIR=str(tmp / "settings"))
    return tmp, work, env, write_learner_config(str(tmp / "prefix"))


@pytest.fixture(scope="module")
def lab(course):
    tmp, work, env, learner = course
    with jupyterlab(work, tmp, dict(env, JUPYTER_CONFIG_PATH=str(learner))) as url:
        yield url, work


def ids(work) -> list[str]:
    return [c.metadata.get("nbgrader", {}).get("grade_id") for c in nbformat.read(str(work / NB), 4).cells]


def type_answer(page, nb, index: int, text: str) -> None:
    nb.locator(".jp-Notebook .jp-Cell").nth(index).locator(".cm-content").click()
    page.keyboard.press("Control+a")
    page.keyboard.insert_text(text)  # inserted as text: no auto-indent on top of ours


def verdicts(nb) -> dict[str, str]:
    table = nb.locator(".ptlab-selfcheck")
    return {r.locator("td").nth(0).inner_text(): r.locator("td").nth(1).inner_text()
            for r in table.locator("tbody tr").all()}


def wait_for_verdict(page, nb, cell: str, result: str, timeout: float = 150_000) -> None:
    page.wait_for_function(
        "([el, cell, result]) => [...el.querySelectorAll('.ptlab-selfcheck tbody tr')].some("
        "r => r.cells[0].innerText.trim() === cell && r.cells[1].innerText.trim() === result)",
        arg=[nb.element_handle(), cell, result], timeout=timeout)


def wait_clean(page) -> None:
    page.wait_for_selector(CURRENT_TAB + ":not(.jp-mod-dirty)", timeout=20_000)


def assert_dirty(page) -> None:
    assert page.locator(CURRENT_TAB + ".jp-mod-dirty").count() == 1, "the edit should be unsaved here"


@contextlib.contextmanager
def notebook(lab, page, name: str):
    """The tiny notebook opened in the learner's lab: (its panel, its grade ids); a screenshot on failure."""
    url, work = lab
    try:
        open_notebook(page, url, NB)
        yield panel(page, "A tiny notebook"), ids(work)
    except Exception:
        shot(page, f"failure-{name}")
        raise


def test_save_and_check_grades_the_unsaved_edit_and_leaves_the_notebook_saved(lab, page):
    work = lab[1]
    with notebook(lab, page, "save-and-check") as (nb, where):
        type_answer(page, nb, where.index("ex1_double"), DOUBLE)
        assert_dirty(page)
        nb.locator(".ptlab-save-and-check").click()  # the toolbar button
        wait_for_verdict(page, nb, "ex1_double_test", "PASS")
        assert saved_source(work / NB, where.index("ex1_double"), DOUBLE) == DOUBLE.strip()
        wait_clean(page)
        shot(page, "save-and-check")

        type_answer(page, nb, where.index("ex2_square"), SQUARE)
        assert_dirty(page)
        page.keyboard.press("Control+Shift+Enter")  # the shortcut, typed while editing
        wait_for_verdict(page, nb, "ex2_square_test", "PASS")
        assert verdicts(nb)["ex1_double_test"] == "PASS"
        assert "score 5/5" in nb.locator(".ptlab-selfcheck").inner_text()
        wait_clean(page)


def test_a_running_check_shows_its_cell_and_seconds_and_an_interrupt_stops_it(lab, page):
    with notebook(lab, page, "progress") as (nb, where):
        type_answer(page, nb, where.index("ex1_double"), SLOW)
        nb.locator(".ptlab-save-and-check").click()
        line = nb.locator(".ptlab-check-progress")
        page.wait_for_function("(el) => /running ex1_double \\(cell/.test(el.innerText)", arg=nb.element_handle(),
                               timeout=120_000)
        first = int(re.search(r"\.\.\. (\d+) s", line.inner_text()).group(1))
        page.wait_for_function(f"(el) => {{ const m = /\\.\\.\\. (\\d+) s/.exec(el.innerText); "
                               f"return m && +m[1] >= {first + 2}; }}", arg=nb.element_handle(), timeout=30_000)
        shot(page, "check-progress")
        nb.locator("[data-command='notebook:interrupt-kernel']").click()
        page.wait_for_function("(el) => el.innerText.includes('Self-check stopped')", arg=nb.element_handle(),
                               timeout=30_000)
        out = nb.locator(".jp-Notebook .jp-Cell").nth(where.index("selfcheck")).locator(".jp-OutputArea-output")
        assert out.count() == 1, out.all_inner_texts()
        assert out.inner_text().strip().count("\n") == 0 and "Traceback" not in out.inner_text()
        assert nb.locator(".jp-OutputArea-output[data-mime-type='application/vnd.jupyter.stderr']").count() == 0
        type_answer(page, nb, where.index("ex1_double"), DOUBLE)
        page.keyboard.press("Control+s")
        wait_clean(page)


def no_dialog(page) -> None:
    assert page.locator(".jp-Dialog").count() == 0, \
        "a dialog interrupted the learner: " + " | ".join(page.locator(".jp-Dialog").all_inner_texts())


def test_the_check_names_only_edits_it_did_not_grade_and_never_after_save_and_check(lab, page):
    with notebook(lab, page, "unsaved") as (nb, where):
        square = where.index("ex2_square")
        # Run one version, edit it without running it: Save and check grades what the editor holds, so it names
        # nothing (the kernel's older run is no business of the grade).
        type_answer(page, nb, square, "def square(x):\n    return x * x * 1\n")
        page.keyboard.press("Shift+Enter")
        type_answer(page, nb, square, SQUARE)
        page.keyboard.press("Control+Shift+Enter")
        wait_for_verdict(page, nb, "ex2_square_test", "PASS")
        assert nb.locator(".ptlab-unsaved").count() == 0, nb.locator(".ptlab-unsaved").all_inner_texts()
        header = nb.locator(".ptlab-selfcheck i").first.inner_text()
        assert header.startswith("Graded 01_tiny.ipynb as saved at"), header
        wait_clean(page)

        # An edit left unsaved, the check cell run by itself: the table graded the file, and says which cell
        # it did not grade as the editor shows it.
        type_answer(page, nb, square, "def square(x):\n    return x * x * 2\n")
        assert_dirty(page)
        run_cell(page, nb, where.index("selfcheck"))
        page.wait_for_selector(".ptlab-unsaved >> visible=true", timeout=150_000)
        warning = nb.locator(".ptlab-unsaved").inner_text()
        assert warning.startswith("Not saved: ex2_square.") and "ex1_double" not in warning, warning
        shot(page, "selfcheck-unsaved")

        page.keyboard.press("Control+s")
        wait_clean(page)
        run_cell(page, nb, where.index("selfcheck"))
        page.wait_for_function("(el) => !el.querySelector('.ptlab-unsaved') && el.querySelector('.ptlab-selfcheck')",
                               arg=nb.element_handle(), timeout=150_000)
        wait_clean(page)  # the check's table does not leave the notebook modified
        type_answer(page, nb, square, SQUARE)
        page.keyboard.press("Control+s")
        wait_clean(page)
        no_dialog(page)


def cell_text(nb, index: int):
    return nb.locator(".jp-Notebook .jp-Cell").nth(index).locator(".cm-content")


def reset_ex1(work, env) -> None:
    done = subprocess.run([sys.executable, "-m", "autograder", "reset", str(work / NB), "--exercise", "ex1"],
                          cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr


def assert_followed(page, work, where, *kept: str) -> None:
    """The open view shows ex1 reset and ex2 as the learner left it (each of `kept` in it), and Ctrl+S then saves
    both without a dialog."""
    # The view loads the file again (its cells are new elements, its title not rendered while its cell is
    # active): the visible panel, looked up again at each try.
    nb = page.locator(".jp-NotebookPanel:not(.lm-mod-hidden)")
    expect(cell_text(nb, where.index("ex1_double"))).to_contain_text("NotImplementedError", timeout=60_000)
    mine = cell_text(nb, where.index("ex2_square"))
    mine.scroll_into_view_if_needed()  # its text is drawn once the reloaded view has laid it out
    for text in kept:
        expect(mine, f"the unsaved edit of ex2 ({text!r}) should survive the reset of ex1").to_contain_text(
            text, timeout=60_000)
    page.keyboard.press("Control+s")
    wait_clean(page)
    no_dialog(page)
    saved = nbformat.read(str(work / NB), 4).cells
    assert "NotImplementedError" in saved[where.index("ex1_double")].source, "Ctrl+S undid the reset"
    for text in kept:
        assert text in saved[where.index("ex2_square")].source, f"Ctrl+S did not save the kept edit {text!r}"
    type_answer(page, nb, where.index("ex2_square"), SQUARE)
    page.keyboard.press("Control+s")
    wait_clean(page)


def test_a_reset_from_a_terminal_is_followed_by_the_open_notebook_without_a_dialog(lab, course, page):
    url, work = lab
    with notebook(lab, page, "reset") as (nb, where):
        type_answer(page, nb, where.index("ex1_double"), DOUBLE)
        page.keyboard.press("Control+s")
        wait_clean(page)
        type_answer(page, nb, where.index("ex2_square"), "def square(x):\n    return x * x  # mine\n")
        expect(cell_text(nb, where.index("ex2_square"))).to_contain_text("# mine")  # typed where meant
        assert_dirty(page)
        reset_ex1(work, course[2])
        assert_followed(page, work, where, "# mine")
        shot(page, "reset-followed")


def test_what_is_typed_while_the_view_loads_a_reset_is_kept(lab, course, page):
    """The race a loaded machine opens (issue 36): the view has seen the reset and is fetching the file when the
    learner types. Each fetch of the file is held until they have typed; every keystroke must survive the load."""
    url, work = lab
    held, holding = [], [True]

    def hold_loads(route):  # the view's fetch of the notebook with its content; its look at the stamp goes on
        if holding[0] and route.request.method == "GET" and "content=1" in route.request.url:
            held.append(route)
        else:
            route.continue_()

    with notebook(lab, page, "reset-typing") as (nb, where):
        type_answer(page, nb, where.index("ex1_double"), DOUBLE)
        page.keyboard.press("Control+s")
        wait_clean(page)
        type_answer(page, nb, where.index("ex2_square"), "def square(x):\n    return x * x  # mine\n")
        expect(cell_text(nb, where.index("ex2_square"))).to_contain_text("# mine")
        page.route(f"**/api/contents/{NB}*", hold_loads)
        view = page.locator(".jp-NotebookPanel:not(.lm-mod-hidden)")
        typed = []
        try:
            reset_ex1(work, course[2])
            for _ in range(600):  # the view looks at the disk every 2 s; each fetch of the file is held in turn
                if held:
                    typed.append(f"# typed while it loads ({len(typed) + 1})")
                    page.keyboard.press("Control+End")  # still typing in ex2
                    page.keyboard.insert_text(typed[-1] + "\n")
                    expect(cell_text(view, where.index("ex2_square"))).to_contain_text(typed[-1])
                    held.pop(0).continue_()
                elif typed and "NotImplementedError" in cell_text(view, where.index("ex1_double")).inner_text():
                    break
                else:
                    page.wait_for_timeout(200)
            assert typed, "the open view never fetched the notebook a reset rewrote"
        finally:
            holding[0] = False
            while held:
                held.pop(0).continue_()
            page.unroute(f"**/api/contents/{NB}*")
        assert_followed(page, work, where, "# mine", *typed)


def nbgrader_tools(page) -> dict[str, int]:
    return {name: page.locator(selector).count() for name, selector in NBGRADER_TOOLS.items()}


def test_the_learners_launch_hides_nbgraders_instructor_tools_and_only_it(lab, course, page):
    url, work = lab
    open_notebook(page, url, NB)
    assert panel(page, "A tiny notebook").locator(".ptlab-save-and-check").count() == 1
    assert nbgrader_tools(page) == dict.fromkeys(NBGRADER_TOOLS, 0)
    tmp, _, env, _ = course
    instructor = tmp / "instructor"
    instructor.mkdir()
    with jupyterlab(work, instructor, env) as plain:  # any other launch (make teach) keeps them
        open_notebook(page, plain, NB)
        found = nbgrader_tools(page)
        shot(page, "instructor-tools")
        assert all(found.values()), found
