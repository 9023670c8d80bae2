"""An interview in a real browser (issue 23, item 6): JupyterLab on a learner's folder with a drawn interview,
one exercise answered and saved, the check cell run: the time line and the pass; then the finish cell and
its scorecard (the README's screenshot of a scorecard is this test's last one)."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import nbformat
import pytest

from tests.browser import CURRENT_TAB, jupyterlab, need_chromium, open_notebook, panel, run_cell, saved_source, shot
from tests.tiny_course import ROOT


@pytest.fixture(scope="module")
def lab(tmp_path_factory):
    need_chromium()
    tmp = tmp_path_factory.mktemp("interview-lab")
    env = dict(os.environ, PTLAB_CACHE_DIR=str(tmp / "cache"))
    env.pop("PTLAB_GRADING", None)
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

    cell = nb.locator(".jp-Notebook .jp-Cell").nth(ids.index(answer_id))
    cell.scroll_into_view_if_needed()
    cell.locator(".cm-content").click()
    page.keyboard.press("Control+a")
    page.keyboard.insert_text(answer)
    page.keyboard.press("Control+s")
    page.wait_for_selector(CURRENT_TAB + ":not(.jp-mod-dirty)", timeout=20_000)
    assert saved_source(path, ids.index(answer_id), answer) == answer.strip()

    run_cell(page, nb, ids.index("composed_check"))
    table = nb.locator(".ptlab-selfcheck")
    table.wait_for(timeout=240_000)
    line = nb.locator(".ptlab-timeline").inner_text()
    assert line.startswith("time left: 1"), line
    rows = {r.locator("td").nth(0).inner_text(): r.locator("td").nth(1).inner_text()
            for r in table.locator("tbody tr").all()}
    assert rows.get(first["test"]) == "PASS", rows
    assert rows.get(meta["exercises"][1]["test"]) == "FAIL", rows
    table.scroll_into_view_if_needed()
    shot(page, "interview-check")

    run_cell(page, nb, ids.index("composed_finish"))
    card = nb.locator(".ptlab-scorecard")
    card.wait_for(timeout=240_000)
    assert "Scorecard" in card.inner_text() and "Topics to review" in card.inner_text()
    card.locator("details").first.click()
    card.scroll_into_view_if_needed()
    shot(page, "scorecard")
    assert path.with_suffix(".scorecard.json").exists()

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
