"""Blind set for notebooks/senior/07_profiling.ipynb, written from release/ alone (issue 33)."""

_PROFILE_FORWARD = '''
def profile_forward(model, x, steps):
    activities = [ProfilerActivity.CPU] + ([ProfilerActivity.CUDA] if x.device.type == "cuda" else [])
    with torch.no_grad(), profile(activities=activities) as prof:
        for _ in range(steps):
            model(x)
    return prof
'''

WRONG = {
    "ex1_regions": ("shares the regions' self time, which is close to zero, instead of their total", _PROFILE_FORWARD + '''

def region_shares(prof, regions):
    times = {e.key: e.self_cpu_time_total for e in prof.key_averages() if e.key in regions}
    total = sum(times.get(r, 0.0) for r in regions) or 1.0
    return {r: times.get(r, 0.0) / total for r in regions}
'''),
    "ex2_top_op": ("ranks by total time, so a wrapper such as aten::matmul wins", '''
def top_self_op(prof):
    ops = [e for e in prof.key_averages() if e.key.startswith("aten::")]
    return max(ops, key=lambda e: e.cpu_time_total).key
'''),
    "ex3_data_stall": ("makes a fresh iterator every step, so the data restarts", '''
def profile_training(loader, model, opt, steps):
    dev = next(model.parameters()).device
    with profile(activities=[ProfilerActivity.CPU]) as prof:
        for _ in range(steps):
            with record_function("data"):
                xb, yb = next(iter(loader))
                xb, yb = xb.to(dev), yb.to(dev)
            with record_function("compute"):
                opt.zero_grad()
                F.mse_loss(model(xb), yb).backward()
                opt.step()
    return prof


def data_fraction(prof):
    totals = {e.key: e.cpu_time_total for e in prof.key_averages() if e.key in ("data", "compute")}
    return totals["data"] / (totals["data"] + totals["compute"])
'''),
    "ex4_timer": ("calls torch.cuda.synchronize whatever the device, which raises on a CPU-only build", '''
def timed(fn, device, iters=10, warmup=2, sync=None):
    sync = sync or (lambda: torch.cuda.synchronize(device))
    for _ in range(warmup):
        fn()
    sync()
    start = time.perf_counter()
    for _ in range(iters):
        fn()
    sync()
    return (time.perf_counter() - start) / iters
'''),
    "ex5_to_device": ("moves the tensors into the caller's dict and hands it back", '''
def to_device(batch, device):
    for k, v in batch.items():
        batch[k] = v.to(device, non_blocking=device.type == "cuda")
    return batch
'''),
}

ALT = {
    "ex1_regions": '''
def profile_forward(model, x, steps):
    kinds = {ProfilerActivity.CPU}
    if x.is_cuda:
        kinds.add(ProfilerActivity.CUDA)
    prof = profile(activities=list(kinds))
    with torch.inference_mode():
        prof.start()
        try:
            for _ in range(steps):
                model(x)
        finally:
            prof.stop()
    return prof


def region_shares(prof, regions):
    totals = dict.fromkeys(regions, 0.0)
    for event in prof.events():  # every range, summed by hand rather than through key_averages
        if event.name in totals:
            totals[event.name] += event.cpu_time_total
    whole = sum(totals.values())
    return {r: t / whole for r, t in totals.items()}
''',
    "ex2_top_op": '''
import collections


def top_self_op(prof):
    self_time = collections.Counter()
    for event in prof.events():
        if event.name.startswith("aten::"):
            self_time[event.name] += event.self_cpu_time_total
    return self_time.most_common(1)[0][0]
''',
    "ex3_data_stall": '''
def profile_training(loader, model, opt, steps):
    dev = next(model.parameters()).device
    batches = iter(loader)
    with profile(activities=[ProfilerActivity.CPU]) as prof:
        for _ in range(steps):
            with record_function("data"):
                xb, yb = (t.to(dev) for t in next(batches))
            with record_function("compute"):
                for p in model.parameters():
                    p.grad = None
                loss = ((model(xb) - yb) ** 2).mean()
                loss.backward()
                opt.step()
    return prof


def data_fraction(prof):
    spent = {"data": 0.0, "compute": 0.0}
    for event in prof.events():
        if event.name in spent:
            spent[event.name] += event.cpu_time_total
    return spent["data"] / sum(spent.values())
''',
    "ex4_timer": '''
def timed(fn, device, iters=10, warmup=2, sync=None):
    device = torch.device(device)
    if sync is None:
        sync = (lambda: torch.cuda.synchronize(device)) if device.type == "cuda" else (lambda: None)
    for _ in range(warmup):
        fn()
    sync()
    begin = time.perf_counter_ns()
    for _ in range(iters):
        fn()
    sync()
    return (time.perf_counter_ns() - begin) / 1e9 / iters
''',
    "ex5_to_device": '''
def to_device(batch, device):
    device = torch.device(device)
    on_gpu = device.type == "cuda"
    return dict(zip(batch.keys(), (t.to(device, non_blocking=on_gpu) for t in batch.values())))
''',
}
