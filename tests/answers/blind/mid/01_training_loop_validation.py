"""Blind set for notebooks/mid/01_training_loop_validation.ipynb, written from release/ alone (issue 33)."""

WRONG = {
    "ex1_evaluate": ("averages the per-batch means (the last, smaller batch counts as a full one)", '''
def evaluate(model, loader, loss_fn, device):
    was_training = model.training
    model.eval()
    losses, correct, seen = [], 0, 0
    with torch.no_grad():
        for xb, yb in loader:
            xb, yb = xb.to(device), yb.to(device)
            logits = model(xb)
            losses.append(loss_fn(logits, yb).item())
            correct += (logits.argmax(1) == yb).sum().item()
            seen += len(yb)
    model.train(was_training)
    return {"loss": sum(losses) / len(losses), "acc": correct / seen}
'''),
    "ex2_predict_modes": ("believes no_grad also freezes BatchNorm's running statistics", '''
NO_GRAD_DISABLES_DROPOUT = False
EVAL_DISABLES_AUTOGRAD = False
BN_UPDATES_STATS_UNDER_NO_GRAD = False
'''),
    "ex3_train_epoch": ("never calls model.train(), so a model left in eval mode trains without dropout", '''
def train_one_epoch(model, loader, loss_fn, optimizer, device):
    total, seen = 0.0, 0
    for xb, yb in loader:
        xb, yb = xb.to(device), yb.to(device)
        optimizer.zero_grad()
        loss = loss_fn(model(xb), yb)
        loss.backward()
        optimizer.step()
        total += loss.item() * len(yb)
        seen += len(yb)
    return total / seen
'''),
    "ex4_fit": ("keeps model.state_dict() itself, so the 'best' weights are the last ones", '''
def fit(model, train_loader, val_loader, loss_fn, optimizer, device, epochs):
    history = {"train_loss": [], "val_loss": [], "val_acc": []}
    best_acc, best_state = -1.0, None
    for _ in range(epochs):
        history["train_loss"].append(train_one_epoch(model, train_loader, loss_fn, optimizer, device))
        res = evaluate(model, val_loader, loss_fn, device)
        history["val_loss"].append(res["loss"])
        history["val_acc"].append(res["acc"])
        if res["acc"] > best_acc:
            best_acc, best_state = res["acc"], model.state_dict()
    return history, best_state
'''),
    "ex5_predict_symptoms": ("thinks split B's overlap makes no difference to validation accuracy", '''
SPLIT_A_VAL_ACC = 0.1
SPLIT_B_VAL_VS_HONEST = "same"
'''),
    "ex6_fix_split": ("shuffles without the generator, so the split is not reproducible", '''
def make_split(X, y, val_frac=0.2, generator=None):
    n_val = int(len(X) * val_frac)
    perm = torch.randperm(len(X))
    return X[perm[n_val:]], y[perm[n_val:]], X[perm[:n_val]], y[perm[:n_val]]
'''),
}

ALT = {
    "ex1_evaluate": '''
def evaluate(model, loader, loss_fn, device):
    mode = model.training
    model.train(False)
    try:
        with torch.inference_mode():
            outs, targets = zip(*[(model(xb.to(device)), yb.to(device)) for xb, yb in loader])
            logits, labels = torch.cat(outs), torch.cat(targets)
            loss = float(loss_fn(logits, labels))
            acc = float((logits.argmax(dim=-1) == labels).double().mean())
    finally:
        model.train(mode)
    return {"loss": loss, "acc": acc}
''',
    "ex2_predict_modes": '''
_d = nn.Dropout(0.5).train()
with torch.no_grad():
    NO_GRAD_DISABLES_DROPOUT = bool((_d(torch.ones(4000)) == 1).all())
EVAL_DISABLES_AUTOGRAD = not nn.Linear(2, 2).eval()(torch.ones(1, 2)).requires_grad
_bn = nn.BatchNorm1d(3).train()
with torch.no_grad():
    _bn(torch.randn(8, 3) + 5)
BN_UPDATES_STATS_UNDER_NO_GRAD = bool(_bn.running_mean.abs().sum() > 0)
''',
    "ex3_train_epoch": '''
def train_one_epoch(model, loader, loss_fn, optimizer, device):
    model.train(True)
    total = torch.zeros((), dtype=torch.float64)
    count = 0
    for inputs, targets in loader:
        inputs, targets = inputs.to(device), targets.to(device)
        optimizer.zero_grad(set_to_none=True)
        batch_loss = loss_fn(model(inputs), targets)
        batch_loss.backward()
        optimizer.step()
        total += batch_loss.detach().double().cpu() * targets.shape[0]
        count += targets.shape[0]
    return (total / count).item()
''',
    "ex4_fit": '''
def fit(model, train_loader, val_loader, loss_fn, optimizer, device, epochs):
    history, snapshots = {"train_loss": [], "val_loss": [], "val_acc": []}, []
    for epoch in range(epochs):
        history["train_loss"].append(float(train_one_epoch(model, train_loader, loss_fn, optimizer, device)))
        res = evaluate(model, val_loader, loss_fn, device)
        history["val_loss"].append(float(res["loss"]))
        history["val_acc"].append(float(res["acc"]))
        snapshots.append(copy.deepcopy(model.state_dict()))
    best_epoch = max(range(epochs), key=lambda e: (history["val_acc"][e], -e))
    return history, snapshots[best_epoch]
''',
    "ex5_predict_symptoms": '''
SPLIT_A_VAL_ACC = 1 / len(torch.unique(y_all))
SPLIT_B_VAL_VS_HONEST = "higher"
''',
    "ex6_fix_split": '''
def make_split(X, y, val_frac=0.2, generator=None):
    n_val = int(len(X) * val_frac)
    order = torch.rand(len(X), generator=generator).argsort()
    val_idx, tr_idx = order[:n_val], order[n_val:]
    return X[tr_idx], y[tr_idx], X[val_idx], y[val_idx]
''',
}
