"""CPU burners: busy processes beside a run, so its figures and verdicts are those of a loaded machine.

    python -m ci.burners --per-core 2 -- COMMAND ...    # COMMAND with two busy processes per core beside it

`burning(per_core)` holds `per_core` x cores busy processes for the length of a `with` block; they are killed
when the block ends, however it ends (an exception, Ctrl+C). A burner also watches its parent and leaves when
the parent is gone, so even a parent killed outright (SIGKILL, where no `finally` runs) leaves none behind.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import subprocess
import sys
from collections.abc import Iterator

# Pure Python arithmetic: one core busy, no memory to speak of. The parent check every ~0.1 s is what
# ends a burner whose parent died before it could kill it.
_BURN = """
import os, signal, sys
signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl+C reaches the parent, which ends the burners itself
parent = int(sys.argv[1])
while os.getppid() == parent:
    n = 0
    for i in range(200_000):
        n += i * i
"""


# How long a command interrupted with Ctrl+C may take to stop (pytest ends its workers) before it is terminated.
GRACE_S = 30


def count(per_core: float) -> int:
    """How many burners `per_core` busy processes per core means on this machine."""
    return max(0, round(per_core * (os.cpu_count() or 1)))


@contextlib.contextmanager
def burning(per_core: float) -> Iterator[list[subprocess.Popen]]:
    """`per_core` busy processes per core while the block runs; none once it has ended."""
    procs: list[subprocess.Popen] = []
    try:
        for _ in range(count(per_core)):
            procs.append(subprocess.Popen([sys.executable, "-c", _BURN, str(os.getpid())],
                                          stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL))
        yield procs
    finally:
        for p in procs:
            p.kill()
        for p in procs:
            p.wait()


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--per-core", type=float, default=2.0, help="busy processes per core (default: 2)")
    ap.add_argument("command", nargs=argparse.REMAINDER, help="the command to run beside them (after --)")
    args = ap.parse_args(argv)
    command = args.command[1:] if args.command[:1] == ["--"] else args.command
    if not command:
        ap.error("name the command to run after --")
    with burning(args.per_core) as procs:
        print(f"burners: {len(procs)} busy processes ({args.per_core:g} per core) beside: {' '.join(command)}",
              flush=True)
        child = subprocess.Popen(command)
        try:
            return child.wait()
        except KeyboardInterrupt:  # in a terminal the command got the Ctrl+C too: it has a while to stop
            for p in procs:  # the load goes at once
                p.kill()
            with contextlib.suppress(subprocess.TimeoutExpired):
                child.wait(timeout=GRACE_S)
            return 130
        finally:
            if child.poll() is None:  # past its grace, or a second Ctrl+C
                child.terminate()
                child.wait()

if __name__ == "__main__":
    raise SystemExit(main())
