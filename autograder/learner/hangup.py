"""Abandon a piece of work as soon as the one who asked for it hangs up.

The check server runs a check in its main thread, mostly blocked in the kernel's event loop. While it runs, a
thread watches the client's connection; when the client is gone (the learner pressed stop, the check cell's
time ran out) it sends the main thread SIGUSR1, whose handler raises ClientGone there. The check's own
clean-up (its kernel killed, its scratch removed) runs as for any other exception.

    with watching(conn):
        ...  # raises ClientGone when conn's peer hangs up
"""

from __future__ import annotations

import contextlib
import select
import signal
import socket
import threading


class ClientGone(BaseException):
    """The client hung up: abandon the work (a BaseException, so that no `except Exception` on the way takes it
    for a fault of the notebook being checked)."""


class _Watch:
    def __init__(self, conn: socket.socket):
        self.conn, self.lock, self.done = conn, threading.Lock(), threading.Event()
        self.armed = True
        self.thread = threading.Thread(target=self._watch, args=(threading.main_thread().ident,), daemon=True)
        self.thread.start()

    def _watch(self, main: int) -> None:
        while not self.done.wait(0.2):
            try:
                readable, _, _ = select.select([self.conn], [], [], 0)
                hung_up = bool(readable) and self.conn.recv(1, socket.MSG_PEEK) == b""
            except OSError:
                hung_up = True
            if hung_up:
                with self.lock:
                    if self.armed:
                        signal.pthread_kill(main, signal.SIGUSR1)
                return  # one signal at most: ClientGone is raised once per watch

    def disarm(self) -> None:
        # After this no signal is sent, and one already sent finds the handler disarmed: it does nothing.
        with self.lock:
            self.armed = False
        self.done.set()
        self.thread.join()


_current: _Watch | None = None


def _raise_if_armed(signum, frame) -> None:
    if _current is not None and _current.armed:
        raise ClientGone()


@contextlib.contextmanager
def watching(conn: socket.socket):
    """Run the block in the main thread; ClientGone is raised in it if `conn`'s peer hangs up meanwhile."""
    global _current
    previous = signal.signal(signal.SIGUSR1, _raise_if_armed)
    _current = watch = _Watch(conn)
    try:
        yield
    finally:
        try:
            watch.disarm()
        except ClientGone:  # it landed here, after the block: the block's own outcome stands
            watch.disarm()
        _current = None
        signal.signal(signal.SIGUSR1, previous)
