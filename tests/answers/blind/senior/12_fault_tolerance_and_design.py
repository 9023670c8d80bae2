"""Blind set for notebooks/senior/12_fault_tolerance_and_design.ipynb, written from release/ alone (issue 33)."""

_SAVE_BY_PID_NAME = '''
import io


def atomic_save(obj, path: str) -> None:
    path = os.path.abspath(path)
    folder = os.path.dirname(path)
    buf = io.BytesIO()
    torch.save(obj, buf)  # a failure while pickling happens before any file is touched
    tmp = os.path.join(folder, f".{os.path.basename(path)}.{os.getpid()}.partial")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
    try:
        try:
            view = memoryview(buf.getbuffer())
            while view:
                view = view[os.write(fd, view):]
            os.fsync(fd)
        finally:
            os.close(fd)
        os.rename(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise
    if hasattr(os, "O_DIRECTORY"):
        dfd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY)
        try:
            os.fsync(dfd)
        finally:
            os.close(dfd)
'''

_RESUME = '''
def _save_atomically(state, path):
    fd, tmp = tempfile.mkstemp(dir=os.path.dirname(os.path.abspath(path)), suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as f:
            torch.save(state, f)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.remove(tmp)
        raise


def train_resumable(ckpt_dir: str, total_steps: int, every: int, crash_at=None):
    model, opt = make_job()
    done = 0
    for path in sorted(glob.glob(os.path.join(ckpt_dir, "step_*.pt")), reverse=True):
        try:
            state = torch.load(path, map_location=device, weights_only=False)
        except Exception:
            continue
        model.load_state_dict(state["model"])
        opt.load_state_dict(state["opt"])
        done = state["step"]
        torch.set_rng_state(state["rng"].cpu())
        if torch.cuda.is_available() and state.get("cuda_rng") is not None:
            torch.cuda.set_rng_state_all([s.cpu() for s in state["cuda_rng"]])
        break
    for step in range(done, total_steps):
        train_step(model, opt, step)
        completed = step + 1
        if crash_at is not None and completed == crash_at:
            raise SimulatedCrash(f"crashed after step {completed}")
        if completed % every == 0:
            state = {"model": model.state_dict(), "opt": opt.state_dict(), "step": completed,
                     "rng": torch.get_rng_state(),
                     "cuda_rng": torch.cuda.get_rng_state_all() if torch.cuda.is_available() else None}
            _save_atomically(state, os.path.join(ckpt_dir, f"step_{completed:06d}.pt"))
    return model
'''

_RESUME_ALT = '''
import io


def _write_atomic(blob: bytes, path: str) -> None:
    tmp = f"{path}.{os.getpid()}.inflight"
    try:
        with open(tmp, "wb") as f:
            f.write(blob)
            f.flush()
            os.fsync(f.fileno())
        os.rename(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.remove(tmp)
        raise


def _step_of(path):
    return int(os.path.basename(path)[len("step_"):-len(".pt")])


def train_resumable(ckpt_dir: str, total_steps: int, every: int, crash_at=None):
    model, opt = make_job()
    found = [p for p in glob.glob(os.path.join(ckpt_dir, "step_*.pt"))
             if os.path.basename(p)[5:-3].isdigit()]
    start = 0
    for path in sorted(found, key=_step_of, reverse=True):
        try:
            with open(path, "rb") as f:
                snap = torch.load(io.BytesIO(f.read()), map_location="cpu", weights_only=False)
            model.load_state_dict(snap["weights"])
            opt.load_state_dict(snap["optimizer"])
        except Exception:
            model, opt = make_job()  # a half-loaded checkpoint must not leak into the fallback
            continue
        start = int(snap["completed"])
        torch.set_rng_state(snap["cpu_rng"])
        if snap["cuda_rngs"]:
            torch.cuda.set_rng_state_all(snap["cuda_rngs"])
        break
    completed = start
    while completed < total_steps:
        train_step(model, opt, completed)
        completed += 1
        if completed == crash_at:
            raise SimulatedCrash(completed)
        if completed % every:
            continue
        snap = {"weights": model.state_dict(), "optimizer": opt.state_dict(), "completed": completed,
                "cpu_rng": torch.get_rng_state(),
                "cuda_rngs": torch.cuda.get_rng_state_all() if torch.cuda.is_available() else []}
        buf = io.BytesIO()
        torch.save(snap, buf)
        _write_atomic(buf.getvalue(), os.path.join(ckpt_dir, f"step_{completed:06d}.pt"))
        for old in sorted(glob.glob(os.path.join(ckpt_dir, "step_*.pt")))[:-3]:  # rotation: keep three
            os.remove(old)
    return model
'''

_SAVE_IN_SYSTEM_TMP = "\n" + _RESUME[_RESUME.index("def _save_atomically"):_RESUME.index("\n\n\ndef train_resumable")] \
    .replace("def _save_atomically(state, path):", "def atomic_save(obj, path: str) -> None:") \
    .replace("dir=os.path.dirname(os.path.abspath(path)), ", "").replace("torch.save(state, f)", "torch.save(obj, f)") + "\n"

_ELASTIC_NO_CHECK = '''
def rank_indices(global_step: int, global_batch: int, rank: int, world_size: int, dataset_size: int) -> list:
    share = global_batch // world_size
    start = global_step * global_batch + rank * share
    return [(start + j) % dataset_size for j in range(share)]
'''

_ELASTIC_STRIDED = '''
def rank_indices(global_step: int, global_batch: int, rank: int, world_size: int, dataset_size: int) -> list:
    if global_batch % world_size:
        raise ValueError(f"a global batch of {global_batch} does not split evenly over {world_size} ranks")
    first = global_step * global_batch
    return [p % dataset_size for p in range(first + rank, first + global_batch, world_size)]
'''

WRONG = {
    "ex1_atomic_save": ("the temporary file goes to the system temp directory, not next to the checkpoint",
                        _SAVE_IN_SYSTEM_TMP),
    "ex2_resume": ("does not save or restore the RNG state, so dropout draws differ after the resume",
                   _RESUME.replace('        torch.set_rng_state(state["rng"].cpu())\n', "")
                   .replace('"rng": torch.get_rng_state(),', '"rng": None,')),
    "ex3_elastic": ("silently drops the remainder when the global batch does not divide by the world size "
                    "instead of raising ValueError", _ELASTIC_NO_CHECK),
}

ALT = {
    "ex1_atomic_save": _SAVE_BY_PID_NAME,
    "ex2_resume": _RESUME_ALT,
    "ex3_elastic": _ELASTIC_STRIDED,
}
