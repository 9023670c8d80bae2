"""Known-wrong and alternative answers for senior/14_adapters_routing_and_preferences."""

from tests.answers.senior import edited, reference

NB = "senior/14_adapters_routing_and_preferences"

EX1 = reference(NB, "ex1_lora")

EX1_WRONG_SCALE_BY_R = edited(EX1, "alpha, alpha / r", "alpha, r")

EX1_WRONG_BOTH_ZERO = edited(EX1, "torch.randn(r, base.in_features, device=w.device, dtype=w.dtype) / math.sqrt(base.in_features)",
                             "torch.zeros(r, base.in_features, device=w.device, dtype=w.dtype)")

EX1_WRONG_NOT_FROZEN = edited(EX1, """
        for p in self.base.parameters():
            p.requires_grad_(False)""")

EX1_ALT = '''
class LoRALinear(nn.Module):
    def __init__(self, base, r, alpha):
        super().__init__()
        base.requires_grad_(False)
        self.base = base
        self.r = r
        self.alpha = alpha
        self.scaling = float(alpha) / float(r)
        self.lora_A = nn.Parameter(base.weight.new_empty(r, base.in_features))
        self.lora_B = nn.Parameter(base.weight.new_zeros(base.out_features, r))
        nn.init.kaiming_uniform_(self.lora_A, a=math.sqrt(5))

    def forward(self, x):
        low = F.linear(F.linear(x, self.lora_A), self.lora_B)
        return self.base(x) + self.scaling * low
'''

EX1_WRONG_CPU_ADAPTERS = edited(edited(EX1_ALT, "base.weight.new_empty(r, base.in_features)",
                                       "torch.empty(r, base.in_features, dtype=base.weight.dtype)"),
                                "base.weight.new_zeros(base.out_features, r)",
                                "torch.zeros(base.out_features, r, dtype=base.weight.dtype)")

EX2 = reference(NB, "ex2_merge")

EX2_WRONG_DEFAULT_LINEAR = edited(EX2, ", device=weight.device, dtype=weight.dtype")

EX2_WRONG_NO_SCALING = edited(edited(EX2, "layer.base.weight + delta", "layer.base.weight + layer.lora_B @ layer.lora_A"),
                              "merged.weight - delta", "merged.weight - layer.lora_B @ layer.lora_A")

EX2_WRONG_IN_PLACE = '''
def merge_lora(layer):
    with torch.no_grad():
        layer.base.weight += layer.scaling * (layer.lora_B @ layer.lora_A)
    return layer.base


def unmerge_lora(merged, layer):
    with torch.no_grad():
        merged.weight -= layer.scaling * (layer.lora_B @ layer.lora_A)
    return merged
'''

EX2_ALT = '''
import copy


def merge_lora(layer):
    merged = copy.deepcopy(layer.base)
    merged.weight.requires_grad_(True)
    if merged.bias is not None:
        merged.bias.requires_grad_(True)
    with torch.no_grad():
        merged.weight.addmm_(layer.lora_B, layer.lora_A, alpha=layer.scaling)
    return merged


def unmerge_lora(merged, layer):
    out = copy.deepcopy(merged)
    with torch.no_grad():
        out.weight.addmm_(layer.lora_B, layer.lora_A, alpha=-layer.scaling)
    return out
'''

EX3 = reference(NB, "ex3_add_lora")

EX3_WRONG_NOT_FROZEN = edited(EX3, """
    for p in model.parameters():
        p.requires_grad_(False)
""")

EX3_WRONG_TOP_LEVEL_ONLY = edited(EX3, """
            else:
                swap(child)""")

EX3_ALT = '''
def add_lora(model, r, alpha):
    model.requires_grad_(False)
    targets = [name for name, mod in model.named_modules() if isinstance(mod, nn.Linear)]
    for name in targets:
        parent_name, _, attr = name.rpartition(".")
        parent = model.get_submodule(parent_name) if parent_name else model
        parent.register_module(attr, LoRALinear(getattr(parent, attr), r, alpha))
    return model


def count_trainable(model):
    seen, total = set(), 0
    for p in model.parameters():
        if p.requires_grad and id(p) not in seen:
            seen.add(id(p))
            total += p.numel()
    return total


LORA_PARAMS_4096 = 2 * 8 * 4096
FULL_PARAMS_4096 = 4096 * (4096 + 1)
'''

EX4 = reference(NB, "ex4_router")

EX4_WRONG_FULL_SOFTMAX = '''
def top_k_route(logits, k):
    probs = torch.softmax(logits, dim=-1)
    weights, experts = torch.topk(probs, k, dim=-1)
    return weights, experts
'''

EX4_WRONG_SMALLEST = edited(EX4, "torch.topk(logits, k, dim=-1)", "torch.topk(logits, k, dim=-1, largest=False)")

