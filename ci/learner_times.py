"""The learner's waits, measured (issue 36): the first `make lab` in a fresh clone (set-up until JupyterLab
answers, no browser opened) and each learner command after it, in seconds, as a Markdown table for the README.

    make learner-times                                    # everything, in a fresh clone (minutes; needs the network
                                                          # or pip's local mirror, as make setup does)
    .venv/bin/python ci/learner_times.py --only review    # some steps (their prerequisites run untimed)
    .venv/bin/python ci/learner_times.py --venv .venv --only interview   # no fresh set-up: this environment

Run it on a quiet machine: the table heads with the load average, and the figures mean little under load.
Every command runs as a learner runs it from a terminal (no check server: PTLAB_CHECK_SERVER unset).
With --venv the clone's commands run in an environment installed for another checkout, whose editable
install imports that checkout's grader: a trial of this script, not figures for the README.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FIRST, SECOND = "junior/01_tensors_and_memory", "junior/02_autograd_basics"
STEPS = {  # name -> what the README's row says
    "first-make-lab": "first `make lab` in a fresh clone, until JupyterLab answers",
    "dashboard-day-one": "dashboard cell (00_progress.ipynb), day one",
    "check-first": f"`make check`, first check of a notebook ({FIRST}, full marks)",
    "check-later": "`make check`, the same notebook again",
    "show-solution-unchecked": f"`show_solution`, a notebook changed since its last check ({SECOND})",
    "show-solution": "`show_solution`, a notebook just checked",
    "interview": "`make interview LEVEL=junior MINUTES=45 SEED=7`",
    "review": "`make review` (exercises due)",
    "dashboard": "dashboard cell, after those checks",
}
LAB_LIMIT = 1800  # seconds; the slowest first set-up seen (a loaded machine) took under 6 minutes

DASHBOARD_RUN = """import sys, time, nbformat
from nbclient import NotebookClient
nb = nbformat.read(sys.argv[1], 4)
client = NotebookClient(nb, timeout=1800, kernel_name="python3", resources={"metadata": {"path": sys.argv[2]}})
with client.setup_kernel():
    started = time.monotonic()
    for i, cell in enumerate(nb.cells):
        client.execute_cell(cell, i)
    print(time.monotonic() - started)
