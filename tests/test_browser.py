"""The learner's loop in a real browser: JupyterLab on a learner's folder, an answer typed into a release
notebook, saved, the self-check run from the notebook, then the progress dashboard.

Playwright (pytest-playwright) drives the system's Chromium (Debian's `chromium`; Playwright's own browser
download is not used). Without Chromium the test is skipped with one line saying why. Screenshots go to
ci/out/screenshots/, which CI keeps as an artifact.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
import urllib.request
import warnings
from pathlib import Path

import nbformat
import pytest

from autograder.authoring.release import finish, workdir
from tests.tiny_course import ROOT, blank, make_course

CHROMIUM = os.environ.get("PTLAB_CHROMIUM", "/usr/bin/chromium")
SHOTS = ROOT / "ci" / "out" / "screenshots"
TOKEN = "ptlab-browser-test"
CURRENT_TAB = "#jp-main-dock-panel .lm-TabBar-tab.jp-mod-current"
ANSWER = "def double(x):\n    return x + x\n"  # a correct answer, not the reference's text


@pytest.fixture(scope="session")
def browser_type_launch_args():
    """pytest-playwright launches this browser: the system's Chromium, or the test is skipped."""
    if not Path(CHROMIUM).exists():
        pytest.skip(f"no Chromium at {CHROMIUM}: install Debian's chromium (apt-get install chromium) to run the "
                    "real-browser test")
    return {"executable_path": CHROMIUM, "headless": True,
            "args": ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                     "--disable-background-networking", "--disable-component-update", "--disable-sync"]}


