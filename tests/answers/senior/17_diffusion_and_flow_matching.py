"""Known-wrong and alternative answers for senior/17_diffusion_and_flow_matching."""

from tests.answers.senior import edited, reference

NB = "senior/17_diffusion_and_flow_matching"




EX1_WRONG_COSINE_SHIFTED = edited(edited(reference(NB, "ex1_schedule"), "arange(T + 1,", "arange(T,"),
                                  "    return (1 - abar[1:] / abar[:-1]).clamp(max=max_beta)",
                                  "    betas = torch.zeros(T, dtype=torch.float64)\n"
                                  "    betas[1:] = 1 - abar[1:] / abar[:-1]\n"
                                  "    return betas.clamp(max=max_beta)")

EX1_WRONG_CUMSUM = edited(reference(NB, "ex1_schedule"), "torch.cumprod(1 - betas, dim=0)", "1 - torch.cumsum(betas, dim=0)")

EX1_WRONG_FLOAT32 = edited(reference(NB, "ex1_schedule"), "T, dtype=torch.float64)", "T)")

EX1_ALT = '''
import numpy as np


def linear_betas(T, beta_start=1e-4, beta_end=0.02):
    return torch.from_numpy(np.linspace(beta_start, beta_end, T))


def cosine_betas(T, s=0.008, max_beta=0.999):
    def f(u):
        return math.cos((u / T + s) / (1 + s) * math.pi / 2) ** 2
    return torch.tensor([min(1 - f(t + 1) / f(t), max_beta) for t in range(T)], dtype=torch.float64)


def alphas_cumprod(betas):
    return torch.exp(torch.cumsum(torch.log1p(-betas), 0))
'''


EX2_WRONG_NO_SQRT = edited(reference(NB, "ex2_forward"), "ab.sqrt() * x0 + (1 - ab).sqrt() * noise", "ab * x0 + (1 - ab) * noise")

EX2_WRONG_2D_ONLY = edited(reference(NB, "ex2_forward"), "ab.reshape(-1, *([1] * (x0.dim() - 1)))", "ab[:, None]")

EX2_WRONG_TARGET_X0 = edited(reference(NB, "ex2_forward"), "model(x_t, t), noise)", "model(x_t, t), x0)")

EX2_WRONG_FLOAT64 = edited(reference(NB, "ex2_forward"), "[t].to(x0.dtype)", "[t]")

EX2_WRONG_CPU_TABLE = edited(reference(NB, "ex2_forward"), "alphas_cumprod.to(t.device)[t]", "alphas_cumprod[t]")

EX2_ALT = '''
def q_sample(x0, t, noise, alphas_cumprod):
    ab = alphas_cumprod[t.cpu()].to(device=x0.device, dtype=torch.float64)
    shape = (x0.shape[0],) + (1,) * (x0.dim() - 1)
    a = ab.sqrt().view(shape).to(x0.dtype)
    b = (1 - ab).sqrt().view(shape).to(x0.dtype)
    return torch.addcmul(a * x0, b, noise)


def noise_prediction_loss(model, x0, t, noise, alphas_cumprod):
    pred = model(q_sample(x0, t, noise, alphas_cumprod), t)
    return (pred - noise).pow(2).sum() / noise.numel()
'''

EX3_WRONG_SQRT_ABAR = edited(reference(NB, "ex3_ddpm_step"), "/ math.sqrt(1 - beta)", "/ math.sqrt(ab)")

EX3_WRONG_NOISE_AT_ZERO = edited(reference(NB, "ex3_ddpm_step"), "    if t == 0:\n        return mean\n")

EX3_WRONG_SIGMA_BETA = edited(reference(NB, "ex3_ddpm_step"), "math.sqrt(beta) * noise", "beta * noise")

EX3_ALT = '''
def ddpm_step(x_t, t, eps_pred, betas, noise):
    ab = torch.cumprod(1 - betas, 0)
    abt = ab[t].item()
    abp = ab[t - 1].item() if t > 0 else 1.0
    bt = betas[t].item()
    x0_hat = (x_t - math.sqrt(1 - abt) * eps_pred) / math.sqrt(abt)
    mean = (math.sqrt(abp) * bt / (1 - abt)) * x0_hat + (math.sqrt(1 - bt) * (1 - abp) / (1 - abt)) * x_t
    sigma = math.sqrt(bt) if t > 0 else 0.0
    return mean + sigma * noise
'''

EX4_WRONG_NEGATIVE_INDEX = edited(reference(NB, "ex4_ddim_step"), " if t_prev >= 0 else 1.0")

