"""The environment a kernel starts with: an allow-list of the grader's, nothing else.

A grader's environment holds what student code must never read (a cloud key, a token, a password), so a
kernel gets only what Python, torch, matplotlib and the kernel need, the course's own PTLAB_* switches and
the locale. Used by the launcher (sandbox.py) and for the fork server (zygote.py), whose own environment a
forked kernel would otherwise find in /proc/self/environ.
"""

from __future__ import annotations

import os

ALLOWED = frozenset({
    "PATH", "HOME", "LANG", "LANGUAGE", "TERM", "TZ", "USER", "LOGNAME", "TMPDIR",
    "PYTHONPATH", "PYTHONHASHSEED", "PYTHONDONTWRITEBYTECODE", "PYTHONUNBUFFERED", "PYTHONIOENCODING",
    "PYTHONWARNINGS", "PYTHONUTF8", "PYDEVD_DISABLE_FILE_VALIDATION",
    "MPLBACKEND", "MPLCONFIGDIR", "TORCHINDUCTOR_CACHE_DIR",
    # thread counts: a grader that pins them (the suite, a busy server) pins its kernels too
    "OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS", "NUMEXPR_NUM_THREADS",
    "VECLIB_MAXIMUM_THREADS", "TORCH_NUM_THREADS", "OMP_WAIT_POLICY",
    "JPY_PARENT_PID",  # set by jupyter_client; the init and the fork server drop it again
})
PREFIXES = ("LC_", "PTLAB_")


def allowed(name: str) -> bool:
    return name in ALLOWED or name.startswith(PREFIXES)


# OpenMP's threads spin while they wait for work by default. On a busy machine (a laptop running other things, a
# class graded by several workers) the spinning threads take the cores the working ones need: 100 steps of a small
# MLP took 27 s on 2 threads beside 4 busy processes on 2 cores, 0.5 s with passive waiting (2026-11-28, issue 38).
# The price on a quiet machine: a tight loop of tiny operations runs slower (300 such steps: 0.4 s -> 1.0 s),
# large ones do not (a 512x512 matmul the same); a check is a few seconds either way, and load no longer decides.
WAIT_POLICY = "PASSIVE"


def for_kernel(env: dict[str, str] | None = None) -> dict[str, str]:
    """`env` (by default this process's) without anything off the allow-list, and what every grading kernel
    gets: the grading mark, and OpenMP's threads waiting passively unless the grader says otherwise."""
    env = os.environ if env is None else env
    return grading({k: v for k, v in env.items() if allowed(k)})


def grading(env: dict[str, str]) -> dict[str, str]:
    """`env` as a grading kernel has it, also where no sandbox filters it (PTLAB_SANDBOX=0): the grading mark
    (a notebook's self-check cell then does nothing while graded; only kernels carry it, never the grader's own
    process, so a grade run in a process does not change what runs there afterwards) and OpenMP's wait."""
    from autograder.course import GRADING_ENV

    env = dict(env)
    env.setdefault("OMP_WAIT_POLICY", WAIT_POLICY)
    env[GRADING_ENV] = "1"
    return env
