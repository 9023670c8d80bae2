# PyTorch Interview Lab. Two commands matter: `make lab` (study) and `make test` (prove it works).
SHELL := /bin/bash
.SHELLFLAGS := -eo pipefail -c
.DEFAULT_GOAL := help

PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed
TRITON_STAMP := $(VENV)/.installed-triton
# make lab TRITON=1: also install Triton (~1 GB) for the Triton notebook; make test always does.
TRITON ?=
# The CPU wheel that lies on this machine's disk. GPU users: make setup TORCH="torch --index-url <cuda index>"
TORCH ?= torch==2.13.0
WORKERS ?= 2
# One worker more than cores: a third of the suite waits (time limits that must expire, a cluster, a browser,
# kernel launches), and a third worker fills the core that such a wait leaves idle.
TEST_WORKERS ?= 3
BENCH_ARGS ?=
NB ?=
SUBMITTED ?= submitted
export PYDEVD_DISABLE_FILE_VALIDATION := 1
# Jupyter refuses to start as root (containers, CI images) unless told that this is intended.
ROOT_FLAG := $(if $(filter 0,$(shell id -u)),--allow-root,)
# A port of your choice (a learner's lab and an instructor's teach side by side); JupyterLab's own default else.
PORT_FLAG := $(if $(PORT),--ServerApp.port=$(PORT) --ServerApp.port_retries=0,)

# pip prints a warning per package for this machine's local index mirrors: noise, not news.
QUIET_PIP := grep -v "^WARNING: Location" || true

help: ## list the targets
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | awk -F':.*## ' '{printf "  make %-10s %s\n", $$1, $$2}'

setup: $(STAMP) ## create .venv and install everything (quick when already done)

# Each step of setup runs under a live line with its seconds (autograder/learner/live_line.py: the standard library
# only, so it runs before anything is installed); a failing step prints pip's own error and stops make.
LIVE = $(PY) -m autograder.learner.live_line --drop "WARNING: Location"

$(STAMP): pyproject.toml
	@test -x $(PY) || $(PYTHON) -m autograder.learner.live_line "setup: creating $(VENV)" -- $(PYTHON) -m venv $(VENV)
	@echo "setup: installing into $(VENV), once: PyTorch ($(TORCH): the CPU wheel is a 190 MB download, 750 MB installed),"
	@echo "setup: then JupyterLab, nbgrader, papermill, numpy, matplotlib, scikit-learn, ONNX, Dask and the test tools"
	@echo "setup: (about 1.9 GB installed in all); each step below counts its seconds"
	@$(LIVE) "setup: upgrading pip" -- $(PY) -m pip install -q --upgrade pip
	@$(LIVE) "setup: installing PyTorch ($(TORCH))" -- $(PY) -m pip install -q $(TORCH)
	@$(LIVE) "setup: installing JupyterLab, nbgrader and the rest of pyproject.toml" -- $(PY) -m pip install -q -e ".[dev]"
	@$(LIVE) "setup: loading torch once" -- $(PY) -c "import torch, nbgrader, papermill; print('setup: torch', torch.__version__, '| cuda', torch.cuda.is_available())"
	@$(PY) -m autograder lab-settings >/dev/null
	@touch $(STAMP)

setup-triton: $(TRITON_STAMP) ## add Triton (~1 GB) for senior/20_triton_kernels (make test does this itself)

$(TRITON_STAMP): $(STAMP)
	@echo "setup: installing Triton for the Triton notebook (~1 GB unpacked, once)"
	@$(PY) -m pip install -q -e ".[dev,kernels]" 2>&1 | { $(QUIET_PIP); }
	@$(PY) -c "import triton; print('setup: triton', triton.__version__)"
	@touch $(TRITON_STAMP)

release: setup ## regenerate the student notebooks in release/ with nbgrader
	@$(PY) -m autograder release

lab: setup $(if $(TRITON),setup-triton) release ## set up (TRITON=1 adds Triton, PORT=8890 another port), copy the student notebooks to work/ (never overwriting yours), open JupyterLab
	@$(PY) -m autograder workdir work
	@echo "lab: your notebooks are in work/; check one with its toolbar's Save and check (Ctrl+Shift+Enter), 00_progress.ipynb for the map"
	@# The learner's config (nbgrader's instructor tools off) for this launch only; make teach keeps them.
	@# exec: JupyterLab keeps this shell's pid, PTLAB_LAB_PID, and the check server leaves when it stops.
	@learner=$$($(PY) -m autograder lab-settings --learner-dir) && \
	  JUPYTER_CONFIG_PATH="$$learner$${JUPYTER_CONFIG_PATH:+:$$JUPYTER_CONFIG_PATH}" \
	  PTLAB_CHECK_SERVER=1 PTLAB_LAB_PID=$$$$ exec $(VENV)/bin/jupyter lab --notebook-dir=work --LabApp.default_url=/lab/tree/00_progress.ipynb $(ROOT_FLAG) $(PORT_FLAG)

workdir: setup release ## copy the student notebooks into work/, as make lab does, without opening JupyterLab (never overwrites yours): .venv/bin/python -m autograder workdir work
	@$(PY) -m autograder workdir work

progress: setup ## your progress over work/: scores, failing cells, topic mastery (re-checks only what changed)
	@$(PY) -m autograder progress $(if $(DIR),$(DIR),work) --png $(if $(DIR),$(DIR),work)/progress.png

