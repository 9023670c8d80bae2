"""Known-wrong and alternative answers for notebooks/junior/10_classical_models.ipynb."""

WRONG = {
    "ex1_lstsq": [
        ("shortcut: scikit-learn's LinearRegression", """
def fit_linear_lstsq(X, y):
    from sklearn.linear_model import LinearRegression

    lr = LinearRegression().fit(X.cpu().double().numpy(), y.cpu().double().numpy())
    return (torch.tensor(lr.coef_, dtype=X.dtype, device=X.device),
            torch.tensor(lr.intercept_, dtype=X.dtype, device=X.device))
"""),
        ("forgets the intercept: no column of ones, b fixed at 0", '''
def fit_linear_lstsq(X, y):
    sol = torch.linalg.lstsq(X, y).solution
    return sol, torch.zeros((), device=X.device)
'''),
        ("puts the ones column first but splits the solution as if it were last", '''
def fit_linear_lstsq(X, y):
    design = torch.cat([torch.ones(X.shape[0], 1, dtype=X.dtype, device=X.device), X], dim=1)
    sol = torch.linalg.lstsq(design, y).solution
    return sol[:-1], sol[-1]
'''),
    ],
    "ex2_linear_gd": [
        ("never clears .grad, so every step uses the sum of all gradients so far", '''
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
'''),
        ("sums the squared errors instead of averaging them, so the step is n times too large", '''
def fit_linear_gd(X, y, lr=0.1, steps=200):
    w = torch.zeros(X.shape[1], device=X.device, requires_grad=True)
    b = torch.zeros((), device=X.device, requires_grad=True)
    losses = []
    for _ in range(steps):
        loss = ((X @ w + b - y) ** 2).sum()
        losses.append(loss.item())
        loss.backward()
        with torch.no_grad():
            w -= lr * w.grad
            b -= lr * b.grad
        w.grad, b.grad = None, None
    return w.detach(), b.detach(), losses
'''),
    ],
    "ex3_stable_bce": [
        ("shortcut: calls F.binary_cross_entropy_with_logits", """
def bce_with_logits(z, y):
    return F.binary_cross_entropy_with_logits(z, y)
"""),
        ("max/abs stable form: right values, but autograd takes a side of each kink and the gradient at z = 0 is "
         "1 - y instead of 0.5 - y", '''
def bce_with_logits(z, y):
    return (z.clamp(min=0) - z * y + torch.log1p(torch.exp(-z.abs()))).mean()
'''),
        ("the literal formula: log(sigmoid(z)) gives -inf and nan gradients for large |z|", '''
def bce_with_logits(z, y):
    p = torch.sigmoid(z)
    return -(y * torch.log(p) + (1 - y) * torch.log(1 - p)).mean()
'''),
        ("clamps the probability: finite, but wrong for confident mistakes", '''
def bce_with_logits(z, y):
    p = torch.sigmoid(z).clamp(1e-7, 1 - 1e-7)
    return -(y * torch.log(p) + (1 - y) * torch.log(1 - p)).mean()
'''),
        ("picks a stable branch with torch.where: right values and right gradient at 0, but the discarded branch "
         "overflows and its gradient (0 * inf) turns the gradient nan for large |z|", '''
def bce_with_logits(z, y):
    pos = (1 - y) * z + torch.log1p(torch.exp(-z))
    neg = -y * z + torch.log1p(torch.exp(z))
    return torch.where(z >= 0, pos, neg).mean()
'''),
        ("clamps the logits to [-20, 20] before the formula: finite, but the loss and gradient are wrong far out",
         '''
def bce_with_logits(z, y):
    z = z.clamp(-20, 20)
    return ((1 - y) * z + F.softplus(-z)).mean()
'''),
        ("stable per element but sums instead of taking the mean", '''
def bce_with_logits(z, y):
    return (z.clamp(min=0) - z * y + torch.log1p(torch.exp(-z.abs()))).sum()
'''),
    ],
    "ex4_standardize": [
        ("shortcut: scikit-learn's StandardScaler", """
def standardize(X_train, X_test):
    from sklearn.preprocessing import StandardScaler

    sc = StandardScaler().fit(X_train.cpu().double().numpy())
    return tuple(torch.tensor(sc.transform(x.cpu().double().numpy()), dtype=x.dtype, device=x.device)
                 for x in (X_train, X_test))
"""),
        ("divides a constant training column by its std of 0 (nan), unlike StandardScaler", """
def standardize(X_train, X_test):
    mean = X_train.mean(dim=0)
    std = X_train.std(dim=0, correction=0)
    return (X_train - mean) / std, (X_test - mean) / std
"""),
        ("divides by the sample std (torch.std's default n - 1), not the population std", '''
def standardize(X_train, X_test):
    mean, std = X_train.mean(dim=0), X_train.std(dim=0)
    return (X_train - mean) / std, (X_test - mean) / std
'''),
        ("standardizes the test rows with their own statistics", '''
def standardize(X_train, X_test):
    def one(X):
        return (X - X.mean(dim=0)) / X.std(dim=0, correction=0)
    return one(X_train), one(X_test)
'''),
        ("reduces over the wrong axis (per row instead of per feature)", '''
def standardize(X_train, X_test):
    mean = X_train.mean(dim=1, keepdim=True)
    std = X_train.std(dim=1, correction=0, keepdim=True)
    return (X_train - mean) / std, (X_test - X_test.mean(dim=1, keepdim=True)) / X_test.std(dim=1, correction=0, keepdim=True)
'''),
    ],
    "ex5_logistic": [
        ("shortcut: scikit-learn's LogisticRegression", """
def fit_logistic(X, y, lr=0.5, steps=200):
    from sklearn.linear_model import LogisticRegression

    clf = LogisticRegression(max_iter=steps).fit(X.cpu().numpy(), y.cpu().numpy())
    return (torch.tensor(clf.coef_[0], dtype=X.dtype, device=X.device),
            torch.tensor(clf.intercept_[0], dtype=X.dtype, device=X.device))


def predict_labels(X, w, b):
    return (X @ w + b > 0).long()
"""),
        ("thresholds the logit at 0.5 instead of 0 (mixes up logits and probabilities)", '''
def fit_logistic(X, y, lr=0.5, steps=200):
    w = torch.zeros(X.shape[1], device=X.device, requires_grad=True)
    b = torch.zeros((), device=X.device, requires_grad=True)
    opt = torch.optim.SGD([w, b], lr=lr)
    for _ in range(steps):
        opt.zero_grad()
        F.binary_cross_entropy_with_logits(X @ w + b, y).backward()
        opt.step()
    return w.detach(), b.detach()


def predict_labels(X, w, b):
    return (X @ w + b > 0.5).long()
'''),
        ("trains with the squared error of sigmoid(z) instead of the cross-entropy", '''
def fit_logistic(X, y, lr=0.5, steps=200):
    w = torch.zeros(X.shape[1], device=X.device, requires_grad=True)
    b = torch.zeros((), device=X.device, requires_grad=True)
    opt = torch.optim.SGD([w, b], lr=lr)
    for _ in range(steps):
        opt.zero_grad()
        ((torch.sigmoid(X @ w + b) - y) ** 2).mean().backward()
        opt.step()
    return w.detach(), b.detach()


def predict_labels(X, w, b):
    return (X @ w + b > 0).long()
'''),
        ("leaves the bias out of the optimizer, so it never trains", '''
def fit_logistic(X, y, lr=0.5, steps=200):
    w = torch.zeros(X.shape[1], device=X.device, requires_grad=True)
    b = torch.zeros((), device=X.device)
    opt = torch.optim.SGD([w], lr=lr)
    for _ in range(steps):
        opt.zero_grad()
        F.binary_cross_entropy_with_logits(X @ w + b, y).backward()
        opt.step()
    return w.detach(), b


def predict_labels(X, w, b):
    return (X @ w + b > 0).long()
'''),
    ],
    "ex6_kmeans_assign": [
        ("shortcut: scikit-learn's pairwise_distances_argmin", """
def kmeans_assign(X, C):
    from sklearn.metrics import pairwise_distances_argmin

    return torch.as_tensor(pairwise_distances_argmin(X.cpu().numpy(), C.cpu().numpy()), dtype=torch.long,
                           device=X.device)
"""),
        ("takes the farthest centroid (argmax)", '''
def kmeans_assign(X, C):
    return torch.cdist(X, C).argmax(dim=1)
'''),
        ("argmin over the wrong axis: one index per centroid, not per point", '''
def kmeans_assign(X, C):
    return torch.cdist(X, C).argmin(dim=0)
'''),
    ],
    "ex7_kmeans_update": [
        ("divides by the count without handling empty clusters: nan centroids", '''
def kmeans_update(X, labels, C_old):
    k = C_old.shape[0]
    sums = torch.zeros_like(C_old).index_add_(0, labels, X)
    counts = torch.bincount(labels, minlength=k).unsqueeze(1).to(X.dtype)
    return sums / counts
'''),
        ("an empty cluster's centroid collapses to the origin", '''
def kmeans_update(X, labels, C_old):
    k = C_old.shape[0]
    sums = torch.zeros_like(C_old).index_add_(0, labels, X)
    counts = torch.bincount(labels, minlength=k).unsqueeze(1).clamp(min=1).to(X.dtype)
    return sums / counts
'''),
        ("writes the new means into C_old in place", '''
def kmeans_update(X, labels, C_old):
    k = C_old.shape[0]
    sums = torch.zeros_like(C_old).index_add_(0, labels, X)
    counts = torch.bincount(labels, minlength=k)
    full = counts > 0
    C_old[full] = sums[full] / counts[full].unsqueeze(1).to(X.dtype)
    return C_old
'''),
    ],
}

