"""Known-wrong and alternative answers for senior/16_rl_for_llms."""

EX1_WRONG_WHOLE_BATCH = '''
def group_advantages(rewards, group_size, eps=1e-4, scale=True):
    centred = rewards - rewards.mean()
    if scale:
        centred = centred / (rewards.std() + eps)
    return centred
'''

EX1_WRONG_NO_EPS = '''
def group_advantages(rewards, group_size, eps=1e-4, scale=True):
    grouped = rewards.reshape(-1, group_size)
    centred = grouped - grouped.mean(dim=1, keepdim=True)
    if scale:
        centred = centred / grouped.std(dim=1, keepdim=True)
    return centred.reshape(-1)
'''

EX1_WRONG_AXIS = '''
def group_advantages(rewards, group_size, eps=1e-4, scale=True):
    grouped = rewards.reshape(group_size, -1)
    centred = grouped - grouped.mean(dim=0, keepdim=True)
    if scale:
        centred = centred / (grouped.std(dim=0, keepdim=True) + eps)
    return centred.reshape(-1)
'''

EX1_WRONG_POPULATION_STD = '''
def group_advantages(rewards, group_size, eps=1e-4, scale=True):
    grouped = rewards.reshape(-1, group_size)
    centred = grouped - grouped.mean(dim=1, keepdim=True)
    if scale:
        centred = centred / (grouped.std(dim=1, keepdim=True, correction=0) + eps)
    return centred.reshape(-1)
'''

EX1_ALT = '''
def group_advantages(rewards, group_size, eps=1e-4, scale=True):
    out = torch.empty_like(rewards)
    for start in range(0, rewards.numel(), group_size):
        g = rewards[start:start + group_size]
        a = g - g.sum() / group_size
        if scale:
            sd = torch.sqrt((a * a).sum() / (group_size - 1))
            a = a / (sd + eps)
        out[start:start + group_size] = a
    return out
'''

EX2_WRONG_SYMMETRIC_CLIP = '''
def grpo_token_loss(logp, old_logp, ref_logp, advantages, eps_low=0.2, eps_high=0.2, beta=0.04):
    ratio = torch.exp(logp - old_logp)
    adv = advantages.unsqueeze(-1)
    surrogate = torch.minimum(ratio * adv, torch.clamp(ratio, 1 - eps_low, 1 + eps_low) * adv)
    log_r = ref_logp - logp
    kl = torch.exp(log_r) - log_r - 1
    return -(surrogate - beta * kl)
'''

EX2_WRONG_K3_SIGN = '''
def grpo_token_loss(logp, old_logp, ref_logp, advantages, eps_low=0.2, eps_high=0.2, beta=0.04):
    ratio = torch.exp(logp - old_logp)
    adv = advantages.unsqueeze(-1)
    surrogate = torch.minimum(ratio * adv, torch.clamp(ratio, 1 - eps_low, 1 + eps_high) * adv)
    log_r = logp - ref_logp
    kl = torch.exp(log_r) - log_r - 1
    return -(surrogate - beta * kl)
'''

EX2_WRONG_KL_REWARDED = '''
def grpo_token_loss(logp, old_logp, ref_logp, advantages, eps_low=0.2, eps_high=0.2, beta=0.04):
    ratio = torch.exp(logp - old_logp)
    adv = advantages.unsqueeze(-1)
    surrogate = torch.minimum(ratio * adv, torch.clamp(ratio, 1 - eps_low, 1 + eps_high) * adv)
    log_r = ref_logp - logp
    kl = torch.exp(log_r) - log_r - 1
    return -(surrogate + beta * kl)
'''

EX2_WRONG_CLIP_ONLY = '''
def grpo_token_loss(logp, old_logp, ref_logp, advantages, eps_low=0.2, eps_high=0.2, beta=0.04):
    ratio = torch.exp(logp - old_logp)
    adv = advantages.unsqueeze(-1)
    surrogate = torch.clamp(ratio, 1 - eps_low, 1 + eps_high) * adv
    log_r = ref_logp - logp
    kl = torch.exp(log_r) - log_r - 1
    return -(surrogate - beta * kl)
'''

