"""Student code runs fenced in: no network, no course sources, a read-only file system but for its
scratch directory, and capped memory. Where the OS lacks namespaces, only the limits apply."""

import json

import pytest
from nbformat.v4 import new_code_cell, new_notebook

from autograder import sandbox
from autograder.course import CACHE_DIR, ROOT, SOURCE_DIR
from autograder.execute import execute

PROBE = f'''
import json, os, socket
r = {{}}
r["sources_visible"] = os.path.isdir({str(SOURCE_DIR)!r}) and len(os.listdir({str(SOURCE_DIR)!r})) > 0
r["answers_visible"] = os.path.exists({str(ROOT / "tests" / "answers")!r})
r["reference_reports_visible"] = os.path.isdir({str(CACHE_DIR)!r}) and len(os.listdir({str(CACHE_DIR)!r})) > 0
try:
    open({str(ROOT / "pyproject.toml")!r}, "a").close(); r["course_writable"] = True
except OSError:
    r["course_writable"] = False
try:
    open("scratch.txt", "w").write("ok"); r["scratch_writable"] = True
except OSError:
    r["scratch_writable"] = False
try:
    socket.create_connection(("1.1.1.1", 80), timeout=2); r["network"] = True
except OSError:
    r["network"] = False
try:
    bytearray(20 * 2**30); r["huge_alloc"] = True
except MemoryError:
    r["huge_alloc"] = False
print(json.dumps(r))
'''


@pytest.fixture(scope="module")
def probe():
    (CACHE_DIR / "expected").mkdir(parents=True, exist_ok=True)
    (CACHE_DIR / "expected" / "probe.json").write_text("{}")  # something to find, were it visible
    nb = new_notebook(cells=[new_code_cell(PROBE)])
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    executed, notes = execute(nb, timeout=120)
    out = executed.cells[0].outputs
    text = "".join(o.get("text", "") for o in out if o.get("output_type") == "stream")
    assert text, f"probe produced no output: {out} {notes}"
    return json.loads(text.strip().splitlines()[-1])


def test_memory_is_capped(probe):
    assert probe["huge_alloc"] is False
    assert probe["scratch_writable"] is True


@pytest.mark.skipif(not sandbox.namespaces_work(), reason="no user namespaces here: limits only")
def test_no_network_no_sources_read_only_course(probe):
    assert probe["network"] is False
    assert probe["sources_visible"] is False
    assert probe["answers_visible"] is False
    assert probe["reference_reports_visible"] is False
    assert probe["course_writable"] is False


def test_status_says_what_is_enforced():
    assert sandbox.status().startswith("sandbox")
