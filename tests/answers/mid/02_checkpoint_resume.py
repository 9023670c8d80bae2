"""Known-wrong and alternative answers for notebooks/mid/02_checkpoint_resume.ipynb."""

_LOAD_FULL = '''

def load_checkpoint(path, model, optimizer, scheduler):
    ckpt = torch.load(path, map_location=device, weights_only=False)
    model.load_state_dict(ckpt["model"])
    if "optimizer" in ckpt:
        optimizer.load_state_dict(ckpt["optimizer"])
    if "scheduler" in ckpt:
        scheduler.load_state_dict(ckpt["scheduler"])
    if "rng" in ckpt:
        torch.set_rng_state(ckpt["rng"])
    return ckpt.get("epoch", 0)
'''

WRONG = {
    "ex1_checkpoint": [
        ("saves model and optimizer but not the scheduler", '''\
def save_checkpoint(path, model, optimizer, scheduler, epoch):
    torch.save({"model": model.state_dict(), "optimizer": optimizer.state_dict(), "epoch": epoch,
                "rng": torch.get_rng_state()}, path)
''' + _LOAD_FULL),
        ("forgets the RNG state: dropout masks and shuffle order diverge after the resume", '''\
def save_checkpoint(path, model, optimizer, scheduler, epoch):
    torch.save({"model": model.state_dict(), "optimizer": optimizer.state_dict(),
                "scheduler": scheduler.state_dict(), "epoch": epoch}, path)
''' + _LOAD_FULL),
        ("saves only the model weights (optimizer moments lost, epoch restarts at 0)", '''\
def save_checkpoint(path, model, optimizer, scheduler, epoch):
    torch.save({"model": model.state_dict(), "scheduler": scheduler.state_dict(),
                "rng": torch.get_rng_state()}, path)
''' + _LOAD_FULL),
    ],
    "ex2_predict_lr": [
        ("thinks the learning rate resets to 0.1 at once", '''\
LR_FIRST_RESUMED_EPOCH = 0.1
LR_SECOND_RESUMED_EPOCH = 0.05
'''),
        ("thinks the optimizer state alone keeps the schedule going", '''\
LR_FIRST_RESUMED_EPOCH = 0.0125
LR_SECOND_RESUMED_EPOCH = 0.00625
'''),
    ],
    "ex3_portable": [
        ("pickles the whole module", '''\
def save_weights(model, path):
    torch.save(model, path)


def load_weights(path, build_model, device):
    return torch.load(path, map_location=device, weights_only=False)
'''),
        ("returns the result of load_state_dict (a key report) instead of the model", '''\
def save_weights(model, path):
    torch.save(model.state_dict(), path)


def load_weights(path, build_model, device):
    model = build_model().to(device)
    return model.load_state_dict(torch.load(path, map_location=device, weights_only=True))
'''),
    ],
    "ex4_strip_prefix": [
        ("str.replace removes 'module.' everywhere, also inside real names", '''\
def clean_state_dict(state):
    return {k.replace("_orig_mod.", "").replace("module.", ""): v for k, v in state.items()}
'''),
        ("strips only one 'module.' prefix", '''\
def clean_state_dict(state):
    return {(k[len("module."):] if k.startswith("module.") else k): v for k, v in state.items()}
'''),
    ],
    "ex5_loader": [
        ("no generator: the order follows the global RNG", '''\
def seed_worker(worker_id):
    np.random.seed(torch.initial_seed() % 2**32)
    random.seed(torch.initial_seed() % 2**32)


def make_loader(dataset, batch_size, seed, num_workers=0):
    return DataLoader(dataset, batch_size=batch_size, shuffle=True, num_workers=num_workers,
                      worker_init_fn=seed_worker)
'''),
        ("reseeds the global RNG instead of using a generator", '''\
def seed_worker(worker_id):
    np.random.seed(torch.initial_seed() % 2**32)
    random.seed(torch.initial_seed() % 2**32)


def make_loader(dataset, batch_size, seed, num_workers=0):
    torch.manual_seed(seed)
    return DataLoader(dataset, batch_size=batch_size, shuffle=True, num_workers=num_workers,
                      worker_init_fn=seed_worker)
'''),
    ],
    "ex6_repro_run": [
        ("relies on the seed set once at the top of the notebook", '''\
def reproducible_run(seed, epochs=2):
    model = MLP().to(device)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-2)
    loader = make_loader(train_ds, 32, seed)
    for _ in range(epochs):
        for xb, yb in loader:
            opt.zero_grad()
            F.cross_entropy(model(xb.to(device)), yb.to(device)).backward()
            opt.step()
    return copy.deepcopy(model.state_dict())
'''),
        ("seeds everything but never asks for deterministic algorithms", '''\
def reproducible_run(seed, epochs=2):
    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)
    model = MLP().to(device)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-2)
    loader = make_loader(train_ds, 32, seed)
    for _ in range(epochs):
        model.train()
        for xb, yb in loader:
            loss = F.cross_entropy(model(xb.to(device)), yb.to(device))
            opt.zero_grad(set_to_none=True)
            loss.backward()
            opt.step()
    return {k: v.detach().clone() for k, v in model.state_dict().items()}
'''),
        ("seeds after building the model: the initial weights are not reproducible", '''\
def reproducible_run(seed, epochs=2):
    model = MLP().to(device)
    seed_everything(seed)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-2)
    loader = make_loader(train_ds, 32, seed)
    for _ in range(epochs):
        for xb, yb in loader:
            opt.zero_grad()
            F.cross_entropy(model(xb.to(device)), yb.to(device)).backward()
            opt.step()
    return copy.deepcopy(model.state_dict())
'''),
    ],
}

