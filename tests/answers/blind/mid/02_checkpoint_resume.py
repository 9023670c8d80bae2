"""Blind set for notebooks/mid/02_checkpoint_resume.ipynb, written from release/ alone (issue 33)."""

WRONG = {
    "ex1_checkpoint": ("saves model, optimizer, scheduler and epoch but no RNG state", '''
def save_checkpoint(path, model, optimizer, scheduler, epoch):
    torch.save({"model": model.state_dict(), "optimizer": optimizer.state_dict(),
                "scheduler": scheduler.state_dict(), "epoch": epoch}, path)


def load_checkpoint(path, model, optimizer, scheduler):
    ckpt = torch.load(path, map_location=device)
    model.load_state_dict(ckpt["model"])
    optimizer.load_state_dict(ckpt["optimizer"])
    scheduler.load_state_dict(ckpt["scheduler"])
    return ckpt["epoch"]
'''),
    "ex2_predict_lr": ("thinks the fresh optimizer's lr=0.1 is used until the scheduler steps", '''
LR_FIRST_RESUMED_EPOCH = 0.1
LR_SECOND_RESUMED_EPOCH = 0.05
'''),
    "ex3_portable": ("returns what load_state_dict returns (the key report), not the model", '''
def save_weights(model, path):
    torch.save(model.state_dict(), path)


def load_weights(path, build_model, device):
    model = build_model().to(device)
    return model.load_state_dict(torch.load(path, map_location=device, weights_only=True))
'''),
    "ex4_strip_prefix": ("removes one leading prefix only, so nested wrappers keep the inner one", '''
def clean_state_dict(state):
    out = {}
    for k, v in state.items():
        for prefix in ("_orig_mod.", "module."):
            if k.startswith(prefix):
                k = k[len(prefix):]
                break
        out[k] = v
    return out
'''),
    "ex5_loader": ("reseeds the global RNG inside the helper", '''
def seed_worker(worker_id):
    s = torch.initial_seed() % 2**32
    random.seed(s)
    np.random.seed(s)


def make_loader(dataset, batch_size, seed, num_workers=0):
    torch.manual_seed(seed)
    return DataLoader(dataset, batch_size=batch_size, shuffle=True, num_workers=num_workers,
                      worker_init_fn=seed_worker)
'''),
    "ex6_repro_run": ("switches deterministic algorithms on and never restores the previous setting", '''
def reproducible_run(seed, epochs=2):
    seed_everything(seed)
    torch.use_deterministic_algorithms(True)
    model = MLP().to(device)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-2)
    loader = make_loader(train_ds, 32, seed)
    model.train()
    for _ in range(epochs):
        for xb, yb in loader:
            xb, yb = xb.to(device), yb.to(device)
            opt.zero_grad()
            F.cross_entropy(model(xb), yb).backward()
            opt.step()
    return copy.deepcopy(model.state_dict())
'''),
}

ALT = {
    "ex1_checkpoint": '''
def save_checkpoint(path, model, optimizer, scheduler, epoch):
    kind, keys, pos, has_gauss, cached = np.random.get_state()
    rng = {"torch": torch.get_rng_state(), "python": random.getstate(),
           "numpy": [kind, torch.from_numpy(keys.astype(np.int64)), pos, has_gauss, cached]}
    if torch.cuda.is_available():
        rng["cuda"] = torch.cuda.get_rng_state_all()
    torch.save({"epoch": epoch, "rng": rng,
                "states": [model.state_dict(), optimizer.state_dict(), scheduler.state_dict()]}, path)


def load_checkpoint(path, model, optimizer, scheduler):
    ckpt = torch.load(path, map_location=device, weights_only=True)
    for obj, state in zip((model, optimizer, scheduler), ckpt["states"]):
        obj.load_state_dict(state)
    rng = ckpt["rng"]
    torch.set_rng_state(rng["torch"].cpu())
    if torch.cuda.is_available() and "cuda" in rng:
        torch.cuda.set_rng_state_all([s.cpu() for s in rng["cuda"]])
    version, internal, gauss = rng["python"]
    random.setstate((version, tuple(internal), gauss))
    kind, keys, pos, has_gauss, cached = rng["numpy"]
    np.random.set_state((kind, keys.cpu().numpy().astype(np.uint32), pos, has_gauss, cached))
    return int(ckpt["epoch"])
''',
    "ex2_predict_lr": '''
LR_FIRST_RESUMED_EPOCH = 0.1 * 0.5 ** 3
LR_SECOND_RESUMED_EPOCH = 0.1 * 0.5 ** 1
''',
    "ex3_portable": '''
def save_weights(model, path):
    torch.save({name: t.detach().cpu() for name, t in model.state_dict().items()}, path)


def load_weights(path, build_model, device):
    weights = torch.load(path, map_location="cpu", weights_only=True)
    model = build_model()
    model.load_state_dict(weights)
    return model.to(device)
''',
    "ex4_strip_prefix": '''
import re

_WRAPPERS = re.compile(r"^(?:module\\.|_orig_mod\\.)+")


def clean_state_dict(state):
    return dict((_WRAPPERS.sub("", key), value) for key, value in state.items())
''',
    "ex5_loader": '''
def seed_worker(worker_id):
    info = torch.utils.data.get_worker_info()
    base = (info.seed if info is not None else torch.initial_seed()) % (2 ** 32)
    np.random.seed(base)
    random.seed(base)


def make_loader(dataset, batch_size, seed, num_workers=0):
    gen = torch.Generator()
    gen.manual_seed(seed)
    sampler = torch.utils.data.RandomSampler(dataset, generator=gen)
    return DataLoader(dataset, batch_size=batch_size, sampler=sampler, num_workers=num_workers,
                      worker_init_fn=seed_worker, generator=gen)
''',
    "ex6_repro_run": '''
def reproducible_run(seed, epochs=2):
    if device.type == "cuda":
        os.environ.setdefault("CUBLAS_WORKSPACE_CONFIG", ":4096:8")
    before = torch.are_deterministic_algorithms_enabled()
    torch.use_deterministic_algorithms(True)
    try:
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
    finally:
        torch.use_deterministic_algorithms(before)
''',
}