EX4_ALT = '''
def top_k_route(logits, k):
    order = torch.argsort(logits, dim=-1, descending=True)[..., :k]
    chosen = torch.gather(logits, -1, order)
    weights = torch.exp(chosen - chosen.max(dim=-1, keepdim=True).values)
    return weights / weights.sum(dim=-1, keepdim=True), order
'''

EX5 = reference(NB, "ex5_capacity")

EX5_WRONG_IGNORES_CAPACITY = '''
def expert_capacity(n_tokens, n_experts, k, capacity_factor):
    return int(math.ceil(capacity_factor * n_tokens * k / n_experts))


def capacity_mask(experts, n_experts, capacity):
    return torch.ones_like(experts, dtype=torch.bool)
'''

EX5_WRONG_TOKEN_MAJOR = edited(edited(edited(
    EX5, "int(math.ceil(capacity_factor * n_tokens * k / n_experts))", "int(capacity_factor * n_tokens * k // n_experts)"),
    "experts.t().reshape(-1)", "experts.reshape(-1)"),
    "(position < capacity).view(k, N).t()", "(position < capacity).view(N, k)")

EX5_ALT = '''
def expert_capacity(n_tokens, n_experts, k, capacity_factor):
    return int(-(-(capacity_factor * n_tokens * k) // n_experts))  # ceiling by floor division of the negative


def capacity_mask(experts, n_experts, capacity):
    N, k = experts.shape
    keep = torch.zeros(N, k, dtype=torch.bool, device=experts.device)
    used = torch.zeros(n_experts, dtype=torch.long, device=experts.device)
    for j in range(k):
        col = experts[:, j]
        onehot = F.one_hot(col, n_experts)
        rank = used[col] + onehot.cumsum(0).gather(1, col[:, None]).squeeze(1) - 1
        keep[:, j] = rank < capacity
        used += onehot.sum(0)
    return keep
'''

EX6 = reference(NB, "ex6_moe")

EX6_WRONG_IGNORES_CAPACITY = edited(edited(EX6, """
    keep = capacity_mask(idx, n_experts, expert_capacity(x.shape[0], n_experts, k, capacity_factor))"""),
                                    "(idx == e) & keep", "idx == e")

EX6_WRONG_NO_GATE = edited(EX6, "expert(x[tokens]) * weights[tokens, slots].unsqueeze(-1)", "expert(x[tokens]) / k")

EX6_ALT = '''
def moe_forward(x, router, experts, k, capacity_factor):
    E = len(experts)
    weights, idx = top_k_route(router(x), k)
    cap = expert_capacity(x.shape[0], E, k, capacity_factor)
    gate = weights * capacity_mask(idx, E, cap).to(weights.dtype)  # dropped slots weigh zero
    combine = torch.zeros(x.shape[0], E, dtype=x.dtype, device=x.device).scatter_add(1, idx, gate)
    out = x.new_zeros(x.shape)
    for e in range(E):
        rows = (combine[:, e] != 0).nonzero().squeeze(1)
        if len(rows) > 0:
            out = out + torch.zeros_like(x).index_copy(0, rows, experts[e](x[rows]) * combine[rows, e:e + 1])
    return out
'''

EX7 = reference(NB, "ex7_aux_loss")

EX7_WRONG_NO_E = edited(EX7, "return n_experts * (f * P).sum()", "return (f * P).sum()")

EX7_WRONG_GATE_PROBS = edited(EX7, """
    P = torch.softmax(router_logits, dim=-1).mean(dim=0)""", """
    chosen = router_logits.gather(1, experts).softmax(-1)
    P = torch.zeros_like(router_logits).scatter(1, experts, chosen).mean(dim=0)""")

EX7_ALT = '''
def load_balancing_loss(router_logits, experts, n_experts):
    N, E = router_logits.shape
    slots = F.one_hot(experts, n_experts).sum(dim=1).to(router_logits.dtype)  # (N, E) slots per token and expert
    fraction = slots.sum(0) / slots.sum()
    mean_prob = F.softmax(router_logits, dim=1).sum(0) / N
    return torch.dot(fraction, mean_prob) * n_experts
'''

EX8 = reference(NB, "ex8_seq_logprobs")

EX8_WRONG_NO_SHIFT = edited(edited(edited(EX8, "logits[:, :-1]", "logits"), "tokens[:, 1:]", "tokens"),
                            "response_mask[:, 1:]", "response_mask")

EX8_WRONG_COUNTS_PROMPT = edited(EX8, " * response_mask[:, 1:].to(picked.dtype)")

EX8_ALT = '''
def sequence_logprobs(logits, tokens, response_mask):
    B, T, V = logits.shape
    nll = F.cross_entropy(logits[:, :-1].reshape(-1, V), tokens[:, 1:].reshape(-1), reduction="none").view(B, T - 1)
    return -torch.where(response_mask[:, 1:], nll, torch.zeros_like(nll)).sum(dim=1)
'''

