"""Known-wrong and alternative answers for notebooks/mid/06_accumulation_and_clipping.ipynb."""

_SIG1 = "def accumulated_backward(model, x, y, accum_steps):\n"
_SIG2 = "def train_accumulated(model, opt, micro_batches, accum_steps):\n"
_SIG4 = "def clip_global_norm_(parameters, max_norm):\n"
_SIG6 = ("def adam_step(param, grad, state, lr=1e-3, betas=(0.9, 0.999), eps=1e-8):\n"
         "    beta1, beta2 = betas\n"
         "    if not state:\n"
         "        state['step'] = 0\n"
         "        state['exp_avg'] = torch.zeros_like(param)\n"
         "        state['exp_avg_sq'] = torch.zeros_like(param)\n"
         "    state['step'] += 1\n"
         "    t = state['step']\n")

WRONG = {
    "ex1_accum": [
        ("forgets to divide the micro-batch loss by accum_steps (gradient k times too large)",
         _SIG1 +
         "    model.zero_grad()\n"
         "    total = 0.0\n"
         "    for xc, yc in zip(x.chunk(accum_steps), y.chunk(accum_steps)):\n"
         "        loss = F.cross_entropy(model(xc), yc)\n"
         "        loss.backward()\n"
         "        total += loss.item() / accum_steps\n"
         "    return total\n"),
        ("zeroes the gradients inside the loop: only the last micro-batch survives",
         _SIG1 +
         "    total = 0.0\n"
         "    for xc, yc in zip(x.chunk(accum_steps), y.chunk(accum_steps)):\n"
         "        model.zero_grad()\n"
         "        loss = F.cross_entropy(model(xc), yc) / accum_steps\n"
         "        loss.backward()\n"
         "        total += loss.item()\n"
         "    return total\n"),
    ],
    "ex2_loop": [
        ("forgets to divide the loss: the accumulated gradient is a sum, not a mean",
         _SIG2 +
         "    steps = 0\n"
         "    opt.zero_grad()\n"
         "    for i, (xb, yb) in enumerate(micro_batches):\n"
         "        F.cross_entropy(model(xb), yb).backward()\n"
         "        if (i + 1) % accum_steps == 0 or i + 1 == len(micro_batches):\n"
         "            opt.step()\n"
         "            opt.zero_grad()\n"
         "            steps += 1\n"
         "    return steps\n"),
        ("only steps on multiples of accum_steps: the short last group is never applied",
         _SIG2 +
         "    steps = 0\n"
         "    opt.zero_grad()\n"
         "    for i, (xb, yb) in enumerate(micro_batches):\n"
         "        (F.cross_entropy(model(xb), yb) / accum_steps).backward()\n"
         "        if (i + 1) % accum_steps == 0:\n"
         "            opt.step()\n"
         "            opt.zero_grad()\n"
         "            steps += 1\n"
         "    return steps\n"),
    ],
    "ex3_predict": [
        ("forgets the data-parallel workers", "EFFECTIVE_BATCH = 16 * 8\nSTEPS_PER_EPOCH = 8192 // 128\n"),
    ],
    "ex4_clip": [
        ("clips each tensor by its own norm instead of the global norm",
         _SIG4 +
         "    grads = [p.grad for p in parameters if p.grad is not None]\n"
         "    total = torch.sqrt(sum((g ** 2).sum() for g in grads))\n"
         "    for g in grads:\n"
         "        n = g.norm()\n"
         "        if n > max_norm:\n"
         "            g.mul_(max_norm / (n + 1e-6))\n"
         "    return total\n"),
        ("clamps values (clip_grad_value_) instead of rescaling by the norm",
         _SIG4 +
         "    grads = [p.grad for p in parameters if p.grad is not None]\n"
         "    total = torch.sqrt(sum((g ** 2).sum() for g in grads))\n"
         "    for g in grads:\n"
         "        g.clamp_(-max_norm, max_norm)\n"
         "    return total\n"),
        ("clips correctly but returns the norm as a Python float, not a tensor",
         _SIG4 +
         "    grads = [p.grad for p in parameters if p.grad is not None]\n"
         "    total = torch.sqrt(sum((g ** 2).sum() for g in grads))\n"
         "    if total > max_norm:\n"
         "        for g in grads:\n"
         "            g.mul_(max_norm / (total + 1e-6))\n"
         "    return total.item()\n"),
    ],
    "ex5_predict": [
        ("thinks value clipping keeps the direction and norm clipping leaves 13",
         "NORM_AFTER_NORM_CLIP = 13.0\nNORM_AFTER_VALUE_CLIP = 1.0\nKEEPS_DIRECTION = 'value'\n"),
    ],
    "ex6_adam": [
        ("no bias correction: the early steps are several times too large",
         _SIG6 +
         "    m = state['exp_avg'] = beta1 * state['exp_avg'] + (1 - beta1) * grad\n"
         "    v = state['exp_avg_sq'] = beta2 * state['exp_avg_sq'] + (1 - beta2) * grad * grad\n"
         "    with torch.no_grad():\n"
         "        param -= lr * m / (v.sqrt() + eps)\n"),
        ("eps inside the square root",
         _SIG6 +
         "    m = state['exp_avg'] = beta1 * state['exp_avg'] + (1 - beta1) * grad\n"
         "    v = state['exp_avg_sq'] = beta2 * state['exp_avg_sq'] + (1 - beta2) * grad * grad\n"
         "    m_hat = m / (1 - beta1 ** t)\n"
         "    v_hat = v / (1 - beta2 ** t)\n"
         "    with torch.no_grad():\n"
         "        param -= lr * m_hat / (v_hat + eps).sqrt()\n"),
    ],
    "ex7_predict": [
        ("expects clipping to slow Adam down just like SGD",
         "ADAM_CHANGES = True\nSGD_CHANGES = True\nADAM_FIRST_STEP = 0.01\n"),
    ],
}

