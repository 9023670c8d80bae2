"""The feedback page of a hand-in that displays scripts, handlers, `javascript:` links and hostile SVG, opened
in Chromium: nothing of the submission runs (a console listener and the page's title would show it), even
when a person clicks the link and moves over the images, and the learner's table, text and figures show.
The same hand-in read as HTML: tests/test_sanitize.py."""

from __future__ import annotations

import pytest

from tests.browser import need_chromium, shot
from tests.test_sanitize import graded_feedback

pytestmark = pytest.mark.kernel


def test_feedback_runs_nothing_of_the_submission_in_a_real_browser(tmp_path, page):
    need_chromium()
    pages = graded_feedback(tmp_path)
    said, dialogs = [], []
    page.on("console", lambda msg: said.append(msg.text))
    page.on("pageerror", lambda err: said.append(str(err)))
    page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
    page.route("http*://**", lambda route: route.abort())  # a feedback page needs nothing from the network
    page.goto(pages["shows"].as_uri())
    page.wait_for_load_state("load")
    for selector in ("#jslink", "img", "svg"):  # what the learner's outputs hold, as a person would try them
        for element in page.locator(f".jp-OutputArea-output {selector}").all()[:5]:
            if element.is_visible():
                element.hover()
                element.click(force=True, no_wait_after=True)
    page.wait_for_timeout(1000)
    assert page.url == pages["shows"].as_uri(), f"a click in the learner's output left the page: {page.url}"
    shot(page, "feedback-sanitized")
    assert not [m for m in said if "PWNED" in m], f"the submission's code ran in the feedback page: {said}"
    assert not dialogs and "PWNED" not in page.title()
    text = page.inner_text("body")
    assert "learner table" in text and "learner text" in text and "learner markdown" in text
    figures = page.locator("img[src^='data:image/png'], img[src^='data:image/svg+xml']")
    assert figures.count() >= 2, "the learner's PNG and SVG figures should show"
