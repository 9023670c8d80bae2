"""Blind set for notebooks/senior/17_diffusion_and_flow_matching.ipynb, written from release/ alone (issue 33)."""

_SCHEDULE = '''
def linear_betas(T: int, beta_start: float = 1e-4, beta_end: float = 0.02) -> torch.Tensor:
    return torch.linspace(beta_start, beta_end, T, dtype=torch.float64)


def cosine_betas(T: int, s: float = 0.008, max_beta: float = 0.999) -> torch.Tensor:
    u = torch.arange(T + 1, dtype=torch.float64)
    f = torch.cos((u / T + s) / (1 + s) * math.pi / 2) ** 2
    abar = f / f[0]
    return (1 - abar[1:] / abar[:-1]).clamp(max=max_beta)


def alphas_cumprod(betas: torch.Tensor) -> torch.Tensor:
    return torch.cumprod(1 - betas, dim=0)
'''

_SCHEDULE_ALT = '''
def linear_betas(T: int, beta_start: float = 1e-4, beta_end: float = 0.02) -> torch.Tensor:
    if T == 1:
        return torch.tensor([beta_start], dtype=torch.float64)
    steps = torch.arange(T, dtype=torch.float64) / (T - 1)
    betas = beta_start + (beta_end - beta_start) * steps
    betas[-1] = beta_end  # the last end exactly, whatever the rounding
    return betas


def cosine_betas(T: int, s: float = 0.008, max_beta: float = 0.999) -> torch.Tensor:
    def abar(u):
        return math.cos((u / T + s) / (1 + s) * math.pi / 2) ** 2 / math.cos(s / (1 + s) * math.pi / 2) ** 2

    return torch.tensor([min(1 - abar(t + 1) / abar(t), max_beta) for t in range(T)], dtype=torch.float64)


def alphas_cumprod(betas: torch.Tensor) -> torch.Tensor:
    out = torch.empty_like(betas)
    running = torch.ones((), dtype=betas.dtype, device=betas.device)
    for i in range(betas.shape[0]):
        running = running * (1 - betas[i])
        out[i] = running
    return out
'''

_FORWARD = '''
def q_sample(x0, t, noise, alphas_cumprod):
    ab = alphas_cumprod.to(t.device)[t].to(x0.dtype)
    ab = ab.view(-1, 1)
    return ab.sqrt() * x0 + (1 - ab).sqrt() * noise


def noise_prediction_loss(model, x0, t, noise, alphas_cumprod):
    x_t = q_sample(x0, t, noise, alphas_cumprod)
    return F.mse_loss(model(x_t, t), noise)
'''

_FORWARD_ALT = '''
def q_sample(x0, t, noise, alphas_cumprod):
    ab = alphas_cumprod.index_select(0, t.cpu()).to(device=x0.device, dtype=x0.dtype)
    signal, sigma = ab.sqrt(), (1 - ab).sqrt()
    return torch.einsum("b,b...->b...", signal, x0) + torch.einsum("b,b...->b...", sigma, noise)


def noise_prediction_loss(model, x0, t, noise, alphas_cumprod):
    prediction = model(q_sample(x0, t, noise, alphas_cumprod), t)
    return (prediction - noise).pow(2).mean()
'''

_DDPM_STEP_NOISE_AT_ZERO = '''
def ddpm_step(x_t, t: int, eps_pred, betas, noise):
    beta = betas[t].item()
    ab = torch.cumprod(1 - betas, 0)[t].item()
    mean = (x_t - beta / math.sqrt(1 - ab) * eps_pred) / math.sqrt(1 - beta)
    return mean + math.sqrt(beta) * noise
'''

_DDPM_STEP_ALT = '''
def ddpm_step(x_t, t: int, eps_pred, betas, noise):
    ab = torch.cumprod(1 - betas, 0)
    ab_t, beta_t = ab[t].item(), betas[t].item()
    ab_prev = ab[t - 1].item() if t > 0 else 1.0
    x0_hat = (x_t - math.sqrt(1 - ab_t) * eps_pred) / math.sqrt(ab_t)
    # the posterior mean of q(x_{t-1} | x_t, x0) with x0 replaced by its estimate
    mean = (math.sqrt(ab_prev) * beta_t / (1 - ab_t)) * x0_hat \\
        + (math.sqrt(1 - beta_t) * (1 - ab_prev) / (1 - ab_t)) * x_t
    if t == 0:
        return mean
    return mean + math.sqrt(beta_t) * noise
'''