EX4_WRONG_NO_DIRECTION = edited(reference(NB, "ex4_ddim_step"), " + math.sqrt(1 - ab_prev) * eps_pred")

EX4_ALT = '''
def ddim_step(x_t, t, t_prev, eps_pred, alphas_cumprod):
    a = alphas_cumprod[t]
    p = alphas_cumprod[t_prev] if t_prev >= 0 else torch.ones((), dtype=alphas_cumprod.dtype)
    c_x = (p / a).sqrt().item()
    c_e = ((1 - p).sqrt() - (p * (1 - a) / a).sqrt()).item()
    return c_x * x_t + c_e * eps_pred
'''

EX5_WRONG_TWO_CALLS = edited(reference(NB, "ex5_cfg"),
                             "out = model(torch.cat([x, x]), torch.cat([t, t]), "
                             "torch.cat([labels, torch.full_like(labels, null_label)]))\n"
                             "    cond, uncond = out.chunk(2)",
                             "cond = model(x, t, labels)\n"
                             "    uncond = model(x, t, torch.full_like(labels, null_label))")

EX5_WRONG_SWAPPED = edited(reference(NB, "ex5_cfg"), "uncond + w * (cond - uncond)", "cond + w * (uncond - cond)")

EX5_WRONG_ONE_PLUS_W = edited(reference(NB, "ex5_cfg"), "return uncond + w", "return cond + w")

EX5_ALT = '''
def cfg_eps(model, x, t, labels, null_label, w):
    B = x.shape[0]
    null = labels.new_full((B,), null_label)
    out = model(x.repeat(2, *([1] * (x.dim() - 1))), t.repeat(2), torch.cat([null, labels]))
    uncond, cond = out[:B], out[B:]
    return torch.lerp(uncond, cond, w)
'''



EX6_WRONG_TARGET_SIGN = edited(reference(NB, "ex6_flow"), "x1 - x0)", "x0 - x1)")

EX6_WRONG_INTERPOLATION = edited(reference(NB, "ex6_flow"), "(1 - tb) * x0 + tb * x1", "tb * x0 + (1 - tb) * x1")

EX6_WRONG_EULER_RIGHT_POINT = edited(reference(NB, "ex6_flow"), "k * dt,", "(k + 1) * dt,")

EX6_WRONG_T_DEFAULTS = edited(reference(NB, "ex6_flow"), ", dtype=x.dtype, device=x.device")

EX6_ALT = '''
def flow_matching_loss(model, x0, x1, t):
    tb = t.view(t.shape + (1,) * (x0.dim() - 1)).to(x0.dtype)
    v = model(torch.lerp(x0, x1, tb), t)
    return ((v - (x1 - x0)) ** 2).sum() / x0.numel()


@torch.no_grad()
def euler_sample(model, x0, steps):
    grid = torch.linspace(0, 1, steps + 1, dtype=torch.float64)
    x = x0.clone()
    for a, b in zip(grid[:-1].tolist(), grid[1:].tolist()):
        x += (b - a) * model(x, x.new_full((x.shape[0],), a))
    return x
'''

EX7_WRONG_DEFAULT_INIT = edited(reference(NB, "ex7_adaln"),
                                "        nn.init.zeros_(self.ada[1].weight)\n        nn.init.zeros_(self.ada[1].bias)\n")

EX7_WRONG_ZERO_MLP_OUT = edited(reference(NB, "ex7_adaln"), "nn.init.zeros_(self.ada[1].bias)\n",
                                "nn.init.zeros_(self.ada[1].bias)\n"
                                "        nn.init.zeros_(self.mlp[2].weight)\n"
                                "        nn.init.zeros_(self.mlp[2].bias)\n")

EX7_WRONG_SCALE_NO_ONE = edited(reference(NB, "ex7_adaln"), "* (1 + scale)", "* scale")

EX7_WRONG_NO_TOKEN_BROADCAST = edited(reference(NB, "ex7_adaln"),
                                      "        if x.dim() == 3:\n            mod = mod.unsqueeze(1)\n")

EX7_ALT = '''
class AdaLNZero(nn.Module):
    def __init__(self, dim, cond_dim, hidden):
        super().__init__()
        self.dim = dim
        self.norm = nn.LayerNorm(dim, elementwise_affine=False, eps=1e-6)
        self.mlp = nn.Sequential(nn.Linear(dim, hidden), nn.GELU(), nn.Linear(hidden, dim))
        lin = nn.Linear(cond_dim, 3 * dim)
        with torch.no_grad():
            lin.weight.zero_()
            lin.bias.zero_()
        self.ada = nn.Sequential(nn.SiLU(), lin)

    def forward(self, x, c):
        mod = self.ada(c)
        mod = mod.view(mod.shape[0], *([1] * (x.dim() - 2)), mod.shape[-1])
        shift, scale, gate = torch.split(mod, self.dim, dim=-1)
        h = torch.addcmul(shift, self.norm(x), 1 + scale)
        return torch.addcmul(x, gate, self.mlp(h))
'''

