"""Blind set for notebooks/senior/16_rl_for_llms.ipynb, written from release/ alone (issue 33)."""

_ADV_POPULATION_STD = '''
def group_advantages(rewards, group_size: int, eps: float = 1e-4, scale: bool = True):
    g = rewards.view(-1, group_size)
    centred = g - g.mean(dim=1, keepdim=True)
    if scale:
        centred = centred / (g.std(dim=1, keepdim=True, unbiased=False) + eps)
    return centred.reshape(-1)
'''

_ADV_ALT = '''
def group_advantages(rewards, group_size: int, eps: float = 1e-4, scale: bool = True):
    groups = rewards.reshape(-1, group_size)
    var, mean = torch.var_mean(groups, dim=-1, correction=1, keepdim=True)
    adv = groups - mean
    if scale:
        adv = adv / (var.sqrt() + eps)
    return adv.flatten().to(dtype=rewards.dtype, device=rewards.device)
'''

_GRPO_KL_REVERSED = '''
def grpo_token_loss(logp, old_logp, ref_logp, advantages, eps_low: float = 0.2, eps_high: float = 0.2,
                    beta: float = 0.04):
    ratio = torch.exp(logp - old_logp.detach())
    adv = advantages.unsqueeze(-1)
    surrogate = torch.minimum(ratio * adv, torch.clamp(ratio, 1 - eps_low, 1 + eps_high) * adv)
    x = logp - ref_logp.detach()
    kl = torch.exp(x) - x - 1
    return -(surrogate - beta * kl)
'''

_GRPO_ALT = '''
def grpo_token_loss(logp, old_logp, ref_logp, advantages, eps_low: float = 0.2, eps_high: float = 0.2,
                    beta: float = 0.04):
    ratio = (logp - old_logp.detach()).exp()
    adv = advantages.detach()[:, None].expand_as(ratio)
    # min(r A, clip(r) A) case by case: A >= 0 caps the ratio from above, A < 0 from below
    capped = torch.where(adv >= 0, ratio.clamp(max=1 + eps_high), ratio.clamp(min=1 - eps_low))
    x = ref_logp.detach() - logp
    kl = torch.expm1(x) - x  # exp(x) - 1 - x, k3
    return beta * kl - capped * adv
'''

_AGG_NO_CHECK = '''
def aggregate_loss(per_token, mask, mode: str):
    m = mask.to(per_token.dtype)
    if mode == "token":
        return (per_token * m).sum() / m.sum()
    return ((per_token * m).sum(dim=1) / m.sum(dim=1)).mean()  # anything else: sequence
'''

_AGG_ALT = '''
def aggregate_loss(per_token, mask, mode: str):
    if mode not in ("token", "sequence"):
        raise ValueError(f"mode must be 'token' or 'sequence', got {mode!r}")
    if mode == "token":
        return per_token[mask].mean()
    zero = torch.zeros((), dtype=per_token.dtype, device=per_token.device)
    row_sums = torch.where(mask, per_token, zero).sum(dim=-1)
    return (row_sums / mask.sum(dim=-1)).mean()
'''

_GSPO_SUM = '''
def gspo_loss(logp, old_logp, mask, advantages, eps_low: float = 3e-4, eps_high: float = 4e-4):
    m = mask.to(logp.dtype)
    s = torch.exp(((logp - old_logp) * m).sum(dim=1))  # product of the token ratios
    surrogate = torch.minimum(s * advantages, torch.clamp(s, 1 - eps_low, 1 + eps_high) * advantages)
    return -surrogate.mean()
'''

_GSPO_ALT = '''
def gspo_loss(logp, old_logp, mask, advantages, eps_low: float = 3e-4, eps_high: float = 4e-4):
    log_ratio = torch.where(mask, logp - old_logp.detach(), torch.zeros_like(logp))
    s = (log_ratio.sum(-1) / mask.sum(-1)).exp()  # geometric mean of the token ratios
    adv = advantages.detach()
    capped = torch.where(adv >= 0, torch.clamp(s, max=1 + eps_high), torch.clamp(s, min=1 - eps_low))
    return -(capped * adv).mean()
'''

_GAE_BOOTSTRAPS = '''
def compute_gae(rewards, values, dones, next_value, gamma: float = 0.99, lam: float = 0.95):
    with torch.no_grad():
        values = values.detach()
        T = rewards.shape[0]
        adv = torch.zeros_like(rewards)
        running = torch.zeros_like(next_value)
        nxt = next_value.detach()
        for t in reversed(range(T)):
            alive = 1.0 - dones[t].to(rewards.dtype)
            delta = rewards[t] + gamma * nxt - values[t]  # still bootstraps past the end of the episode
            running = delta + gamma * lam * alive * running
            adv[t] = running
            nxt = values[t]
        return adv, adv + values
'''

_GAE_ALT = '''
def compute_gae(rewards, values, dones, next_value, gamma: float = 0.99, lam: float = 0.95):
    with torch.no_grad():
        v = values.detach()
        T = rewards.shape[0]
        nv = torch.cat([v[1:], next_value.detach().reshape(1, -1)], dim=0)  # V(s_{t+1}) for every t
        ended = dones.to(torch.bool)
        deltas = rewards + gamma * torch.where(ended, torch.zeros_like(nv), nv) - v
        adv = torch.zeros_like(deltas)
        for t in range(T):  # the definition, summed forward until the episode ends
            weight = torch.ones_like(deltas[0])
            for u in range(t, T):
                adv[t] += weight * deltas[u]
                weight = weight * gamma * lam * (~ended[u]).to(deltas.dtype)
        return adv, adv + v
'''

