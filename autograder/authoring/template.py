"""The cells every notebook starts with. The builder writes them and the linter holds notebooks to them."""

from __future__ import annotations

from autograder.course import colab_badge

# Import name -> pip name. On Colab these ship (torch, numpy, matplotlib, scikit-learn): nothing installs.
BASE_NEEDS = {"torch": "torch", "numpy": "numpy", "matplotlib": "matplotlib", "sklearn": "scikit-learn"}
EXTRA_PIP_NAMES = {"onnx": "onnx", "onnxscript": "onnxscript", "onnxruntime": "onnxruntime"}


def header(title: str, tier: str, stem: str, intro: str) -> str:
    text = f"# {title}\n\n{colab_badge(tier, stem)}\n"
    return text + (f"\n{intro.strip()}\n" if intro.strip() else "")


def setup(extra: list[str]) -> str:
    needs = dict(BASE_NEEDS, **{m: EXTRA_PIP_NAMES.get(m, m) for m in extra})
    pairs = ", ".join(f'"{k}": "{v}"' for k, v in needs.items())
    return f'''# Setup. Works in JupyterLab, in CI and on Colab: on Colab it installs only what is missing and never
# touches torch (reinstalling it would replace Colab's CUDA build). No version strings are parsed.
import importlib.util
import subprocess
import sys

NEEDS = {{{pairs}}}
missing = [pip for module, pip in NEEDS.items() if importlib.util.find_spec(module) is None]
if missing and "google.colab" in sys.modules and "torch" not in missing:
    subprocess.run([sys.executable, "-m", "pip", "install", "-q", *missing], check=True)
elif missing:
    raise ImportError("missing packages: " + " ".join(missing) + " (run `make setup`, or pip install them)")'''


PARAMETERS = '''DEVICE = "auto"  # "auto", "cpu" or "cuda"
FAST = False  # True in CI: smaller data and fewer steps, same checks
SEED = 0'''

DERIVED = '''# Derived from the parameters above (papermill injects its values just before this cell).
import os
import random

import numpy as np
import torch

FAST = bool(FAST) or os.environ.get("PTLAB_FAST") == "1"
if DEVICE == "auto":
    DEVICE = "cuda" if torch.cuda.is_available() else "cpu"
if DEVICE == "cuda" and not torch.cuda.is_available():
    raise RuntimeError("DEVICE='cuda' was asked for, but this runtime has no CUDA device")
device = torch.device(DEVICE)


def seed_everything(seed: int) -> None:
    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)  # seeds every CUDA device too


seed_everything(SEED)
print(f"torch {torch.__version__} | device {device} | fast={FAST} | seed={SEED}")


def _observe(label, value, rtol=1e-4, atol=1e-6):
    """Hidden tests report answers here, and the grader compares them with the reference solution's answers
    outside this kernel, so no verdict rests on this kernel alone. It shows nothing in a notebook."""
    from IPython.display import display

    def plain(v):
        if v is None or isinstance(v, (bool, int, str)):
            return v
        if isinstance(v, float):
            return v if v == v and abs(v) != float("inf") else str(v)
        if isinstance(v, (list, tuple)):
            return [plain(x) for x in v]
        if isinstance(v, dict):
            return {str(k): plain(x) for k, x in v.items()}
        if isinstance(v, (torch.dtype, torch.device)):
            return str(v)
        try:
            t = torch.as_tensor(v).detach().to("cpu")
        except Exception:
            return f"<{type(v).__name__}>"
        flat = (torch.view_as_real(t) if t.is_complex() else t).double().flatten()
        return {"shape": list(t.shape), "l1": plain(flat.abs().sum().item()),  # no cancellation, unlike a sum
                "values": [plain(x) for x in flat[:: max(1, flat.numel() // 1024)].tolist()]}

    payload = {"label": label, "value": plain(value), "rtol": rtol, "atol": atol}
    display({"text/plain": "", "application/vnd.ptlab.observation+json": payload}, raw=True)'''


# The last two cells of every notebook: the self-check. Locked (the grader restores them from the source, and
# the tamper scan skips locked cells). The grader sets PTLAB_GRADING in every process it runs a notebook in,
# so the cell never starts a grader inside a grader.
SELFCHECK_INTRO_ID = "selfcheck_intro"
SELFCHECK_ID = "selfcheck"
SELFCHECK_IDS = (SELFCHECK_INTRO_ID, SELFCHECK_ID)

SELFCHECK_INTRO = '''## Check your work

Run the cell below to grade this notebook against all of its tests, the visible ones and the hidden ones, in a
fresh kernel of its own (a few seconds; the first check of a notebook takes about twice as long). It grades
the file **as saved**: save first (Ctrl+S), unsaved edits are not graded. Your progress over every notebook is
in `00_progress.ipynb` at the top of your work folder.'''

SELFCHECK = '''# Self-check: grades the saved file in a separate, sandboxed process. This kernel never sees the hidden tests.
import importlib.util
import os

if os.environ.get("PTLAB_GRADING"):
    pass  # the grader is running this notebook: nothing to check here
elif importlib.util.find_spec("autograder") is None:
    print("The course's grader is not installed here (Colab?): the visible tests above are what runs. "
          "For the hidden tests too, clone the course and run `make lab`.")
else:
    from autograder.selfcheck import check_this_notebook

    check_this_notebook()'''
