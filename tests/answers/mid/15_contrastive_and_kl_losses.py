"""Known-wrong and alternative answers for notebooks/mid/15_contrastive_and_kl_losses.ipynb."""

WRONG = {
    "ex1_info_nce": [
        ("no L2 normalisation: raw dot products instead of cosine similarities", '''\
def info_nce(queries, keys, temperature=0.1):
    logits = queries @ keys.T / temperature
    return F.cross_entropy(logits, torch.arange(queries.shape[0], device=queries.device))
'''),
        ("multiplies by the temperature instead of dividing", '''\
def info_nce(queries, keys, temperature=0.1):
    q = F.normalize(queries, dim=-1)
    k = F.normalize(keys, dim=-1)
    logits = q @ k.T * temperature
    return F.cross_entropy(logits, torch.arange(q.shape[0], device=q.device))
'''),
    ],
    "ex2_clip_loss": [
        ("one direction only (image to text)", '''\
def clip_loss(image_emb, text_emb, temperature=0.07):
    img = F.normalize(image_emb, dim=-1)
    txt = F.normalize(text_emb, dim=-1)
    logits = img @ txt.T / temperature
    return F.cross_entropy(logits, torch.arange(img.shape[0], device=img.device))
'''),
        ("adds the two directions instead of averaging them", '''\
def clip_loss(image_emb, text_emb, temperature=0.07):
    img = F.normalize(image_emb, dim=-1)
    txt = F.normalize(text_emb, dim=-1)
    logits = img @ txt.T / temperature
    targets = torch.arange(img.shape[0], device=img.device)
    return F.cross_entropy(logits, targets) + F.cross_entropy(logits.T, targets)
'''),
    ],
    "ex3_nt_xent": [
        ("the broken version: the self-similarity stays in the softmax", '''\
def nt_xent(z1, z2, temperature=0.5):
    z = F.normalize(torch.cat([z1, z2]), dim=-1)
    sim = z @ z.T / temperature
    n = z1.shape[0]
    targets = torch.cat([torch.arange(n, 2 * n), torch.arange(n)]).to(z.device)
    return F.cross_entropy(sim, targets)
'''),
        ("fills the diagonal with 0: exp(0) = 1 is still a negative", '''\
def nt_xent(z1, z2, temperature=0.5):
    z = F.normalize(torch.cat([z1, z2]), dim=-1)
    sim = z @ z.T / temperature
    n = z1.shape[0]
    sim = sim.masked_fill(torch.eye(2 * n, dtype=torch.bool, device=z.device), 0.0)
    targets = torch.cat([torch.arange(n, 2 * n), torch.arange(n)]).to(z.device)
    return F.cross_entropy(sim, targets)
'''),
    ],
    "ex4_kl_div": [
        ("probabilities as F.kl_div's input", '''\
def kl_divergence(p_logits, q_logits):
    return F.kl_div(F.softmax(q_logits, dim=-1), F.softmax(p_logits, dim=-1), reduction="batchmean")
'''),
        ("reduction='mean': divides by every element (B * K), not by the batch", '''\
def kl_divergence(p_logits, q_logits):
    return F.kl_div(F.log_softmax(q_logits, dim=-1), F.softmax(p_logits, dim=-1), reduction="mean")
'''),
        ("the other direction: KL(Q || P)", '''\
def kl_divergence(p_logits, q_logits):
    return F.kl_div(F.log_softmax(p_logits, dim=-1), F.softmax(q_logits, dim=-1), reduction="batchmean")
'''),
    ],
    "ex5_token_kl": [
        ("reduction='batchmean' on (B, T, V): divides by B, counts the padding", '''\
def masked_token_kl(student_logits, teacher_logits, mask):
    return F.kl_div(F.log_softmax(student_logits, -1), F.softmax(teacher_logits, -1), reduction="batchmean")
'''),
        ("masks the padding but divides by B * T", '''\
def masked_token_kl(student_logits, teacher_logits, mask):
    per_token = F.kl_div(F.log_softmax(student_logits, -1), F.softmax(teacher_logits, -1),
                         reduction="none").sum(-1)
    return (per_token * mask).mean()
'''),
    ],
    "ex6_ce_entropy": [
        ("p * log(p): NaN on exact zeros", '''\
def entropy(probs):
    return -(probs * probs.log()).sum(dim=-1)


def soft_cross_entropy(logits, target_probs):
    return -(target_probs * F.log_softmax(logits, dim=-1)).sum(dim=-1)
'''),
        ("averages over classes instead of summing", '''\
def entropy(probs):
    return -torch.xlogy(probs, probs).mean(dim=-1)


def soft_cross_entropy(logits, target_probs):
    return -(target_probs * F.log_softmax(logits, dim=-1)).mean(dim=-1)
'''),
    ],
    "ex7_distillation": [
        ("forgets the T**2 factor", '''\
def distillation_loss(student_logits, teacher_logits, labels, T=4.0, alpha=0.5):
    soft_teacher = F.softmax(teacher_logits.detach() / T, dim=-1)
    kd = F.kl_div(F.log_softmax(student_logits / T, dim=-1), soft_teacher, reduction="batchmean")
    return alpha * kd + (1 - alpha) * F.cross_entropy(student_logits, labels)
'''),
        ("softens the student only: the teacher's distribution is taken at T=1", '''\
def distillation_loss(student_logits, teacher_logits, labels, T=4.0, alpha=0.5):
    soft_teacher = F.softmax(teacher_logits.detach(), dim=-1)
    kd = F.kl_div(F.log_softmax(student_logits / T, dim=-1), soft_teacher, reduction="batchmean") * T * T
    return alpha * kd + (1 - alpha) * F.cross_entropy(student_logits, labels)
'''),
        ("does not detach the teacher: gradients flow into its logits", '''\
def distillation_loss(student_logits, teacher_logits, labels, T=4.0, alpha=0.5):
    soft_teacher = F.softmax(teacher_logits / T, dim=-1)
    kd = F.kl_div(F.log_softmax(student_logits / T, dim=-1), soft_teacher, reduction="batchmean") * T * T
    return alpha * kd + (1 - alpha) * F.cross_entropy(student_logits, labels)
'''),
    ],
}