EX9 = reference(NB, "ex9_dpo")

EX9_WRONG_NO_REFERENCE = edited(EX9, "beta * (chosen_ratio - rejected_ratio)", "beta * (policy_chosen - policy_rejected)")

EX9_WRONG_SIGN = edited(EX9, "return -F.logsigmoid", "return F.logsigmoid")

EX9_WRONG_BETA_OUTSIDE = edited(EX9, "-F.logsigmoid(beta * (chosen_ratio - rejected_ratio))",
                                "-beta * F.logsigmoid(chosen_ratio - rejected_ratio)")

EX9_ALT = '''
def dpo_loss(policy_chosen, policy_rejected, ref_chosen, ref_rejected, beta):
    logits = beta * ((policy_chosen - policy_rejected) - (ref_chosen - ref_rejected))
    return F.softplus(-logits).mean()
'''

EX10 = reference(NB, "ex10_ppo")

EX10_WRONG_CLIP_ADVANTAGE = edited(EX10, "torch.clamp(ratio, 1 - eps, 1 + eps) * advantages",
                                   "ratio * torch.clamp(advantages, 1 - eps, 1 + eps)")

EX10_WRONG_MAX = edited(EX10, "torch.minimum", "torch.maximum")

EX10_ALT = '''
def ppo_clip_loss(logp_new, logp_old, advantages, eps=0.2):
    ratio = (logp_new - logp_old).exp()
    surrogate = torch.where(advantages >= 0,
                            torch.clamp(ratio, max=1 + eps) * advantages,
                            torch.clamp(ratio, min=1 - eps) * advantages)
    return -surrogate.sum() / surrogate.numel()
'''

WRONG = {
    "ex1_lora": [("LoRA scaled by r instead of alpha / r", EX1_WRONG_SCALE_BY_R),
                 ("A and B both zero: the adapter never trains", EX1_WRONG_BOTH_ZERO),
                 ("base layer not frozen", EX1_WRONG_NOT_FROZEN),
                 ("adapters created on the CPU whatever the base's device", EX1_WRONG_CPU_ADAPTERS)],
    "ex2_merge": [("merges B A without the alpha / r scaling", EX2_WRONG_NO_SCALING),
                  ("merges in place into the adapter's own base", EX2_WRONG_IN_PLACE),
                  ("a default float32 CPU nn.Linear: loses the dtype and device", EX2_WRONG_DEFAULT_LINEAR)],
    "ex3_add_lora": [("leaves the rest of the model trainable", EX3_WRONG_NOT_FROZEN),
                     ("wraps only the top-level linear layers", EX3_WRONG_TOP_LEVEL_ONLY)],
    "ex4_router": [("softmax over all experts, then top-k (weights do not sum to 1)", EX4_WRONG_FULL_SOFTMAX),
                   ("picks the lowest logits", EX4_WRONG_SMALLEST)],
    "ex5_capacity": [("router that ignores capacity", EX5_WRONG_IGNORES_CAPACITY),
                     ("token-major priority and a capacity rounded down", EX5_WRONG_TOKEN_MAJOR)],
    "ex6_moe": [("MoE layer that ignores capacity", EX6_WRONG_IGNORES_CAPACITY),
                ("expert outputs not weighted by the gate", EX6_WRONG_NO_GATE)],
    "ex7_aux_loss": [("forgets the n_experts factor", EX7_WRONG_NO_E),
                     ("P from the top-k gate weights instead of the full softmax", EX7_WRONG_GATE_PROBS)],
    "ex8_seq_logprobs": [("no shift: logits at t scored against token t", EX8_WRONG_NO_SHIFT),
                         ("counts the prompt tokens too", EX8_WRONG_COUNTS_PROMPT)],
    "ex9_dpo": [("DPO without the reference log-probs", EX9_WRONG_NO_REFERENCE),
                ("wrong sign", EX9_WRONG_SIGN),
                ("beta outside the log-sigmoid", EX9_WRONG_BETA_OUTSIDE)],
    "ex10_ppo": [("clips the advantage instead of the ratio", EX10_WRONG_CLIP_ADVANTAGE),
                 ("max instead of min", EX10_WRONG_MAX)],
}

ALT = {
    "ex1_lora": EX1_ALT,
    "ex2_merge": EX2_ALT,
    "ex3_add_lora": EX3_ALT,
    "ex4_router": EX4_ALT,
    "ex5_capacity": EX5_ALT,
    "ex6_moe": EX6_ALT,
    "ex7_aux_loss": EX7_ALT,
    "ex8_seq_logprobs": EX8_ALT,
    "ex9_dpo": EX9_ALT,
    "ex10_ppo": EX10_ALT,
}
