"""The live line: what a learner's step is doing and for how long, redrawn every second until it ends.

Issue 36: every step that can take more than 2 s says so, with seconds, setup included. One mechanism draws
all of them: the self-check and the interview and review check cells, the dashboard cell, show_solution,
`make interview`, `make review`, and setup's pip runs. The Makefile runs this module as a script
(`python -m autograder.learner.live_line WHAT -- COMMAND ...`) before anything is installed, so it imports
only the standard library.

Where the line goes:
- a notebook cell (`Notebook`): one display, updated in place; nothing on stderr.
- a terminal (`Terminal`): stdout, redrawn in place with \\r when stdout is a TTY; in a log or a pipe one line
  every LOG_EVERY seconds, so that a CI log shows the step is alive without a line a second.

Two ways to drive it: `run` starts a subprocess and redraws from the caller's thread while it runs (an
interrupt stops the subprocess's whole group and propagates); `ticking` redraws from a thread of its own while
the caller works in its own process (`step`: such work in a terminal).
"""

from __future__ import annotations

import contextlib
import html
import os
import signal
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field

TICK = 1.0  # seconds between two redraws
LOG_EVERY = 10.0  # seconds between two lines where stdout is not a terminal


def seconds(started: float, now: float | None = None) -> str:
    return f"{int((time.monotonic() if now is None else now) - started)} s"


def bundle(line: str) -> dict:
    """The line as a notebook shows it (the check cell's class, which the browser tests find)."""
    return {"text/plain": line,
            "text/html": f"<p class='ptlab-live ptlab-check-progress'><i>{html.escape(line)}</i></p>"}


class Notebook:
    """One display in the running cell, redrawn in place; `end` puts the step's result in its place."""

    def __init__(self, line: str):
        from IPython.display import display

        self.handle = display(bundle(line), raw=True, display_id=True)

    def show(self, line: str) -> None:
        self.handle.update(bundle(line), raw=True)

    def end(self, data: dict) -> None:
        self.handle.update(data, raw=True)


class Terminal:
    """stdout: redrawn with \\r on a TTY, else one line every `every` seconds (the first after `every`)."""

    def __init__(self, stream=None, every: float | None = None):
        self.stream = stream if stream is not None else sys.stdout
        isatty = getattr(self.stream, "isatty", None)
        self.tty = bool(isatty and isatty())
        self.every = LOG_EVERY if every is None else every
        self.last, self.width = time.monotonic(), 0
        self.lock = threading.Lock()  # `ticking`'s thread and the caller's prints share the line

    def show(self, line: str) -> None:
        with self.lock:
            if self.tty:
                self.stream.write("\r" + line + " " * max(0, self.width - len(line)))
                self.width = len(line)
            elif time.monotonic() - self.last >= self.every:
                self.stream.write(line + "\n")
                self.last = time.monotonic()
            else:
                return
            self.stream.flush()

    def end(self) -> None:
        """Clear the line (on a TTY), so that what is printed next starts at the left margin."""
        with self.lock:
            if self.tty and self.width:
                self.stream.write("\r" + " " * self.width + "\r")
                self.stream.flush()
            self.width = 0

    def print(self, text: str) -> None:
        """A line of the step's own output, under which the live line goes on."""
        self.end()
        with self.lock:
            self.stream.write(text + "\n")
            self.stream.flush()


@contextlib.contextmanager
def ticking(show):
    """Call `show()` every TICK seconds from a thread of its own until the block ends (work in this process)."""
    done = threading.Event()

    def tick():
        while not done.wait(TICK):
            show()

    show()
    thread = threading.Thread(target=tick, daemon=True)
    thread.start()
    try:
        yield
    finally:
        done.set()
        thread.join(timeout=5)


class Step:
    """A step of this process in a terminal: "PREFIX: DOING ... N s", DOING changed as the work moves on."""

    def __init__(self, prefix: str, doing: str, line: Terminal):
        self.prefix, self.now_doing, self.line, self.started = prefix, doing, line, time.monotonic()

    def doing(self, what: str) -> None:
        self.now_doing = what
        self.show()

    def show(self) -> None:
        self.line.show(f"{self.prefix}: {self.now_doing} ... {seconds(self.started)}")

    def print(self, text: str) -> None:
        self.line.print(text)


