"""The class report in a real browser (tests/browser.py's Chromium): the page loads without a console error,
its figures load, and the top failing cell is the first row of the most-failed table, with what the learner
reads about it."""

from __future__ import annotations

import subprocess
import sys

from autograder.classroom.report import course_cells
from autograder.course import source_notebooks
from tests.browser import need_chromium, shot
from tests.test_report import class_csv
from tests.tiny_course import ROOT


def test_report_page_shows_the_top_failing_cell(tmp_path, page):
    need_chromium()
    first = source_notebooks("junior")[0].stem
    hardest, info = next(iter(course_cells("junior", first).items()))
    grades = class_csv(tmp_path / "grades.csv", students=40, notebooks=3, hardest=hardest)
    done = subprocess.run([sys.executable, "-m", "autograder", "report", str(grades), "--out", str(tmp_path / "r")],
                          cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    errors = []
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto((tmp_path / "r" / "report.html").as_uri())
    page.wait_for_load_state("load")
    top = page.locator("#failed + p + table tbody tr").first
    assert hardest in top.inner_text()
    assert info.says and info.says[:40] in top.inner_text()
    assert top.is_visible()
    for img in page.locator("img").all():  # every figure was found and decoded
        assert img.evaluate("i => i.complete && i.naturalWidth > 0"), img.get_attribute("src")
    top.scroll_into_view_if_needed()
    shot(page, "class_report")
    assert errors == []
