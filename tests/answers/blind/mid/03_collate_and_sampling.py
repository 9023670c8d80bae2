"""Blind set for notebooks/mid/03_collate_and_sampling.ipynb, written from release/ alone (issue 33)."""

WRONG = {
    "ex1_pad_collate": ("inverts the mask convention (True on padding, key_padding_mask style)", '''
def pad_collate(batch):
    seqs, labels = zip(*batch)
    lengths = torch.tensor([len(s) for s in seqs], dtype=torch.long)
    ids = torch.nn.utils.rnn.pad_sequence(list(seqs), batch_first=True, padding_value=PAD_ID)
    mask = torch.arange(ids.shape[1])[None, :] >= lengths[:, None]
    return {"input_ids": ids, "attention_mask": mask, "lengths": lengths,
            "labels": torch.tensor(labels, dtype=torch.long)}
'''),
    "ex2_masked_mean": ("zeros the padding but divides by the padded length L", '''
def masked_mean(hidden, mask):
    m = mask.unsqueeze(-1).to(hidden.dtype)
    return (hidden * m).sum(dim=1) / hidden.shape[1]
'''),
    "ex3_profile": ("off by one: pulls and times n_batches + 1 batches", '''
def profile_loader(loader, step_fn, n_batches):
    it = iter(loader)
    data_time = compute_time = 0.0
    i = 0
    while i <= n_batches:
        t0 = time.perf_counter()
        batch = next(it)
        t1 = time.perf_counter()
        step_fn(batch)
        t2 = time.perf_counter()
        data_time += t1 - t0
        compute_time += t2 - t1
        i += 1
    return {"data_time": data_time, "compute_time": compute_time,
            "data_fraction": data_time / (data_time + compute_time)}
'''),
    "ex4_fast_loader": ("turns pin_memory on whatever the device", '''
def make_fast_loader(dataset, batch_size):
    return DataLoader(dataset, batch_size=batch_size, shuffle=True, num_workers=2, persistent_workers=True,
                      pin_memory=True)
'''),
    "ex5_class_weights": ("plain inverse counts: right order, wrong scale", '''
def class_weights(labels, n_classes):
    counts = torch.bincount(labels, minlength=n_classes).float()
    return 1.0 / counts
'''),
    "ex6_sampler": ("draws without replacement, so the rare class cannot be oversampled", '''
def make_balanced_sampler(labels, num_samples, generator=None):
    counts = torch.bincount(labels)
    weights = (1.0 / counts.double())[labels]
    return WeightedRandomSampler(weights, min(num_samples, len(labels)), replacement=False, generator=generator)
'''),
}

ALT = {
    "ex1_pad_collate": '''
def pad_collate(batch):
    width = max(int(tokens.numel()) for tokens, _ in batch)
    ids = torch.full((len(batch), width), PAD_ID, dtype=torch.long)
    mask = torch.zeros((len(batch), width), dtype=torch.bool)
    lengths, labels = [], []
    for row, (tokens, label) in enumerate(batch):
        n = int(tokens.numel())
        ids[row, :n] = tokens.cpu()
        mask[row, :n] = True
        lengths.append(n)
        labels.append(int(label))
    return {"input_ids": ids, "attention_mask": mask, "lengths": torch.tensor(lengths, dtype=torch.long),
            "labels": torch.tensor(labels, dtype=torch.long)}
''',
    "ex2_masked_mean": '''
def masked_mean(hidden, mask):
    w = mask.to(hidden.dtype)
    w = w / w.sum(dim=1, keepdim=True).clamp(min=1)
    return torch.einsum("bl,bld->bd", w, hidden)
''',
    "ex3_profile": '''
def profile_loader(loader, step_fn, n_batches):
    it = iter(loader)
    waits, works = [], []
    for _ in range(n_batches):
        start = time.perf_counter_ns()
        batch = next(it)
        got = time.perf_counter_ns()
        step_fn(batch)
        done = time.perf_counter_ns()
        waits.append(got - start)
        works.append(done - got)
    data_time, compute_time = sum(waits) / 1e9, sum(works) / 1e9
    total = data_time + compute_time
    return {"data_time": data_time, "compute_time": compute_time,
            "data_fraction": data_time / total if total > 0 else 0.0}
''',
    "ex4_fast_loader": '''
def make_fast_loader(dataset, batch_size):
    on_gpu = torch.device(device).type == "cuda"
    options = dict(num_workers=2, persistent_workers=True, prefetch_factor=4, pin_memory=on_gpu)
    return DataLoader(dataset, batch_size, True, **options)
''',
    "ex5_class_weights": '''
def class_weights(labels, n_classes):
    counts = F.one_hot(labels.long(), n_classes).sum(dim=0).to(torch.float64)
    return (labels.numel() / (n_classes * counts)).to(torch.float32)
''',
    "ex6_sampler": '''
def make_balanced_sampler(labels, num_samples, generator=None):
    onehot = F.one_hot(labels.long()).double()
    per_class = 1.0 / onehot.sum(dim=0).clamp(min=1)
    return WeightedRandomSampler(onehot @ per_class, num_samples=num_samples, replacement=True,
                                 generator=generator)
''',
}