"""


def learner_env(extra: dict | None = None) -> dict:
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("PTLAB_", "JPY_", "PYTEST_")) and k != "VIRTUAL_ENV"}
    return {**env, **(extra or {})}


class Clone:
    def __init__(self, where: Path, venv: Path | None):
        self.dir, self.venv = where, venv
        self.py = (venv or where / ".venv") / "bin" / "python"
        # An environment of another checkout: its stamp counts as made, so setup never reinstalls into it.
        self.make_args = [f"VENV={venv}", "-o", f"{venv}/.installed"] if venv else []

    def make(self, *args: str) -> subprocess.CompletedProcess:
        return self.run(["make", *self.make_args, *args])

    def run(self, cmd: list[str], env: dict | None = None) -> subprocess.CompletedProcess:
        done = subprocess.run(cmd, cwd=self.dir, env=env or learner_env(), capture_output=True, text=True,
                              timeout=LAB_LIMIT)
        if done.returncode != 0:
            raise SystemExit(f"learner_times: {' '.join(cmd)} failed ({done.returncode}):\n"
                             f"{done.stdout[-3000:]}\n{done.stderr[-3000:]}")
        return done

    def timed(self, cmd: list[str]) -> float:
        started = time.monotonic()
        self.run(cmd)
        return time.monotonic() - started


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def answering(port: int) -> bool:
    try:
        urllib.request.urlopen(f"http://127.0.0.1:{port}/api", timeout=2).close()
        return True
    except urllib.error.HTTPError:  # any HTTP answer: the server is up
        return True
    except OSError:
        return False


def first_make_lab(clone: Clone, config: Path) -> float:
    """`make lab` from nothing until JupyterLab answers HTTP; then JupyterLab is stopped."""
    port = free_port()
    config.mkdir(parents=True, exist_ok=True)
    (config / "jupyter_server_config.json").write_text(json.dumps({"ServerApp": {"open_browser": False}}))
    env = learner_env({"JUPYTER_CONFIG_PATH": str(config)})
    started = time.monotonic()
    log = (config / "make-lab.log").open("w")
    lab = subprocess.Popen(["make", *clone.make_args, "lab", f"PORT={port}"], cwd=clone.dir, env=env,
                           stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
    try:
        while not answering(port):
            if lab.poll() is not None:
                raise SystemExit(f"learner_times: make lab ended ({lab.returncode}) before JupyterLab answered:\n"
                                 + (config / "make-lab.log").read_text()[-3000:])
            if time.monotonic() - started > LAB_LIMIT:
                raise SystemExit(f"learner_times: JupyterLab did not answer on port {port} within {LAB_LIMIT} s")
            time.sleep(0.5)
        return time.monotonic() - started
    finally:
        for sig in (signal.SIGTERM, signal.SIGKILL):
            try:
                os.killpg(lab.pid, sig)
                lab.wait(timeout=20)
                break
            except (ProcessLookupError, subprocess.TimeoutExpired):
                continue
        log.close()


def fill_with_reference(clone: Clone, name: str) -> Path:
    """The learner's copy of a notebook with every answer cell as the reference's (full marks)."""
    import nbformat

    from autograder.pipeline.cells import grade_id, kind

    target = clone.dir / "work" / f"{name}.ipynb"
    source = {grade_id(c): c.source for c in nbformat.read(str(clone.dir / "notebooks" / f"{name}.ipynb"), 4).cells
              if kind(c) == "solution"}
    nb = nbformat.read(str(target), 4)
    for cell in nb.cells:
        if kind(cell) == "solution" and grade_id(cell) in source:
            cell.source = source[grade_id(cell)]
    nbformat.write(nb, str(target))
    return target


def due_today(clone: Clone) -> None:
    """What the day after a first pass looks like to `make review`: each scheduled exercise due today."""
    path = clone.dir / ".ptlab-cache" / "learner" / "schedule.json"
    schedule = json.loads(path.read_text())
    today = datetime.date.today().isoformat()
    path.write_text(json.dumps({k: dict(v, due=today) for k, v in schedule.items()}, indent=1))


def dashboard(clone: Clone) -> float:
    """The dashboard cell's own time in a kernel of the learner's environment (the kernel's start not counted)."""
    work = clone.dir / "work"
    done = clone.run([str(clone.py), "-c", DASHBOARD_RUN, str(work / "00_progress.ipynb"), str(work)])
    return float(done.stdout.strip().splitlines()[-1])


def measure(clone: Clone, only: list[str], config: Path) -> dict[str, float]:
    times: dict[str, float] = {}
    py = str(clone.py)
    if "first-make-lab" in only:
        times["first-make-lab"] = first_make_lab(clone, config)
    else:
        clone.make("workdir")  # untimed: the work folder the other steps need
    if "dashboard-day-one" in only:
        times["dashboard-day-one"] = dashboard(clone)
    first = fill_with_reference(clone, FIRST)
    second = fill_with_reference(clone, SECOND)
    check = ["make", *clone.make_args, "check", f"NB={first.relative_to(clone.dir)}"]
    if {"check-first", "check-later", "show-solution"} & set(only):
        times["check-first"] = clone.timed(check)
    if "check-later" in only:
        times["check-later"] = clone.timed(check)
    if "show-solution-unchecked" in only:
        times["show-solution-unchecked"] = clone.timed([py, "-m", "autograder", "solution", str(second), "ex1"])
    if "show-solution" in only:
        times["show-solution"] = clone.timed([py, "-m", "autograder", "solution", str(first), "ex1"])
    if "interview" in only:
        times["interview"] = clone.timed(["make", *clone.make_args, "interview", "LEVEL=junior", "MINUTES=45",
                                          "SEED=7"])
    if "review" in only:
        if not (clone.dir / ".ptlab-cache" / "learner" / "schedule.json").exists():
            # untimed: the self-check cell's command records the pass that puts its exercises on the schedule
            clone.run([py, "-m", "autograder", "check", str(first), "--json", "--record"])
        due_today(clone)
        times["review"] = clone.timed(["make", *clone.make_args, "review"])
    if "dashboard" in only:
        times["dashboard"] = dashboard(clone)
    return {k: v for k, v in times.items() if k in only}


def table(times: dict[str, float], started_load: float) -> str:
    when = datetime.date.today().isoformat()
    lines = [f"Measured {when} on {os.cpu_count()} CPU cores, load average {started_load:.2f} at the start "
             f"(`make learner-times`):", "", "| step | seconds |", "|---|---|"]
    lines += [f"| {STEPS[k]} | {v:.0f} |" for k, v in times.items()]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--only", default="", help=f"comma-separated steps: {', '.join(STEPS)}")
    p.add_argument("--venv", type=Path, default=None,
                   help="an existing environment instead of the fresh clone's own set-up (a trial, no set-up time)")
    p.add_argument("--keep", action="store_true", help="keep the clone (its path is printed)")
    p.add_argument("--out", type=Path, default=ROOT / "ci" / "out" / "learner_times.md")
    args = p.parse_args(argv)
    only = [s for s in args.only.split(",") if s] or list(STEPS)
    unknown = [s for s in only if s not in STEPS]
    if unknown or (args.venv and "first-make-lab" in only and args.only):
        raise SystemExit(f"learner_times: unknown step(s) {unknown}; the steps: {', '.join(STEPS)}" if unknown
                         else "learner_times: first-make-lab measures the clone's own set-up: not with --venv")
    if args.venv:
        only = [s for s in only if s != "first-make-lab"]
    load = os.getloadavg()[0]
    if load > 1:
        print(f"learner_times: load average {load:.2f}: the figures will be slower than a quiet machine's",
              file=sys.stderr)
    home = Path(tempfile.mkdtemp(prefix="ptlab-learner-times-"))
    try:
        clone = Clone(home / "clone", args.venv.resolve() if args.venv else None)
        subprocess.run(["git", "clone", "-q", "--no-hardlinks", str(ROOT), str(clone.dir)], check=True)
        text = table(measure(clone, only, home / "config"), load)
    finally:
        if args.keep:
            print(f"learner_times: kept {home}", file=sys.stderr)
        else:
            subprocess.run(["rm", "-rf", str(home)], check=False)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(text + "\n")
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