_VALUE_MIN = '''
def value_loss(values, old_values, returns, mask, clip_eps=None):
    err = (values - returns) ** 2
    if clip_eps is not None:
        v_clip = old_values + torch.clamp(values - old_values, -clip_eps, clip_eps)
        err = torch.minimum(err, (v_clip - returns) ** 2)
    m = mask.to(err.dtype)
    return 0.5 * (err * m).sum() / m.sum()
'''

_VALUE_ALT = '''
def value_loss(values, old_values, returns, mask, clip_eps=None):
    returns, old_values = returns.detach(), old_values.detach()
    plain = 0.5 * (values - returns).pow(2)
    if clip_eps is None:
        per_token = plain
    else:
        moved = values - old_values
        v_clip = torch.where(moved.abs() > clip_eps, old_values + clip_eps * moved.sign(), values)
        clipped = 0.5 * (v_clip - returns).pow(2)
        per_token = torch.where(clipped > plain, clipped, plain)
    return per_token[mask].mean()
'''

_KL_REWARDS_COUNT_INDEX = '''
def kl_shaped_rewards(scores, logp, ref_logp, mask, beta: float):
    with torch.no_grad():
        rewards = -beta * (logp - ref_logp) * mask.to(logp.dtype)
        last = mask.sum(dim=1) - 1  # "the number of response tokens minus one"
        rewards[torch.arange(mask.shape[0], device=mask.device), last] += scores.to(logp.dtype)
    return rewards
'''

_KL_REWARDS_ALT = '''
def kl_shaped_rewards(scores, logp, ref_logp, mask, beta: float):
    lp = logp.detach()
    ref = ref_logp.detach().to(lp.dtype)
    T = mask.shape[1]
    kl = torch.where(mask, lp - ref, torch.zeros_like(lp))
    last = (T - 1) - mask.flip(dims=[1]).to(torch.int64).argmax(dim=1)  # the last True of each row
    end = F.one_hot(last, T).to(lp.dtype)
    return -beta * kl + end * scores.detach().to(lp.dtype)[:, None]
'''

_REINFORCE_NO_MASK = '''
def reinforce_loss(logits, actions, mask, rewards, baseline):
    logp = F.log_softmax(logits, dim=-1).gather(-1, actions.unsqueeze(-1)).squeeze(-1)
    seq_logp = logp.sum(dim=1)
    advantage = (rewards - baseline).detach()
    policy_loss = -(advantage * seq_logp).mean()
    baseline_loss = F.mse_loss(baseline, rewards)
    return policy_loss, baseline_loss
'''

_REINFORCE_ALT = '''
def reinforce_loss(logits, actions, mask, rewards, baseline):
    safe = actions.masked_fill(~mask, 0)  # padded ids may be anything: never index with them
    token_logp = -F.cross_entropy(logits.transpose(1, 2), safe, reduction="none")  # (B, T)
    seq_logp = torch.where(mask, token_logp, torch.zeros_like(token_logp)).sum(dim=1)
    with torch.no_grad():
        advantage = rewards - baseline
    policy_loss = -(advantage * seq_logp).mean()
    baseline_loss = (baseline - rewards.detach()).pow(2).mean()
    return policy_loss, baseline_loss
'''

WRONG = {
    "ex1_group_adv": ("population std (correction=0) instead of the sample std", _ADV_POPULATION_STD),
    "ex2_grpo_token": ("k3 with the log-ratio the wrong way round: x = logp - ref_logp", _GRPO_KL_REVERSED),
    "ex3_aggregate": ("an unknown mode silently falls back to sequence averaging instead of raising ValueError",
                      _AGG_NO_CHECK),
    "ex4_gspo": ("sums the token log-ratios instead of averaging them (no 1 / |y_i|)", _GSPO_SUM),
    "ex5_gae": ("a done cuts the carried advantage but still bootstraps V(s_{t+1}) from the next episode",
                _GAE_BOOTSTRAPS),
    "ex6_value_loss": ("takes the min of the two squared errors instead of the pessimistic max", _VALUE_MIN),
    "ex7_kl_rewards": ("puts the score at index (number of response tokens - 1), ignoring the prompt before them",
                       _KL_REWARDS_COUNT_INDEX),
    "ex8_reinforce": ("fixes the sign and the detach but still sums log-probs over padded positions",
                      _REINFORCE_NO_MASK),
}

ALT = {
    "ex1_group_adv": _ADV_ALT,
    "ex2_grpo_token": _GRPO_ALT,
    "ex3_aggregate": _AGG_ALT,
    "ex4_gspo": _GSPO_ALT,
    "ex5_gae": _GAE_ALT,
    "ex6_value_loss": _VALUE_ALT,
    "ex7_kl_rewards": _KL_REWARDS_ALT,
    "ex8_reinforce": _REINFORCE_ALT,
}