ALT = {
    "ex1_accum": (
        _SIG1 +
        "    for p in model.parameters():\n"
        "        p.grad = None\n"
        "    losses = []\n"
        "    for idx in torch.arange(len(x)).tensor_split(accum_steps):\n"
        "        loss = F.cross_entropy(model(x[idx]), y[idx], reduction='sum') / len(x)\n"
        "        loss.backward()\n"
        "        losses.append(loss.detach())\n"
        "    return float(torch.stack(losses).sum())\n"),
    "ex2_loop": (
        _SIG2 +
        "    steps = 0\n"
        "    for start in range(0, len(micro_batches), accum_steps):\n"
        "        group = micro_batches[start:start + accum_steps]\n"
        "        opt.zero_grad(set_to_none=True)\n"
        "        for xb, yb in group:\n"
        "            (F.cross_entropy(model(xb), yb) * (1.0 / len(group))).backward()\n"
        "        opt.step()\n"
        "        steps += 1\n"
        "    opt.zero_grad(set_to_none=True)\n"
        "    return steps\n"),
    "ex3_predict": "EFFECTIVE_BATCH = 512\nSTEPS_PER_EPOCH = 16\n",
    "ex4_clip": (
        _SIG4 +
        "    params = [p for p in parameters if p.grad is not None]\n"
        "    flat = torch.cat([p.grad.reshape(-1) for p in params])\n"
        "    total = flat.norm(2)\n"
        "    scale = torch.clamp(max_norm / (total + 1e-6), max=1.0)\n"
        "    for p in params:\n"
        "        p.grad.mul_(scale)\n"
        "    return total\n"),
    "ex5_predict": "NORM_AFTER_NORM_CLIP = 6.4999995\nNORM_AFTER_VALUE_CLIP = 1.7320508\nKEEPS_DIRECTION = 'Norm'\n",
    "ex6_adam": (
        _SIG6 +
        "    state['exp_avg'].lerp_(grad, 1 - beta1)\n"
        "    state['exp_avg_sq'].mul_(beta2).addcmul_(grad, grad, value=1 - beta2)\n"
        "    step_size = lr / (1 - beta1 ** t)\n"
        "    denom = state['exp_avg_sq'].sqrt() / math.sqrt(1 - beta2 ** t) + eps\n"
        "    with torch.no_grad():\n"
        "        param.addcdiv_(state['exp_avg'], denom, value=-step_size)\n"),
    "ex7_predict": "ADAM_CHANGES = 0\nSGD_CHANGES = 1\nADAM_FIRST_STEP = 1e-2\n",
}

WRONG["ex4_clip"].append((
    "right values, but replaces each .grad with a new tensor instead of scaling it in place",
    ALT["ex4_clip"].replace("        p.grad.mul_(scale)\n", "        p.grad = p.grad * scale\n")))
assert WRONG["ex4_clip"][-1][1] != ALT["ex4_clip"]

WRONG["ex4_clip"].append((
    "shortcut: calls torch.nn.utils.clip_grad_norm_ (the statement asks for it by hand)",
    _SIG4 +
    "    return torch.nn.utils.clip_grad_norm_(parameters, max_norm)\n"))
WRONG["ex6_adam"].append((
    "shortcut: steps a torch.optim.Adam that shares the state's moments (the statement asks for Adam by hand)",
    _SIG6 +
    "    p = torch.nn.Parameter(param.detach().clone())\n"
    "    opt = torch.optim.Adam([p], lr=lr, betas=betas, eps=eps)\n"
    "    opt.state[p] = {'step': torch.tensor(float(t - 1)), 'exp_avg': state['exp_avg'],\n"
    "                    'exp_avg_sq': state['exp_avg_sq']}\n"
    "    p.grad = grad.detach().clone()\n"
    "    opt.step()\n"
    "    with torch.no_grad():\n"
    "        param.copy_(p)\n"))
