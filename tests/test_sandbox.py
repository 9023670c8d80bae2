"""Student code runs fenced in: no network, a file system of the Python environment and its scratch directory
only, a PID namespace of its own, a cap on processes, and capped memory. Where the OS lacks namespaces,
only the limits apply. (tests/test_isolation.py tries the same as a hostile class would.)"""

import json
import sys

import pytest
from nbformat.v4 import new_code_cell, new_notebook

from autograder.course import CACHE_DIR, ROOT, SOURCE_DIR
from autograder.isolation import sandbox
from autograder.pipeline.execute import execute

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
import resource
r["pids"] = sorted(int(p) for p in os.listdir("/proc") if p.isdigit())
r["parent"] = os.getppid()
r["nproc"] = resource.getrlimit(resource.RLIMIT_NPROC)[0]
r["root"] = sorted(os.listdir("/"))
r["course_visible"] = any(os.path.exists(p) for p in {[str(ROOT / "autograder"), str(ROOT / "README.md")]!r})
r["shared_visible"] = os.path.exists({str(ROOT.parent / "shared")!r})
r["capabilities"] = [l.split()[1] for l in open("/proc/self/status") if l.startswith("CapEff")][0]
import torch
r["torch"] = float(torch.ones(3).sum())
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


@pytest.mark.skipif(not sandbox.namespaces_work(), reason="no user namespaces here: limits only")
def test_own_pid_namespace_allow_listed_file_system_capped_processes(probe):
    # Started by the namespace's init (parent 1), or forked by the fork server, outside (parent 0: not visible).
    assert probe["parent"] in (0, 1), "the kernel's parent is in its PID namespace and is not its init"
    assert probe["pids"] == [1, max(probe["pids"])], f"the kernel sees other processes: {probe['pids']}"
    assert probe["nproc"] == sandbox.MAX_TASKS
    assert probe["course_visible"] is False and probe["shared_visible"] is False
    allowed = {"usr", "bin", "sbin", "lib", "lib32", "lib64", "libx32", "etc", "dev", "proc", "sys", "tmp",
               *(p.split("/")[1] for p in (sys.prefix, sys.base_prefix))}
    assert set(probe["root"]) <= allowed, probe["root"]
    assert int(probe["capabilities"], 16) == 0, "the kernel holds capabilities"
    assert probe["torch"] == 3.0, "the Python environment works in there"


def test_the_process_cap_is_worded_as_a_fault():
    from autograder.pipeline.faults import status, too_many_processes

    assert status([too_many_processes(256)]).startswith("too many processes: ")
