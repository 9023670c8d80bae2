"""Bounded work per hand-in (issue 32, item 4): caps on cells, total source and total output, each a plain status
given before any kernel runs (200,000 tiny cells get theirs in seconds, in flat memory); a graded run that prints
too much keeps its scores and drops the rest; the feedback page is capped in size and in the time to render
it, and a page over a cap is a short page that says which."""

from __future__ import annotations

import csv
import json
import time
import tracemalloc

import nbformat
import pytest

from autograder.course import GradingInputError
from autograder.pipeline import check, handin
from tests.tiny_course import blank, cli, make_course


def _tiny_cells(n: int, key: str = '"cell_type"') -> str:
    cell = '{%s: "code", "execution_count": null, "metadata": {}, "outputs": [], "source": ""}' % key
    return '{"cells": [' + ", ".join([cell] * n) + '], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}'


@pytest.fixture(scope="module")
def course(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("bounded")
    return tmp, make_course(tmp)


def test_200000_tiny_cells_are_refused_in_milliseconds_and_flat_memory(tmp_path):
    bomb = tmp_path / "01_tiny.ipynb"
    bomb.write_text(_tiny_cells(200_000))
    assert bomb.stat().st_size > 14 << 20
    tracemalloc.start()
    started = time.monotonic()
    try:
        with pytest.raises(GradingInputError, match="200,000 cells, more than 2,000; not graded"):
            handin.read(bomb)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert time.monotonic() - started < 60, "refusing the bomb took a minute: it was parsed, not counted"
    assert peak < 2 * bomb.stat().st_size + (8 << 20), f"reading it took {peak >> 20} MB"  # the bytes, no parse


def test_cells_spelled_to_dodge_the_byte_count_are_still_refused_before_parsing(tmp_path):
    """`\\u0063ell_type` is "cell_type" to JSON but not to a byte count: the count of objects and arrays
    catches the bomb, and a smaller one is counted exactly after parsing."""
    bomb = tmp_path / "01_tiny.ipynb"
    bomb.write_text(_tiny_cells(200_000, key='"\\u0063ell_type"'))
    tracemalloc.start()
    try:
        with pytest.raises(GradingInputError, match="JSON objects and arrays; not graded"):
            handin.read(bomb)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 2 * bomb.stat().st_size + (8 << 20)
    small = tmp_path / "02_tiny.ipynb"
    small.write_text(_tiny_cells(2_500, key='"\\u0063ell_type"'))
    with pytest.raises(GradingInputError, match="2,500 cells, more than 2,000"):
        handin.read(small)


def test_source_and_saved_output_caps(tmp_path, monkeypatch):
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("x = 1\n" * 40_000)])  # 240 kB of source
    path = tmp_path / "01_tiny.ipynb"
    nbformat.write(nb, str(path))
    assert handin.read(path).cells
    monkeypatch.setenv("PTLAB_MAX_SOURCE_MB", "0.1")
    with pytest.raises(GradingInputError, match="of source in its cells, more than 0.1 MB; not graded"):
        handin.read(path)
    monkeypatch.delenv("PTLAB_MAX_SOURCE_MB")
    nb.cells[0].source = "print(1)"
    nb.cells[0].outputs = [nbformat.v4.new_output("stream", name="stdout", text="y" * 300_000)]
    nb.cells.append(nbformat.v4.new_markdown_cell("![a](attachment:a.png)",
                                                  attachments={"a.png": {"image/png": "A" * 300_000}}))
    nbformat.write(nb, str(path))
    assert handin.read(path).cells
    monkeypatch.setenv("PTLAB_MAX_OUTPUT_MB", "0.5")
    with pytest.raises(GradingInputError, match="of saved outputs, more than 0.5 MB; not graded .clear its outputs"):
        handin.read(path)


def test_a_run_that_prints_too_much_keeps_its_first_outputs_and_says_so(monkeypatch):
    monkeypatch.setenv("PTLAB_MAX_OUTPUT_MB", "0.25")
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(f"print({i})") for i in range(10)])
    for c in nb.cells:
        c.outputs = [nbformat.v4.new_output("stream", name="stdout", text="z" * 50_000)]
    notes = handin.bound_outputs(nb)
    assert notes and "dropped" in notes[0]
    kept = [c for c in nb.cells if c.outputs[0].text.startswith("z")]
    assert 3 <= len(kept) <= 6
    assert all(c.outputs[-1].text.startswith("[output dropped") for c in nb.cells[len(kept):])
    assert len(json.dumps(nb)) < 400_000


