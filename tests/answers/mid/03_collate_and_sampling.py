"""Known-wrong and alternative answers for notebooks/mid/03_collate_and_sampling.ipynb."""

WRONG = {
    "ex1_pad_collate": [
        ("pads every batch to a fixed global maximum (no dynamic padding)", '''\
def pad_collate(batch, max_len=30):
    seqs, labels = zip(*batch)
    lengths = torch.tensor([len(s) for s in seqs])
    input_ids = torch.full((len(seqs), max_len), PAD_ID, dtype=torch.long)
    for i, s in enumerate(seqs):
        input_ids[i, :len(s)] = s
    mask = input_ids != PAD_ID
    return {"input_ids": input_ids, "attention_mask": mask, "lengths": lengths, "labels": torch.tensor(labels)}
'''),
        ("inverted mask: True on padding (the key_padding_mask convention, not attention_mask)", '''\
def pad_collate(batch):
    seqs, labels = zip(*batch)
    lengths = torch.tensor([len(s) for s in seqs])
    input_ids = nn.utils.rnn.pad_sequence(list(seqs), batch_first=True, padding_value=PAD_ID)
    mask = torch.arange(input_ids.size(1))[None, :] >= lengths[:, None]
    return {"input_ids": input_ids, "attention_mask": mask, "lengths": lengths, "labels": torch.tensor(labels)}
'''),
    ],
    "ex2_masked_mean": [
        ("plain mean over the padded length", '''\
def masked_mean(hidden, mask):
    return hidden.mean(dim=1)
'''),
        ("masks the sum but divides by the padded length", '''\
def masked_mean(hidden, mask):
    return (hidden * mask.unsqueeze(-1)).sum(dim=1) / hidden.size(1)
'''),
    ],
    "ex3_profile": [
        ("times only iter(loader), not the next() that actually waits for the batch", '''\
def profile_loader(loader, step_fn, n_batches):
    t0 = time.perf_counter()
    it = iter(loader)
    data_time = time.perf_counter() - t0
    t1 = time.perf_counter()
    for _ in range(n_batches):
        step_fn(next(it))
    compute_time = time.perf_counter() - t1
    return {"data_time": data_time, "compute_time": compute_time,
            "data_fraction": data_time / (data_time + compute_time)}
'''),
        ("reports the compute fraction instead of the data fraction", '''\
def profile_loader(loader, step_fn, n_batches):
    data_time = compute_time = 0.0
    it = iter(loader)
    for _ in range(n_batches):
        t0 = time.perf_counter()
        batch = next(it)
        t1 = time.perf_counter()
        step_fn(batch)
        compute_time += time.perf_counter() - t1
        data_time += t1 - t0
    return {"data_time": data_time, "compute_time": compute_time,
            "data_fraction": compute_time / (data_time + compute_time)}
'''),
    ],
    "ex4_fast_loader": [
        ("pin_memory=True unconditionally (only a warning without a GPU)", '''\
def make_fast_loader(dataset, batch_size):
    return DataLoader(dataset, batch_size=batch_size, shuffle=True, num_workers=2, persistent_workers=True,
                      pin_memory=True)
'''),
        ("keeps loading in the main process", '''\
def make_fast_loader(dataset, batch_size):
    return DataLoader(dataset, batch_size=batch_size, shuffle=True, num_workers=0,
                      pin_memory=device.type == "cuda")
'''),
    ],
    "ex5_class_weights": [
        ("weights proportional to class frequency (the majority gets the most weight)", '''\
def class_weights(labels, n_classes):
    counts = torch.bincount(labels, minlength=n_classes).float()
    return counts / labels.numel()
'''),
        ("inverse counts without the N / n_classes scale", '''\
def class_weights(labels, n_classes):
    return 1.0 / torch.bincount(labels, minlength=n_classes).float()
'''),
    ],
    "ex6_sampler": [
        ("passes per-class weights where per-sample weights are expected", '''\
def make_balanced_sampler(labels, num_samples, generator=None):
    counts = torch.bincount(labels).double()
    return WeightedRandomSampler(1.0 / counts, num_samples=num_samples, replacement=True, generator=generator)
'''),
        ("samples without replacement: the rare class cannot be oversampled", '''\
def make_balanced_sampler(labels, num_samples, generator=None):
    counts = torch.bincount(labels).double()
    return WeightedRandomSampler(1.0 / counts[labels], num_samples=min(num_samples, len(labels)),
                                 replacement=False, generator=generator)
'''),
    ],
}

ALT = {
    "ex1_pad_collate": '''\
def pad_collate(batch):
    max_len = max(len(tokens) for tokens, _ in batch)
    input_ids = torch.full((len(batch), max_len), PAD_ID, dtype=torch.long)
    attention_mask = torch.zeros((len(batch), max_len), dtype=torch.bool)
    lengths, labels = [], []
    for row, (tokens, label) in enumerate(batch):
        input_ids[row, :len(tokens)] = tokens
        attention_mask[row, :len(tokens)] = True
        lengths.append(len(tokens))
        labels.append(label)
    return {"input_ids": input_ids, "attention_mask": attention_mask,
            "lengths": torch.tensor(lengths), "labels": torch.tensor(labels)}
''',
    "ex2_masked_mean": '''\
def masked_mean(hidden, mask):
    weights = mask.to(hidden.dtype)
    weights = weights / weights.sum(dim=1, keepdim=True).clamp_min(1.0)
    return torch.einsum("bl,bld->bd", weights, hidden)
''',
    "ex3_profile": '''\
def profile_loader(loader, step_fn, n_batches):
    waits, steps = [], []
    it = iter(loader)
    clock = time.perf_counter()
    for _ in range(n_batches):
        batch = next(it)
        now = time.perf_counter()
        waits.append(now - clock)
        step_fn(batch)
        clock = time.perf_counter()
        steps.append(clock - now)
    d, c = sum(waits), sum(steps)
    return {"data_time": d, "compute_time": c, "data_fraction": d / (d + c)}
''',
    "ex4_fast_loader": '''\
def make_fast_loader(dataset, batch_size):
    use_pin = torch.cuda.is_available() and device.type == "cuda"
    return DataLoader(dataset, batch_size=batch_size, shuffle=True, num_workers=3, persistent_workers=True,
                      pin_memory=use_pin, prefetch_factor=4)
''',
    "ex5_class_weights": '''\
def class_weights(labels, n_classes):
    counts = torch.zeros(n_classes).index_add_(0, labels, torch.ones(len(labels)))
    freq = counts / counts.sum()
    return (1.0 / (n_classes * freq)).to(torch.float32)
''',
    "ex6_sampler": '''\
def make_balanced_sampler(labels, num_samples, generator=None):
    n_classes = int(labels.max()) + 1
    w = class_weights(labels, n_classes)[labels]
    return WeightedRandomSampler(w.tolist(), num_samples, replacement=True, generator=generator)
''',
}
