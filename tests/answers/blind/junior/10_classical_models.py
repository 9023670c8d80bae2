"""Blind set for notebooks/junior/10_classical_models.ipynb, written from release/ alone (issue 33)."""

# The shortcuts of ex2 and ex5 both train a zero-initialised nn.Linear with SGD: written once.
_ZERO_LINEAR = """    lin = torch.nn.Linear(X.shape[1], 1).to(X.device)
    torch.nn.init.zeros_(lin.weight)
    torch.nn.init.zeros_(lin.bias)
    opt = torch.optim.SGD(lin.parameters(), lr=lr)
"""

SHORTCUT = {
    "ex1_lstsq": ("fits scikit-learn's LinearRegression", """
def fit_linear_lstsq(X, y):
    from sklearn.linear_model import LinearRegression
    sk = LinearRegression().fit(X.cpu().double().numpy(), y.cpu().double().numpy())
    return (torch.tensor(sk.coef_, dtype=X.dtype, device=X.device),
            torch.tensor(sk.intercept_, dtype=X.dtype, device=X.device))
"""),
    "ex2_linear_gd": ("trains an nn.Linear instead of w and b", """
def fit_linear_gd(X, y, lr=0.1, steps=200):
""" + _ZERO_LINEAR + """    losses = []
    for _ in range(steps):
        opt.zero_grad()
        loss = F.mse_loss(lin(X).squeeze(1), y)
        losses.append(loss.item())
        loss.backward()
        opt.step()
    return lin.weight.detach()[0], lin.bias.detach()[0], losses
"""),
    "ex3_stable_bce": ("calls F.binary_cross_entropy_with_logits", """
def bce_with_logits(z, y):
    return F.binary_cross_entropy_with_logits(z, y)
"""),
    "ex4_standardize": ("uses scikit-learn's StandardScaler", """
def standardize(X_train, X_test):
    from sklearn.preprocessing import StandardScaler
    sc = StandardScaler().fit(X_train.cpu().double().numpy())
    back = lambda a: torch.tensor(a, dtype=X_train.dtype, device=X_train.device)
    return back(sc.transform(X_train.cpu().double().numpy())), back(sc.transform(X_test.cpu().double().numpy()))
"""),
    "ex5_logistic": ("trains an nn.Linear", """
def fit_logistic(X, y, lr=0.5, steps=200):
""" + _ZERO_LINEAR + """    for _ in range(steps):
        opt.zero_grad()
        F.binary_cross_entropy_with_logits(lin(X).squeeze(1), y).backward()
        opt.step()
    return lin.weight.detach()[0], lin.bias.detach()[0]


def predict_labels(X, w, b):
    return (X @ w + b > 0).long()
"""),
}

WRONG = {
    "ex1_lstsq": ("ones column appended last, but b read from the first entry", """
def fit_linear_lstsq(X, y):
    A = torch.cat([X, torch.ones(X.shape[0], 1, dtype=X.dtype, device=X.device)], dim=1)
    sol = torch.linalg.lstsq(A, y[:, None]).solution[:, 0]
    return sol[1:], sol[0]
"""),
    "ex2_linear_gd": ("never clears the gradients: every step uses the sum of all earlier ones", """
def fit_linear_gd(X, y, lr=0.1, steps=200):
    w = torch.zeros(X.shape[1], device=X.device, requires_grad=True)
    b = torch.zeros((), device=X.device, requires_grad=True)
    losses = []
    for _ in range(steps):
        loss = ((X @ w + b - y) ** 2).mean()
        losses.append(loss.item())
        loss.backward()
        with torch.no_grad():
            w -= lr * w.grad
            b -= lr * b.grad
    return w.detach(), b.detach(), losses
"""),
    "ex3_stable_bce": ("the clamp_min/abs form: wrong gradient at z = 0", """
def bce_with_logits(z, y):
    return (z.clamp_min(0) - z * y + torch.log1p(torch.exp(-z.abs()))).mean()
"""),
    "ex4_standardize": ("no guard for a constant feature: 0 / 0 gives NaN", """
def standardize(X_train, X_test):
    mean = X_train.mean(dim=0)
    std = X_train.std(dim=0, correction=0)
    return (X_train - mean) / std, (X_test - mean) / std
"""),
    "ex5_logistic": ("thresholds the logit at 0.5 instead of 0", """
def fit_logistic(X, y, lr=0.5, steps=200):
    w = torch.zeros(X.shape[1], device=X.device, requires_grad=True)
    b = torch.zeros((), device=X.device, requires_grad=True)
    for _ in range(steps):
        loss = F.binary_cross_entropy_with_logits(X @ w + b, y)
        loss.backward()
        with torch.no_grad():
            w -= lr * w.grad
            b -= lr * b.grad
        w.grad = b.grad = None
    return w.detach(), b.detach()


def predict_labels(X, w, b):
    return (X @ w + b > 0.5).long()
"""),
    "ex6_kmeans_assign": ("argmin over the points (dim 0) instead of the centroids", """
def kmeans_assign(X, C):
    return torch.cdist(X, C).argmin(dim=0)
"""),
    "ex7_kmeans_update": ("writes the new means into C_old in place", """
def kmeans_update(X, labels, C_old):
    for j in range(C_old.shape[0]):
        members = X[labels == j]
        if len(members):
            C_old[j] = members.mean(dim=0)
    return C_old
"""),
}