EX2_ALT = '''
def grpo_token_loss(logp, old_logp, ref_logp, advantages, eps_low=0.2, eps_high=0.2, beta=0.04):
    log_ratio = logp - old_logp
    ratio = log_ratio.exp()
    adv = advantages[:, None].expand_as(logp)
    pg1 = -adv * ratio
    pg2 = -adv * ratio.clamp(min=1 - eps_low, max=1 + eps_high)
    pg = torch.max(pg1, pg2)
    kl = torch.exp(ref_logp - logp) - 1 - (ref_logp - logp)
    return pg + beta * kl
'''

EX3_WRONG_DIVIDE_BY_T = '''
def aggregate_loss(per_token, mask, mode):
    m = mask.to(per_token.dtype)
    if mode == "token":
        return (per_token * m).sum() / m.sum()
    if mode == "sequence":
        return ((per_token * m).sum(dim=1) / per_token.shape[1]).mean()
    raise ValueError(mode)
'''

EX3_WRONG_MODES_SWAPPED = '''
def aggregate_loss(per_token, mask, mode):
    m = mask.to(per_token.dtype)
    if mode == "sequence":
        return (per_token * m).sum() / m.sum()
    if mode == "token":
        return ((per_token * m).sum(dim=1) / m.sum(dim=1)).mean()
    raise ValueError(mode)
'''

EX3_WRONG_NO_MASK = '''
def aggregate_loss(per_token, mask, mode):
    if mode == "token":
        return per_token.mean()
    if mode == "sequence":
        return per_token.mean(dim=1).mean()
    raise ValueError(mode)
'''

EX3_ALT = '''
def aggregate_loss(per_token, mask, mode):
    if mode not in ("token", "sequence"):
        raise ValueError("mode must be 'token' or 'sequence'")
    zero = torch.zeros_like(per_token)
    kept = torch.where(mask, per_token, zero)
    if mode == "token":
        return kept.sum() / mask.sum()
    rows = [per_token[i][mask[i]].mean() for i in range(per_token.shape[0])]
    return torch.stack(rows).mean()
'''

EX4_WRONG_NO_LENGTH_NORM = '''
def gspo_loss(logp, old_logp, mask, advantages, eps_low=3e-4, eps_high=4e-4):
    m = mask.to(logp.dtype)
    s = torch.exp(((logp - old_logp) * m).sum(dim=1))
    return -torch.minimum(s * advantages, torch.clamp(s, 1 - eps_low, 1 + eps_high) * advantages).mean()
'''

EX4_WRONG_NO_MASK = '''
def gspo_loss(logp, old_logp, mask, advantages, eps_low=3e-4, eps_high=4e-4):
    s = torch.exp((logp - old_logp).mean(dim=1))
    return -torch.minimum(s * advantages, torch.clamp(s, 1 - eps_low, 1 + eps_high) * advantages).mean()
'''

EX4_WRONG_TOKEN_RATIOS = '''
def gspo_loss(logp, old_logp, mask, advantages, eps_low=3e-4, eps_high=4e-4):
    m = mask.to(logp.dtype)
    r = torch.exp(logp - old_logp)
    a = advantages[:, None]
    per_tok = torch.minimum(r * a, torch.clamp(r, 1 - eps_low, 1 + eps_high) * a)
    return -((per_tok * m).sum(dim=1) / m.sum(dim=1)).mean()
'''

EX4_ALT = '''
def gspo_loss(logp, old_logp, mask, advantages, eps_low=3e-4, eps_high=4e-4):
    diff = torch.where(mask, logp - old_logp, torch.zeros_like(logp))
    lengths = mask.sum(dim=1).clamp(min=1)
    s = (diff.sum(dim=1) / lengths).exp()
    l1 = -advantages * s
    l2 = -advantages * s.clamp(1 - eps_low, 1 + eps_high)
    return torch.max(l1, l2).mean()
'''