_DDIM_LAST_INDEX = '''
def ddim_step(x_t, t: int, t_prev: int, eps_pred, alphas_cumprod):
    ab_t = alphas_cumprod[t].item()
    ab_prev = alphas_cumprod[t_prev].item()
    x0_hat = (x_t - math.sqrt(1 - ab_t) * eps_pred) / math.sqrt(ab_t)
    return math.sqrt(ab_prev) * x0_hat + math.sqrt(1 - ab_prev) * eps_pred
'''

_DDIM_ALT = '''
def ddim_step(x_t, t: int, t_prev: int, eps_pred, alphas_cumprod):
    ab_t = float(alphas_cumprod[t])
    ab_prev = 1.0 if t_prev < 0 else float(alphas_cumprod[t_prev])
    # the same update written as one combination of x_t and eps_pred
    c_x = math.sqrt(ab_prev / ab_t)
    c_eps = math.sqrt(1 - ab_prev) - math.sqrt(ab_prev * (1 - ab_t) / ab_t)
    return c_x * x_t + c_eps * eps_pred
'''

_CFG_TWO_CALLS = '''
def cfg_eps(model, x, t, labels, null_label: int, w: float):
    cond = model(x, t, labels)
    uncond = model(x, t, torch.full_like(labels, null_label))
    return uncond + w * (cond - uncond)
'''

_CFG_ALT = '''
def cfg_eps(model, x, t, labels, null_label: int, w: float):
    B = x.shape[0]
    nulls = torch.full((B,), null_label, dtype=labels.dtype, device=labels.device)
    out = model(torch.cat([x, x]), torch.cat([t, t]), torch.cat([nulls, labels]))  # unconditional half first
    uncond, cond = out[:B], out[B:]
    return torch.lerp(uncond, cond, w)
'''

_FLOW_END_OF_STEP = '''
def flow_matching_loss(model, x0, x1, t):
    tb = t.reshape(-1, *([1] * (x0.dim() - 1)))
    x_t = (1 - tb) * x0 + tb * x1
    return F.mse_loss(model(x_t, t), x1 - x0)


@torch.no_grad()
def euler_sample(model, x0, steps: int):
    x = x0
    dt = 1.0 / steps
    for k in range(steps):
        t = torch.full((x0.shape[0],), (k + 1) / steps, dtype=x0.dtype, device=x0.device)
        x = x + dt * model(x, t)
    return x
'''

_FLOW_ALT = '''
def flow_matching_loss(model, x0, x1, t):
    tb = t.to(x0.dtype).view(t.shape[0], *([1] * (x0.dim() - 1))).expand_as(x0)
    x_t = torch.lerp(x0, x1, tb)
    return ((model(x_t, t) - (x1 - x0)) ** 2).mean()


@torch.no_grad()
def euler_sample(model, x0, steps: int):
    x = x0.clone()
    for k in range(steps):
        t_k = x.new_full((x.shape[0],), k / steps)
        x.add_(model(x, t_k), alpha=1.0 / steps)
    return x
'''

_ADALN = '''
class AdaLNZero(nn.Module):
    def __init__(self, dim: int, cond_dim: int, hidden: int):
        super().__init__()
        self.norm = nn.LayerNorm(dim, elementwise_affine=False, eps=1e-6)
        self.mlp = nn.Sequential(nn.Linear(dim, hidden), nn.GELU(), nn.Linear(hidden, dim))
        self.ada = nn.Sequential(nn.SiLU(), nn.Linear(cond_dim, 3 * dim))
        nn.init.zeros_(self.ada[1].weight)
        nn.init.zeros_(self.ada[1].bias)

    def forward(self, x, c):
        shift, scale, gate = self.ada(c).chunk(3, dim=-1)
        if x.dim() == 3:
            shift, scale, gate = shift.unsqueeze(1), scale.unsqueeze(1), gate.unsqueeze(1)
        return x + gate * self.mlp(self.norm(x) * scale + shift)
'''

