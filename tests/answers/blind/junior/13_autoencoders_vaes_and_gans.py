"""Blind set for notebooks/junior/13_autoencoders_vaes_and_gans.ipynb, written from release/ alone (issue 33)."""

SHORTCUT = {
    "ex2_reparam": ("Normal(mu, std).rsample()", """
def reparameterize(mu, logvar):
    from torch.distributions import Normal
    return Normal(mu, torch.exp(0.5 * logvar)).rsample()
"""),
    "ex3_kl_elbo": ("torch.distributions.kl_divergence", """
from torch.distributions import Normal, kl_divergence


def gaussian_kl(mu, logvar):
    q = Normal(mu, torch.exp(0.5 * logvar))
    return kl_divergence(q, Normal(torch.zeros_like(mu), torch.ones_like(mu))).sum(dim=1)


def vae_loss(x_recon, x, mu, logvar):
    return (((x_recon - x) ** 2).sum(dim=1) + gaussian_kl(mu, logvar)).mean()
"""),
}

WRONG = {
    "ex1_anomaly": ("flags errors equal to the threshold too (>= for >)", """
def reconstruction_errors(model, x):
    with torch.no_grad():
        return ((model(x) - x) ** 2).mean(dim=1)


def fit_threshold(errors, q):
    return torch.quantile(errors, q)


def flag_anomalies(model, x, threshold):
    return reconstruction_errors(model, x) >= threshold
"""),
    "ex2_reparam": ("takes exp(logvar) as the standard deviation", """
def reparameterize(mu, logvar):
    return mu + torch.exp(logvar) * torch.randn_like(mu)
"""),
    "ex3_kl_elbo": ("F.mse_loss averages the reconstruction over the features too", """
def gaussian_kl(mu, logvar):
    return -0.5 * (1 + logvar - mu ** 2 - logvar.exp()).sum(dim=1)


def vae_loss(x_recon, x, mu, logvar):
    return F.mse_loss(x_recon, x) + gaussian_kl(mu, logvar).mean()
"""),
    "ex4_d_step": ("real and fake in one batch: the mean of the two terms, half the sum", """
def discriminator_step(G, D, opt_D, real, z):
    opt_D.zero_grad()
    fake = G(z).detach()
    logits = D(torch.cat([real, fake]))
    labels = torch.cat([torch.ones_like(real), torch.zeros_like(fake)])
    d_loss = F.binary_cross_entropy_with_logits(logits, labels)
    d_loss.backward()
    opt_D.step()
    return d_loss.item()
"""),
    "ex5_g_step": ("freezes D for the step and never unfreezes it", """
def generator_step(G, D, opt_G, z):
    opt_G.zero_grad()
    D.requires_grad_(False)
    logits = D(G(z))
    g_loss = F.binary_cross_entropy_with_logits(logits, torch.ones_like(logits))
    g_loss.backward()
    opt_G.step()
    return g_loss.item()
"""),
    "ex6_train_gan": ("all discriminator steps first, then all generator steps: not alternating", """
def train_gan(G, D, opt_G, opt_D, real_batches, noise_batches):
    d_losses = [discriminator_step(G, D, opt_D, r, z) for r, z in zip(real_batches, noise_batches)]
    g_losses = [generator_step(G, D, opt_G, z) for z in noise_batches]
    return d_losses, g_losses
"""),
}

ALT = {
    "ex1_anomaly": """
def reconstruction_errors(model, x):
    with torch.inference_mode():
        return F.mse_loss(model(x), x, reduction="none").mean(dim=-1)


def fit_threshold(errors, q):
    # linear interpolation between the order statistics around q * (n - 1), as torch.quantile does
    s = errors.flatten().sort().values
    pos = q * (s.numel() - 1)
    lo = int(math.floor(pos))
    hi = min(lo + 1, s.numel() - 1)
    return s[lo] + (s[hi] - s[lo]) * (pos - lo)


def flag_anomalies(model, x, threshold):
    return torch.gt(reconstruction_errors(model, x), threshold)
""",
    "ex2_reparam": """
def reparameterize(mu, logvar):
    eps = torch.randn_like(mu)
    return torch.addcmul(mu, torch.sqrt(torch.exp(logvar)), eps)
""",
    "ex3_kl_elbo": """
def gaussian_kl(mu, logvar):
    return 0.5 * (mu.pow(2) + logvar.exp() - 1 - logvar).sum(dim=-1)


def vae_loss(x_recon, x, mu, logvar):
    # the mean of a sum is the sum of the means
    return (x_recon - x).pow(2).sum(dim=-1).mean() + gaussian_kl(mu, logvar).mean()
""",
    "ex4_d_step": """
def discriminator_step(G, D, opt_D, real, z):
    D.zero_grad(set_to_none=True)
    with torch.no_grad():
        fake = G(z)
    # BCE with logits against 1 is softplus(-logit), against 0 softplus(logit)
    d_loss = F.softplus(-D(real)).mean() + F.softplus(D(fake)).mean()
    d_loss.backward()
    opt_D.step()
    return d_loss.item()
""",
    "ex5_g_step": """
def generator_step(G, D, opt_G, z):
    params = list(G.parameters())
    g_loss = F.softplus(-D(G(z))).mean()
    for p, g in zip(params, torch.autograd.grad(g_loss, params)):
        p.grad = g  # replaces any stale gradient: D's .grad is never touched
    opt_G.step()
    return g_loss.item()
""",
    "ex6_train_gan": """
def train_gan(G, D, opt_G, opt_D, real_batches, noise_batches):
    rounds = [(discriminator_step(G, D, opt_D, r, z), generator_step(G, D, opt_G, z))
              for r, z in zip(real_batches, noise_batches)]
    return [d for d, _ in rounds], [g for _, g in rounds]
""",
}