EX5_WRONG_CARRY_NOT_RESET = '''
def compute_gae(rewards, values, dones, next_value, gamma=0.99, lam=0.95):
    with torch.no_grad():
        not_done = 1.0 - dones.to(rewards.dtype)
        advantages = torch.zeros_like(rewards)
        carry = torch.zeros_like(next_value)
        v_next = next_value
        for t in reversed(range(rewards.shape[0])):
            delta = rewards[t] + gamma * v_next * not_done[t] - values[t]
            carry = delta + gamma * lam * carry
            advantages[t] = carry
            v_next = values[t]
        return advantages, advantages + values
'''

EX5_WRONG_NO_BOOTSTRAP = '''
def compute_gae(rewards, values, dones, next_value, gamma=0.99, lam=0.95):
    with torch.no_grad():
        not_done = 1.0 - dones.to(rewards.dtype)
        advantages = torch.zeros_like(rewards)
        carry = torch.zeros_like(next_value)
        v_next = torch.zeros_like(next_value)
        for t in reversed(range(rewards.shape[0])):
            delta = rewards[t] + gamma * v_next * not_done[t] - values[t]
            carry = delta + gamma * lam * not_done[t] * carry
            advantages[t] = carry
            v_next = values[t]
        return advantages, advantages + values
'''

EX5_WRONG_NOT_DETACHED = '''
def compute_gae(rewards, values, dones, next_value, gamma=0.99, lam=0.95):
    not_done = 1.0 - dones.to(rewards.dtype)
    out = []
    carry = torch.zeros_like(next_value)
    v_next = next_value
    for t in reversed(range(rewards.shape[0])):
        delta = rewards[t] + gamma * v_next * not_done[t] - values[t]
        carry = delta + gamma * lam * not_done[t] * carry
        out.append(carry)
        v_next = values[t]
    advantages = torch.stack(out[::-1])
    return advantages, advantages + values
'''

EX5_ALT = '''
def compute_gae(rewards, values, dones, next_value, gamma=0.99, lam=0.95):
    v = values.detach()
    cont = (~dones.bool()).to(rewards.dtype)
    v_next = torch.cat([v[1:], next_value.detach().unsqueeze(0)], dim=0)
    deltas = rewards + gamma * v_next * cont - v
    adv = []
    running = torch.zeros_like(deltas[0])
    for t in range(deltas.shape[0] - 1, -1, -1):
        running = deltas[t] + gamma * lam * cont[t] * running
        adv.insert(0, running)
    adv = torch.stack(adv)
    return adv, adv + v
'''

EX6_WRONG_MIN = '''
def value_loss(values, old_values, returns, mask, clip_eps=None):
    m = mask.to(values.dtype)
    err = (values - returns) ** 2
    if clip_eps is not None:
        v_clip = old_values + torch.clamp(values - old_values, -clip_eps, clip_eps)
        err = torch.minimum(err, (v_clip - returns) ** 2)
    return 0.5 * (err * m).sum() / m.sum()
'''

EX6_WRONG_RATIO_CLIP = '''
def value_loss(values, old_values, returns, mask, clip_eps=None):
    m = mask.to(values.dtype)
    err = (values - returns) ** 2
    if clip_eps is not None:
        v_clip = torch.clamp(values, 1 - clip_eps, 1 + clip_eps)
        err = torch.maximum(err, (v_clip - returns) ** 2)
    return 0.5 * (err * m).sum() / m.sum()
'''

EX6_WRONG_NO_MASK = '''
def value_loss(values, old_values, returns, mask, clip_eps=None):
    err = (values - returns) ** 2
    if clip_eps is not None:
        v_clip = old_values + torch.clamp(values - old_values, -clip_eps, clip_eps)
        err = torch.maximum(err, (v_clip - returns) ** 2)
    return 0.5 * err.mean()
'''

EX6_ALT = '''
def value_loss(values, old_values, returns, mask, clip_eps=None):
    v, vo, ret = values[mask], old_values[mask], returns[mask]
    loss = F.mse_loss(v, ret, reduction="none")
    if clip_eps is not None:
        v_clip = torch.max(torch.min(v, vo + clip_eps), vo - clip_eps)
        loss = torch.max(loss, F.mse_loss(v_clip, ret, reduction="none"))
    return loss.mean() / 2
'''

