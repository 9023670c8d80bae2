"""Blind set for notebooks/junior/06_data_loading.ipynb, written from release/ alone (issue 33)."""

WRONG = {
    "ex1_array_dataset": ("torch.tensor keeps NumPy's float64", """
class ArrayDataset(Dataset):
    def __init__(self, features, labels, transform=None):
        self.x = torch.tensor(features)
        self.y = torch.tensor(labels, dtype=torch.long)
        self.transform = transform

    def __len__(self):
        return len(self.x)

    def __getitem__(self, i):
        x = self.x[i]
        return (self.transform(x) if self.transform is not None else x), self.y[i]
"""),
    "ex2_predict_batches": ("floor division for drop_last=False too", """
N_BATCHES = 10
LAST_BATCH_SIZE = 10
N_BATCHES_DROP_LAST = 10
SAMPLES_SEEN_DROP_LAST = 100
"""),
    "ex3_window_dataset": ("one window too many: the last asks for a target past the end", """
class WindowDataset(Dataset):
    def __init__(self, series, window):
        self.series = torch.as_tensor(series, dtype=torch.float32)
        self.window = window

    def __len__(self):
        return max(0, len(self.series) - self.window + 1)

    def __getitem__(self, i):
        return self.series[i:i + self.window], self.series[i + self.window]
"""),
    "ex4_epoch_order": ("returns the batches, not a flat list of indices", """
def epoch_order(loader):
    return [batch.tolist() for batch in loader]
"""),
    "ex5_make_loader": ("seeds the global RNG instead of giving the loader its own generator", """
def make_loader(dataset, batch_size, seed):
    torch.manual_seed(seed)
    return DataLoader(dataset, batch_size=batch_size, shuffle=True)
"""),
    "ex6_feature_mean": ("divides by len(loader) * batch_size: wrong for a partial last batch", """
def feature_mean(loader):
    total = 0
    for xb, _ in loader:
        total = total + xb.sum(dim=0)
    return total / (len(loader) * loader.batch_size)
"""),
}

ALT = {
    "ex1_array_dataset": """
class ArrayDataset(Dataset):
    def __init__(self, features, labels, transform=None):
        self.features, self.labels, self.transform = features, labels, transform

    def __len__(self):
        return int(np.shape(self.features)[0])

    def __getitem__(self, i):
        x = torch.as_tensor(self.features[i]).to(torch.float32)
        y = torch.tensor(int(self.labels[i]), dtype=torch.int64)
        if self.transform is not None:
            x = self.transform(x)
        return x, y
""",
    "ex2_predict_batches": """
N_BATCHES = -(-103 // 10)
LAST_BATCH_SIZE = 103 - 10 * (N_BATCHES - 1)
N_BATCHES_DROP_LAST = 103 // 10
SAMPLES_SEEN_DROP_LAST = N_BATCHES_DROP_LAST * 10
""",
    "ex3_window_dataset": """
class WindowDataset(Dataset):
    def __init__(self, series, window):
        self.series = torch.as_tensor(series, dtype=torch.float32)
        self.window = window

    def __len__(self):
        return max(0, self.series.shape[0] - self.window)

    def __getitem__(self, i):
        if not 0 <= i < len(self):
            raise IndexError(f"window {i} out of range for {len(self)} windows")
        chunk = self.series.unfold(0, self.window + 1, 1)[i]
        return chunk[:-1], chunk[-1]
""",
    "ex4_epoch_order": """
def epoch_order(loader):
    return torch.cat([torch.as_tensor(b).reshape(-1) for b in loader]).tolist()
""",
    "ex5_make_loader": """
from torch.utils.data import RandomSampler


def make_loader(dataset, batch_size, seed):
    g = torch.Generator()
    g.manual_seed(seed)
    return DataLoader(dataset, batch_size=batch_size, sampler=RandomSampler(dataset, generator=g))
""",
    "ex6_feature_mean": """
def feature_mean(loader):
    x = torch.cat([batch[0] for batch in loader])
    return (x if x.is_floating_point() else x.float()).mean(dim=0)
""",
}
