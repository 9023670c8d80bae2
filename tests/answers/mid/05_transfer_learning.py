"""Known-wrong and alternative answers for notebooks/mid/05_transfer_learning.ipynb."""

WRONG = {
    "ex1_prepare": [
        ("'freezes' the backbone with eval(), which only changes dropout/BN behaviour",
         "def prepare_for_finetune(model, num_classes):\n"
         "    model.backbone.eval()\n"
         "    model.head = nn.Linear(model.head.in_features, num_classes).to(model.head.weight.device)\n"
         "    return model\n"),
        ("builds the new head on the default device, not on the model's (found by the blind set, issue 33)",
         "def prepare_for_finetune(model, num_classes):\n"
         "    for p in model.backbone.parameters():\n"
         "        p.requires_grad = False\n"
         "    model.head = nn.Linear(model.head.in_features, num_classes)\n"
         "    return model\n"),
        ("freezes the whole model after replacing the head, so the new head is frozen too",
         "def prepare_for_finetune(model, num_classes):\n"
         "    model.head = nn.Linear(model.head.in_features, num_classes).to(model.head.weight.device)\n"
         "    for p in model.parameters():\n"
         "        p.requires_grad = False\n"
         "    return model\n"),
    ],
    "ex2_groups": [
        ("one group with the head's learning rate for everything",
         "def make_optimizer(model, backbone_lr, head_lr):\n"
         "    return torch.optim.SGD(model.parameters(), lr=head_lr, momentum=0.9)\n"),
        ("only hands the currently trainable parameters to the optimizer (unfreezing later does nothing)",
         "def make_optimizer(model, backbone_lr, head_lr):\n"
         "    trainable = [p for p in model.parameters() if p.requires_grad]\n"
         "    return torch.optim.SGD(trainable, lr=head_lr, momentum=0.9)\n"),
    ],
    "ex3_unfreeze": [
        ("unfreezes the first n layers (nearest the input) instead of the last n",
         "def unfreeze_last(model, n):\n"
         "    linears = [m for m in model.backbone.modules() if isinstance(m, nn.Linear)]\n"
         "    for layer in linears[:n]:\n"
         "        layer.requires_grad_(True)\n"
         "    return model\n"),
        ("uses linears[-n:], which unfreezes everything when n == 0",
         "def unfreeze_last(model, n):\n"
         "    linears = [m for m in model.backbone.modules() if isinstance(m, nn.Linear)]\n"
         "    for layer in linears[-n:]:\n"
         "        layer.requires_grad_(True)\n"
         "    return model\n"),
    ],
    "ex4_schedule": [
        ("cosine progress measured from step 0 instead of from the end of warmup",
         "def warmup_cosine(warmup_steps, total_steps, min_ratio=0.0):\n"
         "    def f(step):\n"
         "        if step < warmup_steps:\n"
         "            return (step + 1) / warmup_steps\n"
         "        p = min(1.0, step / total_steps)\n"
         "        return min_ratio + (1 - min_ratio) * 0.5 * (1 + math.cos(math.pi * p))\n"
         "    return f\n"),
        ("progress not clipped: past total_steps the learning rate climbs back up",
         "def warmup_cosine(warmup_steps, total_steps, min_ratio=0.0):\n"
         "    def f(step):\n"
         "        if step < warmup_steps:\n"
         "            return (step + 1) / warmup_steps\n"
         "        p = (step - warmup_steps) / max(1, total_steps - warmup_steps)\n"
         "        return min_ratio + (1 - min_ratio) * 0.5 * (1 + math.cos(math.pi * p))\n"
         "    return f\n"),
    ],
    "ex5_loop": [
        ("steps the scheduler before the optimizer (skips f(0), PyTorch warns)",
         "def train_with_schedule(model, opt, sched, batches, loss_fn):\n"
         "    losses = []\n"
         "    for x, y in batches:\n"
         "        sched.step()\n"
         "        opt.zero_grad()\n"
         "        loss = loss_fn(model(x), y)\n"
         "        loss.backward()\n"
         "        opt.step()\n"
         "        losses.append(loss.item())\n"
         "    return losses\n"),
        ("right order but never zeroes the gradients",
         "def train_with_schedule(model, opt, sched, batches, loss_fn):\n"
         "    losses = []\n"
         "    for x, y in batches:\n"
         "        loss = loss_fn(model(x), y)\n"
         "        loss.backward()\n"
         "        opt.step()\n"
         "        sched.step()\n"
         "        losses.append(loss.item())\n"
         "    return losses\n"),
    ],
    "ex6_predict": [
        ("believes the default init is variance-preserving and Xavier suits ReLU",
         "DEFAULT_INIT_TREND = 'stable'\nXAVIER_RELU_FACTOR = 1.0\n"),
    ],
    "ex7_init": [
        ("Xavier for everything, including ReLU: activations collapse through a deep stack",
         "def init_weights(model, nonlinearity):\n"
         "    for m in model.modules():\n"
         "        if isinstance(m, nn.Linear):\n"
         "            nn.init.xavier_normal_(m.weight)\n"
         "            nn.init.zeros_(m.bias)\n"
         "    return model\n"),
        ("He init in fan_out mode: right for the backward pass, wrong scale forward on non-square layers",
         "def init_weights(model, nonlinearity):\n"
         "    for m in model.modules():\n"
         "        if isinstance(m, nn.Linear):\n"
         "            if nonlinearity == 'relu':\n"
         "                nn.init.kaiming_normal_(m.weight, mode='fan_out', nonlinearity='relu')\n"
         "            else:\n"
         "                nn.init.xavier_normal_(m.weight)\n"
         "            nn.init.zeros_(m.bias)\n"
         "    return model\n"),
        ("initializes correctly in place but forgets to return the model",
         "def init_weights(model, nonlinearity):\n"
         "    for m in model.modules():\n"
         "        if isinstance(m, nn.Linear):\n"
         "            if nonlinearity == 'relu':\n"
         "                nn.init.kaiming_normal_(m.weight, nonlinearity='relu')\n"
         "            else:\n"
         "                nn.init.xavier_normal_(m.weight)\n"
         "            nn.init.zeros_(m.bias)\n"),
    ],
}

