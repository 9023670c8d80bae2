"""Blind set for notebooks/mid/15_contrastive_and_kl_losses.ipynb, written from release/ alone (issue 33)."""

SHORTCUT = {
    "ex6_ce_entropy": ("calls Categorical.entropy and F.cross_entropy with probability targets", '''
def entropy(probs):
    return torch.distributions.Categorical(probs=probs).entropy()


def soft_cross_entropy(logits, target_probs):
    return F.cross_entropy(logits, target_probs, reduction="none")
'''),
}

WRONG = {
    "ex1_info_nce": ("multiplies the similarities by the temperature", '''
def info_nce(queries, keys, temperature=0.1):
    q, k = F.normalize(queries, dim=-1), F.normalize(keys, dim=-1)
    logits = q @ k.T * temperature
    return F.cross_entropy(logits, torch.arange(q.shape[0], device=q.device))
'''),
    "ex2_clip_loss": ("adds the two directions instead of averaging them", '''
def clip_loss(image_emb, text_emb, temperature=0.07):
    a, b = F.normalize(image_emb, dim=-1), F.normalize(text_emb, dim=-1)
    logits = a @ b.T / temperature
    t = torch.arange(a.shape[0], device=a.device)
    return F.cross_entropy(logits, t) + F.cross_entropy(logits.T, t)
'''),
    "ex3_nt_xent": ("fills the diagonal with 0, so exp(0) = 1 still counts as a negative", '''
def nt_xent(z1, z2, temperature=0.5):
    z = F.normalize(torch.cat([z1, z2]), dim=-1)
    sim = z @ z.T / temperature
    n = z1.shape[0]
    sim = sim.masked_fill(torch.eye(2 * n, dtype=torch.bool, device=z.device), 0.0)
    targets = torch.cat([torch.arange(n, 2 * n), torch.arange(n)]).to(z.device)
    return F.cross_entropy(sim, targets)
'''),
    "ex4_kl_div": ("swaps the roles: computes KL(Q || P)", '''
def kl_divergence(p_logits, q_logits):
    return F.kl_div(F.log_softmax(p_logits, -1), F.softmax(q_logits, -1), reduction="batchmean")
'''),
    "ex5_token_kl": ("averages over all B * T positions instead of the real tokens", '''
def masked_token_kl(student_logits, teacher_logits, mask):
    kl = F.kl_div(F.log_softmax(student_logits, -1), F.log_softmax(teacher_logits, -1), reduction="none",
                  log_target=True).sum(-1)
    return (kl * mask).mean()
'''),
    "ex6_ce_entropy": ("computes p * log(p) directly, so zero probabilities give NaN", '''
def entropy(probs):
    return -(probs * torch.log(probs)).sum(-1)


def soft_cross_entropy(logits, target_probs):
    return -(target_probs * F.log_softmax(logits, -1)).sum(-1)
'''),
    "ex7_distillation": ("does not detach the teacher", '''
def distillation_loss(student_logits, teacher_logits, labels, T=4.0, alpha=0.5):
    kd = F.kl_div(F.log_softmax(student_logits / T, -1), F.softmax(teacher_logits / T, -1), reduction="batchmean")
    return alpha * T ** 2 * kd + (1 - alpha) * F.cross_entropy(student_logits, labels)
'''),
}

ALT = {
    "ex1_info_nce": '''
def info_nce(queries, keys, temperature=0.1):
    q = queries / queries.norm(dim=-1, keepdim=True).clamp_min(1e-12)
    k = keys / keys.norm(dim=-1, keepdim=True).clamp_min(1e-12)
    s = torch.einsum("id,jd->ij", q, k) / temperature
    return (torch.logsumexp(s, dim=1) - torch.diagonal(s)).mean()
''',
    "ex2_clip_loss": '''
def clip_loss(image_emb, text_emb, temperature=0.07):
    a, b = F.normalize(image_emb, dim=-1), F.normalize(text_emb, dim=-1)
    logits = a @ b.T / temperature
    B = a.shape[0]
    both = torch.cat([logits, logits.T], dim=0)
    targets = torch.arange(B, device=a.device).repeat(2)
    return F.cross_entropy(both, targets)
''',
    "ex3_nt_xent": '''
def nt_xent(z1, z2, temperature=0.5):
    n = z1.shape[0]
    z = F.normalize(torch.cat([z1, z2]), dim=-1)
    sim = z @ z.T / temperature
    off = ~torch.eye(2 * n, dtype=torch.bool, device=z.device)
    sim = sim[off].view(2 * n, 2 * n - 1)
    idx = torch.arange(n, device=z.device)
    targets = torch.cat([idx + n - 1, idx])
    return F.cross_entropy(sim, targets)
''',
    "ex4_kl_div": '''
def kl_divergence(p_logits, q_logits):
    log_p = F.log_softmax(p_logits, dim=-1)
    log_q = F.log_softmax(q_logits, dim=-1)
    return (log_p.exp() * (log_p - log_q)).sum(dim=-1).mean()
''',
    "ex5_token_kl": '''
def masked_token_kl(student_logits, teacher_logits, mask):
    s = F.log_softmax(student_logits[mask], dim=-1)
    t = F.softmax(teacher_logits[mask], dim=-1)
    return F.kl_div(s, t, reduction="batchmean")
''',
    "ex6_ce_entropy": '''
def entropy(probs):
    safe = probs.clamp_min(torch.finfo(probs.dtype).tiny)
    return -(probs * torch.log(safe)).sum(dim=-1)


def soft_cross_entropy(logits, target_probs):
    return torch.logsumexp(logits, dim=-1) * target_probs.sum(dim=-1) - (target_probs * logits).sum(dim=-1)
''',
    "ex7_distillation": '''
def distillation_loss(student_logits, teacher_logits, labels, T=4.0, alpha=0.5):
    with torch.no_grad():
        log_t = F.log_softmax(teacher_logits / T, dim=-1)
    log_s = F.log_softmax(student_logits / T, dim=-1)
    kd = (log_t.exp() * (log_t - log_s)).sum(dim=-1).mean()
    ce = -F.log_softmax(student_logits, dim=-1).gather(1, labels[:, None]).mean()
    return alpha * T * T * kd + (1 - alpha) * ce
''',
}