_ADALN_ALT = '''
class AdaLNZero(nn.Module):
    def __init__(self, dim: int, cond_dim: int, hidden: int):
        super().__init__()
        self.dim = dim
        self.norm = nn.LayerNorm(dim, elementwise_affine=False, eps=1e-6)
        self.mlp = nn.Sequential(nn.Linear(dim, hidden), nn.GELU(), nn.Linear(hidden, dim))
        self.ada = nn.Sequential(nn.SiLU(), nn.Linear(cond_dim, 3 * dim))
        with torch.no_grad():
            self.ada[1].weight.zero_()
            self.ada[1].bias.zero_()

    def forward(self, x, c):
        mod = self.ada(c)
        mod = mod.view(mod.shape[0], *([1] * (x.dim() - 2)), 3 * self.dim)  # broadcast over any token dims
        shift, scale, gate = torch.split(mod, self.dim, dim=-1)
        h = torch.addcmul(shift, self.norm(x), 1 + scale)
        return torch.addcmul(x, gate, self.mlp(h))
'''

_SAMPLER = '''
@torch.no_grad()
def ddpm_sample(model, x_T, betas, noises):
    alphas_bar = torch.cumprod(1 - betas, 0)
    x = x_T
    for t in reversed(range(len(betas))):
        t_batch = torch.full((x.shape[0],), t + 1, device=x.device)
        eps = model(x, t_batch)
        beta, ab = betas[t].item(), alphas_bar[t].item()
        mean = (x - beta / math.sqrt(1 - ab) * eps) / math.sqrt(1 - beta)
        x = mean + math.sqrt(beta) * noises[t] if t > 0 else mean
    return x
'''

_SAMPLER_ALT = '''
@torch.no_grad()
def ddpm_sample(model, x_T, betas, noises):
    ab = torch.cumprod(1 - betas, 0).tolist()
    b = betas.tolist()
    x = x_T.clone()
    for t in range(len(b) - 1, -1, -1):
        eps = model(x, torch.full((x.shape[0],), t, dtype=torch.long, device=x.device))
        x0_hat = (x - math.sqrt(1 - ab[t]) * eps) / math.sqrt(ab[t])
        ab_prev = ab[t - 1] if t > 0 else 1.0
        x = (math.sqrt(ab_prev) * b[t] / (1 - ab[t])) * x0_hat + \\
            (math.sqrt(1 - b[t]) * (1 - ab_prev) / (1 - ab[t])) * x
        if t > 0:
            x = x + math.sqrt(b[t]) * noises[t].to(x.dtype)
    return x
'''

WRONG = {
    "ex1_schedule": ("builds the linear schedule in float32 and converts it afterwards (the ends are already rounded)",
                     _SCHEDULE.replace("torch.linspace(beta_start, beta_end, T, dtype=torch.float64)",
                                       "torch.linspace(beta_start, beta_end, T).double()")),
    "ex2_forward": ("reshapes ab[t] to (B, 1), which only broadcasts for 2-D x0", _FORWARD),
    "ex3_ddpm_step": ("adds noise at the last step t = 0 too", _DDPM_STEP_NOISE_AT_ZERO),
    "ex4_ddim_step": ("indexes the table with t_prev = -1, which reads the last entry instead of ab_prev = 1",
                      _DDIM_LAST_INDEX),
    "ex5_cfg": ("calls the model twice (conditional, then unconditional) instead of once on 2B", _CFG_TWO_CALLS),
    "ex6_flow": ("evaluates the velocity at the end of each Euler step, t = (k + 1) / steps", _FLOW_END_OF_STEP),
    "ex7_adaln": ("modulates with `scale` instead of `1 + scale`", _ADALN),
    "ex8_sampler": ("fixes the mean and the last-step noise but still gives the model t + 1", _SAMPLER),
}

ALT = {
    "ex1_schedule": _SCHEDULE_ALT,
    "ex2_forward": _FORWARD_ALT,
    "ex3_ddpm_step": _DDPM_STEP_ALT,
    "ex4_ddim_step": _DDIM_ALT,
    "ex5_cfg": _CFG_ALT,
    "ex6_flow": _FLOW_ALT,
    "ex7_adaln": _ADALN_ALT,
    "ex8_sampler": _SAMPLER_ALT,
}