EX7_WRONG_SCORE_AT_END = '''
def kl_shaped_rewards(scores, logp, ref_logp, mask, beta):
    with torch.no_grad():
        rewards = -beta * (logp - ref_logp) * mask.to(logp.dtype)
        rewards[:, -1] += scores.to(rewards.dtype)
    return rewards
'''

EX7_WRONG_KL_SIGN = '''
def kl_shaped_rewards(scores, logp, ref_logp, mask, beta):
    with torch.no_grad():
        m = mask.to(logp.dtype)
        rewards = -beta * (ref_logp - logp) * m
        pos = torch.arange(mask.shape[1], device=mask.device)
        last = torch.where(mask, pos, -1).max(dim=1).values
        rewards[torch.arange(mask.shape[0], device=mask.device), last] += scores.to(rewards.dtype)
    return rewards
'''

EX7_WRONG_NOT_DETACHED = '''
def kl_shaped_rewards(scores, logp, ref_logp, mask, beta):
    m = mask.to(logp.dtype)
    pos = torch.arange(mask.shape[1], device=mask.device)
    last = torch.where(mask, pos, -1).max(dim=1).values
    bonus = torch.zeros_like(m)
    bonus[torch.arange(mask.shape[0], device=mask.device), last] = scores.to(m.dtype)
    return -beta * (logp - ref_logp) * m + bonus
'''

EX7_WRONG_POSITIONS_ON_CPU = '''
def kl_shaped_rewards(scores, logp, ref_logp, mask, beta):
    with torch.no_grad():
        rewards = -beta * (logp - ref_logp) * mask.to(logp.dtype)
        last = torch.where(mask, torch.arange(mask.shape[1]), -1).max(dim=1).values
        rewards[torch.arange(mask.shape[0]), last] += scores.to(rewards.dtype)
    return rewards
'''

EX7_ALT = '''
def kl_shaped_rewards(scores, logp, ref_logp, mask, beta):
    kl = (logp.detach() - ref_logp) * mask
    rewards = -beta * kl
    lengths = mask.long().sum(dim=1)
    first = mask.long().argmax(dim=1)
    last = first + lengths - 1
    onehot = F.one_hot(last, num_classes=mask.shape[1]).to(rewards.dtype)
    return rewards + onehot * scores.to(rewards.dtype).unsqueeze(1)
'''

_EX8_FIXED_TAIL = '''
    baseline_loss = F.mse_loss(baseline, rewards)
    return policy_loss, baseline_loss
'''

EX8_WRONG_NO_MASK = '''
def reinforce_loss(logits, actions, mask, rewards, baseline):
    logp = F.log_softmax(logits, dim=-1).gather(-1, actions.unsqueeze(-1)).squeeze(-1)
    seq_logp = logp.sum(dim=1)
    advantage = (rewards - baseline).detach()
    policy_loss = -(advantage * seq_logp).mean()
''' + _EX8_FIXED_TAIL

EX8_WRONG_NOT_DETACHED = '''
def reinforce_loss(logits, actions, mask, rewards, baseline):
    logp = F.log_softmax(logits, dim=-1).gather(-1, actions.unsqueeze(-1)).squeeze(-1)
    seq_logp = (logp * mask.to(logp.dtype)).sum(dim=1)
    advantage = rewards - baseline
    policy_loss = -(advantage * seq_logp).mean()
''' + _EX8_FIXED_TAIL

EX8_WRONG_SIGN = '''
def reinforce_loss(logits, actions, mask, rewards, baseline):
    logp = F.log_softmax(logits, dim=-1).gather(-1, actions.unsqueeze(-1)).squeeze(-1)
    seq_logp = (logp * mask.to(logp.dtype)).sum(dim=1)
    advantage = (rewards - baseline).detach()
    policy_loss = (advantage * seq_logp).mean()
''' + _EX8_FIXED_TAIL

EX8_WRONG_AS_GIVEN = '''
def reinforce_loss(logits, actions, mask, rewards, baseline):
    logp = F.log_softmax(logits, dim=-1).gather(-1, actions.unsqueeze(-1)).squeeze(-1)
    seq_logp = logp.sum(dim=1)
    advantage = rewards - baseline
    policy_loss = (advantage * seq_logp).mean()
''' + _EX8_FIXED_TAIL

