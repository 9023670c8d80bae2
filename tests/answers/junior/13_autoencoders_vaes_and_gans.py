"""Known-wrong and alternative answers for notebooks/junior/13_autoencoders_vaes_and_gans.ipynb."""

from functools import partial

from tests.answers import edited, reference

_ref = partial(reference, "junior/13_autoencoders_vaes_and_gans")

# the saturating generator loss, with the gradients cleared
_G_STEP_SATURATING = edited(_ref("ex5_g_step"), """    fake_logits = D(G(z))
    g_loss = F.binary_cross_entropy_with_logits(fake_logits, torch.ones_like(fake_logits))
""", """    g_loss = torch.log(1 - torch.sigmoid(D(G(z)))).mean()
""")

WRONG = {
    "ex1_anomaly": [
        ("averages the squared error over the batch (dim 0) instead of over the features",
         edited(_ref("ex1_anomaly"), "mean(dim=1)", "mean(dim=0)")),
        ("computes the errors with autograd on: they require grad",
         edited(_ref("ex1_anomaly"), """    with torch.no_grad():
        return ((model(x) - x) ** 2)""", """    return ((model(x) - x) ** 2)""")),
        ("flags errors >= the threshold instead of strictly greater",
         edited(_ref("ex1_anomaly"), "reconstruction_errors(model, x) > threshold", "reconstruction_errors(model, x) >= threshold")),
        ("a nearest-rank threshold (sort and index) instead of torch.quantile's interpolation",
         edited(_ref("ex1_anomaly"), "torch.quantile(errors, q)", "errors.sort().values[int(q * errors.numel())]")),
    ],
    "ex2_reparam": [
        ("shortcut: Normal(mu, std).rsample(), the library's reparameterised draw", '''
def reparameterize(mu, logvar):
    return torch.distributions.Normal(mu, torch.exp(0.5 * logvar)).rsample()
'''),
        ("samples with torch.normal(mu, std): the gradient to mu is zero", '''
def reparameterize(mu, logvar):
    return torch.normal(mu, torch.exp(0.5 * logvar))
'''),
        ("uses exp(logvar), the variance, as the standard deviation",
         edited(_ref("ex2_reparam"), "torch.exp(0.5 * logvar)", "torch.exp(logvar)")),
        ("Normal(mu, std).sample(): no graph back to mu and logvar", '''
def reparameterize(mu, logvar):
    return torch.distributions.Normal(mu, torch.exp(0.5 * logvar)).sample()
'''),
        ("draws eps with torch.randn(mu.shape): always on the CPU, whatever mu's device",
         edited(_ref("ex2_reparam"), "torch.randn_like(mu)", "torch.randn(mu.shape)")),
    ],
    "ex3_kl_elbo": [
        ("shortcut: the KL from torch.distributions.kl_divergence", edited(_ref("ex3_kl_elbo"),
         "    return -0.5 * (1 + logvar - mu.pow(2) - logvar.exp()).sum(dim=1)",
         """    from torch.distributions import Normal, kl_divergence

    q = Normal(mu, torch.exp(0.5 * logvar))
    return kl_divergence(q, Normal(torch.zeros_like(mu), torch.ones_like(mu))).sum(dim=1)""")),
        ("F.mse_loss (a mean over the features too) plus the batch mean of the KL", edited(_ref("ex3_kl_elbo"), """    recon = ((x_recon - x) ** 2).sum(dim=1)
    return (recon + gaussian_kl(mu, logvar)).mean()""", """    return F.mse_loss(x_recon, x) + gaussian_kl(mu, logvar).mean()""")),
        ("averages the KL over the latent dims instead of summing",
         edited(_ref("ex3_kl_elbo"), "logvar.exp()).sum(dim=1)", "logvar.exp()).mean(dim=1)")),
        ("drops the minus sign of the KL", edited(_ref("ex3_kl_elbo"), "return -0.5 *", "return 0.5 *")),
    ],
    "ex4_d_step": [
        ("does not detach the fakes: G's parameters get gradients", edited(_ref("ex4_d_step"), "G(z).detach()", "G(z)")),
        ("forgets to clear D's old gradients", edited(_ref("ex4_d_step"), "    opt_D.zero_grad()\n")),
        ("one BCE over the concatenated 2N batch: the mean of the two terms, not their sum", edited(_ref("ex4_d_step"), """    real_logits, fake_logits = D(real), D(fake)
    d_loss = (F.binary_cross_entropy_with_logits(real_logits, torch.ones_like(real_logits))
              + F.binary_cross_entropy_with_logits(fake_logits, torch.zeros_like(fake_logits)))
""", """    x = torch.cat([real, fake])
    y = torch.cat([torch.ones_like(real), torch.zeros_like(real)])
    d_loss = F.binary_cross_entropy_with_logits(D(x), y)
""")),
    ],
    "ex5_g_step": [
        ("the colleague's code: saturating loss and no zero_grad", '''
def generator_step(G, D, opt_G, z):
    p_fake = torch.sigmoid(D(G(z)))
    g_loss = torch.log(1 - p_fake).mean()
    g_loss.backward()
    opt_G.step()
    return g_loss.item()
'''),
        ("clears the gradients but keeps the saturating loss log(1 - D(G(z)))", _G_STEP_SATURATING),
        ("detaches G(z) in the generator step too: no gradient reaches G", edited(_ref("ex5_g_step"), "D(G(z))", "D(G(z).detach())")),
    ],
    "ex6_train_gan": [
        ("runs all the discriminator steps first, then all the generator steps", '''
def train_gan(G, D, opt_G, opt_D, real_batches, noise_batches):
    d_losses = [discriminator_step(G, D, opt_D, r, z) for r, z in zip(real_batches, noise_batches)]
    g_losses = [generator_step(G, D, opt_G, z) for z in noise_batches]
    return d_losses, g_losses
'''),
        ("steps the generator before the discriminator in each round", edited(_ref("ex6_train_gan"), """        d_losses.append(discriminator_step(G, D, opt_D, real, z))
        g_losses.append(generator_step(G, D, opt_G, z))""", """        g_losses.append(generator_step(G, D, opt_G, z))
        d_losses.append(discriminator_step(G, D, opt_D, real, z))""")),
    ],
}

