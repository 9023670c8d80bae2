"""Known-wrong and alternative answers for notebooks/junior/06_data_loading.ipynb."""

WRONG = {
    "ex1_array_dataset": [
        ("torch.tensor on a float64 NumPy array keeps float64", '''
class ArrayDataset(Dataset):
    def __init__(self, features, labels, transform=None):
        self.features = torch.tensor(features)
        self.labels = torch.tensor(labels)
        self.transform = transform

    def __len__(self):
        return len(self.labels)

    def __getitem__(self, i):
        x = self.features[i]
        if self.transform is not None:
            x = self.transform(x)
        return x, self.labels[i]
'''),
        ("__len__ returns the number of features instead of the number of samples", '''
class ArrayDataset(Dataset):
    def __init__(self, features, labels, transform=None):
        self.features = torch.as_tensor(features, dtype=torch.float32)
        self.labels = torch.as_tensor(labels, dtype=torch.long)
        self.transform = transform

    def __len__(self):
        return self.features.shape[1]

    def __getitem__(self, i):
        x = self.features[i]
        if self.transform is not None:
            x = self.transform(x)
        return x, self.labels[i]
'''),
    ],
    "ex2_predict_batches": [
        ("forgets the partial batch exists", '''
N_BATCHES = 10
LAST_BATCH_SIZE = 10
N_BATCHES_DROP_LAST = 10
SAMPLES_SEEN_DROP_LAST = 103
'''),
    ],
    "ex3_window_dataset": [
        ("off by one: one window too many (its target is past the end)", '''
class WindowDataset(Dataset):
    def __init__(self, series, window):
        self.series = torch.as_tensor(series, dtype=torch.float32)
        self.window = window

    def __len__(self):
        return len(self.series) - self.window + 1

    def __getitem__(self, i):
        return self.series[i:i + self.window], self.series[(i + self.window) % len(self.series)]
'''),
        ("off by one: the last window is never seen", '''
class WindowDataset(Dataset):
    def __init__(self, series, window):
        self.series = torch.as_tensor(series, dtype=torch.float32)
        self.window = window

    def __len__(self):
        return len(self.series) - self.window - 1

    def __getitem__(self, i):
        return self.series[i:i + self.window], self.series[i + self.window]
'''),
    ],
    "ex4_epoch_order": [
        ("reads indices from the dataset, not from the loader, so the 'proof' proves nothing", '''
def epoch_order(loader):
    return list(range(len(loader.dataset)))
'''),
        ("keeps only the first sample of each batch", '''
def epoch_order(loader):
    return [int(batch[0]) for batch in loader]
'''),
    ],
    "ex5_make_loader": [
        ("seeds the global RNG once instead of giving the loader a generator", '''
def make_loader(dataset, batch_size, seed):
    torch.manual_seed(seed)
    return DataLoader(dataset, batch_size=batch_size, shuffle=True)
'''),
        ("re-seeds at the start of every epoch, so every epoch has the same order", '''
from torch.utils.data import Sampler


class _SameEverySampler(Sampler):
    def __init__(self, n, seed):
        self.n, self.seed = n, seed

    def __len__(self):
        return self.n

    def __iter__(self):
        g = torch.Generator().manual_seed(self.seed)
        return iter(torch.randperm(self.n, generator=g).tolist())


def make_loader(dataset, batch_size, seed):
    return DataLoader(dataset, batch_size=batch_size, sampler=_SameEverySampler(len(dataset), seed))
'''),
    ],
    "ex6_feature_mean": [
        ("iterates correctly but divides by the number of batches", '''
def feature_mean(loader):
    total = 0
    for xb, _ in loader:
        total = total + xb.sum(dim=0)
    return total / len(loader)
'''),
        ("divides by the sample count but still restarts the iterator every step", '''
def feature_mean(loader):
    total = 0
    for _ in range(len(loader)):
        xb, _ = next(iter(loader))
        total = total + xb.sum(dim=0)
    return total / len(loader.dataset)
'''),
    ],
}

ALT = {
    "ex1_array_dataset": '''
class ArrayDataset(Dataset):
    def __init__(self, features, labels, transform=None):
        self.features = np.asarray(features, dtype=np.float32)
        self.labels = np.asarray(labels, dtype=np.int64)
        self.transform = transform or (lambda t: t)

    def __len__(self):
        return self.labels.shape[0]

    def __getitem__(self, i):
        x = torch.from_numpy(self.features[i].copy())
        return self.transform(x), torch.tensor(self.labels[i])
''',
    "ex2_predict_batches": '''
import math
N_BATCHES = math.ceil(103 / 10)
LAST_BATCH_SIZE = 103 % 10
N_BATCHES_DROP_LAST = 103 // 10
SAMPLES_SEEN_DROP_LAST = 103 - 103 % 10
''',
    "ex3_window_dataset": '''
class WindowDataset(Dataset):
    def __init__(self, series, window):
        s = torch.as_tensor(series, dtype=torch.float32)
        self.windows = s.unfold(0, window, 1)[:-1]
        self.targets = s[window:]

    def __len__(self):
        return len(self.targets)

    def __getitem__(self, i):
        return self.windows[i], self.targets[i]
''',
    "ex4_epoch_order": '''
def epoch_order(loader):
    return torch.cat(list(loader)).tolist()
''',
    "ex5_make_loader": '''
from torch.utils.data import RandomSampler


def make_loader(dataset, batch_size, seed):
    sampler = RandomSampler(dataset, generator=torch.Generator().manual_seed(seed))
    return DataLoader(dataset, batch_size=batch_size, sampler=sampler)
''',
    "ex6_feature_mean": '''
def feature_mean(loader):
    return torch.cat([xb for xb, _ in loader]).mean(dim=0)
''',
}
