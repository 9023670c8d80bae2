"""Known-wrong and alternative answers for notebooks/junior/05_training_loop.ipynb."""

from functools import partial

from tests.answers import edited, reference

_ref = partial(reference, "junior/05_training_loop")

WRONG = {
    "ex1_train_one_epoch": [
        ("forgets optimizer.zero_grad(), so gradients accumulate across batches",
         edited(_ref("ex1_train_one_epoch"), "        optimizer.zero_grad()\n")),
        ("averages batch means without weighting by batch size, and never calls model.train()",
         edited(edited(edited(edited(_ref("ex1_train_one_epoch"), "    model.train()\n"), "total, n = 0.0, 0", "losses = []"),
                              "        total += loss.item() * len(xb)\n        n += len(xb)\n",
                              "        losses.append(loss.item())\n"),
                "return total / n", "return sum(losses) / len(losses)")),
    ],
    "ex2_predict_order": [
        ("believes step() still sees the gradient after zero_grad()", '''
A_WEIGHTS_CHANGE = True
B_STEPS_THAT_MOVE = 2
C_GRAD_RATIO = 1.0
'''),
    ],
    "ex3_fit_digits": [
        ("writes its own loop and forgets optimizer.step()", '''
EPOCHS = 8 if FAST else 12
torch.manual_seed(SEED)
digits_model = nn.Sequential(nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, 10)).to(device)
_optimizer = torch.optim.Adam(digits_model.parameters(), lr=1e-2)
history = []
for _ in range(EPOCHS):
    digits_model.train()
    _optimizer.zero_grad()
    _loss = nn.functional.cross_entropy(digits_model(X_train.to(device)), y_train.to(device))
    _loss.backward()
    history.append(_loss.item())
'''),
        ("ends the model in nn.Softmax, so CrossEntropyLoss sees probabilities instead of logits",
         edited(_ref("ex3_fit_digits"), "nn.Linear(64, 10))", "nn.Linear(64, 10), nn.Softmax(dim=1))")),
    ],
    "ex4_early_stopping": [
        ("never resets the counter after an improvement", edited(
            _ref("ex4_early_stopping"), "self.best, self.best_epoch, self.bad_epochs = val_loss, self.epoch, 0",
            "self.best, self.best_epoch = val_loss, self.epoch")),
        ("off by one: stops only when the counter exceeds patience",
         edited(_ref("ex4_early_stopping"), "return self.bad_epochs >= self.patience", "return self.bad_epochs > self.patience")),
    ],
    "ex5_fit_early_stopping": [
        ("keeps best_state = model.state_dict() without copying: the 'snapshot' follows training",
         edited(_ref("ex5_fit_early_stopping"), "best_state = copy.deepcopy(model.state_dict())", "best_state = model.state_dict()")),
        ("ignores patience: stops at the first epoch without improvement",
         edited(_ref("ex5_fit_early_stopping"), "EarlyStopping(patience=patience)", "EarlyStopping(patience=1)")),
    ],
    "ex6_weight_decay": [
        ("shortcut: steps a torch.optim.SGD with weight_decay", """
def sgd_step_with_weight_decay(params, lr, weight_decay):
    torch.optim.SGD(params, lr=lr, weight_decay=weight_decay).step()
"""),
        ("forgets to multiply the decay term by the learning rate",
         edited(_ref("ex6_weight_decay"), "p.sub_(lr * (p.grad + weight_decay * p))", "p -= lr * p.grad + weight_decay * p")),
        # without the no_grad block the whole body moves left: written out, not as an edit
        ("updates the leaf parameters without torch.no_grad()", '''
def sgd_step_with_weight_decay(params, lr, weight_decay):
    for p in params:
        if p.grad is not None:
            p.sub_(lr * (p.grad + weight_decay * p))
'''),
    ],
}

ALT = {
    "ex1_train_one_epoch": '''
def train_one_epoch(model, loader, loss_fn, optimizer):
    model.train()
    optimizer.zero_grad(set_to_none=False)
    weighted = []
    for xb, yb in loader:
        out = model(xb.to(device))
        loss = loss_fn(out, yb.to(device))
        loss.backward()
        optimizer.step()
        optimizer.zero_grad()  # clearing right after the step is just as good
        weighted.append((loss.detach() * xb.shape[0]).cpu())
    return float(torch.stack(weighted).sum() / len(loader.dataset))
''',
    "ex2_predict_order": '''
A_WEIGHTS_CHANGE = bool(0)
B_STEPS_THAT_MOVE = 3 - 3
C_GRAD_RATIO = 4 / 2
''',
    "ex3_fit_digits": '''
EPOCHS = 8 if FAST else 12
torch.manual_seed(SEED + 1)
digits_model = nn.Sequential(nn.Linear(64, 128), nn.Tanh(), nn.Linear(128, 10)).to(device)
_opt = torch.optim.SGD(digits_model.parameters(), lr=0.1, momentum=0.9)
_loader = DataLoader(TensorDataset(X_train, y_train), batch_size=32, shuffle=True)
history = []
for _epoch in range(EPOCHS):
    history.append(train_one_epoch(digits_model, _loader, nn.CrossEntropyLoss(), _opt))
''',
    "ex4_early_stopping": '''
class EarlyStopping:
    def __init__(self, patience=3, min_delta=0.0):
        self.patience = patience
        self.min_delta = min_delta
        self.history = []
        self.best = None
        self.best_epoch = None

    def step(self, val_loss):
        self.history.append(val_loss)
        if self.best is None or val_loss < self.best - self.min_delta:
            self.best, self.best_epoch = val_loss, len(self.history) - 1
        return len(self.history) - 1 - self.best_epoch >= self.patience
''',
    "ex5_fit_early_stopping": '''
def fit_with_early_stopping(model, train_loader, val_loader, loss_fn, optimizer, max_epochs, patience):
    train_losses, val_losses = [], []
    best_val, best_epoch, best_weights = float("inf"), 0, None
    for epoch in range(max_epochs):
        train_losses.append(train_one_epoch(model, train_loader, loss_fn, optimizer))
        val_losses.append(evaluate_loss(model, val_loader, loss_fn))
        if val_losses[-1] < best_val:
            best_val, best_epoch = val_losses[-1], epoch
            best_weights = {k: v.detach().clone() for k, v in model.state_dict().items()}
        elif epoch - best_epoch >= patience:
            break
    model.load_state_dict(best_weights)
    return {"train": train_losses, "val": val_losses, "best_epoch": best_epoch}
''',
    "ex6_weight_decay": '''
@torch.no_grad()
def sgd_step_with_weight_decay(params, lr, weight_decay):
    for p in params:
        if p.grad is not None:
            p.mul_(1 - lr * weight_decay).add_(p.grad, alpha=-lr)
''',
}
