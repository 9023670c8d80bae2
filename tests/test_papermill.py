"""The CI runner: the CUDA pass refuses to run where there is no CUDA, and a failure names its notebook and
cell. (Its CPU run of every solved notebook is the reference run of the grading contract,
tests/test_notebooks.py.)"""

import json
import subprocess
import sys

import pytest
import torch

from autograder.course import ROOT

@pytest.mark.skipif(torch.cuda.is_available(), reason="this machine has CUDA")
def test_cuda_pass_fails_loudly_without_cuda(tmp_path):
    done = subprocess.run([sys.executable, str(ROOT / "ci" / "run_notebooks.py"), "--device", "cuda",
                           "--out", str(tmp_path)], capture_output=True, text=True, timeout=120)
    assert done.returncode != 0
    assert "torch.cuda.is_available() is False" in done.stderr


def test_runner_names_the_failing_notebook_and_cell(tmp_path):
    import nbformat
    from nbformat.v4 import new_code_cell, new_notebook

    nb = new_notebook(cells=[new_code_cell("DEVICE='auto'\nFAST=False\nSEED=0", metadata={"tags": ["parameters"]}),
                             new_code_cell("x = 1"), new_code_cell("raise ValueError('boom')")])
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    path = tmp_path / "notebooks" / "junior" / "_runner_probe.ipynb"
    path.parent.mkdir(parents=True)
    nbformat.write(nb, str(path))
    done = subprocess.run([sys.executable, str(ROOT / "ci" / "run_notebooks.py"), "--device", "cpu",
                           "--workers", "1", "--out", str(tmp_path / "out"), str(path)],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 1
    assert "FAILED junior/_runner_probe.ipynb at cell" in done.stderr and "ValueError: boom" in done.stderr
    report = json.loads((tmp_path / "out" / "report.json").read_text())
    assert report["notebooks"][0]["status"] == "failed"
