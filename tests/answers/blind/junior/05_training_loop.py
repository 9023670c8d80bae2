"""Blind set for notebooks/junior/05_training_loop.ipynb, written from release/ alone (issue 33)."""

SHORTCUT = {
    "ex6_weight_decay": ("steps a torch.optim.SGD with weight_decay", """
def sgd_step_with_weight_decay(params, lr, weight_decay):
    torch.optim.SGD(list(params), lr=lr, weight_decay=weight_decay).step()
"""),
}

WRONG = {
    "ex1_train_one_epoch": ("averages the batch means: the short last batch weighs as much as a full one", """
def train_one_epoch(model, loader, loss_fn, optimizer):
    model.train()
    losses = []
    for xb, yb in loader:
        xb, yb = xb.to(device), yb.to(device)
        optimizer.zero_grad()
        loss = loss_fn(model(xb), yb)
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
    return sum(losses) / len(losses)
"""),
    "ex2_predict_order": ("thinks loop B's step uses the previous iteration's gradient", """
A_WEIGHTS_CHANGE = False
B_STEPS_THAT_MOVE = 2
C_GRAD_RATIO = 2.0
"""),
    "ex3_fit_digits": ("ends the model with nn.Softmax in front of nn.CrossEntropyLoss", """
EPOCHS = 8 if FAST else 12
torch.manual_seed(SEED)
digits_model = nn.Sequential(nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, 10), nn.Softmax(dim=1)).to(device)
_opt = torch.optim.Adam(digits_model.parameters(), lr=1e-2)
_loader = DataLoader(TensorDataset(X_train, y_train), batch_size=128, shuffle=True)
history = [train_one_epoch(digits_model, _loader, nn.CrossEntropyLoss(), _opt) for _ in range(EPOCHS)]
"""),
    "ex4_early_stopping": ("an equal loss (not strictly below best - min_delta) counts as an improvement", """
class EarlyStopping:
    def __init__(self, patience=3, min_delta=0.0):
        self.patience, self.min_delta = patience, min_delta
        self.best, self.best_epoch, self.bad, self.calls = float("inf"), -1, 0, 0

    def step(self, val_loss):
        if val_loss <= self.best - self.min_delta:
            self.best, self.best_epoch, self.bad = val_loss, self.calls, 0
        else:
            self.bad += 1
        self.calls += 1
        return self.bad >= self.patience
"""),
    "ex5_fit_early_stopping": ("snapshots model.state_dict() without copying it", """
def fit_with_early_stopping(model, train_loader, val_loader, loss_fn, optimizer, max_epochs, patience):
    stopper = EarlyStopping(patience)
    hist = {"train": [], "val": [], "best_epoch": 0}
    best_state = None
    for epoch in range(max_epochs):
        hist["train"].append(train_one_epoch(model, train_loader, loss_fn, optimizer))
        hist["val"].append(evaluate_loss(model, val_loader, loss_fn))
        stop = stopper.step(hist["val"][-1])
        if stopper.best_epoch == epoch:
            best_state = model.state_dict()
        if stop:
            break
    model.load_state_dict(best_state)
    hist["best_epoch"] = stopper.best_epoch
    return hist
"""),
    "ex6_weight_decay": ("the decay term is not multiplied by lr", """
def sgd_step_with_weight_decay(params, lr, weight_decay):
    with torch.no_grad():
        for p in params:
            if p.grad is not None:
                p -= lr * p.grad + weight_decay * p
"""),
}

ALT = {
    "ex1_train_one_epoch": """
def train_one_epoch(model, loader, loss_fn, optimizer):
    model.train(True)
    total = torch.zeros((), dtype=torch.float64)
    count = 0
    for xb, yb in loader:
        xb, yb = xb.to(device), yb.to(device)
        loss = loss_fn(model(xb), yb)
        model.zero_grad(set_to_none=True)
        loss.backward()
        optimizer.step()
        total += loss.detach().double().cpu() * len(xb)
        count += len(xb)
    return float(total / count)
""",
    "ex2_predict_order": """
A_WEIGHTS_CHANGE = not True
B_STEPS_THAT_MOVE = 0
C_GRAD_RATIO = 2
""",
    "ex3_fit_digits": """
EPOCHS = 8 if FAST else 12


class _DigitsNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.hidden = nn.Linear(64, 128)
        self.out = nn.Linear(128, 10)

    def forward(self, x):
        return self.out(torch.relu(self.hidden(x)))


torch.manual_seed(SEED)
digits_model = _DigitsNet().to(device)
_opt = torch.optim.AdamW(digits_model.parameters(), lr=5e-3)
_loader = DataLoader(TensorDataset(X_train, y_train), batch_size=64, shuffle=True)
history = []
for _epoch in range(EPOCHS):
    history.append(train_one_epoch(digits_model, _loader, nn.CrossEntropyLoss(), _opt))
""",
    "ex4_early_stopping": """
class EarlyStopping:
    def __init__(self, patience=3, min_delta=0.0):
        self.patience, self.min_delta = patience, min_delta
        self.losses = []
        self.best, self.best_epoch = float("inf"), None

    def step(self, val_loss):
        self.losses.append(val_loss)
        best, best_epoch = float("inf"), None
        for i, v in enumerate(self.losses):
            if v < best - self.min_delta:
                best, best_epoch = v, i
        self.best, self.best_epoch = best, best_epoch
        return len(self.losses) - 1 - best_epoch >= self.patience
""",
    "ex5_fit_early_stopping": """
def fit_with_early_stopping(model, train_loader, val_loader, loss_fn, optimizer, max_epochs, patience):
    stopper = EarlyStopping(patience=patience)
    train_hist, val_hist, best_state = [], [], None
    epoch = 0
    while epoch < max_epochs:
        train_hist.append(train_one_epoch(model, train_loader, loss_fn, optimizer))
        val_hist.append(evaluate_loss(model, val_loader, loss_fn))
        stop = stopper.step(val_hist[-1])
        if stopper.best_epoch == epoch:
            best_state = {k: v.detach().clone() for k, v in model.state_dict().items()}
        if stop:
            break
        epoch += 1
    if best_state is not None:
        model.load_state_dict(best_state)
    return {"train": train_hist, "val": val_hist, "best_epoch": stopper.best_epoch}
""",
    "ex6_weight_decay": """
def sgd_step_with_weight_decay(params, lr, weight_decay):
    with torch.no_grad():
        for p in params:
            if p.grad is None:
                continue
            p.mul_(1 - lr * weight_decay).add_(p.grad, alpha=-lr)
""",
}
