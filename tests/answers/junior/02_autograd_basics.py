"""Known-wrong and alternative answers for notebooks/junior/02_autograd_basics.ipynb."""

WRONG = {
    "ex1_graph_predict": [
        ("thinks only tensors created with requires_grad=True require grad",
         "C_REQUIRES_GRAD = False\nC_IS_LEAF = True\nD_GRAD_FN = 'AddBackward0'\nA_GRAD = 36.0\n"
         "B_GRAD_IS_NONE = True\n"),
        ("forgets the chain rule through c (dd/da = 2a b^2 taken as 2c)",
         "C_REQUIRES_GRAD = True\nC_IS_LEAF = False\nD_GRAD_FN = 'AddBackward0'\nA_GRAD = 12.0\n"
         "B_GRAD_IS_NONE = True\n"),
    ],
    "ex2_manual_grads": [
        ("shortcut: switches grad mode back on and asks torch.autograd.grad",
         "def manual_grads(x, y, w, b):\n    with torch.enable_grad():\n"
         "        wt = torch.tensor(float(w), device=x.device, requires_grad=True)\n"
         "        bt = torch.tensor(float(b), device=x.device, requires_grad=True)\n"
         "        loss = ((wt * x + bt - y) ** 2).mean()\n"
         "        dw, db = torch.autograd.grad(loss, (wt, bt))\n    return dw, db\n"),
        ("shortcut: backward() inside enable_grad",
         "def manual_grads(x, y, w, b):\n    with torch.enable_grad():\n"
         "        wt = torch.tensor(float(w), device=x.device, requires_grad=True)\n"
         "        bt = torch.tensor(float(b), device=x.device, requires_grad=True)\n"
         "        ((wt * x + bt - y) ** 2).mean().backward()\n    return wt.grad, bt.grad\n"),
        ("forgets the factor 2 of the square",
         "def manual_grads(x, y, w, b):\n    r = w * x + b - y\n    return (r * x).mean(), r.mean()\n"),
        ("sums instead of averaging over N",
         "def manual_grads(x, y, w, b):\n    r = w * x + b - y\n    return 2 * (r * x).sum(), 2 * r.sum()\n"),
    ],
    "ex3_power_until": [
        ("multiplies by x.item(): a Python number carries no history",
         "def power_until(x, limit):\n    y = x\n    while y.item() <= limit:\n        y = y * x.item()\n"
         "    return y\n"),
        ("rebuilds y as a fresh tensor: the graph to x is cut",
         "def power_until(x, limit):\n    v = x.item()\n    while v <= limit:\n        v = v * x.item()\n"
         "    return torch.tensor(v, requires_grad=True)\n"),
        ("stops at y >= limit instead of y > limit (blind set, issue 33)",
         "def power_until(x, limit):\n    y = x\n    while y.item() < limit:\n        y = y * x\n    return y\n"),
    ],
    "ex4_accumulate_predict": [
        ("thinks backward() overwrites .grad",
         "GRAD_AFTER_LOOP = 8.0\nGRAD_AFTER_RESET = 5.0\n"),
        ("thinks setting .grad to None does not reset accumulation",
         "GRAD_AFTER_LOOP = 24.0\nGRAD_AFTER_RESET = 29.0\n"),
    ],
    "ex5_fit": [
        ("never calls zero_grad: gradients from all earlier steps pile up",
         "def fit(model, x, y, steps, lr):\n    opt = torch.optim.SGD(model.parameters(), lr=lr)\n"
         "    losses = []\n    for _ in range(steps):\n        loss = F.mse_loss(model(x), y)\n"
         "        loss.backward()\n        opt.step()\n        losses.append(loss.item())\n    return losses\n"),
        ("zero_grad between backward and step: step sees no gradient",
         "def fit(model, x, y, steps, lr):\n    opt = torch.optim.SGD(model.parameters(), lr=lr)\n"
         "    losses = []\n    for _ in range(steps):\n        loss = F.mse_loss(model(x), y)\n"
         "        loss.backward()\n        opt.zero_grad()\n        opt.step()\n        losses.append(loss.item())\n"
         "    return losses\n"),
    ],
    "ex6_no_grad_predict": [
        ("thinks detach() copies and inference tensors can be reused in training",
         "A_REQUIRES_GRAD = False\nB_REQUIRES_GRAD = False\nDETACH_SHARES_MEMORY = False\n"
         "C_REQUIRES_GRAD = False\nC_USABLE_LATER = True\nE_REQUIRES_GRAD = True\n"),
        ("thinks a frozen layer's output never requires grad",
         "A_REQUIRES_GRAD = False\nB_REQUIRES_GRAD = False\nDETACH_SHARES_MEMORY = True\n"
         "C_REQUIRES_GRAD = False\nC_USABLE_LATER = False\nE_REQUIRES_GRAD = False\n"),
    ],
    "ex7_evaluate": [
        ("no torch.no_grad(): every batch records a graph",
         "def evaluate(model, x, y, batch_size):\n    total, count = 0.0, 0\n"
         "    for i in range(0, len(x), batch_size):\n        xb, yb = x[i:i + batch_size], y[i:i + batch_size]\n"
         "        total += F.mse_loss(model(xb), yb, reduction='sum').item()\n        count += yb.numel()\n"
         "    return total / count\n"),
        ("accumulates tensors and returns a tensor, not a float",
         "def evaluate(model, x, y, batch_size):\n    total, count = 0.0, 0\n    with torch.no_grad():\n"
         "        for i in range(0, len(x), batch_size):\n            xb, yb = x[i:i + batch_size], y[i:i + batch_size]\n"
         "            total = total + F.mse_loss(model(xb), yb, reduction='sum')\n            count += yb.numel()\n"
         "    return total / count\n"),
        ("averages the per-batch means (wrong when the last batch is smaller)",
         "def evaluate(model, x, y, batch_size):\n    means = []\n    with torch.no_grad():\n"
         "        for i in range(0, len(x), batch_size):\n"
         "            means.append(F.mse_loss(model(x[i:i + batch_size]), y[i:i + batch_size]).item())\n"
         "    return sum(means) / len(means)\n"),
    ],
}