EX8_ALT = '''
def reinforce_loss(logits, actions, mask, rewards, baseline):
    nll = F.cross_entropy(logits.transpose(1, 2), actions, reduction="none")
    seq_logp = -torch.where(mask, nll, torch.zeros_like(nll)).sum(dim=-1)
    with torch.no_grad():
        advantage = rewards - baseline
    policy_loss = -(seq_logp * advantage).sum() / rewards.shape[0]
    baseline_loss = ((baseline - rewards) ** 2).mean()
    return policy_loss, baseline_loss
'''

WRONG = {
    "ex1_group_adv": [
        ("normalizes over the whole batch, not per group", EX1_WRONG_WHOLE_BATCH),
        ("no eps: a zero-variance group gives nan", EX1_WRONG_NO_EPS),
        ("groups along the wrong axis (reshape(G, P))", EX1_WRONG_AXIS),
        ("population std instead of the sample std the statement asks for", EX1_WRONG_POPULATION_STD),
    ],
    "ex2_grpo_token": [
        ("symmetric clip, eps_high ignored (no clip-higher)", EX2_WRONG_SYMMETRIC_CLIP),
        ("k3 with the log-ratio reversed (policy minus reference)", EX2_WRONG_K3_SIGN),
        ("the KL term rewarded instead of penalized", EX2_WRONG_KL_REWARDED),
        ("clipped term only, no pessimistic min", EX2_WRONG_CLIP_ONLY),
    ],
    "ex3_aggregate": [
        ("sequence mode divides by the padded length T", EX3_WRONG_DIVIDE_BY_T),
        ("the two modes swapped", EX3_WRONG_MODES_SWAPPED),
        ("mask ignored: padding counts", EX3_WRONG_NO_MASK),
    ],
    "ex4_gspo": [
        ("product of token ratios, no length normalization", EX4_WRONG_NO_LENGTH_NORM),
        ("mask ignored in the sequence log-ratio", EX4_WRONG_NO_MASK),
        ("per-token ratios averaged (GRPO), not a sequence ratio", EX4_WRONG_TOKEN_RATIOS),
    ],
    "ex5_gae": [
        ("a done cuts the bootstrap but not the carried advantage", EX5_WRONG_CARRY_NOT_RESET),
        ("next_value ignored (bootstraps with 0)", EX5_WRONG_NO_BOOTSTRAP),
        ("outputs keep the graph of values (not detached)", EX5_WRONG_NOT_DETACHED),
    ],
    "ex6_value_loss": [
        ("min instead of max (optimistic clipping)", EX6_WRONG_MIN),
        ("clips the value like a ratio around 1", EX6_WRONG_RATIO_CLIP),
        ("mask ignored", EX6_WRONG_NO_MASK),
    ],
    "ex7_kl_rewards": [
        ("score at column T - 1 regardless of padding", EX7_WRONG_SCORE_AT_END),
        ("KL sign reversed", EX7_WRONG_KL_SIGN),
        ("rewards keep the policy's graph", EX7_WRONG_NOT_DETACHED),
        ("positions from torch.arange(T) on the CPU: breaks on a GPU", EX7_WRONG_POSITIONS_ON_CPU),
    ],
    "ex8_reinforce": [
        ("mask still ignored", EX8_WRONG_NO_MASK),
        ("advantage still not detached", EX8_WRONG_NOT_DETACHED),
        ("sign still wrong (gradient ascent on the loss)", EX8_WRONG_SIGN),
        ("the broken code as given", EX8_WRONG_AS_GIVEN),
    ],
}

ALT = {
    "ex1_group_adv": EX1_ALT,
    "ex2_grpo_token": EX2_ALT,
    "ex3_aggregate": EX3_ALT,
    "ex4_gspo": EX4_ALT,
    "ex5_gae": EX5_ALT,
    "ex6_value_loss": EX6_ALT,
    "ex7_kl_rewards": EX7_ALT,
    "ex8_reinforce": EX8_ALT,
}
