"""Every kernel the suite starts is pinned to one thread and runs the notebooks' fast mode."""

import os

# Set before any kernel starts: kernels inherit the environment. With pytest-xdist on 2 cores, two kernels
# with one thread each beat two kernels fighting over both cores.
os.environ.setdefault("PTLAB_FAST", "1")
for var in ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS"):
    os.environ.setdefault(var, "1")
os.environ.setdefault("MPLBACKEND", "Agg")
os.environ.setdefault("PYDEVD_DISABLE_FILE_VALIDATION", "1")