def _markdown_heavy(src, cells: int, each: int):
    nb = blank(nbformat.read(str(src), 4))
    text = "Some *words* and a [link](https://example.org) and `code`. " * (each // 60)
    nb.cells += [nbformat.v4.new_markdown_cell(f"## {i}\n\n{text}") for i in range(cells)]
    return nb


ROW = {"student": "ann", "assignment": "junior", "notebook": "01_tiny", "score": "3", "max_score": "5"}


def test_a_page_over_the_size_cap_is_a_short_page_written_without_rendering(course, monkeypatch):
    _, src = course
    nb = _markdown_heavy(src, 1_500, 600)
    monkeypatch.setenv("PTLAB_MAX_PAGE_MB", "0.5")
    rendered = []
    started = time.monotonic()
    html = check.bounded_page(lambda: rendered.append(1) or "<html></html>", nb, ROW)
    assert not rendered, "a page over the cap was rendered"
    assert time.monotonic() - started < 60, "writing the short page took a minute"
    assert "more than 0.5 MB" in html and "Score: 3 / 5" in html and "example.org" not in html
    assert len(html) < 2_000


def test_a_page_over_the_size_cap_after_rendering_is_a_short_page(course, monkeypatch):
    _, src = course
    monkeypatch.setenv("PTLAB_MAX_PAGE_MB", "0.5")
    html = check.bounded_page(lambda: "x" * (1 << 20), nbformat.read(str(src), 4), ROW)
    assert "came to more than 0.5 MB" in html and len(html) < 2_000


def test_a_page_that_renders_too_long_is_stopped(course, monkeypatch):
    _, src = course
    monkeypatch.setenv("PTLAB_MAX_RENDER_SECONDS", "1")
    started = time.monotonic()
    html = check.bounded_page(lambda: time.sleep(30) or "<html></html>", nbformat.read(str(src), 4), ROW)
    assert time.monotonic() - started < 25, "the render was not stopped: it ran its 30 s"
    assert "took longer than 1 s to render" in html
    assert check.bounded_page(lambda: "<html>fine</html>", nbformat.read(str(src), 4), ROW) == "<html>fine</html>"


def test_a_class_with_a_cell_bomb_and_a_markdown_heavy_hand_in(course, tmp_path):
    """End to end: the bomb's row comes back at once with its status; the markdown-heavy hand-in is graded and
    its page, over the cap, is the short page; the batch ends."""
    tmp, src = course
    sub = tmp_path / "submitted"
    (sub / "bomb" / "junior").mkdir(parents=True)
    (sub / "bomb" / "junior" / "01_tiny.ipynb").write_text(_tiny_cells(200_000))
    heavy = sub / "prose" / "junior" / "01_tiny.ipynb"
    heavy.parent.mkdir(parents=True)
    nbformat.write(_markdown_heavy(src, 1_500, 600), str(heavy))
    out, fb = tmp_path / "grades.csv", tmp_path / "feedback"
    started = time.monotonic()
    done = cli(tmp, "grade", str(sub), "--workers", "1", "--out", str(out), "--feedback", str(fb),
               "--student", "bomb", PTLAB_MAX_PAGE_MB="0.5")
    assert done.returncode == 0, done.stderr
    assert time.monotonic() - started < 120, "the bomb's row took minutes"
    rows = {r["student"]: r for r in csv.DictReader(out.open())}
    assert rows["bomb"]["score"] == "0" and rows["bomb"]["status"] == "200,000 cells, more than 2,000; not graded"
    done = cli(tmp, "grade", str(sub), "--workers", "1", "--out", str(out), "--feedback", str(fb),
               PTLAB_MAX_PAGE_MB="0.5")
    assert done.returncode == 0, done.stderr
    rows = {r["student"]: r for r in csv.DictReader(out.open())}
    assert rows["prose"]["status"] == "ok" and rows["prose"]["max_score"] != "0", rows["prose"]
    page = (fb / "prose" / "junior" / "01_tiny.html").read_text()
    assert "it was not written" in page and len(page) < 2_000


def test_a_render_stuck_in_a_thread_is_stopped_too(course, monkeypatch):
    """A Dask worker renders in a thread, where no signal reaches: the deadline is raised in the thread."""
    import threading

    _, src = course
    monkeypatch.setenv("PTLAB_MAX_RENDER_SECONDS", "1")
    got = []

    def spin():
        while True:
            sum(range(100))

    t = threading.Thread(target=lambda: got.append(check.bounded_page(spin, nbformat.read(str(src), 4), ROW)))
    t.start()
    t.join(20)
    assert got and "took longer than 1 s to render" in got[0]


def test_a_page_the_renderer_cannot_take_is_a_short_page_and_the_row_stands(course):
    _, src = course

    def deep():
        raise RecursionError("maximum recursion depth exceeded")

    html = check.bounded_page(deep, nbformat.read(str(src), 4), ROW)
    assert "could not be rendered (RecursionError)" in html and "Score: 3 / 5" in html


def test_a_markdown_link_bomb_within_the_caps_is_stopped_at_the_render_cap(course, monkeypatch):
    """100,000 nested brackets (200 kB, inside every cap) take the Markdown renderer minutes: the time cap ends it."""
    from autograder.classroom.feedback import page

    _, src = course
    nb = blank(nbformat.read(str(src), 4))
    nb.cells.append(nbformat.v4.new_markdown_cell("[" * 100_000 + "x" + "]" * 100_000))
    monkeypatch.setenv("PTLAB_MAX_RENDER_SECONDS", "3")
    started = time.monotonic()
    html = check.bounded_page(lambda: page(nb, ROW), nb, ROW)
    assert time.monotonic() - started < 90, "the render was not stopped at its cap (it takes minutes)"
    assert "took longer than 3 s to render" in html
