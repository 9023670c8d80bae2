"""Generate the student notebooks with nbgrader, and tell when the committed ones are stale."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

from autograder.course import RELEASE_DIR, SOURCE_DIR, TIERS, source_notebooks

# What a JupyterLab kernel (ipykernel) writes into a notebook's metadata when it starts. A notebook that says
# anything else opens as "modified". The Python version depends on the machine: `workdir` stamps it when it
# copies a release notebook into the learner's folder.
KERNELSPEC = {"display_name": "Python 3 (ipykernel)", "language": "python", "name": "python3"}
LANGUAGE_INFO = {"codemirror_mode": {"name": "ipython", "version": 3}, "file_extension": ".py",
                 "mimetype": "text/x-python", "name": "python", "nbconvert_exporter": "python",
                 "pygments_lexer": "ipython3"}
# Cells the learner runs but need not read: collapsed in JupyterLab, a titled form on Colab.
COLLAPSED = {"derived": "Course helpers: device, seeds, the grader's `_observe` and `_by_hand` (run it; no need to read it)",
             "selfcheck": "Check your work (run this cell after saving)"}


def _dumps(nb: dict) -> str:
    import nbformat

    return nbformat.writes(nbformat.from_dict(nb), version=4) + "\n"


def finish(nb: dict) -> dict:
    """What the release adds to nbgrader's student version (a JSON dict, changed in place and returned)."""
    from nbformat import from_dict
    from nbgrader.utils import compute_checksum

    nb["metadata"]["kernelspec"] = dict(KERNELSPEC)
    nb["metadata"]["language_info"] = dict(nb["metadata"].get("language_info") or {}, **LANGUAGE_INFO)
    for cell in nb["cells"]:
        meta = cell.setdefault("metadata", {})
        gid = (meta.get("nbgrader") or {}).get("grade_id")
        if gid not in COLLAPSED:
            continue
        source = "".join(cell["source"]) if isinstance(cell["source"], list) else cell["source"]
        if not source.startswith("# @title"):
            source = f"# @title {COLLAPSED[gid]}\n{source}"
        cell["source"] = source
        meta["jupyter"] = dict(meta.get("jupyter") or {}, source_hidden=True)
        meta["cellView"] = "form"
        if "checksum" in meta.get("nbgrader", {}):  # a locked cell: nbgrader's Validate checks its checksum
            meta["nbgrader"]["checksum"] = compute_checksum(from_dict(cell))
    return nb


def __getattr__(name: str):
    """FinishRelease, made on first use: nbgrader imports it by name (nbgrader_config.py), and nbgrader takes
    seconds to import, which the learner's commands that import this module never need."""
    if name != "FinishRelease":
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    from nbgrader.preprocessors.base import NbGraderPreprocessor  # enabled by default, as nbgrader's own steps

    class FinishRelease(NbGraderPreprocessor):
        """`finish` as nbgrader's last GenerateAssignment step, so that a plain `nbgrader generate_assignment`
        writes the same student notebooks as `python -m autograder release`."""

        def preprocess(self, nb, resources):
            return finish(nb), resources

    globals()[name] = FinishRelease
    return FinishRelease


def stamp_python(nb: dict, version: str | None = None) -> dict:
    """The running Python's version in language_info, as the kernel will report it (see KERNELSPEC)."""
    nb["metadata"].setdefault("language_info", {})["version"] = version or sys.version.split()[0]
    return nb


def workdir(work: Path, release_dir: Path = RELEASE_DIR) -> list[Path]:
    """Copy the release into a learner's folder, never overwriting a file that is there; returns the copies."""
    made = []
    for tier in TIERS:
        for f in sorted((Path(release_dir) / tier).glob("*.ipynb")):
            target = Path(work) / tier / f.name
            if target.exists():
                continue
            target.parent.mkdir(parents=True, exist_ok=True)
            nb = stamp_python(json.loads(f.read_text()))
            tmp = target.with_name(f".{f.name}.tmp")
            tmp.write_text(_dumps(nb))
            os.replace(tmp, target)
            made.append(target)
    return made


def course_root() -> Path:
    """The nbgrader course root the sources live in: the repository, or a test's tiny course."""
    return SOURCE_DIR.parent


def generate(tiers=TIERS, release_dir: Path | None = None) -> None:
    """nbgrader generate_assignment, one tier (assignment) at a time, without a database, into the course's
    release/ (or `release_dir`).

    nbgrader writes into a scratch directory; files then move into place one by one (os.replace is
    atomic), so a reader never sees a half-written release, and notebooks without a source disappear."""
    root = course_root()
    release_dir = Path(release_dir) if release_dir else root / RELEASE_DIR.name
    for tier in tiers:
        target = release_dir / tier
        with tempfile.TemporaryDirectory(prefix="ptlab-gen-") as tmp:
            if source_notebooks(tier):
                cmd = [sys.executable, "-m", "nbgrader", "generate_assignment", tier, "--no-db", "--force",
                       "--log-level=WARN", f"--CourseDirectory.root={root}",
                       f"--CourseDirectory.release_directory={tmp}"]
                done = subprocess.run(cmd, cwd=root, capture_output=True, text=True)
                if done.returncode != 0:
                    raise RuntimeError(f"nbgrader generate_assignment {tier} failed:\n{done.stderr[-2000:]}")
            fresh = sorted((Path(tmp) / tier).glob("*.ipynb"))
            target.mkdir(parents=True, exist_ok=True)
            for f in fresh:
                (target / f".{f.name}.tmp").write_text(_dumps(finish(json.loads(f.read_text()))))
                os.replace(target / f".{f.name}.tmp", target / f.name)
            for old in target.glob("*.ipynb"):
                if old.name not in {f.name for f in fresh}:
                    old.unlink()


def _canonical(path: Path) -> str:
    return json.dumps(json.loads(path.read_text()), sort_keys=True)


def stale(tiers=TIERS) -> list[str]:
    """Release files that differ from what nbgrader would generate now (or that should not exist)."""
    with tempfile.TemporaryDirectory(prefix="ptlab-release-") as tmp:
        generate(tiers, Path(tmp))
        problems = []
        for tier in tiers:
            fresh = {p.name: p for p in sorted((Path(tmp) / tier).glob("*.ipynb"))}
            have = {p.name: p for p in sorted((course_root() / RELEASE_DIR.name / tier).glob("*.ipynb"))}
            for name in sorted(fresh.keys() | have.keys()):
                rel = f"release/{tier}/{name}"
                if name not in have:
                    problems.append(f"{rel}: missing")
                elif name not in fresh:
                    problems.append(f"{rel}: has no source notebook")
                elif _canonical(fresh[name]) != _canonical(have[name]):
                    problems.append(f"{rel}: stale")
        return problems
