#!/usr/bin/env python
"""Run every solved notebook with papermill on one device; write executed notebooks and a JSON report.

    python ci/run_notebooks.py --device cpu [--workers 2] [--out ci/out] [--full] [NOTEBOOK ...]

Exits non-zero naming the notebook and cell that failed. --device cuda refuses to start without CUDA,
so a GPU job can never quietly test the CPU.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from concurrent.futures import ProcessPoolExecutor, as_completed
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from autograder.course import pin_threads, source_notebooks  # noqa: E402



def run_one(notebook: Path, device: str, out_dir: Path, fast: bool | None = None, timeout: int = 600) -> dict:
    """Execute one notebook; return {notebook, seconds, status, cell, error}. fast=None follows PTLAB_FAST
    (default on), the mode the grader's reference cache is keyed by."""
    if fast is None:
        fast = os.environ.get("PTLAB_FAST", "1") == "1"
    import papermill as pm
    from papermill.exceptions import PapermillExecutionError

    rel = notebook.relative_to(notebook.parents[1])  # <tier>/<name>.ipynb
    target = out_dir / rel
    target.parent.mkdir(parents=True, exist_ok=True)
    start = time.perf_counter()
    result = {"notebook": str(rel), "status": "ok", "cell": None, "error": None}
    # The kernel inherits TMPDIR: what a notebook leaves there (torchrun's torchelastic_* folders, a compile
    # cache) goes with this run instead of piling up in /tmp.
    before = os.environ.get("TMPDIR")
    with tempfile.TemporaryDirectory(prefix="ptlab-nb-") as scratch:
        os.environ["TMPDIR"] = scratch
        try:
            pm.execute_notebook(str(notebook), str(target),
                                parameters={"DEVICE": device, "FAST": fast, "SEED": 0},
                                kernel_name="python3", progress_bar=False, log_output=False,
                                execution_timeout=timeout, cwd=str(out_dir))
        except PapermillExecutionError as e:
            result.update(status="failed", cell=e.exec_count, error=f"{e.ename}: {str(e.evalue)[:300]}")
        except Exception as e:  # a dead kernel, a timeout: still one line naming the notebook
            first = str(e).splitlines()[0][:300] if str(e) else ""
            result.update(status="failed", error=f"{type(e).__name__}: {first}")
        finally:
            if before is None:
                os.environ.pop("TMPDIR", None)
            else:
                os.environ["TMPDIR"] = before
    result["seconds"] = round(time.perf_counter() - start, 2)
    return result


def run_many(jobs: list[tuple[Path, Path, str]], device: str, workers: int, fast: bool | None = None,
             timeout: int = 600) -> list[dict]:
    """run_one over (notebook, out_dir, label) jobs in a pool of workers with cores/workers threads each; a line
    per notebook as it ends. Each result carries its job's label as "kind"."""
    threads = max(1, (os.cpu_count() or 2) // max(1, workers))
    results = []
    with ProcessPoolExecutor(max_workers=max(1, workers), initializer=pin_threads, initargs=(threads,)) as pool:
        futures = {pool.submit(run_one, nb, device, out, fast, timeout): label for nb, out, label in jobs}
        for i, fut in enumerate(as_completed(futures), 1):
            r = dict(fut.result(), kind=futures[fut])
            results.append(r)
            where = f" (cell {r['cell']})" if r["cell"] else ""
            line = f"[{i}/{len(jobs)}] {r['status']:6s} {r['seconds']:6.1f}s {r['kind'] + ' ' if r['kind'] else ''}"
            print(line + f"{r['notebook']}{where}" + (f": {r['error']}" if r["error"] else ""), flush=True)
    return results


def cuda_available() -> bool:
    import torch

    return torch.cuda.is_available()


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--device", choices=["cpu", "cuda"], required=True)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--out", type=Path, default=ROOT / "ci" / "out")
    ap.add_argument("--full", action="store_true", help="full mode (FAST=False): the learner's run")
    ap.add_argument("--timeout", type=int, default=600, help="seconds per cell")
    ap.add_argument("notebooks", nargs="*", type=Path)
    args = ap.parse_args(argv)

    if args.device == "cuda" and not cuda_available():
        print("run_notebooks: --device cuda, but torch.cuda.is_available() is False on this machine. "
              "Refusing to test the CPU under the CUDA label.", file=sys.stderr)
        return 3
    notebooks = [p.resolve() for p in args.notebooks] or source_notebooks()
    if not notebooks:
        print("run_notebooks: no notebooks found", file=sys.stderr)
        return 2
    args.out.mkdir(parents=True, exist_ok=True)
    t0 = time.perf_counter()
    results = run_many([(nb, args.out, "") for nb in notebooks], args.device, args.workers, not args.full,
                       args.timeout)
    wall = round(time.perf_counter() - t0, 2)
    results.sort(key=lambda r: r["notebook"])
    report = {"device": args.device, "fast": not args.full, "workers": args.workers, "wall_seconds": wall,
              "notebooks": results}
    (args.out / "report.json").write_text(json.dumps(report, indent=2))
    failed = [r for r in results if r["status"] != "ok"]
    for r in failed:
        print(f"FAILED {r['notebook']}" + (f" at cell {r['cell']}" if r["cell"] else "") + f": {r['error']}",
              file=sys.stderr)
    print(f"run_notebooks: {len(results) - len(failed)} passed, {len(failed)} failed in {wall:.1f}s "
          f"({args.device}, {'fast' if not args.full else 'full'} mode) -> {args.out / 'report.json'}")
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
