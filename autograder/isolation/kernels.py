"""Kernel managers for student code: a jupyter_client manager whose kernel starts inside the sandbox (sandbox.py)
and talks over unix sockets, and the one way to make sure a kernel is gone."""

from __future__ import annotations

import contextlib
import functools
import os
import signal

from traitlets.config import Config


def kill_kernel(km) -> None:
    """A kernel's whole process group goes (jupyter_client starts each kernel in a session of its own)."""
    process = getattr(getattr(km, "provisioner", None), "process", None)
    if process is not None and process.poll() is None:
        with contextlib.suppress(OSError):
            os.killpg(process.pid, signal.SIGKILL)
        with contextlib.suppress(Exception):
            process.wait(timeout=5)


@functools.lru_cache(maxsize=1)
def sandboxed_manager():
    """A kernel manager whose kernel starts inside autograder.isolation.sandbox and talks over unix sockets
    (a kernel without a network cannot reach TCP ports)."""
    from jupyter_client.manager import AsyncKernelManager
    from traitlets import Unicode

    class SandboxedKernelManager(AsyncKernelManager):
        scratch = Unicode("", config=True)

        def format_kernel_cmd(self, extra_arguments=None):
            from jupyter_core.paths import jupyter_runtime_dir

            from autograder.isolation.sandbox import launcher

            return [*launcher(self.scratch, jupyter_runtime_dir()), *super().format_kernel_cmd(extra_arguments)]

    return SandboxedKernelManager


@functools.lru_cache(maxsize=1)  # one class per process, as sandboxed_manager
def plain_manager():
    """Where the sandbox is off (PTLAB_SANDBOX=0, a trusted machine): an ordinary kernel with this process's
    whole environment, plus what every grading kernel gets (environment.grading)."""
    from jupyter_client.manager import AsyncKernelManager

    from autograder.isolation.environment import grading

    class GradingKernelManager(AsyncKernelManager):
        async def start_kernel(self, **kw):
            kw["env"] = grading(kw.get("env") or os.environ)
            return await super().start_kernel(**kw)

    return GradingKernelManager


def manager_config(config: Config, manager, scratch: str) -> Config:
    """`config` plus what a sandboxed kernel needs: its scratch directory, as its working directory (never the
    course tree), and unix sockets and its connection file in there."""
    config = Config(config)
    # The connection file too: jupyter_client would make it in the grader's temporary folder, where a grader
    # killed outright would leave it.
    config[manager.__name__] = Config(scratch=scratch, transport="ipc", ip=os.path.join(scratch, "kernel-ipc"),
                                      connection_file=os.path.join(scratch, ".ptlab-connection.json"))
    return config