ALT = {
    "ex1_anomaly": '''
def reconstruction_errors(model, x):
    with torch.inference_mode():
        return F.mse_loss(model(x), x, reduction="none").mean(dim=-1)


def fit_threshold(errors, q):
    # linear interpolation between the two order statistics around position q * (n - 1)
    s = errors.sort().values
    pos = q * (s.numel() - 1)
    lo = int(math.floor(pos))
    hi = min(lo + 1, s.numel() - 1)
    return s[lo] + (pos - lo) * (s[hi] - s[lo])


def flag_anomalies(model, x, threshold):
    return torch.gt(reconstruction_errors(model, x), threshold)
''',
    "ex2_reparam": '''
def reparameterize(mu, logvar):
    # mu + std * eps in one fused op, eps drawn with the dtype and device of logvar
    return torch.addcmul(mu, logvar.mul(0.5).exp(), torch.randn_like(logvar))
''',
    "ex3_kl_elbo": '''
def gaussian_kl(mu, logvar):
    var = torch.exp(logvar)
    return 0.5 * torch.sum(mu * mu + var - 1.0 - logvar, dim=-1)


def vae_loss(x_recon, x, mu, logvar):
    n = x.shape[0]
    recon = F.mse_loss(x_recon, x, reduction="sum")
    return (recon + gaussian_kl(mu, logvar).sum()) / n
''',
    "ex4_d_step": '''
def discriminator_step(G, D, opt_D, real, z):
    with torch.no_grad():
        fake = G(z)
    D.zero_grad()
    # BCE against 1 is -log sigmoid(s); against 0 it is -log sigmoid(-s)
    d_loss = -F.logsigmoid(D(real)).mean() - F.logsigmoid(-D(fake)).mean()
    d_loss.backward()
    opt_D.step()
    return float(d_loss.detach())
''',
    "ex5_g_step": '''
def generator_step(G, D, opt_G, z):
    G.zero_grad(set_to_none=True)
    flags = [p.requires_grad for p in D.parameters()]
    D.requires_grad_(False)  # no gradients for D in this step
    try:
        g_loss = -F.logsigmoid(D(G(z))).mean()
        g_loss.backward()
    finally:
        for p, f in zip(D.parameters(), flags):
            p.requires_grad_(f)
    opt_G.step()
    return float(g_loss.detach())
''',
    "ex6_train_gan": '''
def train_gan(G, D, opt_G, opt_D, real_batches, noise_batches):
    out = {"d": [], "g": []}
    for t in range(len(real_batches)):
        out["d"].append(discriminator_step(G, D, opt_D, real_batches[t], noise_batches[t]))
        out["g"].append(generator_step(G, D, opt_G, noise_batches[t]))
    return out["d"], out["g"]
''',
}
