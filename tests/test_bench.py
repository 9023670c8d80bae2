"""The load test's own instruments: a memory figure that covers the whole process tree, and a class that
fails the bench when any notebook is scored wrongly."""

from __future__ import annotations

import csv
import subprocess
import sys

from ci.bench import TreeMemory
from ci.classes import expected_scores


def test_memory_is_sampled_across_the_whole_process_tree():
    # a parent that starts a child holding ~60 MB: the child's memory must count
    code = ("import subprocess, sys; subprocess.run([sys.executable, '-c', "
            "'import time; b = bytearray(60 * 2**20); b[::4096] = b\"x\" * len(b[::4096]); time.sleep(1.5)'])")
    proc = subprocess.Popen([sys.executable, "-c", code])
    mem = TreeMemory(proc.pid, every=0.2)
    mem.start()
    proc.wait()
    mem.stop()
    assert max(mem.samples) > 60, f"peak tree PSS {max(mem.samples):.0f} MB: the child's 60 MB were not counted"
    assert "peak tree PSS" in mem.summary()


def _class_csv(tmp_path, rows):
    path = tmp_path / "grades.csv"
    with path.open("w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=["student", "notebook", "score", "max_score", "status"])
        w.writeheader()
        w.writerows({"student": s, "notebook": "01", "score": sc, "max_score": "5", "status": st}
                    for s, sc, st in rows)
    return path


def test_a_class_scored_as_built_passes(tmp_path):
    # even students hand in the blank, odd ones the reference
    path = _class_csv(tmp_path, [("student000", "0", "ok"), ("student001", "5", "ok")])
    assert expected_scores(path) == (2, 2, [])


def test_a_wrong_score_or_a_failed_notebook_fails_the_bench(tmp_path):
    path = _class_csv(tmp_path, [("student000", "1", "ok"), ("student001", "5", "ok"),
                                 ("student003", "0", "the kernel died")])
    graded, right, wrong = expected_scores(path)
    assert (graded, right) == (3, 1)
    assert any("student000" in w for w in wrong) and any("kernel died" in w for w in wrong)


def test_the_suite_figure_is_split_per_notebook(tmp_path):
    from ci.bench import seconds_per_notebook

    report = tmp_path / "suite.xml"
    report.write_text(
        '<testsuites><testsuite name="pytest">'
        '<testcase classname="tests.test_notebooks" name="test_lint[junior/01_tensors_and_memory]" time="0.5"/>'
        '<testcase classname="tests.test_notebooks" name="test_release_earns_nothing[senior/20_triton_kernels]"'
        ' time="3.0"/>'
        '<testcase classname="notebooks.junior.01_tensors_and_memory.ipynb" name="Cell 3" time="1.25"/>'
        '<testcase classname="tests.test_layout" name="test_no_circles" time="9.0"/>'
        '</testsuite></testsuites>')
    assert seconds_per_notebook(report) == {"junior/01_tensors_and_memory": 1.75, "senior/20_triton_kernels": 3.0}
