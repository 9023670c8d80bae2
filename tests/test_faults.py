"""Faults stay local: a submission whose run goes wrong (an endless loop, a kernel that exits or crashes,
memory exhausted, a flood of output, a notebook out of time) scores 0 where it earned nothing and says why
in its `status`. Every other submission in the batch is graded normally, and no kernel outlives its run."""

import csv
import uuid

import pytest

from tests.tiny_course import alive, cli, hand_ins

REFERENCE_EX1 = "def double(x):\n    return 2 * x\n"

# student -> (the ex1 answer cell, expected score out of 5, words the status must contain)
FAULTY = {
    "control": (REFERENCE_EX1, 5, "ok"),
    "looper": ("def double(x):\n    while True:\n        pass\n", 3, "stopped at the per-cell time limit: ex1_double_test"),
    "exiter": ("import os\nos._exit(3)\n", 0, "the kernel died"),
    "crasher": ("import os\nos.kill(os.getpid(), 11)  # SIGSEGV\n", 0, "the kernel died"),
    "hog": ("hog = bytearray(64 * 2**30)\n" + REFERENCE_EX1, 3, "out of memory: ex1_double"),
    "flooder": (REFERENCE_EX1 + "print('x' * 50_000_000)\n", 5, "output cut at 100 kB a cell: ex1_double"),
}


def _grade(tmp, students: dict[str, str], *args, **env) -> tuple[dict[str, dict], str, str]:
    sub = hand_ins(tmp, students)
    out, mark = tmp / "grades.csv", uuid.uuid4().hex
    done = cli(tmp, "grade", str(sub), "--out", str(out), *args, PTLAB_TEST_MARK=mark, **env)
    assert done.returncode == 0, done.stderr
    with out.open() as f:
        return {r["student"]: r for r in csv.DictReader(f)}, done.stderr, mark


@pytest.fixture(scope="module")
def faulty_class(tmp_path_factory):
    # 20 s a cell: far above what the tiny notebook needs (torch imported on a loaded machine), far below forever
    return _grade(tmp_path_factory.mktemp("faults"), {s: a for s, (a, _, _) in FAULTY.items()},
                  "--workers", "2", "--timeout", "20")


@pytest.mark.kernel
@pytest.mark.parametrize("student", FAULTY)
def test_a_fault_earns_nothing_where_it_struck_and_says_why(faulty_class, student):
    rows, *_ = faulty_class
    _, score, status = FAULTY[student]
    row = rows[student]
    assert float(row["score"]) == score, f"{student}: {row['score']}/5 ({row['status']}), expected {score}"
    assert status in row["status"], f"{student}: status {row['status']!r} should say {status!r}"
    assert row["auto_max"] == "5", "the notebook is still scored against all its tests"


@pytest.mark.kernel
def test_a_faulty_batch_leaves_no_kernel_and_no_noise(faulty_class):
    _, stderr, mark = faulty_class
    assert not alive(mark), "a kernel outlived its run"
    assert "Traceback" not in stderr, f"the grader's terminal shows a traceback:\n{stderr[-2000:]}"


@pytest.mark.kernel
def test_a_notebook_out_of_time_stops_and_earns_nothing_after_its_deadline(tmp_path):
    # every cell is within the per-cell limit, but the whole notebook is not
    slow = "import time\ntime.sleep(120)\n" + REFERENCE_EX1
    rows, stderr, mark = _grade(tmp_path, {"slowpoke": slow, "control": REFERENCE_EX1}, "--workers", "1",
                                "--timeout", "300", PTLAB_NOTEBOOK_TIMEOUT="40")
    assert rows["slowpoke"]["score"] == "0"
    assert "the notebook ran longer than 40 s in total" in rows["slowpoke"]["status"]
    assert (rows["control"]["score"], rows["control"]["status"]) == ("5", "ok")
    assert not alive(mark), "the kernel stopped at the deadline outlived its run"
    assert "Traceback" not in stderr


def _cell(gid, *errors):
    from nbformat.v4 import new_code_cell, new_output

    cell = new_code_cell("...", outputs=[new_output("error", ename=e, evalue=v, traceback=[]) for e, v in errors])
    if gid:
        cell.metadata["nbgrader"] = {"grade_id": gid}
    return cell


def test_faults_are_read_from_error_outputs_one_line_per_kind():
    from nbformat.v4 import new_notebook

    from autograder.pipeline.faults import in_cells

    nb = new_notebook(cells=[
        _cell("ex1_fit", ("KeyboardInterrupt", ""), ("CellTimeoutError", "")),  # one timeout, counted once
        _cell("ex2_test", ("CellTimeoutError", "")),
        _cell(None, ("RuntimeError", "DefaultCPUAllocator: can't allocate memory: you tried to allocate 9 GB")),
        _cell("ex3_test", ("AssertionError", "the loss should fall")),  # a wrong answer, not a fault
    ])
    assert in_cells(nb) == ["stopped at the per-cell time limit: ex1_fit, ex2_test", "out of memory: cell 3"]


def test_the_status_is_ok_or_what_went_wrong_in_a_few_words():
    from autograder.pipeline.faults import status

    assert status([]) == "ok"
    assert status(["the kernel died", "out of memory: ex1"]) == "the kernel died; out of memory: ex1"
    assert len(status(["x" * 500])) == 200
