"""A check started from inside a Jupyter kernel, with the fork server on: what the learner's Save and check does
in JupyterLab (grade_notebook runs in the notebook's own ipykernel, and its kernels are forks of a server that
kernel started). Kernels forked there once died before replying to kernel_info (issue 32 item 6, reverted in
7fd566d), and every such check scored 0 with 'the run stopped early'; the other kernel tests start the grader
from pytest or a plain subprocess, where it did not show.
"""

from __future__ import annotations

import json
import os
import shutil

import pytest

from autograder.isolation import sandbox
from tests.tiny_course import make_course

pytestmark = pytest.mark.kernel

CHECK = """
import json, os
from pathlib import Path
from autograder.isolation import zygote
from autograder.pipeline.check import grade_notebook
report = grade_notebook(Path({path!r}), timeout=120)
print("PTLAB-REPORT " + json.dumps(dict(report.to_json(), zygote=zygote.address() is not None,
                                        server=zygote._server.get("owner") == os.getpid())))
"""


def test_a_check_run_inside_a_jupyter_kernel_scores_full_marks_with_the_fork_server(tmp_path):
    from jupyter_client.manager import start_new_kernel

    src = make_course(tmp_path)
    path = tmp_path / "work" / "01_tiny.ipynb"
    path.parent.mkdir()
    shutil.copy(src, path)  # the solved notebook, as a learner's copy: every test passes
    env = {k: v for k, v in os.environ.items() if k != "PTLAB_ZYGOTE"}
    env.update(PTLAB_SOURCE_DIR=str(tmp_path / "notebooks"), JPY_SESSION_NAME=str(path))
    printed: list[str] = []

    def keep(msg: dict) -> None:
        if msg["msg_type"] == "stream":
            printed.extend(msg["content"]["text"].splitlines())
        elif msg["msg_type"] == "error":
            printed.extend(msg["content"].get("traceback", [])[-1:])

    km, kc = start_new_kernel(kernel_name="python3", env=env, cwd=str(path.parent), startup_timeout=300)
    try:
        reply = kc.execute_interactive(CHECK.format(path=str(path)), timeout=600, store_history=False,
                                       output_hook=keep)
        assert reply["content"]["status"] == "ok", f"the check cell raised: {reply['content']}"
    finally:
        kc.stop_channels()
        km.shutdown_kernel(now=True)
    lines = [line for line in printed if line.startswith("PTLAB-REPORT ")]
    assert lines, f"the check cell printed no report: {printed}"
    report = json.loads(lines[-1].split(" ", 1)[1])
    if sandbox.enabled() and sandbox.namespaces_work():
        assert report["zygote"] and report["server"], "the check in the kernel did not use its own fork server"
    assert not report["faults"], (
        f"a check run from inside a Jupyter kernel stopped early: {report['faults']} (its kernels, forks of a "
        "server the Jupyter kernel started, died: compare with PTLAB_ZYGOTE=0)")
    assert report["score"] == pytest.approx(report["max_score"]) and report["max_score"] > 0, (
        f"the solved notebook scored {report['score']}/{report['max_score']} when checked from inside a "
        f"Jupyter kernel; expected full marks: {report['tests']}")