ALT = {
    "ex1_lstsq": """
def fit_linear_lstsq(X, y):
    # centre first: the intercept is what the centred fit leaves at the means
    x_mean, y_mean = X.mean(dim=0), y.mean()
    w = torch.linalg.lstsq(X - x_mean, (y - y_mean)[:, None]).solution[:, 0]
    return w, y_mean - x_mean @ w
""",
    "ex2_linear_gd": """
def fit_linear_gd(X, y, lr=0.1, steps=200):
    w = torch.zeros(X.shape[1], dtype=X.dtype, device=X.device).requires_grad_()
    b = torch.zeros((), dtype=X.dtype, device=X.device).requires_grad_()
    losses = []
    for _ in range(steps):
        loss = F.mse_loss(X @ w + b, y)
        losses.append(loss.item())
        gw, gb = torch.autograd.grad(loss, [w, b])
        with torch.no_grad():
            w.sub_(lr * gw)
            b.sub_(lr * gb)
    return w.detach(), b.detach(), losses
""",
    "ex3_stable_bce": """
def bce_with_logits(z, y):
    return -(y * F.logsigmoid(z) + (1 - y) * F.logsigmoid(-z)).mean()
""",
    "ex4_standardize": """
def standardize(X_train, X_test):
    var, mean = torch.var_mean(X_train.double(), dim=0, correction=0)
    scale = torch.where(var > 0, var.sqrt(), torch.ones_like(var))
    return ((X_train.double() - mean) / scale).to(X_train.dtype), ((X_test.double() - mean) / scale).to(X_test.dtype)
""",
    "ex5_logistic": """
def fit_logistic(X, y, lr=0.5, steps=200):
    w = torch.zeros(X.shape[1], dtype=X.dtype, device=X.device, requires_grad=True)
    b = torch.zeros((), dtype=X.dtype, device=X.device, requires_grad=True)
    opt = torch.optim.SGD([w, b], lr=lr)
    for _ in range(steps):
        opt.zero_grad()
        bce_with_logits(X @ w + b, y).backward()
        opt.step()
    return w.detach(), b.detach()


def predict_labels(X, w, b):
    return (X @ w + b).gt(0).to(torch.long)
""",
    "ex6_kmeans_assign": """
def kmeans_assign(X, C):
    # |x - c|^2 = |x|^2 - 2 x.c + |c|^2; |x|^2 is the same for every centroid of a row
    Xd, Cd = X.double(), C.double()
    return ((Cd * Cd).sum(dim=1)[None, :] - 2 * Xd @ Cd.T).argmin(dim=1)
""",
    "ex7_kmeans_update": """
def kmeans_update(X, labels, C_old):
    member = F.one_hot(labels, num_classes=C_old.shape[0]).T.to(X.dtype)  # (k, n)
    sums, counts = member @ X, member.sum(dim=1, keepdim=True)
    return torch.where(counts > 0, sums / counts.clamp_min(1), C_old)
""",
}
