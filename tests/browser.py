"""What every real-browser test shares: JupyterLab started on a folder, and the moves a person makes in it.

Playwright (pytest-playwright) drives the system's Chromium (Debian's `chromium`; Playwright's own browser
download is not used); `tests/conftest.py` points it there. Without Chromium a browser test is skipped with
one line saying why. Screenshots go to ci/out/screenshots/, which CI keeps as an artifact.
"""

from __future__ import annotations

import contextlib
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
from playwright.sync_api import TimeoutError as PlaywrightTimeoutError

from tests.tiny_course import ROOT

CHROMIUM = os.environ.get("PTLAB_CHROMIUM", "/usr/bin/chromium")
SHOTS = ROOT / "ci" / "out" / "screenshots"
TOKEN = "ptlab-browser-test"
CURRENT_TAB = "#jp-main-dock-panel .lm-TabBar-tab.jp-mod-current"


def need_chromium() -> None:
    if not Path(CHROMIUM).exists():
        pytest.skip(f"no Chromium at {CHROMIUM}: install Debian's chromium (apt-get install chromium) to run the "
                    "real-browser test")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextlib.contextmanager
def jupyterlab(root: Path, logdir: Path, env: dict | None = None, args: list[str] = ()):
    """JupyterLab serving `root`, yielding its URL; stopped (with its kernels) on exit. `env` replaces the
    environment; `args` adds command-line switches."""
    env = dict(os.environ if env is None else env)
    env.setdefault("JUPYTERLAB_WORKSPACES_DIR", str(logdir / "workspaces"))
    env.setdefault("JUPYTER_RUNTIME_DIR", str(logdir / "runtime"))
    port = free_port()
    cmd = [sys.executable, "-m", "jupyterlab", "--no-browser", f"--port={port}", "--ip=127.0.0.1",
           f"--IdentityProvider.token={TOKEN}", f"--ServerApp.root_dir={root}", *args]
    if os.geteuid() == 0:
        cmd.append("--allow-root")
    logfile = logdir / "jupyterlab.log"
    log = open(logfile, "w")
    server = subprocess.Popen(cmd, cwd=root, env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
    url = f"http://127.0.0.1:{port}"
    try:
        for _ in range(240):
            try:
                urllib.request.urlopen(f"{url}/api/status?token={TOKEN}", timeout=2)
                break
            except OSError:
                if server.poll() is not None:
                    pytest.fail("JupyterLab did not start: " + logfile.read_text()[-2000:])
                time.sleep(0.25)
        yield url
    finally:
        server.terminate()
        try:
            server.wait(timeout=20)
        except subprocess.TimeoutExpired:
            server.kill()
        log.close()


def shot(page, name: str) -> Path:
    SHOTS.mkdir(parents=True, exist_ok=True)
    path = SHOTS / f"{name}.png"
    page.screenshot(path=str(path))
    return path


def open_notebook(page, url: str, name: str) -> None:
    """Open a notebook by URL and wait until its own kernel is idle. JupyterLab restores the tabs opened before
    (kept in the DOM, hidden), so only the visible panel counts."""
    page.goto(f"{url}/lab/tree/{name}?token={TOKEN}")
    wait_until_ready(page)


def open_from_file_browser(page, name: str) -> None:
    """As a learner opens a second notebook: the file browser's top folder, a double click."""
    # On 2 loaded cores the listing refreshes slowly: a refresh of the old folder landing after the click on
    # home has put the listing back there, and a refresh has detached the item under the pointer. So each
    # short try goes home again and waits for the item before the double click.
    tab = f"{CURRENT_TAB}:has-text('{name}')"
    item = page.locator(".jp-DirListing-item", has_text=name).first
    deadline = time.monotonic() + 240
    while not page.locator(tab).count():
        try:
            page.locator(".jp-BreadCrumbs-home").first.click(timeout=30_000)
            item.wait_for(timeout=15_000)
            item.dblclick(timeout=15_000)
            page.wait_for_selector(tab, timeout=30_000)
        except PlaywrightTimeoutError:
            if time.monotonic() > deadline:
                shot(page, "file-browser-stuck")
                raise
    wait_until_ready(page)


def wait_until_ready(page) -> None:
    """The visible notebook rendered and its kernel connected and idle (the status bar says so: before the
    kernel connects, the toolbar's indicator already reads idle)."""
    page.wait_for_selector(".jp-NotebookPanel .jp-Cell >> visible=true", timeout=60_000)
    page.wait_for_function("() => { const t = document.querySelector('#jp-main-statusbar')?.innerText || '';"
                           " return t.includes('| Idle') && !t.includes('No Kernel'); }", timeout=90_000)
    page.wait_for_timeout(1500)  # the kernel's info arrives; a notebook whose metadata differs turns dirty here


def assert_opened_unmodified(page, path: Path, what: str, strict: bool = True) -> None:
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


def panel(page, title: str):
    """The notebook panel whose first heading is `title` (JupyterLab keeps other tabs in the DOM)."""
    return page.locator(".jp-NotebookPanel").filter(has=page.locator("h1", has_text=title))


def run_cell(page, panel, index: int) -> None:
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


def saved_source(path: Path, index: int, expected: str, wait: float = 20.0) -> str:
    """The cell's source on disk once the save has landed (the tab's dirty mark can clear a moment before)."""
    deadline = time.monotonic() + wait
    while True:
        try:
            source = nbformat.read(str(path), 4).cells[index].source.strip()
        except nbformat.reader.NotJSONError:  # read in the middle of a save (the check's table is saved too)
            if time.monotonic() > deadline:
                raise
            source = None
        if source == expected.strip() or (source is not None and time.monotonic() > deadline):
            return source
        time.sleep(0.2)


def learner_folder(tmp: Path) -> Path:
    """tmp/work as `make lab` makes work/, from the tiny course (tests/tiny_course.py): its student version
    released into tmp/release, copied in, and the progress dashboard added."""
    from autograder.authoring.release import finish, workdir
    from autograder.learner.dashboard import write_dashboard
    from tests.tiny_course import blank, make_course

    src = make_course(tmp)
    release = tmp / "release" / "junior"
    release.mkdir(parents=True)
    student = finish(json.loads(nbformat.writes(blank(nbformat.read(str(src), 4)))))
    (release / src.name).write_text(nbformat.writes(nbformat.from_dict(student)))
    work = tmp / "work"
    workdir(work, tmp / "release")
    write_dashboard(work)
    return work