ALT = {
    "ex1_graph_predict": (
        "_a = torch.tensor(2.0, requires_grad=True)\n_b = torch.tensor(3.0)\n_c = _a * _b\n_d = _c ** 2 + _b\n"
        "_d.backward()\n"
        "C_REQUIRES_GRAD, C_IS_LEAF = _c.requires_grad, _c.is_leaf\n"
        "D_GRAD_FN = _d.grad_fn.name()\nA_GRAD = _a.grad\nB_GRAD_IS_NONE = _b.grad is None\n"
    ),
    "ex2_manual_grads": (
        "def manual_grads(x, y, w, b):\n    n = x.numel()\n    r = w * x + b - y\n"
        "    return 2.0 / n * torch.dot(r, x), 2.0 / n * r.sum()\n"
    ),
    "ex3_power_until": (
        "def power_until(x, limit):\n    k, v = 1, x.item()\n    while v <= limit:\n        v *= x.item()\n"
        "        k += 1\n    return x ** k\n"
    ),
    "ex4_accumulate_predict": "GRAD_AFTER_LOOP = 3 * 8 * 1.0\nGRAD_AFTER_RESET = float(5)\n",
    "ex5_fit": (
        "def fit(model, x, y, steps, lr):\n    opt = torch.optim.SGD(model.parameters(), lr=lr)\n"
        "    losses = []\n    for _ in range(steps):\n        loss = torch.mean((model(x) - y) ** 2)\n"
        "        loss.backward()\n        opt.step()\n        model.zero_grad(set_to_none=True)\n"
        "        losses.append(float(loss.detach()))\n    return losses\n"
    ),
    "ex6_no_grad_predict": (
        "A_REQUIRES_GRAD = B_REQUIRES_GRAD = C_REQUIRES_GRAD = False\nDETACH_SHARES_MEMORY = True\n"
        "C_USABLE_LATER = False\nE_REQUIRES_GRAD = True\n"
    ),
    "ex7_evaluate": (
        "@torch.inference_mode()\n"
        "def evaluate(model, x, y, batch_size):\n"
        "    sq = [((model(xb) - yb) ** 2).sum() for xb, yb in zip(x.split(batch_size), y.split(batch_size))]\n"
        "    return (torch.stack(sq).sum() / y.numel()).item()\n"
    ),
}