EX8_WRONG_T_PLUS_ONE = edited(reference(NB, "ex8_sampler"), "(x.shape[0],), t,", "(x.shape[0],), t + 1,")

EX8_WRONG_SQRT_ABAR = edited(reference(NB, "ex8_sampler"), "/ math.sqrt(1 - beta)", "/ math.sqrt(ab)")

EX8_WRONG_NOISE_AT_END = edited(reference(NB, "ex8_sampler"), " if t > 0 else mean")

EX8_ALT = '''
@torch.no_grad()
def ddpm_sample(model, x_T, betas, noises):
    x = x_T
    T = betas.shape[0]
    for t in range(T - 1, -1, -1):
        eps = model(x, torch.full((x.shape[0],), t, dtype=torch.long, device=x.device))
        x = ddpm_step(x, t, eps, betas, noises[t])
    return x
'''

EX8_WRONG_T_ON_CPU = edited(EX8_ALT, ", device=x.device")


WRONG = {
    "ex1_schedule": [("cosine betas shifted by one step (beta_0 = 0)", EX1_WRONG_COSINE_SHIFTED),
                     ("alphas_cumprod as 1 - cumsum(betas)", EX1_WRONG_CUMSUM),
                     ("linear schedule in float32", EX1_WRONG_FLOAT32)],
    "ex2_forward": [("no square roots on alpha_bar", EX2_WRONG_NO_SQRT),
                    ("broadcasts ab[t] only over 2-D inputs", EX2_WRONG_2D_ONLY),
                    ("loss target is x0 instead of the noise", EX2_WRONG_TARGET_X0),
                    ("float64 table promotes x_t to float64", EX2_WRONG_FLOAT64),
                    ("indexes the CPU table with a device t: breaks on a GPU", EX2_WRONG_CPU_TABLE)],
    "ex3_ddpm_step": [("divides by sqrt(alpha_bar_t) instead of sqrt(alpha_t)", EX3_WRONG_SQRT_ABAR),
                      ("adds noise at t = 0", EX3_WRONG_NOISE_AT_ZERO),
                      ("noise scaled by beta instead of sqrt(beta)", EX3_WRONG_SIGMA_BETA)],
    "ex4_ddim_step": [("t_prev = -1 indexes the last alpha_bar", EX4_WRONG_NEGATIVE_INDEX),
                      ("drops the noise direction term", EX4_WRONG_NO_DIRECTION)],
    "ex5_cfg": [("two forward calls", EX5_WRONG_TWO_CALLS),
                ("guides towards the unconditional prediction", EX5_WRONG_SWAPPED),
                ("(1 + w) convention instead of the one asked for", EX5_WRONG_ONE_PLUS_W)],
    "ex6_flow": [("velocity target x0 - x1", EX6_WRONG_TARGET_SIGN),
                 ("interpolation reversed (data at t = 0)", EX6_WRONG_INTERPOLATION),
                 ("Euler evaluates at the end of each step", EX6_WRONG_EULER_RIGHT_POINT),
                 ("t_k in the default dtype, on the CPU", EX6_WRONG_T_DEFAULTS)],
    "ex7_adaln": [("modulation left at its default init", EX7_WRONG_DEFAULT_INIT),
                  ("zeroes the MLP's output layer as well", EX7_WRONG_ZERO_MLP_OUT),
                  ("scale instead of 1 + scale", EX7_WRONG_SCALE_NO_ONE),
                  ("modulation not broadcast over tokens", EX7_WRONG_NO_TOKEN_BROADCAST)],
    "ex8_sampler": [("timestep off by one", EX8_WRONG_T_PLUS_ONE),
                    ("mean divides by sqrt(alpha_bar_t)", EX8_WRONG_SQRT_ABAR),
                    ("noise added after the last step", EX8_WRONG_NOISE_AT_END),
                    ("timesteps built on the CPU", EX8_WRONG_T_ON_CPU)],
}

ALT = {
    "ex1_schedule": EX1_ALT,
    "ex2_forward": EX2_ALT,
    "ex3_ddpm_step": EX3_ALT,
    "ex4_ddim_step": EX4_ALT,
    "ex5_cfg": EX5_ALT,
    "ex6_flow": EX6_ALT,
    "ex7_adaln": EX7_ALT,
    "ex8_sampler": EX8_ALT,
}
