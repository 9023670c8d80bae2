"""pytest-playwright's browser: the system's Chromium (see tests/browser.py), or the browser test is skipped."""

import pytest

from tests.browser import CHROMIUM, need_chromium


@pytest.fixture(scope="session")
def browser_type_launch_args():
    need_chromium()
    return {"executable_path": CHROMIUM, "headless": True,
            "args": ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                     "--disable-background-networking", "--disable-component-update", "--disable-sync"]}


@pytest.fixture(scope="session")
def browser_context_args():
    return {"viewport": {"width": 1280, "height": 860}}


@pytest.fixture
def state(tmp_path, monkeypatch):
    """A learner with no history (interview and review tests): the course's cache for sessions, events and the
    schedule in tmp_path."""
    from autograder.learner import mastery, review
    from autograder.pipeline import cells

    monkeypatch.setattr(cells, "COMPOSED_DIR", tmp_path / "cache" / "composed")
    monkeypatch.setattr(mastery, "CACHE_DIR", tmp_path / "cache")
    monkeypatch.setattr(review, "CACHE_DIR", tmp_path / "cache")
    return tmp_path


@pytest.fixture
def adapter_in_process(monkeypatch):
    """For a test that calls a platform adapter (gradescope.run, prairielearn.run) in its own process. An adapter
    is its container's entry point: its guard marks the whole process (PTLAB_LONE_USER, PTLAB_REFUSE_ROOT_KERNEL)
    for the kernels it starts. In a test worker those marks must go with the test, or every later grader of that
    worker takes them (a local batch without namespaces then refuses its root kernel and scores 0)."""
    from autograder.isolation import sandbox

    for mark in (sandbox.LONE, sandbox.REFUSE_ROOT):
        monkeypatch.setenv(mark, "0")


@pytest.fixture(autouse=True)
def _no_grading_mark_outlives_its_test():
    """A grader's mark (tests/leftovers.grader_marks) left in a test worker's environment changes every later test
    of that worker: a check server that never starts, a root kernel refused, a check cell that does nothing. A
    test that leaves one fails itself instead."""
    import os

    from tests.leftovers import grader_marks

    marks = grader_marks()
    before = {m: os.environ.get(m) for m in marks}
    yield
    left = {m: os.environ.get(m) for m in marks if os.environ.get(m) != before[m]}
    assert not left, (f"this test changed {left} in its own process's environment, which later tests of the "
                      "worker inherit: scope it (monkeypatch.setenv, or the adapter_in_process fixture)")