@contextlib.contextmanager
def step(prefix: str, doing: str, stream=None):
    """The block's work under a live line in the terminal (stdout); yields the Step. The line is cleared at the
    end, so the step's own last words follow it as they did before."""
    s = Step(prefix, doing, Terminal(stream))
    try:
        with ticking(s.show):
            yield s
    finally:
        s.line.end()


# --- a subprocess ---------------------------------------------------------------------------------------------

@dataclass
class Finished:
    code: int | None  # None: stopped at the limit
    out: list[str] = field(default_factory=list)
    err: list[str] = field(default_factory=list)


def _pump(stream, take) -> threading.Thread:
    def read():
        for line in stream:
            take(line.rstrip("\n"))

    thread = threading.Thread(target=read, daemon=True)
    thread.start()
    return thread


def stop(proc: subprocess.Popen) -> None:
    """The subprocess and whatever it started (its own process group, which `run` gives it)."""
    for sig, wait in ((signal.SIGTERM, 5), (signal.SIGKILL, 5)):
        try:
            os.killpg(proc.pid, sig)
        except (ProcessLookupError, PermissionError):
            pass
        try:
            proc.wait(timeout=wait)
            return
        except subprocess.TimeoutExpired:
            continue


def run(cmd: list[str], show, env: dict | None = None, limit: float | None = None, on_err=None) -> Finished:
    """Run `cmd`, calling `show()` every TICK seconds until it ends. Its stdout and stderr lines come back
    (`on_err` also gets each stderr line as it comes). Past `limit` seconds it is stopped (code None). In a
    session of its own: a kernel interrupt reaches only this process, which then stops the command itself,
    rather than the command printing a traceback of its own."""
    proc = subprocess.Popen(cmd, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, start_new_session=True)
    done = Finished(None)

    def take_err(line: str) -> None:
        done.err.append(line)
        if on_err is not None:
            on_err(line)

    readers = [_pump(proc.stdout, done.out.append), _pump(proc.stderr, take_err)]
    started = time.monotonic()
    try:
        while True:
            show()
            try:
                proc.wait(timeout=TICK)
                break
            except subprocess.TimeoutExpired:
                if limit is not None and time.monotonic() - started > limit:
                    stop(proc)
                    return done
    except BaseException:
        stop(proc)
        raise
    for r in readers:
        r.join(timeout=5)
    done.code = proc.returncode
    return done


# --- setup's steps, before anything is installed ---------------------------------------------------------------

def main(argv: list[str] | None = None) -> int:
    """python -m autograder.learner.live_line [--drop PREFIX]... WHAT -- COMMAND...: COMMAND under a live line
    "WHAT ... N s", then its output (lines starting with a --drop prefix left out) and "WHAT: done in N s".
    When it fails, all its output and the exit code, on stderr, and this exits with its code."""
    args = list(sys.argv[1:] if argv is None else argv)
    drop: list[str] = []
    while args[:1] == ["--drop"]:
        drop.append(args[1])
        args = args[2:]
    if "--" not in args or args.index("--") != 1 or len(args) < 3:
        print("usage: python -m autograder.learner.live_line [--drop PREFIX]... WHAT -- COMMAND...", file=sys.stderr)
        return 2
    what, cmd = args[0], args[2:]
    line, started = Terminal(), time.monotonic()
    try:
        done = run(cmd, lambda: line.show(f"{what} ... {seconds(started)}"))
    except KeyboardInterrupt:
        line.end()
        print(f"{what}: interrupted after {seconds(started)}", file=sys.stderr)
        return 130
    except OSError as e:
        line.end()
        print(f"{what}: could not start {cmd[0]}: {e}", file=sys.stderr)
        return 127
    line.end()
    kept = [ln for ln in done.out + done.err if not ln.startswith(tuple(drop))]
    if done.code != 0:
        for ln in done.out + done.err:
            print(ln, file=sys.stderr)
        print(f"{what}: FAILED after {seconds(started)} (exit code {done.code}): {' '.join(cmd)}", file=sys.stderr)
        return done.code if done.code and done.code > 0 else 1
    for ln in kept:
        print(ln)
    print(f"{what}: done in {seconds(started)}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
