"""One kernel kept ready while the current notebook runs (class grading only).

A kernel start costs about a second and a half before a notebook's first cell can run: a process, the
sandbox, ipykernel, then `import torch` in the setup cell. A grading worker knows another notebook is
coming, so it starts the next kernel (same sandbox, same launcher, a scratch directory of its own) and
imports the heavy modules in it while the current notebook runs. The notebook then finds `torch` already
in `sys.modules`; nothing else of the warm-up is visible to it (a silent execution, no history, no output).

A `check` of one notebook has no next notebook, so it starts its kernel as before.
"""

from __future__ import annotations

import asyncio
import atexit
import contextlib
import inspect
import multiprocessing.util
import shutil
import tempfile
import threading
from dataclasses import dataclass

from autograder.isolation.kernels import kill_kernel

# What every notebook's setup and derived cells import first; importing them early changes nothing the
# notebook can observe except the time its first cells take.
PRELOAD = "import torch, numpy, matplotlib"


@dataclass
class Warm:
    km: object  # a started AsyncKernelManager (sandboxed when the sandbox is on)
    scratch: str  # the kernel's working directory; removed with the kernel

    def discard(self) -> None:
        from autograder.isolation.sandbox import release

        kill_kernel(self.km)
        with contextlib.suppress(Exception):
            done = self.km.cleanup_resources()  # a coroutine on an async kernel manager
            if inspect.isawaitable(done):
                asyncio.run(done)
        release(self.scratch)
        shutil.rmtree(self.scratch, ignore_errors=True)


_enabled = False
_next: threading.Thread | None = None
_ready: list[Warm] = []
_lock = threading.Lock()


def enable() -> None:
    """Called once in each grading worker."""
    global _enabled
    _enabled = True
    # A pool worker leaves through os._exit, which skips atexit; multiprocessing's finalizers still run.
    multiprocessing.util.Finalize(None, _discard_all, exitpriority=10)
    atexit.register(_discard_all)


def _discard_all() -> None:
    if _next is not None:
        _next.join(timeout=30)
    with _lock:
        while _ready:
            _ready.pop().discard()


def _start(make_manager) -> None:
    scratch = tempfile.mkdtemp(prefix="ptlab-run-")
    try:
        km = make_manager(scratch)
        asyncio.run(km.start_kernel(cwd=scratch))  # as nbclient starts it: in its scratch directory
    except Exception:
        shutil.rmtree(scratch, ignore_errors=True)
        return  # the notebook will start its own kernel, as without warming
    warm = Warm(km, scratch)
    try:
        from jupyter_client import BlockingKernelClient

        kc = BlockingKernelClient()
        kc.load_connection_info(km.get_connection_info())
        kc.start_channels()
        try:
            # No wait_for_ready: a client without its manager would take a heartbeat not yet beating for a
            # dead kernel. The request waits in the socket until the kernel is up.
            msg_id = kc.execute(PRELOAD, silent=True, store_history=False)
            while kc.get_shell_msg(timeout=60)["parent_header"].get("msg_id") != msg_id:
                pass
        finally:
            kc.stop_channels()
    except Exception:
        warm.discard()
        return
    with _lock:
        _ready.append(warm)


def take(make_manager) -> Warm | None:
    """The kernel started for this notebook (or None: start one as usual), and the next one on its way.

    make_manager(scratch) builds an unstarted kernel manager for a scratch directory."""
    global _next
    if not _enabled:
        return None
    if _next is not None:
        _next.join()
    with _lock:
        warm = _ready.pop() if _ready else None
    _next = threading.Thread(target=_start, args=(make_manager,), daemon=True)
    _next.start()
    if warm is not None and warm.km.provisioner.process.poll() is not None:
        warm.discard()  # it died while waiting (killed from outside): not worth a notebook
        return None
    return warm
