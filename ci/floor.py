"""The floor under class grading (ci/bench.py prints it beside the grader's rate): the hand-ins' own cells, run
one after another in one warm kernel, with nothing of grading around them (no kernel start, no sandbox, no
imports after the first, no scoring). Grading can approach this rate and never pass it.

Each hand-in runs as the grader runs it: its answers inside the source's cells (`assemble`), demo bounds on
(PTLAB_GRADING), full mode, one thread, every cell in order whatever an earlier one raised. Between hand-ins the
kernel's names are cleared and its modules kept. The rate on the machine is the rate of one such kernel per
core, as the grader's workers run one kernel each.
"""

from __future__ import annotations

import os
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from ci.classes import synthetic_class

# What a grading worker's kernel has imported by the time a hand-in's first cell runs.
_WARM_UP = "import numpy, torch, matplotlib.pyplot, sklearn, IPython"
_CLEAR = "%reset -f\nimport matplotlib.pyplot as _plt\n_plt.close('all')\ndel _plt"


@dataclass
class Floor:
    handins: int
    references: int
    seconds: float  # the cells' own time, summed over the hand-ins
    cores: int
    failed: list[str]  # reference hand-ins whose cells raised: a floor that skipped work is no floor

    @property
    def per_minute(self) -> float:
        return self.handins / self.seconds * 60 * self.cores if self.seconds else 0.0

    def line(self) -> str:
        return (f"{self.handins} hand-ins ({self.references} reference, {self.handins - self.references} blank): "
                f"{self.seconds:.1f} s of cell time in one warm kernel = {self.per_minute:.1f} nb/min on "
                f"{self.cores} cores")


def class_handins(tier: str, count: int, course: Path) -> list[Path]:
    """`count` hand-ins of the bench's synthetic class, blank and reference in turn, each a different notebook
    while there are notebooks left: the class's own mix."""
    synthetic_class(tier, 2, course)
    blank, reference = (sorted((course / "submitted" / f"student{i:03d}" / tier).glob("*.ipynb")) for i in (0, 1))
    return [(reference if i % 2 else blank)[i % len(blank)] for i in range(count)]


def _run(kc, code: str, timeout: float) -> tuple[float, bool]:
    """(seconds, raised) for one cell in the kernel; its output is dropped."""
    started = time.perf_counter()
    reply = kc.execute_interactive(code, store_history=False, timeout=timeout, output_hook=lambda msg: None)
    return time.perf_counter() - started, reply["content"]["status"] != "ok"


def floor(handins: list[Path], cell_timeout: float = 600) -> Floor:
    """Run every hand-in's code cells in one warm kernel; sum the time the cells took."""
    import nbformat
    from jupyter_client.manager import start_new_kernel

    from autograder.pipeline.assemble import assemble
    from autograder.pipeline.sources import source_of

    env = dict(os.environ, PTLAB_GRADING="1", PTLAB_FAST="0", OMP_NUM_THREADS="1", MKL_NUM_THREADS="1",
               OPENBLAS_NUM_THREADS="1", MPLBACKEND="Agg")
    seconds, references, failed = 0.0, 0, []
    with tempfile.TemporaryDirectory(prefix="ptlab-floor-") as scratch:
        env["TMPDIR"] = scratch
        km, kc = start_new_kernel(kernel_name="python3", cwd=scratch, env=env)
        try:
            _run(kc, _WARM_UP, cell_timeout)
            for path in handins:
                handin = nbformat.read(path, as_version=4)
                source = source_of(path, handin, path.parent.name)
                graded, _ = assemble(handin, nbformat.read(source, as_version=4))
                reference = path.read_bytes() == source.read_bytes()
                references += reference
                raised = False
                for cell in graded.cells:
                    if cell.cell_type == "code" and cell.source.strip():
                        secs, err = _run(kc, cell.source, cell_timeout)
                        seconds += secs
                        raised |= err
                if reference and raised:
                    failed.append(f"{path.parent.name}/{path.name}")
                _run(kc, _CLEAR, cell_timeout)
        finally:
            kc.stop_channels()
            km.shutdown_kernel(now=True)
    return Floor(len(handins), references, seconds, os.cpu_count() or 1, failed)