test: setup setup-triton ## lint, unit tests, the grading contract of every notebook (papermill runs the references), nbval
	@$(PY) -m autograder lint
	@# One run for the unit tests and nbval: one scope per notebook and per module (conftest.py), longest first.
	@$(PY) -m pytest -n $(TEST_WORKERS) --dist loadscope --no-loadscope-reorder -q -p no:cacheprovider \
	  --nbval-lax tests notebooks

test-load: setup setup-triton ## the suite with two busy processes per core beside it, then every solved notebook graded with full marks under that load (long; PTLAB_UNDER_LOAD_NOTEBOOKS=junior/02,mid/16 narrows the second part)
	@$(PY) -m ci.burners --per-core 2 -- $(PY) -m pytest -n $(TEST_WORKERS) --dist loadscope --no-loadscope-reorder -q \
	  -p no:cacheprovider --nbval-lax tests notebooks
	@$(PY) -m pytest -n 0 -q -p no:cacheprovider -m under_load tests/test_under_load.py

interview: setup ## a mock interview: make interview LEVEL=mid MINUTES=45 [TOPICS=llm|M31,M32] [SEED=7] (work/interviews/)
	@$(PY) -m autograder interview --level $(if $(LEVEL),$(LEVEL),mid) --minutes $(if $(MINUTES),$(MINUTES),45) \
	  $(if $(TOPICS),--topics "$(TOPICS)") $(if $(SEED),--seed $(SEED))

review: setup ## the exercises due for review today, blank, with hints (work/review/)
	@$(PY) -m autograder review

# A graded notebook is a result, not a build failure: make says "Error" for any non-zero exit and can itself exit
# only 0 or 2, so the target exits 0 for full marks and for "not yet" (its last line says which) and fails (2)
# only when the file cannot be graded. Scripts read `python -m autograder check`'s own code: 0, 1, 2.
check: setup ## self-check one notebook: make check NB=work/junior/01_tensors_and_memory.ipynb
	@test -n "$(NB)" || { echo "usage: make check NB=path/to/notebook.ipynb"; exit 2; }
	@code=0; $(PY) -m autograder check "$(NB)" || code=$$?; case $$code in \
	  0) echo "check: full marks";; \
	  1) echo "check: not yet full marks (fix the FAIL rows above, then make check again)";; \
	  *) exit 2;; esac

grade: setup ## grade a class: make grade SUBMITTED=submitted [ROSTER=roster.csv: names in formgrader] (nbgrader layout <student>/<tier>/<nb>.ipynb)
	@$(PY) -m autograder grade "$(SUBMITTED)" --workers $(WORKERS) --out grades.csv --feedback feedback \
	  --gradebook sqlite:///gradebook.db $(if $(ROSTER),--roster "$(ROSTER)")

teach: setup ## for instructors: JupyterLab on the course with nbgrader's formgrader (Nbgrader menu > Formgrader) [PORT=8890]
	@mkdir -p exchange
	@echo "teach: formgrader reads gradebook.db and autograded/ (make grade writes both); Nbgrader menu > Formgrader"
	@# A workspace of its own: the learner's lab (make lab) keeps its open tabs, and this one its own.
	@JUPYTERLAB_WORKSPACES_DIR="$(CURDIR)/.teach-workspaces" $(VENV)/bin/jupyter lab --notebook-dir=. $(ROOT_FLAG) $(PORT_FLAG)

ci-cpu: setup setup-triton ## run every solved notebook with papermill on the CPU
	@$(PY) ci/run_notebooks.py --device cpu --workers $(WORKERS)

ci-cuda: setup ## run every solved notebook with papermill on CUDA (fails without CUDA)
	@$(PY) ci/run_notebooks.py --device cuda --workers 1

ci-colab: setup ## before a release: every solved and every student notebook on Colab's versions (ci/colab-runtime.txt; builds its environment once in ~/.cache/ptlab, ~3 GB)
	@$(PY) ci/colab.py --workers $(WORKERS)

bench: setup ## timing figures (BENCH_ARGS: --notebooks junior/02,mid/16, --load 2, --skip-class ...); the 200-student load test: make bench BENCH_ARGS="--students 200 --skip-curriculum --skip-check --baseline-students 10"
	@$(PY) ci/bench.py $(BENCH_ARGS)

learner-times: setup ## the learner's waits in seconds, for the README: the first make lab in a fresh clone, then each command (a quiet machine; TIMES_ARGS="--only review")
	@$(PY) ci/learner_times.py $(TIMES_ARGS)

gradescope-offline: setup ## maintainers: Gradescope's setup.sh from a real wheel cache with no network, then run_autograder on a hand-in (~400 MB of wheels, a few minutes)
	@mkdir -p .ptlab-cache/gradescope-wheels
	@$(PY) -c "from autograder.classroom.course_copy import dependencies as d; t, r = d(); print(t, *r, sep='\n')" > .ptlab-cache/gradescope-requirements.txt
	@$(PY) -m pip wheel -q -w .ptlab-cache/gradescope-wheels -r .ptlab-cache/gradescope-requirements.txt 2>&1 | { $(QUIET_PIP); }
	@PTLAB_GRADESCOPE_WHEELS="$(CURDIR)/.ptlab-cache/gradescope-wheels" $(PY) -m pytest -q -n 0 tests/test_gradescope_offline.py

hooks: setup ## install the pre-commit hooks (ruff, notebook conventions, release freshness, import layout)
	@$(VENV)/bin/pre-commit install

lint: setup ## the notebook conventions and ruff
	@$(PY) -m autograder lint
	@$(VENV)/bin/ruff check autograder ci tests notebooks

.PHONY: help setup setup-triton release lab workdir progress test test-load check grade teach interview review ci-cpu ci-cuda ci-colab bench learner-times gradescope-offline hooks lint