ALT = {
    "ex1_info_nce": '''\
def info_nce(queries, keys, temperature=0.1):
    sims = F.cosine_similarity(queries.unsqueeze(1), keys.unsqueeze(0), dim=-1) / temperature
    return (torch.logsumexp(sims, dim=1) - sims.diagonal()).mean()
''',
    "ex2_clip_loss": '''\
def clip_loss(image_emb, text_emb, temperature=0.07):
    def one_way(a, b):
        s = F.normalize(a, dim=-1) @ F.normalize(b, dim=-1).T / temperature
        return -F.log_softmax(s, dim=1).diagonal().mean()
    return 0.5 * (one_way(image_emb, text_emb) + one_way(text_emb, image_emb))
''',
    "ex3_nt_xent": '''\
def nt_xent(z1, z2, temperature=0.5):
    n = z1.shape[0]
    z = F.normalize(torch.cat([z1, z2]), dim=-1)
    sim = z @ z.T / temperature
    keep = ~torch.eye(2 * n, dtype=torch.bool, device=z.device)
    others = sim[keep].view(2 * n, 2 * n - 1)
    pos = (z * z.roll(n, dims=0)).sum(-1) / temperature  # row i against row i + N (mod 2N)
    return (others.logsumexp(dim=1) - pos).mean()
''',
    "ex4_kl_div": '''\
def kl_divergence(p_logits, q_logits):
    log_p = torch.log_softmax(p_logits, dim=-1)
    log_q = torch.log_softmax(q_logits, dim=-1)
    return F.kl_div(log_q, log_p, reduction="sum", log_target=True) / p_logits.shape[0]
''',
    "ex5_token_kl": '''\
def masked_token_kl(student_logits, teacher_logits, mask):
    log_t = teacher_logits[mask].log_softmax(-1)
    log_s = student_logits[mask].log_softmax(-1)
    return (log_t.exp() * (log_t - log_s)).sum(-1).mean()
''',
    "ex6_ce_entropy": '''\
def entropy(probs):
    safe = torch.where(probs > 0, probs, torch.ones_like(probs))
    return -(probs * safe.log()).sum(-1)


def soft_cross_entropy(logits, target_probs):
    return (target_probs * (logits.logsumexp(-1, keepdim=True) - logits)).sum(-1)
''',
    "ex7_distillation": '''\
def distillation_loss(student_logits, teacher_logits, labels, T=4.0, alpha=0.5):
    with torch.no_grad():
        log_p_t = F.log_softmax(teacher_logits / T, dim=-1)
    log_p_s = F.log_softmax(student_logits / T, dim=-1)
    kd = (log_p_t.exp() * (log_p_t - log_p_s)).sum(-1).mean()
    ce = -F.log_softmax(student_logits, dim=-1).gather(1, labels[:, None]).mean()
    return alpha * T ** 2 * kd + (1 - alpha) * ce
''',
}

# issue 33: entropy and soft cross-entropy by hand; the library's cross_entropy is a shortcut.
WRONG["ex6_ce_entropy"].append(("shortcut: calls F.cross_entropy with probability targets", '''\
def entropy(probs):
    return -torch.xlogy(probs, probs).sum(dim=-1)


def soft_cross_entropy(logits, target_probs):
    return F.cross_entropy(logits, target_probs, reduction="none")
'''))
# review M-15.10: multiplying by the mask turns a NaN at a padded position into NaN.
WRONG["ex5_token_kl"].append(("multiplies by the mask: a NaN at a padded position survives (0 * NaN)", '''\
def masked_token_kl(student_logits, teacher_logits, mask):
    per_token = F.kl_div(F.log_softmax(student_logits, -1), F.softmax(teacher_logits, -1), reduction="none").sum(-1)
    return (per_token * mask).sum() / mask.sum()
'''))