ALT = {
    "ex1_prepare": (
        "def prepare_for_finetune(model, num_classes):\n"
        "    model.backbone.requires_grad_(False)\n"
        "    dev = next(model.parameters()).device\n"
        "    model.head = nn.Linear(model.head.weight.shape[1], num_classes, device=dev)\n"
        "    return model\n"),
    "ex2_groups": (
        "def make_optimizer(model, backbone_lr, head_lr):\n"
        "    named = list(model.named_parameters())\n"
        "    groups = [\n"
        "        dict(params=[p for n, p in named if n.startswith('backbone.')], lr=backbone_lr),\n"
        "        dict(params=[p for n, p in named if not n.startswith('backbone.')], lr=head_lr),\n"
        "    ]\n"
        "    return torch.optim.SGD(groups, lr=backbone_lr, momentum=0.9)\n"),
    "ex3_unfreeze": (
        "def unfreeze_last(model, n):\n"
        "    left = n\n"
        "    for m in reversed(list(model.backbone.modules())):\n"
        "        if left <= 0:\n"
        "            break\n"
        "        if isinstance(m, nn.Linear):\n"
        "            for p in m.parameters():\n"
        "                p.requires_grad = True\n"
        "            left -= 1\n"
        "    return model\n"),
    "ex4_schedule": (
        "class warmup_cosine:\n"
        "    def __init__(self, warmup_steps, total_steps, min_ratio=0.0):\n"
        "        self.w, self.t, self.m = warmup_steps, total_steps, min_ratio\n"
        "    def __call__(self, step):\n"
        "        if step + 1 <= self.w:\n"
        "            return (step + 1) / self.w\n"
        "        s = min(step, self.t) - self.w\n"
        "        span = max(1, self.t - self.w)\n"
        "        return self.m + (1 - self.m) * (1 + math.cos(math.pi * s / span)) / 2\n"),
    "ex5_loop": (
        "def train_with_schedule(model, opt, sched, batches, loss_fn):\n"
        "    out = []\n"
        "    for x, y in batches:\n"
        "        for p in model.parameters():\n"
        "            p.grad = None\n"
        "        loss = loss_fn(model(x), y)\n"
        "        loss.backward()\n"
        "        opt.step()\n"
        "        sched.step()\n"
        "        out.append(float(loss.detach()))\n"
        "    return out\n"),
    "ex6_predict": "DEFAULT_INIT_TREND = 'Shrink '\nXAVIER_RELU_FACTOR = 1 / 2\n",
    "ex7_init": (
        "def init_weights(model, nonlinearity):\n"
        "    for m in model.modules():\n"
        "        if not isinstance(m, nn.Linear):\n"
        "            continue\n"
        "        fan_out, fan_in = m.weight.shape\n"
        "        if nonlinearity == 'relu':\n"
        "            bound = math.sqrt(3) * math.sqrt(2 / fan_in)\n"
        "        else:\n"
        "            bound = math.sqrt(6 / (fan_in + fan_out))\n"
        "        with torch.no_grad():\n"
        "            m.weight.uniform_(-bound, bound)\n"
        "            if m.bias is not None:\n"
        "                m.bias.zero_()\n"
        "    return model\n"),
}