@pytest.fixture(scope="session")
def browser_context_args():
    return {"viewport": {"width": 1280, "height": 860}}


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def lab(tmp_path_factory):
    """JupyterLab on a learner's folder made as `make lab` makes work/: the release copied in, the dashboard
    added, the course's JupyterLab settings written."""
    if not Path(CHROMIUM).exists():
        pytest.skip(f"no Chromium at {CHROMIUM}: install Debian's chromium (apt-get install chromium) to run the "
                    "real-browser test")
    from autograder.learner.dashboard import write_dashboard
    from autograder.learner.labsettings import write_overrides

    tmp = tmp_path_factory.mktemp("lab")
    src = make_course(tmp)
    release = tmp / "release" / "junior"
    release.mkdir(parents=True)
    student = finish(json.loads(nbformat.writes(blank(nbformat.read(str(src), 4)))))
    (release / src.name).write_text(nbformat.writes(nbformat.from_dict(student)))
    work = tmp / "work"
    workdir(work, tmp / "release")
    write_dashboard(work)
    write_overrides()
    env = dict(os.environ, PTLAB_SOURCE_DIR=str(tmp / "notebooks"), PTLAB_CACHE_DIR=str(tmp / "cache"),
               JUPYTERLAB_WORKSPACES_DIR=str(tmp / "workspaces"), JUPYTER_RUNTIME_DIR=str(tmp / "runtime"))
    env.pop("PTLAB_GRADING", None)
    port = _free_port()
    cmd = [sys.executable, "-m", "jupyterlab", "--no-browser", f"--port={port}", "--ip=127.0.0.1",
           f"--IdentityProvider.token={TOKEN}", f"--ServerApp.root_dir={work}"]
    if os.geteuid() == 0:
        cmd.append("--allow-root")
    log = open(tmp / "jupyterlab.log", "w")
    server = subprocess.Popen(cmd, cwd=work, env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
    url = f"http://127.0.0.1:{port}"
    try:
        for _ in range(240):
            try:
                urllib.request.urlopen(f"{url}/api/status?token={TOKEN}", timeout=2)
                break
            except OSError:
                if server.poll() is not None:
                    pytest.fail("JupyterLab did not start: " + (tmp / "jupyterlab.log").read_text()[-2000:])
                time.sleep(0.25)
        yield url, work
    finally:
        server.terminate()
        try:
            server.wait(timeout=20)
        except subprocess.TimeoutExpired:
            server.kill()
        log.close()


def _shot(page, name: str) -> Path:
    SHOTS.mkdir(parents=True, exist_ok=True)
    path = SHOTS / f"{name}.png"
    page.screenshot(path=str(path))
    return path


def _open(page, url: str, name: str) -> None:
    """Open a notebook by URL and wait until its own kernel is idle. JupyterLab restores the tabs opened before
    (kept in the DOM, hidden), so only the visible panel counts."""
    page.goto(f"{url}/lab/tree/{name}?token={TOKEN}")
    _wait_until_ready(page)


def _open_from_file_browser(page, name: str) -> None:
    """As a learner opens a second notebook: the file browser's top folder, a double click."""
    page.locator(".jp-BreadCrumbs-home").first.click()
    page.locator(".jp-DirListing-item", has_text=name).first.dblclick()
    page.wait_for_selector(f"{CURRENT_TAB}:has-text('{name}')", timeout=60_000)
    _wait_until_ready(page)


def _wait_until_ready(page) -> None:
    """The visible notebook rendered and its kernel connected and idle (the status bar says so: before the
    kernel connects, the toolbar's indicator already reads idle)."""
    page.wait_for_selector(".jp-NotebookPanel .jp-Cell >> visible=true", timeout=60_000)
    page.wait_for_function("() => { const t = document.querySelector('#jp-main-statusbar')?.innerText || '';"
                           " return t.includes('| Idle') && !t.includes('No Kernel'); }", timeout=90_000)
    page.wait_for_timeout(1500)  # the kernel's info arrives; a notebook whose metadata differs turns dirty here


def _assert_opened_unmodified(page, path: Path, what: str, strict: bool = True) -> None:
    """No dirty mark on the current tab; if there is one, save and say what JupyterLab changed (a failure,
    or with strict=False a warning in the test report)."""
    if page.locator(CURRENT_TAB + ".jp-mod-dirty").count() == 0:
        return
    before = json.loads(path.read_text())
    page.keyboard.press("Control+s")
    page.wait_for_timeout(2000)
    after = json.loads(path.read_text())
    changed = {k: (before.get(k), after.get(k)) for k in set(before) | set(after) if before.get(k) != after.get(k)}
    if "cells" in changed:
        changed["cells"] = [(i, a, b) for i, (a, b) in enumerate(zip(before["cells"], after["cells"], strict=False)) if a != b]
    message = f"{what} opened as modified; saved, it differs in: {json.dumps(changed)[:1500]}"
    if strict:
        pytest.fail(message)
    warnings.warn(message, stacklevel=2)


def _panel(page, title: str):
    """The notebook panel whose first heading is `title` (JupyterLab keeps other tabs in the DOM)."""
    return page.locator(".jp-NotebookPanel").filter(has=page.locator("h1", has_text=title))


def _run_cell(page, panel, index: int) -> None:
    """Run a cell as a learner would without opening it (its input may be collapsed): select the cell above,
    press the toolbar's Run (which moves the selection down), check that the cell is selected, press Run."""
    run = panel.locator("[data-command='notebook:run-cell-and-select-next']")
    cell = panel.locator(".jp-Notebook .jp-Cell").nth(index)
    above = panel.locator(".jp-Notebook .jp-Cell").nth(index - 1)
    above.scroll_into_view_if_needed()
    above.click()
    run.click()
    page.wait_for_function("(el) => el.classList.contains('jp-mod-active')", arg=cell.element_handle(), timeout=10_000)
    run.click()


def _saved_source(path: Path, index: int, wait: float = 20.0) -> str:
    """The cell's source on disk once the save has landed (the tab's dirty mark can clear a moment before)."""
    deadline = time.monotonic() + wait
    while True:
        source = nbformat.read(str(path), 4).cells[index].source.strip()
        if source == ANSWER.strip() or time.monotonic() > deadline:
            return source
        time.sleep(0.2)


def test_the_learners_loop_in_jupyterlab(lab, page):
    try:
        _loop(lab, page)
    except Exception:
        _shot(page, "failure")
        raise


def _loop(lab, page):
    url, work = lab
    nb = nbformat.read(str(work / "junior" / "01_tiny.ipynb"), 4)
    ids = [c.metadata.get("nbgrader", {}).get("grade_id") for c in nb.cells]

    _open(page, url, "junior/01_tiny.ipynb")
    _assert_opened_unmodified(page, work / "junior" / "01_tiny.ipynb", "the release notebook")
    assert _panel(page, "A tiny notebook").locator(".jp-InputPlaceholder").count() >= 2, \
        "the derived and self-check cells should open collapsed"

    tiny = _panel(page, "A tiny notebook")
    answer = tiny.locator(".jp-Notebook .jp-Cell").nth(ids.index("ex1_double"))
    answer.locator(".cm-content").click()
    page.keyboard.press("Control+a")
    page.keyboard.insert_text(ANSWER)  # inserted as text: no auto-indent on top of ours
    page.keyboard.press("Control+s")
    page.wait_for_selector(CURRENT_TAB + ":not(.jp-mod-dirty)", timeout=20_000)
    assert _saved_source(work / "junior" / "01_tiny.ipynb", ids.index("ex1_double")) == ANSWER.strip(), \
        "the typed answer did not reach the file on disk"

    _run_cell(page, tiny, ids.index("selfcheck"))
    table = tiny.locator(".ptlab-selfcheck")
    table.wait_for(timeout=150_000)
    rows = {r.locator("td").nth(0).inner_text(): r.locator("td").nth(1).inner_text()
            for r in table.locator("tbody tr").all()}
    table.scroll_into_view_if_needed()
    _shot(page, "selfcheck")
    assert rows.get("ex1_double_test") == "PASS", rows
    assert rows.get("ex2_square_test") == "FAIL", rows
    assert rows.get("ex3_explain") == "TODO", rows
    assert "Unsaved edits are not graded" in table.inner_text()
    assert "SECRET_HIDDEN_CHECK" not in page.content(), "hidden test code reached the browser"

    page.keyboard.press("Control+s")
    page.wait_for_selector(CURRENT_TAB + ":not(.jp-mod-dirty)", timeout=20_000)
    _open_from_file_browser(page, "00_progress.ipynb")
    board = _panel(page, "Your progress")
    # Release notebooks must open unmodified (issue 14); the dashboard should, but a dirty mark on it costs a
    # learner nothing and was seen once on a loaded CI machine: reported, with what changed, not failed.
    _assert_opened_unmodified(page, work / "00_progress.ipynb", "the dashboard", strict=False)
    _run_cell(page, board, 1)
    dashboard = board.locator(".ptlab-progress")
    dashboard.wait_for(timeout=120_000)
    board.locator(".jp-OutputArea-output img").wait_for(timeout=30_000)
    text = dashboard.inner_text()
    _shot(page, "dashboard")
    assert "01_tiny" in text and "2/5" in text
    assert "PASS ex1_double_test" in text and "FAIL ex2_square_test" in text
    assert "awaiting a grader: ex3_explain" in text
    assert page.get_by_text("official Jupyter news").count() == 0, "the news prompt is still on"
