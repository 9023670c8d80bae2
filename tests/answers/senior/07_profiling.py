"""Known-wrong and alternative answers for senior/07_profiling."""

_PROFILE_FORWARD = '''def profile_forward(model, x, steps):
    activities = [ProfilerActivity.CPU]
    if x.device.type == "cuda":
        activities.append(ProfilerActivity.CUDA)
    with torch.no_grad(), profile(activities=activities) as prof:
        for _ in range(steps):
            model(x)
    return prof
'''

_EX1_SELF = _PROFILE_FORWARD + '''

def region_shares(prof, regions):
    # self time of a record_function range excludes the operators inside it
    selfs = {e.key: e.self_cpu_time_total for e in prof.key_averages()}
    whole = sum(selfs[r] for r in regions)
    return {r: selfs[r] / whole for r in regions}
'''

_EX1_ALL_EVENTS = _PROFILE_FORWARD + '''

def region_shares(prof, regions):
    # divides by the total of every event: nested operators are counted twice
    totals = {e.key: e.cpu_time_total for e in prof.key_averages()}
    whole = sum(totals.values())
    return {r: totals[r] / whole for r in regions}
'''

_EX1_ALT = '''def profile_forward(model, x, steps):
    acts = [ProfilerActivity.CPU] + ([ProfilerActivity.CUDA] if x.device.type == "cuda" else [])
    prof = profile(activities=acts, record_shapes=True)
    with torch.inference_mode():
        prof.start()
        try:
            for _ in range(steps):
                model(x)
        finally:
            prof.stop()
    return prof


def region_shares(prof, regions):
    spent = {r: 0.0 for r in regions}
    for ev in prof.events():
        if ev.name in spent:
            spent[ev.name] += ev.cpu_time_total
    whole = sum(spent.values())
    return {r: spent[r] / whole for r in regions}
'''

_EX2_TOTAL = '''def top_self_op(prof):
    ops = [e for e in prof.key_averages() if e.key.startswith("aten::")]
    return max(ops, key=lambda e: e.cpu_time_total).key
'''

_EX2_ALT = '''def top_self_op(prof):
    table = {}
    for e in prof.key_averages():
        if e.key.startswith("aten::"):
            table[e.key] = e.self_cpu_time_total
    ranked = sorted(table.items(), key=lambda kv: kv[1], reverse=True)
    return ranked[0][0]
'''

_EX3_ITER_ONLY = '''def profile_training(loader, model, opt, steps):
    dev = next(model.parameters()).device
    with profile(activities=[ProfilerActivity.CPU]) as prof:
        with record_function("data"):
            it = iter(loader)  # only times creating the iterator, not fetching batches
        for _ in range(steps):
            xb, yb = next(it)
            with record_function("compute"):
                opt.zero_grad()
                F.mse_loss(model(xb.to(dev)), yb.to(dev)).backward()
                opt.step()
    return prof


def data_fraction(prof):
    totals = {e.key: e.cpu_time_total for e in prof.key_averages()}
    return totals["data"] / (totals["data"] + totals["compute"])
'''

_EX3_RATIO = '''def profile_training(loader, model, opt, steps):
    dev = next(model.parameters()).device
    it = iter(loader)
    with profile(activities=[ProfilerActivity.CPU]) as prof:
        for _ in range(steps):
            with record_function("data"):
                xb, yb = next(it)
            with record_function("compute"):
                opt.zero_grad()
                F.mse_loss(model(xb.to(dev)), yb.to(dev)).backward()
                opt.step()
    return prof


def data_fraction(prof):
    totals = {e.key: e.cpu_time_total for e in prof.key_averages()}
    return totals["data"] / totals["compute"]  # a ratio, not a fraction of the step
'''

