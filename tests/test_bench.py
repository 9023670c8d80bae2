"""The bench's own instruments: a memory figure that covers the whole process tree, a class that fails the bench
when any notebook is scored wrongly, burners that never outlive their run, the notebooks a run is narrowed to,
the check-time lines, and the floor under class grading."""

from __future__ import annotations

import csv
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from ci.class_bench import TreeMemory
from ci.classes import expected_scores

ROOT = Path(__file__).resolve().parent.parent


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


def _running(pid: int) -> bool:
    """Alive and not a zombie waiting for its reaper."""
    import psutil

    try:
        return psutil.Process(pid).status() != psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return False


def test_burners_run_during_the_block_and_are_gone_after_it_even_after_an_error():
    from ci.burners import burning, count

    assert count(2) == 2 * os.cpu_count()
    with pytest.raises(RuntimeError), burning(0.5) as procs:
        assert procs and all(p.poll() is None for p in procs), "the burners were not running inside the block"
        raise RuntimeError("a failure inside the block")
    assert all(p.poll() is not None for p in procs), "a burner outlived the block that ended in an error"


def test_burners_leave_when_their_parent_is_killed_outright():
    # no `finally` runs in a parent that exits at once: each burner notices its parent is gone
    code = ("import os; from ci.burners import burning; procs = burning(0.5).__enter__(); "
            "print(' '.join(str(p.pid) for p in procs), flush=True); os._exit(0)")
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=60)
    pids = [int(p) for p in done.stdout.split()]
    assert pids, f"the parent started no burner: {done.stderr}"
    deadline = time.monotonic() + 30
    while any(map(_running, pids)) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert not any(map(_running, pids)), "burners still ran 30 s after their parent was killed"


def test_the_bench_runs_on_the_notebooks_named_and_refuses_an_unknown_name():
    from autograder.course import source_notebooks
    from ci.bench import pick

    chosen = pick(source_notebooks(), "junior/02, mid/16")
    assert [f"{p.parent.name}/{p.stem}" for p in chosen] == ["junior/02_autograd_basics",
                                                             "mid/16_llama_block_and_tiny_lm"]
    assert pick(source_notebooks(), None) == source_notebooks()
    with pytest.raises(SystemExit, match="junior/99"):
        pick(source_notebooks(), "junior/02,junior/99")


def test_check_rows_name_the_slowest_notebook_and_count_slow_checks():
    from ci.latency import check_rows

    first = {"junior/01_a": 20.0, "junior/02_b": 70.0, "mid/01_c": 5.0}
    later = {"junior/01_a": 4.0, "junior/02_b": 12.0, "mid/01_c": 2.0}
    rows = dict(check_rows("one-off", first, later))
    assert rows["self-check, junior, one-off: first check / later median"] == "45.0 s / 8.0 s"
    assert rows["self-check, one-off: slowest notebook (first / later)"] == "junior/02_b 70.0 s / 12.0 s"
    assert rows["self-check, one-off: checks over 15 s / over 60 s"] == "2 / 1 of 6"


def test_the_floor_takes_the_class_mix_of_blank_and_reference_hand_ins(tmp_path):
    from ci.floor import Floor, class_handins

    picked = class_handins("junior", 4, tmp_path)
    assert [p.parent.parent.name for p in picked] == ["student000", "student001"] * 2  # blank, reference, ...
    assert len({p.name for p in picked}) == 4, "each hand-in of the floor should be a different notebook"
    assert Floor(handins=12, references=6, seconds=10.0, cores=2, failed=[]).per_minute == pytest.approx(144.0)


@pytest.mark.kernel
def test_the_floor_runs_every_cell_of_its_hand_ins_in_one_kernel(tmp_path):
    from ci.floor import class_handins, floor

    low = floor(class_handins("junior", 2, tmp_path))  # junior/01 blank, junior/02 the reference
    assert (low.handins, low.references) == (2, 1)
    assert low.failed == [], f"the reference hand-in raised in the floor's kernel: {low.failed}"
    assert low.seconds > 0


def test_the_burner_wrapper_returns_its_commands_code_and_leaves_no_burner():
    from ci.burners import main

    assert main(["--per-core", "0.5", "--", sys.executable, "-c", "import sys; sys.exit(3)"]) == 3


def test_ctrl_c_on_the_burner_wrapper_ends_its_burners_and_its_command():
    import signal

    code = "import os, sys, time; print(os.getpid(), flush=True); time.sleep(300)"
    wrapper = subprocess.Popen([sys.executable, "-m", "ci.burners", "--per-core", "0.5", "--", sys.executable, "-c",
                                code], cwd=ROOT, stdout=subprocess.PIPE, text=True,
                               preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    assert "burners:" in wrapper.stdout.readline()
    command = int(wrapper.stdout.readline())  # the command runs: its pid
    import psutil

    burners = [c.pid for c in psutil.Process(wrapper.pid).children() if c.pid != command]
    assert burners, "the wrapper started no burner"
    wrapper.send_signal(signal.SIGINT)
    wrapper.send_signal(signal.SIGINT)  # a second Ctrl+C: no grace for the command either
    assert wrapper.wait(timeout=60) in (130, -signal.SIGINT), "the wrapper did not stop on Ctrl+C"
    assert not [p for p in burners + [command] if _running(p)], "a burner or the command outlived the Ctrl+C"

