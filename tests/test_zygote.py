"""Sandboxed kernels are forks of a fork server that has imported torch once (autograder/isolation/zygote.py). A forked
kernel reads like a freshly started one, holds nothing of the course, lives in the same sandbox, and the
server goes with the process that started it. Where the server cannot give a kernel, one starts as before."""

import json
import os
import signal
import subprocess
import sys
import time

import pytest
from nbformat.v4 import new_code_cell, new_notebook

from autograder.course import ROOT, release_path
from autograder.isolation import sandbox, zygote
from autograder.pipeline import cells
from autograder.pipeline.check import grade_submission
from autograder.pipeline.execute import execute
from tests import answers

pytestmark = [pytest.mark.kernel,
              pytest.mark.skipif(not sandbox.namespaces_work(), reason="no namespaces here: kernels start plainly")]

PROBE = f"""
import json, os, sys
preloaded = "torch" in sys.modules
import numpy, torch
course = [n for n, m in list(sys.modules.items())
          if str(getattr(m, "__file__", "") or "").startswith({str(ROOT / "autograder")!r})]
print(json.dumps({{"preloaded": preloaded, "path": sys.path, "cwd_is_scratch": os.getcwd() == os.environ["HOME"],
                  "uid": os.getuid(), "env": sorted(os.environ), "name": __name__, "argv": sys.argv[1:2],
                  "backend": os.environ.get("MPLBACKEND"), "threads": torch.get_num_threads(),
                  "autograder": "autograder" in sys.modules, "course": course, "rand": numpy.random.rand()}}))
"""


def _probe() -> dict:
    nb = new_notebook(cells=[new_code_cell(PROBE)])
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    executed, notes = execute(nb, timeout=120)
    text = "".join(o.get("text", "") for o in executed.cells[0].outputs if o.get("output_type") == "stream")
    assert text, f"the probe printed nothing: {executed.cells[0].outputs} {notes}"
    return json.loads(text.strip().splitlines()[-1])


def test_a_forked_kernel_reads_like_a_fresh_one_and_holds_nothing_of_the_course(monkeypatch):
    first, second = _probe(), _probe()
    monkeypatch.setenv("PTLAB_ZYGOTE", "0")
    fresh = _probe()
    assert first["preloaded"] and second["preloaded"], "kernels should be forks of the server (torch imported)"
    assert not fresh["preloaded"], "PTLAB_ZYGOTE=0 should start kernels from scratch"
    for key in ("path", "cwd_is_scratch", "uid", "name", "argv", "backend", "threads"):
        assert first[key] == fresh[key], f"{key}: forked {first[key]!r}, fresh {fresh[key]!r}"
    assert set(first["env"]) == set(fresh["env"]) - {"PTLAB_ZYGOTE"}
    assert not first["autograder"] and first["course"] == [], "the course's code reached a kernel's memory"
    assert first["rand"] != second["rand"], "forked kernels share numpy's global random state"


def _figure() -> tuple[str, list[str]]:
    """The backend a kernel plots with, and what a plotting cell shows."""
    nb = new_notebook(cells=[new_code_cell("import matplotlib.pyplot as plt\nplt.plot([1, 2])\n"
                                           "print(plt.get_backend())")])
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    executed, _ = execute(nb, timeout=120)
    outputs = executed.cells[0].outputs
    backend = "".join(o.get("text", "") for o in outputs if o.get("output_type") == "stream").strip()
    return backend, sorted(m for o in outputs if o.get("output_type") == "display_data" for m in o["data"])


def test_a_forked_kernel_plots_inline_as_a_fresh_one_does(monkeypatch):
    # The server imported pyplot under its own environment; what counts is the kernel's.
    monkeypatch.delenv("MPLBACKEND", raising=False)
    forked = _figure()
    monkeypatch.setenv("PTLAB_ZYGOTE", "0")
    assert forked == _figure()
    assert "inline" in forked[0] and "image/png" in forked[1], f"no inline figure on a forked kernel: {forked}"
    monkeypatch.setenv("MPLBACKEND", "Agg")
    monkeypatch.delenv("PTLAB_ZYGOTE")
    backend, shown = _figure()
    assert (backend.lower(), shown) == ("agg", []), "a kernel started with MPLBACKEND=Agg should plot with Agg"


def test_where_the_server_gives_no_kernel_one_starts_as_before(monkeypatch, tmp_path):
    monkeypatch.setattr(zygote, "address", lambda: str(tmp_path / "no-server"))
    assert _probe()["preloaded"] is False


def test_the_server_goes_with_the_process_that_started_it():
    owner = subprocess.Popen([sys.executable, "-c", "from autograder.isolation import zygote; import time; "
                              "print(zygote.address(), zygote._server['proc'].pid, flush=True); time.sleep(600)"],
                             cwd=ROOT, stdout=subprocess.PIPE, text=True)
    try:
        path, pid = owner.stdout.readline().split()
        assert os.path.exists(path)
        os.kill(owner.pid, signal.SIGKILL)  # no atexit, no finalizer: only the server's own watch is left
        owner.wait()
        deadline = time.monotonic() + 10
        while os.path.exists(f"/proc/{pid}") and time.monotonic() < deadline:
            time.sleep(0.1)
        with open(f"/proc/{pid}/stat") if os.path.exists(f"/proc/{pid}") else open(os.devnull) as f:
            state = f.read().split(") ")[-1][:1]
        assert state in ("", "Z"), "the fork server outlived the process that started it"
    finally:
        owner.kill()


def test_a_server_that_died_is_replaced_by_the_next_kernel():
    first = zygote.address()
    zygote._server["proc"].kill()
    zygote._server["proc"].wait()
    assert _probe()["preloaded"], "the next kernel should come from a new server"
    assert zygote.address() != first


def test_a_notebook_scores_the_same_on_forked_and_on_fresh_kernels(monkeypatch):
    source = ROOT / "notebooks" / "junior" / "01_tensors_and_memory.ipynb"
    reference = cells.read(source)
    wrong, _ = answers.load(source)
    hand_ins = {"reference": reference, "blank": cells.read(release_path(source)),
                "wrong": answers.substitute(reference, {sid: v[0][1] for sid, v in wrong.items()})}

    def scores():
        return {who: [(t.grade_id, t.points) for t in grade_submission(nb, source, who).tests]
                for who, nb in hand_ins.items()}

    forked = scores()
    monkeypatch.setenv("PTLAB_ZYGOTE", "0")
    assert forked == scores()
    total = {who: sum(p for _, p in rows) for who, rows in forked.items()}
    assert total["blank"] == 0 and total["wrong"] < total["reference"], total
