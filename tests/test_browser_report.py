"""The class report in a real browser (tests/browser.py's Chromium), for a tier and for an assignments.yaml
assignment (week1 = mid/01 + mid/04) alike: the page loads without a console error, shows no stylesheet
text and is styled by its own stylesheet, its figures load, every column of its tables is filled, and the
top failing cell is the first row of the most-failed table, with what the learner reads about it; a student
named with a <style> and a <script> changes nothing."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from autograder.classroom.report import course_cells
from autograder.classroom.report_page import STYLE
from autograder.course import source_notebooks
from tests.browser import need_chromium, shot
from tests.test_report import class_csv
from tests.tiny_course import ROOT

HOSTILE = "<style>body{display:none}th{background:red}</style><script>console.error('PWNED')</script>"
WEEK1 = (0, 3)  # mid/01 and mid/04, as an instructor's week1


def _course_with_week1(tmp) -> dict:
    """A course root with an assignments.yaml beside the real notebooks: the environment `report` runs in."""
    root = tmp / "course"
    root.mkdir()
    (root / "notebooks").symlink_to(ROOT / "notebooks")
    mid = source_notebooks("mid")
    ids = ", ".join(f"mid/{mid[i].stem}" for i in WEEK1)
    (root / "assignments.yaml").write_text(f"assignments:\n  week1:\n    notebooks: [{ids}]\n"
                                           "    due: 2026-12-01 17:00:00 UTC\n")
    return dict(os.environ, PTLAB_SOURCE_DIR=str(root / "notebooks"))


@pytest.mark.parametrize("assignment", ["junior", "week1"])
def test_report_page_renders_styled_and_complete(tmp_path, page, assignment):
    need_chromium()
    environ = dict(os.environ)
    if assignment == "junior":
        tier, picked = "junior", ()
    else:
        tier, picked = "mid", WEEK1
        environ = _course_with_week1(tmp_path)
    first = source_notebooks(tier)[picked[0] if picked else 0].stem
    hardest, info = next(iter(course_cells(tier, first).items()))
    grades = class_csv(tmp_path / "grades.csv", students=40, notebooks=3, hardest=hardest, tier=tier,
                       assignment="" if assignment == tier else assignment, picked=picked)
    grades.write_text(grades.read_text().replace("s000,", f"{HOSTILE},"))  # a student with faults: listed by name
    done = subprocess.run([sys.executable, "-m", "autograder", "report", str(grades), "--out", str(tmp_path / "r")],
                          cwd=ROOT, env=environ, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    errors = []
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto((tmp_path / "r" / "report.html").as_uri())
    page.wait_for_load_state("load")

    text = page.locator("body").inner_text()
    assert "border-collapse" not in text and "font-family" not in text, "the report's stylesheet shows as text"
    assert "border-collapse" in STYLE
    styled = page.evaluate("""() => ({collapse: getComputedStyle(document.querySelector('table')).borderCollapse,
        head: getComputedStyle(document.querySelector('th')).backgroundColor})""")
    assert styled == {"collapse": "collapse", "head": "rgb(243, 243, 243)"}, f"the report is not styled: {styled}"
    assert page.evaluate("document.querySelectorAll('style, script').length") == 1, "only the report's own style"
    assert HOSTILE in text, "a hostile name shows as the text it is"

    top = page.locator("#failed + p + table tbody tr").first
    assert hardest in top.inner_text() and f"{assignment}/{first}" in top.inner_text()
    assert info.says and info.says[:40] in top.inner_text()
    assert top.is_visible()
    for table in ("#failed + p + table", "#mastery ~ table"):
        rows = page.locator(table).first.locator("tbody tr")
        assert rows.count() > 0, f"{assignment}: the table after {table} is empty"
        empty = [r.inner_text() for r in rows.all() if any(not c.inner_text().strip() or c.inner_text() == "-"
                                                             for c in r.locator("td").all())]
        assert not empty, f"{assignment}: rows with an empty column in {table}: {empty[:3]}"
    images = page.locator("img").all()
    assert len(images) == 2, "a score distribution and the mastery figure"
    for img in images:  # every figure was found and decoded
        assert img.evaluate("i => i.complete && i.naturalWidth > 0"), img.get_attribute("src")
    top.scroll_into_view_if_needed()
    shot(page, f"class_report_{assignment}")
    assert errors == []
