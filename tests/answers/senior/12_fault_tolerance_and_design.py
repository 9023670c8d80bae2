"""Known-wrong and alternative answers for senior/12_fault_tolerance_and_design."""

from functools import partial

from tests.answers.senior import edited, reference

_ref = partial(reference, "senior/12_fault_tolerance_and_design")

EX1_WRONG_DIRECT = '''
def atomic_save(obj, path):
    torch.save(obj, path)
'''

EX1_WRONG_NO_CLEANUP = '''
def atomic_save(obj, path):
    tmp = path + ".tmp"
    torch.save(obj, tmp)
    os.replace(tmp, path)
'''

EX1_WRONG_SYSTEM_TMP = edited(edited(_ref("ex1_atomic_save"), "    directory = os.path.dirname(os.path.abspath(path))\n"),
                              'tempfile.mkstemp(prefix=os.path.basename(path) + ".", suffix=".tmp", dir=directory)',
                              'tempfile.mkstemp(suffix=".tmp")  # the system temp dir: may be another filesystem')

EX1_ALT = '''
def atomic_save(obj, path):
    folder = os.path.dirname(os.path.abspath(path)) or "."
    tmp_file = tempfile.NamedTemporaryFile(dir=folder, prefix=".ckpt-", delete=False)
    try:
        with tmp_file:
            torch.save(obj, tmp_file)
            tmp_file.flush()
            os.fsync(tmp_file.fileno())
        os.replace(tmp_file.name, path)
        dir_fd = os.open(folder, os.O_RDONLY)
        try:
            os.fsync(dir_fd)  # make the rename itself durable
        finally:
            os.close(dir_fd)
    except BaseException:
        try:
            os.unlink(tmp_file.name)
        except FileNotFoundError:
            pass
        raise
'''

EX2_WRONG_NO_RNG = edited(_ref("ex2_resume"), """        torch.set_rng_state(ck["rng_cpu"].cpu())  # RNG states are CPU byte tensors, whatever map_location did
        if ck.get("rng_cuda") is not None and torch.cuda.is_available():
            torch.cuda.set_rng_state_all([s.cpu() for s in ck["rng_cuda"]])
""")
EX2_WRONG_NO_OPT = edited(_ref("ex2_resume"), '        opt.load_state_dict(ck["opt"])\n')

# the newest checkpoint, loaded without a try: no fallback to the one before
EX2_WRONG_NO_FALLBACK = edited(edited(_ref("ex2_resume"), """    for path in sorted(glob.glob(os.path.join(ckpt_dir, "step_*.pt")), reverse=True):
        try:
            ck = torch.load(path, map_location=device, weights_only=False)
        except Exception:
            continue  # corrupt or truncated: try the previous one
""", """    found = sorted(glob.glob(os.path.join(ckpt_dir, "step_*.pt")))
    if found:
        ck = torch.load(found[-1], map_location=device, weights_only=False)
"""), "        break\n")

# Another design the statement allows (review finding S-12.1): it rotates checkpoints, keeping only the two
# newest, and writes a `latest` pointer file next to them; it stores the RNG inside a nested "rng" dict,
# tracks the step in a while loop, and validates a checkpoint by loading it fully before touching the model.
EX2_ALT = '''
import re


def _ckpt_steps(d):
    out = []
    for name in os.listdir(d):
        m = re.fullmatch(r"step_(\\d{6})\\.pt", name)
        if m:
            out.append(int(m.group(1)))
    return sorted(out)


def _write(d, step, payload):
    fd, tmp = tempfile.mkstemp(dir=d, suffix=".partial")
    with os.fdopen(fd, "wb") as f:
        torch.save(payload, f)
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, os.path.join(d, "step_%06d.pt" % step))
    for old in _ckpt_steps(d)[:-2]:  # rotation: keep the two newest
        os.remove(os.path.join(d, "step_%06d.pt" % old))
    with open(os.path.join(d, "latest.tmp"), "w") as f:
        f.write("step_%06d.pt\\n" % step)
    os.replace(os.path.join(d, "latest.tmp"), os.path.join(d, "latest"))


def train_resumable(ckpt_dir, total_steps, every, crash_at=None):
    model, opt = make_job()
    step = 0
    for s in reversed(_ckpt_steps(ckpt_dir)):
        try:
            payload = torch.load(os.path.join(ckpt_dir, "step_%06d.pt" % s), map_location="cpu",
                                 weights_only=False)
        except Exception:
            continue
        model.load_state_dict(payload["model"])
        opt.load_state_dict(payload["optimizer"])
        torch.set_rng_state(payload["rng"]["torch"])
        if torch.cuda.is_available() and payload["rng"]["cuda"] is not None:
            torch.cuda.set_rng_state_all(payload["rng"]["cuda"])
        step = payload["completed"]
        break
    while step < total_steps:
        train_step(model, opt, step)
        step += 1
        if step == crash_at:
            raise SimulatedCrash("pulled the plug")
        if step % every == 0:
            _write(ckpt_dir, step, {
                "model": model.state_dict(), "optimizer": opt.state_dict(), "completed": step,
                "rng": {"torch": torch.get_rng_state(),
                        "cuda": torch.cuda.get_rng_state_all() if torch.cuda.is_available() else None}})
    return model
'''

EX3_WRONG_FIXED_PER_RANK = '''
def rank_indices(global_step, global_batch, rank, world_size, dataset_size):
    per_rank = 8
    start = (global_step * world_size + rank) * per_rank
    return [(start + i) % dataset_size for i in range(per_rank)]
'''

EX3_WRONG_STEP_OFFSET = edited(_ref("ex3_elastic"), "global_step * global_batch", "global_step * per_rank")

EX3_ALT = '''
def rank_indices(global_step, global_batch, rank, world_size, dataset_size):
    q, r = divmod(global_batch, world_size)
    if r:
        raise ValueError("global batch must be a multiple of the world size")
    base = global_step * global_batch
    return [(base + j) % dataset_size for j in range(rank, global_batch, world_size)]
'''

EX2_WRONG_IN_PLACE = edited(_ref("ex2_resume"), """        final = os.path.join(ckpt_dir, f"step_{step:06d}.pt")
        tmp = final + ".tmp"
        with open(tmp, "wb") as f:
            torch.save(state, f)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, final)
""", """        torch.save(state, os.path.join(ckpt_dir, f"step_{step:06d}.pt"))  # in place: not atomic
""")


WRONG = {
    "ex1_atomic_save": [("saves straight onto the live checkpoint", EX1_WRONG_DIRECT),
                        ("temp file + rename, but no fsync and no cleanup on failure", EX1_WRONG_NO_CLEANUP),
                        ("temporary file in the system temp dir, not next to the checkpoint", EX1_WRONG_SYSTEM_TMP)],
    "ex2_resume": [("does not restore the RNG state (dropout masks differ)", EX2_WRONG_NO_RNG),
                   ("does not restore the optimizer state (Adam moments reset)", EX2_WRONG_NO_OPT),
                   ("trusts the newest checkpoint without a fallback", EX2_WRONG_NO_FALLBACK),
                   ("writes each checkpoint in place instead of atomically", EX2_WRONG_IN_PLACE)],
    "ex3_elastic": [("keeps the per-rank batch fixed: the global batch changes with the world size", EX3_WRONG_FIXED_PER_RANK),
                    ("advances by the per-rank batch instead of the global batch", EX3_WRONG_STEP_OFFSET)],
}

ALT = {
    "ex1_atomic_save": EX1_ALT,
    "ex2_resume": EX2_ALT,
    "ex3_elastic": EX3_ALT,
}