ALT = {
    "ex1_checkpoint": '''\
def save_checkpoint(path, model, optimizer, scheduler, epoch):
    np_state = np.random.get_state()
    torch.save({
        "state": {"model": model.state_dict(), "optim": optimizer.state_dict(), "sched": scheduler.state_dict()},
        "next_epoch": epoch,
        "torch_rng": torch.get_rng_state(),
        "cuda_rng": torch.cuda.get_rng_state_all() if torch.cuda.is_available() else [],
        "py_rng": random.getstate(),
        "np_rng": (np_state[0], torch.from_numpy(np_state[1].astype(np.int64)), *np_state[2:]),
    }, path)


def load_checkpoint(path, model, optimizer, scheduler):
    ckpt = torch.load(path, map_location="cpu", weights_only=True)  # everything is tensors and plain types
    model.load_state_dict(ckpt["state"]["model"])
    optimizer.load_state_dict(ckpt["state"]["optim"])
    scheduler.load_state_dict(ckpt["state"]["sched"])
    torch.set_rng_state(ckpt["torch_rng"])
    if ckpt["cuda_rng"] and torch.cuda.is_available():
        torch.cuda.set_rng_state_all(ckpt["cuda_rng"])
    random.setstate(ckpt["py_rng"])
    name, keys, *rest = ckpt["np_rng"]
    np.random.set_state((name, keys.numpy().astype(np.uint32), *rest))
    return int(ckpt["next_epoch"])
''',
    "ex2_predict_lr": '''\
LR_FIRST_RESUMED_EPOCH = 0.1 * 0.5 ** 3
LR_SECOND_RESUMED_EPOCH = 0.1 * 0.5 ** 1
''',
    "ex3_portable": '''\
def save_weights(model, path):
    state = {name: tensor.detach().cpu() for name, tensor in model.state_dict().items()}
    torch.save(state, path)


def load_weights(path, build_model, device):
    model = build_model()
    model.load_state_dict(torch.load(path, map_location="cpu", weights_only=True), strict=True)
    return model.to(device)
''',
    "ex4_strip_prefix": '''\
from collections import OrderedDict

from torch.nn.modules.utils import consume_prefix_in_state_dict_if_present


def clean_state_dict(state):
    out = OrderedDict(state)
    while True:
        before = list(out)
        for prefix in ("module.", "_orig_mod."):
            consume_prefix_in_state_dict_if_present(out, prefix)
        if list(out) == before:
            return dict(out)
''',
    "ex5_loader": '''\
def seed_worker(worker_id):
    info = torch.utils.data.get_worker_info()
    random.seed(info.seed % 2**32)
    np.random.seed(info.seed % 2**32)


def make_loader(dataset, batch_size, seed, num_workers=0):
    from torch.utils.data import RandomSampler
    sampler = RandomSampler(dataset, generator=torch.Generator().manual_seed(seed))
    return DataLoader(dataset, batch_size=batch_size, sampler=sampler, num_workers=num_workers,
                      worker_init_fn=seed_worker, generator=torch.Generator().manual_seed(seed + 1))
''',
    "ex6_repro_run": '''\
def reproducible_run(seed, epochs=2):
    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)
    was_deterministic = torch.are_deterministic_algorithms_enabled()
    torch.use_deterministic_algorithms(True, warn_only=True)
    model = MLP().to(device)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-2)
    loader = make_loader(train_ds, 32, seed)
    try:
        for _ in range(epochs):
            model.train()
            for xb, yb in loader:
                loss = F.cross_entropy(model(xb.to(device)), yb.to(device))
                opt.zero_grad(set_to_none=True)
                loss.backward()
                opt.step()
    finally:
        torch.use_deterministic_algorithms(was_deterministic)
    return {k: v.detach().clone() for k, v in model.state_dict().items()}
''',
}
