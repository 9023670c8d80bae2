"""Blind set for notebooks/senior/14_adapters_routing_and_preferences.ipynb, written from release/ alone (issue 33).

Long because every answer replaces a whole cell: a wrong answer and an alternative per exercise (and a shortcut
where the work is asked by hand).
"""

_LORA = '''
class LoRALinear(nn.Module):
    def __init__(self, base: nn.Linear, r: int, alpha: float):
        super().__init__()
        self.base = base
        self.base.weight.requires_grad_(False)
        self.r, self.alpha, self.scaling = r, alpha, alpha / r
        w = base.weight
        self.lora_A = nn.Parameter(torch.randn(r, base.in_features, device=w.device, dtype=w.dtype)
                                   / math.sqrt(base.in_features))
        self.lora_B = nn.Parameter(torch.zeros(base.out_features, r, device=w.device, dtype=w.dtype))

    def forward(self, x):
        return self.base(x) + self.scaling * (x @ self.lora_A.t()) @ self.lora_B.t()
'''

_LORA_ALT = '''
class LoRALinear(nn.Module):
    def __init__(self, base: nn.Linear, r: int, alpha: float):
        super().__init__()
        for p in base.parameters():
            p.requires_grad = False
        self.base = base
        self.r = r
        self.alpha = alpha
        self.scaling = alpha / r
        like = {"device": base.weight.device, "dtype": base.weight.dtype}
        self.lora_A = nn.Parameter(torch.empty(r, base.in_features, **like))
        nn.init.kaiming_uniform_(self.lora_A, a=math.sqrt(5))  # PEFT's default: random, scale ~ 1/sqrt(in)
        self.lora_B = nn.Parameter(torch.zeros(base.out_features, r, **like))

    def forward(self, x):
        update = F.linear(F.linear(x, self.lora_A), self.lora_B)  # through the rank-r bottleneck
        return self.base(x) + update * self.scaling
'''

_MERGE_NO_SCALE = '''
def _linear_like(layer, weight, bias):
    out = nn.Linear(weight.shape[1], weight.shape[0], bias=bias is not None, device=weight.device, dtype=weight.dtype)
    with torch.no_grad():
        out.weight.copy_(weight)
        if bias is not None:
            out.bias.copy_(bias)
    return out


def merge_lora(layer) -> nn.Linear:
    with torch.no_grad():
        w = layer.base.weight + layer.lora_B @ layer.lora_A
    return _linear_like(layer, w, layer.base.bias)


def unmerge_lora(merged: nn.Linear, layer) -> nn.Linear:
    with torch.no_grad():
        w = merged.weight - layer.lora_B @ layer.lora_A
    return _linear_like(layer, w, merged.bias)
'''

_MERGE_ALT = '''
import copy


def _linear_like(layer, weight, bias):
    out = nn.Linear(weight.shape[1], weight.shape[0], bias=bias is not None, device=weight.device, dtype=weight.dtype)
    with torch.no_grad():
        out.weight.copy_(weight)
        if bias is not None:
            out.bias.copy_(bias)
    return out


def _shifted(linear: nn.Linear, layer, sign: float) -> nn.Linear:
    out = copy.deepcopy(linear)  # its own storage: the source layer is never touched
    with torch.no_grad():
        delta = torch.einsum("or,ri->oi", layer.lora_B, layer.lora_A) * layer.scaling
        out.weight.add_(delta.to(out.weight.dtype), alpha=sign)
    out.requires_grad_(True)
    return out


def merge_lora(layer) -> nn.Linear:
    return _shifted(layer.base, layer, +1.0)


def unmerge_lora(merged: nn.Linear, layer) -> nn.Linear:
    return _shifted(merged, layer, -1.0)
'''

_ADD_LORA_TOP_LEVEL = '''
def add_lora(model: nn.Module, r: int, alpha: float) -> nn.Module:
    model.requires_grad_(False)
    for name, child in list(model.named_children()):
        if isinstance(child, nn.Linear):
            setattr(model, name, LoRALinear(child, r, alpha))
    return model


def count_trainable(model: nn.Module) -> int:
    return sum(p.numel() for p in model.parameters() if p.requires_grad)


LORA_PARAMS_4096 = 8 * (4096 + 4096)
FULL_PARAMS_4096 = 4096 * 4096 + 4096
'''

