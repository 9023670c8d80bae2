"""An interview in a real browser (issue 23, item 6; issue 36): JupyterLab on a learner's folder with a drawn
interview and the course's 10 s autosave; one exercise answered with Ctrl+S pressed again and again, as the
interview's rules say, and no "File Changed" dialog ever; Save and check (its button is there, its shortcut
runs the check cell): the time line and the pass; then the finish cell and its scorecard (docs/studying.md's
screenshot of a scorecard is this test's last one)."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import nbformat
import pytest

from tests.browser import CURRENT_TAB, jupyterlab, need_chromium, open_notebook, panel, run_cell, saved_source, shot
from tests.test_browser_check import no_dialog
from tests.tiny_course import ROOT


@pytest.fixture(scope="module")
def lab(tmp_path_factory):
    need_chromium()
    tmp = tmp_path_factory.mktemp("interview-lab")
    from autograder.learner.labsettings import OVERRIDES, install_extension

    install_extension(tmp / "data")
    # The course's autosave, whatever this machine's JupyterLab settings say: Ctrl+S must not race it.
    docmanager = tmp / "settings" / "@jupyterlab" / "docmanager-extension" / "plugin.jupyterlab-settings"
    docmanager.parent.mkdir(parents=True)
    docmanager.write_text(json.dumps(OVERRIDES["@jupyterlab/docmanager-extension:plugin"]))
    env = dict(os.environ, PTLAB_CACHE_DIR=str(tmp / "cache"), JUPYTER_PATH=str(tmp / "data"),
               JUPYTERLAB_SETTINGS_DIR=str(tmp / "settings"))
    done = subprocess.run([sys.executable, "-m", "autograder", "interview", "--level", "junior", "--topics", "J01,J04",
                           "--count", "2", "--seed", "4", "--minutes", "20", "--dir", str(tmp / "work")],
                          cwd=ROOT, env=env, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    (path,) = (tmp / "work" / "interviews").glob("*.ipynb")
    with jupyterlab(tmp / "work", tmp, env) as url:
        yield url, tmp, path


def test_an_interview_in_jupyterlab(lab, page):
    try:
        _interview(lab, page)
    except Exception:
        shot(page, "interview-failure")
        raise


def _interview(lab, page):
    url, tmp, path = lab
    ident = json.loads(path.read_text())["metadata"]["ptlab"]["composed"]
    meta = json.loads((tmp / "cache" / "composed" / f"{ident}.json").read_text())
    source = nbformat.read(str(tmp / "cache" / "composed" / f"{ident}.ipynb"), 4)
    first = meta["exercises"][0]
    (answer_id,) = first["answers"]
    answer = next(c.source for c in source.cells if c.metadata.get("nbgrader", {}).get("grade_id") == answer_id)
    answer = "\n".join(ln for ln in answer.splitlines() if "### " not in ln) + "\n"
    ids = [c.metadata.get("nbgrader", {}).get("grade_id") for c in nbformat.read(str(path), 4).cells]

    page.set_viewport_size({"width": 1280, "height": 1000})
    open_notebook(page, url, f"interviews/{path.name}")
    nb = panel(page, "Mock interview")
    assert "Deadline" in nb.locator(".jp-Notebook .jp-Cell").nth(0).inner_text()

    assert nb.locator(".ptlab-save-and-check").count() == 1, "an interview needs its Save and check button"

    cell = nb.locator(".jp-Notebook .jp-Cell").nth(ids.index(answer_id))
    cell.scroll_into_view_if_needed()
    cell.locator(".cm-content").click()
    page.keyboard.press("Control+a")
    page.keyboard.insert_text(answer)
    # Ctrl+S after each few keystrokes over more than two autosave periods (10 s): saves of one notebook
    # never race into JupyterLab's "File Changed" dialog.
    for i in range(12):
        page.keyboard.press("Control+End")
        page.keyboard.insert_text(f"\n# draft {i}")
        page.keyboard.press("Control+s")
        no_dialog(page)
        page.wait_for_timeout(2000)
    page.keyboard.press("Control+a")
    page.keyboard.insert_text(answer)
    page.keyboard.press("Control+s")
    page.wait_for_selector(CURRENT_TAB + ":not(.jp-mod-dirty)", timeout=20_000)
    assert saved_source(path, ids.index(answer_id), answer) == answer.strip()
    no_dialog(page)

    page.keyboard.press("Control+Shift+Enter")  # Save and check's shortcut, typed in the answer cell
    table = nb.locator(".ptlab-selfcheck")
    table.wait_for(timeout=240_000)
    line = nb.locator(".ptlab-timeline").inner_text()
    assert line.startswith("time left: 1"), line
    rows = {r.locator("td").nth(0).inner_text(): r.locator("td").nth(1).inner_text()
            for r in table.locator("tbody tr").all()}
    assert rows.get(first["test"]) == "PASS", rows
    assert rows.get(meta["exercises"][1]["test"]) == "FAIL", rows
    assert nb.locator(".ptlab-unsaved").count() == 0, "Save and check graded what the editor holds"
    table.scroll_into_view_if_needed()
    shot(page, "interview-check")
    no_dialog(page)

    run_cell(page, nb, ids.index("composed_finish"))
    card = nb.locator(".ptlab-scorecard")
    card.wait_for(timeout=240_000)
    assert "Scorecard" in card.inner_text() and "Topics to review" in card.inner_text()
    card.locator("details").first.click()
    card.scroll_into_view_if_needed()
    shot(page, "scorecard")
    assert path.with_suffix(".scorecard.json").exists()
    no_dialog(page)

    # the dashboard: the interview in its table, the review queue, the trend figure
    from autograder.learner.dashboard import write_dashboard

    write_dashboard(path.parent.parent)
    open_notebook(page, url, "00_progress.ipynb")
    board = panel(page, "Your progress")
    run_cell(page, board, 1)
    table = board.locator(".ptlab-interviews")
    table.wait_for(timeout=240_000)
    assert "borderline" in table.inner_text() and "junior" in table.inner_text()
    assert "due today:" in board.locator(".ptlab-due").inner_text()
    board.locator("img").last.wait_for(timeout=30_000)
    table.scroll_into_view_if_needed()
    shot(page, "dashboard-interviews")