ALT = {
    "ex1_lstsq": '''
def fit_linear_lstsq(X, y):
    # centre the data, solve the normal equations in float64, recover the intercept from the means
    Xd, yd = X.double(), y.double()
    xm, ym = Xd.mean(dim=0), yd.mean()
    Xc, yc = Xd - xm, yd - ym
    w = torch.linalg.solve(Xc.T @ Xc, Xc.T @ yc)
    b = ym - xm @ w
    return w.to(X.dtype), b.to(X.dtype)
''',
    "ex2_linear_gd": '''
def fit_linear_gd(X, y, lr=0.1, steps=200):
    params = [torch.zeros(X.shape[1], device=X.device, requires_grad=True),
              torch.zeros((), device=X.device, requires_grad=True)]
    opt = torch.optim.SGD(params, lr=lr)
    losses = []
    for _ in range(steps):
        opt.zero_grad()
        loss = F.mse_loss(X @ params[0] + params[1], y)
        loss.backward()
        opt.step()
        losses.append(float(loss.detach()))
    return params[0].detach(), params[1].detach(), losses
''',
    "ex3_stable_bce": '''
def bce_with_logits(z, y):
    return -(y * F.logsigmoid(z) + (1 - y) * F.logsigmoid(-z)).mean()
''',
    # more accurate than the reference: float64 statistics and results
    "ex4_standardize": '''
def standardize(X_train, X_test):
    X_train, X_test = X_train.double(), X_test.double()
    centre = X_train.sum(dim=0) / X_train.shape[0]
    scale = ((X_train - centre) ** 2).mean(dim=0).sqrt()
    scale[scale == 0] = 1.0  # a constant feature keeps scale 1, as in StandardScaler
    return (X_train - centre) / scale, (X_test - centre) / scale
''',
    "ex5_logistic": '''
def fit_logistic(X, y, lr=0.5, steps=200):
    w = torch.zeros(X.shape[1], device=X.device, requires_grad=True)
    b = torch.zeros((), device=X.device, requires_grad=True)
    for _ in range(steps):
        z = X @ w + b
        loss = (F.softplus(z) - z * y).mean()
        gw, gb = torch.autograd.grad(loss, [w, b])
        with torch.no_grad():
            w.sub_(lr * gw)
            b.sub_(lr * gb)
    return w.detach(), b.detach()


def predict_labels(X, w, b):
    return torch.where(torch.sigmoid(X @ w + b) > 0.5, 1, 0).to(torch.long)
''',
    "ex6_kmeans_assign": '''
def kmeans_assign(X, C):
    d2 = ((X[:, None, :] - C[None, :, :]) ** 2).sum(dim=-1)
    return d2.min(dim=1).indices
''',
    "ex7_kmeans_update": '''
def kmeans_update(X, labels, C_old):
    rows = []
    for j in range(C_old.shape[0]):
        members = X[labels == j]
        rows.append(members.mean(dim=0) if len(members) else C_old[j].clone())
    return torch.stack(rows)
''',
}