_ADD_LORA_ALT = '''
def add_lora(model: nn.Module, r: int, alpha: float) -> nn.Module:
    for p in model.parameters():
        p.requires_grad_(False)
    targets = [name for name, mod in model.named_modules() if type(mod) is nn.Linear and name]
    for name in targets:  # collected first, so no adapter's base is ever wrapped again
        parent_name, _, attr = name.rpartition(".")
        parent = model.get_submodule(parent_name) if parent_name else model
        parent._modules[attr] = LoRALinear(parent._modules[attr], r, alpha)
    return model


def count_trainable(model: nn.Module) -> int:
    seen, total = set(), 0
    for _, p in model.named_parameters():
        if p.requires_grad and id(p) not in seen:
            seen.add(id(p))
            total += p.numel()
    return total


_r, _d = 8, 4096
LORA_PARAMS_4096 = _r * _d + _d * _r  # A (r, in) and B (out, r)
FULL_PARAMS_4096 = _d * _d + _d  # weight and bias
'''

_ROUTE_FULL_SOFTMAX = '''
def top_k_route(logits, k: int):
    probs = torch.softmax(logits, dim=-1)
    weights, experts = probs.topk(k, dim=-1)
    return weights, experts
'''

_ROUTE_ALT = '''
def top_k_route(logits, k: int):
    order = torch.argsort(logits, dim=-1, descending=True)[:, :k]
    picked = torch.gather(logits, -1, order)
    shifted = picked - picked.max(dim=-1, keepdim=True).values
    weights = shifted.exp() / shifted.exp().sum(dim=-1, keepdim=True)
    return weights, order
'''

_CAPACITY_TOKEN_MAJOR = '''
def expert_capacity(n_tokens: int, n_experts: int, k: int, capacity_factor: float) -> int:
    return math.ceil(capacity_factor * n_tokens * k / n_experts)


def capacity_mask(experts, n_experts: int, capacity: int):
    flat = experts.reshape(-1)  # token by token: token 0's choices, then token 1's...
    onehot = F.one_hot(flat, n_experts)
    position = (onehot.cumsum(0) * onehot).sum(-1) - 1
    return (position < capacity).reshape(experts.shape)
'''

_CAPACITY_LOOP = '''
def expert_capacity(n_tokens: int, n_experts: int, k: int, capacity_factor: float) -> int:
    return int(math.ceil(capacity_factor * n_tokens * k / n_experts))


def capacity_mask(experts, n_experts: int, capacity: int):
    N, k = experts.shape
    used = [0] * n_experts
    keep = [[False] * k for _ in range(N)]
    ids = experts.tolist()
    for choice in range(k):  # every first choice, in token order, before any second choice
        for token in range(N):
            e = ids[token][choice]
            if used[e] < capacity:
                used[e] += 1
                keep[token][choice] = True
    return torch.tensor(keep, dtype=torch.bool, device=experts.device)
'''

_MOE_RENORMALIZED = '''
def moe_forward(x, router, experts, k: int, capacity_factor: float):
    weights, idx = top_k_route(router(x), k)
    cap = expert_capacity(x.shape[0], len(experts), k, capacity_factor)
    keep = capacity_mask(idx, len(experts), cap)
    weights = weights * keep
    weights = weights / weights.sum(-1, keepdim=True).clamp(min=1e-9)  # "the surviving weights must sum to 1"
    out = torch.zeros_like(x)
    for e, expert in enumerate(experts):
        tok, slot = torch.where((idx == e) & keep)
        if tok.numel():
            out = out.index_add(0, tok, weights[tok, slot, None] * expert(x[tok]))
    return out
'''

_MOE_ALT = '''
def moe_forward(x, router, experts, k: int, capacity_factor: float):
    N, E = x.shape[0], len(experts)
    weights, idx = top_k_route(router(x), k)
    keep = capacity_mask(idx, E, expert_capacity(N, E, k, capacity_factor))
    gate = torch.zeros(N, E, dtype=weights.dtype, device=x.device)
    gate = gate.scatter_add(1, idx, weights * keep.to(weights.dtype))  # (N, E): 0 where not routed or dropped
    routed = torch.zeros(N, E, dtype=torch.bool, device=x.device).scatter(1, idx, keep)
    parts = []
    for e in range(E):
        rows = routed[:, e].nonzero().flatten()
        if rows.numel() == 0:
            continue
        y = experts[e](x.index_select(0, rows))
        parts.append(torch.zeros_like(x).index_copy(0, rows, gate[rows, e].unsqueeze(1) * y))
    return torch.stack(parts).sum(0) if parts else torch.zeros_like(x)
'''

_AUX_PER_TOKEN = '''
def load_balancing_loss(router_logits, experts, n_experts: int):
    counts = torch.bincount(experts.reshape(-1), minlength=n_experts).to(router_logits.dtype)
    f = counts / router_logits.shape[0]
    P = torch.softmax(router_logits, dim=-1).mean(0)
    return n_experts * (f * P).sum()
'''

