"""Known-wrong and alternative answers for notebooks/mid/01_training_loop_validation.ipynb."""

from functools import partial

from tests.answers import edited, reference

_ref = partial(reference, "mid/01_training_loop_validation")

WRONG = {
    "ex1_evaluate": [
        ("forgets model.eval(): dropout stays on and BatchNorm uses batch statistics",
         edited(_ref("ex1_evaluate"), "    model.eval()\n")),
        ("validates with autograd on (no torch.no_grad())", edited(_ref("ex1_evaluate"), """\
    with torch.no_grad():
        for xb, yb in loader:
            xb, yb = xb.to(device), yb.to(device)
            logits = model(xb)
            total_loss += loss_fn(logits, yb).item() * yb.size(0)
            correct += (logits.argmax(dim=1) == yb).sum().item()
            seen += yb.size(0)
""", """\
    for xb, yb in loader:
        xb, yb = xb.to(device), yb.to(device)
        logits = model(xb)
        total_loss += loss_fn(logits, yb).item() * yb.size(0)
        correct += (logits.argmax(dim=1) == yb).sum().item()
        seen += yb.size(0)
""")),
        ("accumulates loss tensors and returns tensors instead of floats", edited(edited(
            _ref("ex1_evaluate"), "total_loss += loss_fn(logits, yb).item() * yb.size(0)",
            "total_loss = total_loss + loss_fn(logits, yb) * yb.size(0)"),
            "correct += (logits.argmax(dim=1) == yb).sum().item()", "correct = correct + (logits.argmax(dim=1) == yb).sum()")),
        ("averages per-batch means: wrong when the last batch is smaller", edited(edited(edited(
            _ref("ex1_evaluate"), "total_loss, correct, seen = 0.0, 0, 0", "losses, accs = [], []"), """\
            total_loss += loss_fn(logits, yb).item() * yb.size(0)
            correct += (logits.argmax(dim=1) == yb).sum().item()
            seen += yb.size(0)
""", """\
            losses.append(loss_fn(logits, yb).item())
            accs.append((logits.argmax(dim=1) == yb).float().mean().item())
"""), 'return {"loss": total_loss / seen, "acc": correct / seen}',
            'return {"loss": sum(losses) / len(losses), "acc": sum(accs) / len(accs)}')),
    ],
    "ex2_predict_modes": [
        ("believes no_grad also switches dropout off",
         edited(_ref("ex2_predict_modes"), "NO_GRAD_DISABLES_DROPOUT = False", "NO_GRAD_DISABLES_DROPOUT = True")),
        ("believes BatchNorm buffers are frozen by no_grad",
         edited(_ref("ex2_predict_modes"), "BN_UPDATES_STATS_UNDER_NO_GRAD = True", "BN_UPDATES_STATS_UNDER_NO_GRAD = False")),
    ],
    "ex3_train_epoch": [
        ("never calls model.train(): keeps training in the eval mode validation left behind",
         edited(_ref("ex3_train_epoch"), "    model.train()\n")),
        ("forgets optimizer.zero_grad(): gradients accumulate across batches",
         edited(_ref("ex3_train_epoch"), "        optimizer.zero_grad(set_to_none=True)\n")),
    ],
    "ex4_fit": [
        ("keeps best_state = model.state_dict(): references to the live weights, not a copy",
         edited(_ref("ex4_fit"), "copy.deepcopy(model.state_dict())", "model.state_dict()")),
    ],
    "ex5_predict_symptoms": [
        ("thinks leakage makes validation look worse",
         edited(_ref("ex5_predict_symptoms"), 'SPLIT_B_VAL_VS_HONEST = "higher"', 'SPLIT_B_VAL_VS_HONEST = "lower"')),
        ("expects shuffled labels to still generalise",
         edited(_ref("ex5_predict_symptoms"), "SPLIT_A_VAL_ACC = 0.1", "SPLIT_A_VAL_ACC = 0.9")),
    ],
    "ex6_fix_split": [
        ("shuffles X and y with two different permutations", '''\
def make_split(X, y, val_frac=0.2, generator=None):
    n_val = int(len(X) * val_frac)
    X = X[torch.randperm(len(X), generator=generator)]
    y = y[torch.randperm(len(y), generator=generator)]
    return X[n_val:], y[n_val:], X[:n_val], y[:n_val]
'''),
        ("trains on everything, validation included (leakage)",
         edited(_ref("ex6_fix_split"), "val_idx, tr_idx = perm[:n_val], perm[n_val:]", "val_idx, tr_idx = perm[:n_val], perm")),
    ],
}

ALT = {
    "ex1_evaluate": '''\
def evaluate(model, loader, loss_fn, device):
    prev_mode = model.training
    model.eval()
    try:
        with torch.inference_mode():
            outs, targets = [], []
            for xb, yb in loader:
                outs.append(model(xb.to(device)))
                targets.append(yb.to(device))
            logits, y = torch.cat(outs), torch.cat(targets)
            loss = loss_fn(logits, y).item()
            acc = (logits.argmax(1) == y).double().mean().item()
    finally:
        model.train(prev_mode)
    return {"loss": float(loss), "acc": float(acc)}
''',
    "ex2_predict_modes": '''\
NO_GRAD_DISABLES_DROPOUT = not True
EVAL_DISABLES_AUTOGRAD = bool(0)
BN_UPDATES_STATS_UNDER_NO_GRAD = 1 == 1
''',
    "ex3_train_epoch": '''\
def train_one_epoch(model, loader, loss_fn, optimizer, device):
    model.train(True)
    running = torch.zeros((), device=device)
    count = 0
    for inputs, targets in loader:
        inputs, targets = inputs.to(device), targets.to(device)
        loss = loss_fn(model(inputs), targets)
        loss.backward()
        optimizer.step()
        optimizer.zero_grad(set_to_none=False)
        running += loss.detach() * len(targets)
        count += len(targets)
    return (running / count).item()
''',
    "ex4_fit": '''\
def fit(model, train_loader, val_loader, loss_fn, optimizer, device, epochs):
    history = {"train_loss": [], "val_loss": [], "val_acc": []}
    best = None
    for epoch in range(epochs):
        tr = train_one_epoch(model, train_loader, loss_fn, optimizer, device)
        val = evaluate(model, val_loader, loss_fn, device)
        for key, value in (("train_loss", tr), ("val_loss", val["loss"]), ("val_acc", val["acc"])):
            history[key].append(float(value))
        if best is None or val["acc"] >= best[0]:
            best = (val["acc"], {k: v.detach().clone() for k, v in model.state_dict().items()})
    return history, best[1]
''',
    "ex5_predict_symptoms": '''\
SPLIT_A_VAL_ACC = 1 / 10
SPLIT_B_VAL_VS_HONEST = "HIGHER".lower()
''',
    "ex6_fix_split": '''\
def make_split(X, y, val_frac=0.2, generator=None):
    from torch.utils.data import random_split
    n_val = int(len(X) * val_frac)
    tr, va = random_split(range(len(X)), [len(X) - n_val, n_val], generator=generator)
    tr_idx, va_idx = torch.tensor(tr.indices), torch.tensor(va.indices)
    return X[tr_idx], y[tr_idx], X[va_idx], y[va_idx]
''',
}