_EX3_ALT = '''def profile_training(loader, model, opt, steps):
    dev = next(model.parameters()).device
    batches = iter(loader)
    prof = profile(activities=[ProfilerActivity.CPU])
    prof.start()
    try:
        for _ in range(steps):
            with record_function("data"):
                xb, yb = [t.to(dev) for t in next(batches)]
            with record_function("compute"):
                for p in model.parameters():
                    p.grad = None
                out = model(xb)
                ((out - yb) ** 2).mean().backward()
                opt.step()
    finally:
        prof.stop()
    return prof


def data_fraction(prof):
    spent = {"data": 0.0, "compute": 0.0}
    for ev in prof.events():
        if ev.name in spent:
            spent[ev.name] += ev.cpu_time_total
    return spent["data"] / sum(spent.values())
'''

_EX4_NO_END_SYNC = '''def timed(fn, device, iters=10, warmup=2, sync=None):
    if sync is None:
        sync = (lambda: torch.cuda.synchronize(device)) if device.type == "cuda" else (lambda: None)
    for _ in range(warmup):
        fn()
    sync()
    start = time.perf_counter()
    for _ in range(iters):
        fn()
    return (time.perf_counter() - start) / iters  # reads the clock while work is still queued
'''

_EX4_NO_START_SYNC = '''def timed(fn, device, iters=10, warmup=2, sync=None):
    if sync is None:
        sync = (lambda: torch.cuda.synchronize(device)) if device.type == "cuda" else (lambda: None)
    for _ in range(warmup):
        fn()
    start = time.perf_counter()  # queued warm-up work gets billed to the measurement
    for _ in range(iters):
        fn()
    sync()
    return (time.perf_counter() - start) / iters
'''

_EX4_ALT = '''def timed(fn, device, iters=10, warmup=2, sync=None):
    for _ in range(warmup):
        fn()
    if sync is None and device.type == "cuda":
        # CUDA events: timestamps recorded on the GPU's own queue
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        torch.cuda.synchronize(device)
        start.record()
        for _ in range(iters):
            fn()
        end.record()
        end.synchronize()
        return start.elapsed_time(end) / 1000.0 / iters
    wait = sync if sync is not None else (lambda: None)
    wait()
    t0 = time.monotonic()
    for _ in range(iters):
        fn()
    wait()
    return float((time.monotonic() - t0) / iters)
'''

_EX5_ALWAYS_PIN = '''def to_device(batch, device):
    return {k: v.pin_memory().to(device, non_blocking=True) for k, v in batch.items()}
'''

_EX5_ALT = '''def to_device(batch, device):
    asynchronous = device.type == "cuda"  # pinning belongs in the loader, not on the critical path
    out = {}
    for key, value in batch.items():
        out[key] = value.to(device=device, non_blocking=asynchronous)
    return out
'''

_EX5_IN_PLACE = '''
def to_device(batch, device):
    for k, v in batch.items():
        batch[k] = v.pin_memory().to(device, non_blocking=True) if device.type == "cuda" else v.to(device)
    return batch
'''

WRONG = {
    "ex1_regions": [("uses self time for the regions", _EX1_SELF),
                    ("divides by the total of all events", _EX1_ALL_EVENTS)],
    "ex2_top_op": [("sorts by total time: picks a wrapper", _EX2_TOTAL)],
    "ex3_data_stall": [("times creating the iterator, not fetching batches", _EX3_ITER_ONLY),
                       ("returns data / compute instead of a fraction", _EX3_RATIO)],
    "ex4_timer": [("no sync before reading the clock", _EX4_NO_END_SYNC),
                  ("no sync before starting the clock", _EX4_NO_START_SYNC)],
    "ex5_to_device": [("always pins: raises without an accelerator, and pins on the critical path on CUDA", _EX5_ALWAYS_PIN),
                      ("moves the tensors into the caller's dict and returns it", _EX5_IN_PLACE)],
}

ALT = {
    "ex1_regions": _EX1_ALT,
    "ex2_top_op": _EX2_ALT,
    "ex3_data_stall": _EX3_ALT,
    "ex4_timer": _EX4_ALT,
    "ex5_to_device": _EX5_ALT,
}