_AUX_ALT = '''
def load_balancing_loss(router_logits, experts, n_experts: int):
    f = F.one_hot(experts, n_experts).to(router_logits.dtype).mean(dim=(0, 1))  # share of the N * k slots
    P = router_logits.log_softmax(dim=-1).exp().mean(dim=0)
    return n_experts * torch.dot(f.detach(), P)
'''

_LOGPROBS_UNSHIFTED_MASK = '''
def sequence_logprobs(logits, tokens, response_mask):
    logp = F.log_softmax(logits[:, :-1], dim=-1)
    picked = logp.gather(-1, tokens[:, 1:].unsqueeze(-1)).squeeze(-1)
    return (picked * response_mask[:, :-1]).sum(-1)
'''

_LOGPROBS_ALT = '''
def sequence_logprobs(logits, tokens, response_mask):
    pred, target, mask = logits[:, :-1], tokens[:, 1:], response_mask[:, 1:]
    nll = F.cross_entropy(pred.transpose(1, 2), target, reduction="none")  # (B, T - 1)
    return torch.where(mask, -nll, torch.zeros_like(nll)).sum(dim=1)
'''

_DPO_BETA_OUTSIDE = '''
def dpo_loss(policy_chosen, policy_rejected, ref_chosen, ref_rejected, beta: float):
    margin = (policy_chosen - ref_chosen) - (policy_rejected - ref_rejected)
    return -(beta * F.logsigmoid(margin)).mean()
'''

_DPO_ALT = '''
def dpo_loss(policy_chosen, policy_rejected, ref_chosen, ref_rejected, beta: float):
    policy_margin = policy_chosen - policy_rejected
    ref_margin = ref_chosen - ref_rejected
    return F.softplus(-beta * (policy_margin - ref_margin)).mean()  # -log sigmoid(z) = softplus(-z)
'''

_PPO_NO_MIN = '''
def ppo_clip_loss(logp_new, logp_old, advantages, eps: float = 0.2):
    ratio = torch.exp(logp_new - logp_old)
    return -(torch.clamp(ratio, 1 - eps, 1 + eps) * advantages).mean()
'''

_PPO_ALT = '''
def ppo_clip_loss(logp_new, logp_old, advantages, eps: float = 0.2):
    ratio = (logp_new - logp_old.detach()).exp()
    adv = advantages.detach()
    # the min of the two surrogates, case by case: a positive advantage caps the ratio from above,
    # a negative one from below
    objective = torch.where(adv >= 0, torch.minimum(ratio, torch.full_like(ratio, 1 + eps)) * adv,
                            torch.maximum(ratio, torch.full_like(ratio, 1 - eps)) * adv)
    return -objective.mean()
'''

WRONG = {
    "ex1_lora": ("freezes the base weight but leaves its bias trainable", _LORA),
    "ex2_merge": ("merges W + B A, forgetting the scaling alpha / r", _MERGE_NO_SCALE),
    "ex3_add_lora": ("wraps only the model's direct children, not the nn.Linear layers nested deeper",
                     _ADD_LORA_TOP_LEVEL),
    "ex4_router": ("softmax over all E logits, then picks the top k probabilities (weights do not sum to 1)",
                   _ROUTE_FULL_SOFTMAX),
    "ex5_capacity": ("queues the slots token by token instead of all first choices before any second choice",
                     _CAPACITY_TOKEN_MAJOR),
    "ex6_moe": ("renormalizes the weights of a token whose slot was dropped", _MOE_RENORMALIZED),
    "ex7_aux_loss": ("f_e as a fraction of the N tokens instead of the N * k slots (off by a factor k for k > 1)",
                     _AUX_PER_TOKEN),
    "ex8_seq_logprobs": ("shifts logits and tokens but not the mask", _LOGPROBS_UNSHIFTED_MASK),
    "ex9_dpo": ("beta multiplies the log-sigmoid instead of the margin inside it", _DPO_BETA_OUTSIDE),
    "ex10_ppo": ("uses the clipped surrogate alone, without the min with the unclipped one", _PPO_NO_MIN),
}

ALT = {
    "ex1_lora": _LORA_ALT,
    "ex2_merge": _MERGE_ALT,
    "ex3_add_lora": _ADD_LORA_ALT,
    "ex4_router": _ROUTE_ALT,
    "ex5_capacity": _CAPACITY_LOOP,
    "ex6_moe": _MOE_ALT,
    "ex7_aux_loss": _AUX_ALT,
    "ex8_seq_logprobs": _LOGPROBS_ALT,
    "ex9_dpo": _DPO_ALT,
    "ex10_ppo": _PPO_ALT,
}
