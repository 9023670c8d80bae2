"""Blind set for notebooks/mid/16_llama_block_and_tiny_lm.ipynb, written from release/ alone (issue 33)."""

# What the statement fixes (signature, submodules), shared by several answers of a cell.
_EX2_SWIGLU_HEAD = '''
class SwiGLU(nn.Module):
    def __init__(self, d_model, hidden):
        super().__init__()
        self.gate_proj = nn.Linear(d_model, hidden, bias=False)
        self.up_proj = nn.Linear(d_model, hidden, bias=False)
        self.down_proj = nn.Linear(hidden, d_model, bias=False)

    def forward(self, x):
'''

WRONG = {
    "ex1_hidden_size": ("always adds a multiple, so a size that already is a multiple grows", '''
def swiglu_hidden_size(d_model, multiple_of=256):
    hidden = int(2 * 4 * d_model / 3)
    return (hidden // multiple_of + 1) * multiple_of
'''),
    "ex2_swiglu": ("puts the SiLU on the up projection instead of the gate", _EX2_SWIGLU_HEAD + '''        return self.down_proj(self.gate_proj(x) * F.silu(self.up_proj(x)))
'''),
    "ex3_block": ("fixes the norms but keeps tril(diagonal=1), which lets each token see the next one", '''
class LlamaBlock(nn.Module):
    def __init__(self, d_model, n_heads, n_kv_heads, hidden, eps=1e-5):
        super().__init__()
        assert d_model % n_heads == 0 and n_heads % n_kv_heads == 0
        self.n_heads, self.n_kv_heads, self.head_dim = n_heads, n_kv_heads, d_model // n_heads
        self.attn_norm = nn.RMSNorm(d_model, eps=eps)
        self.ffn_norm = nn.RMSNorm(d_model, eps=eps)
        self.q_proj = nn.Linear(d_model, n_heads * self.head_dim, bias=False)
        self.k_proj = nn.Linear(d_model, n_kv_heads * self.head_dim, bias=False)
        self.v_proj = nn.Linear(d_model, n_kv_heads * self.head_dim, bias=False)
        self.o_proj = nn.Linear(n_heads * self.head_dim, d_model, bias=False)
        self.ffn = SwiGLU(d_model, hidden)

    def forward(self, x):
        B, L, _ = x.shape
        pos = torch.arange(L, device=x.device)
        n = self.attn_norm(x)
        q = self.q_proj(n).view(B, L, self.n_heads, self.head_dim).transpose(1, 2)
        k = self.k_proj(n).view(B, L, self.n_kv_heads, self.head_dim).transpose(1, 2)
        v = self.v_proj(n).view(B, L, self.n_kv_heads, self.head_dim).transpose(1, 2)
        q, k = apply_rope(q, pos), apply_rope(k, pos)
        allowed = torch.ones(L, L, dtype=torch.bool, device=x.device).tril(diagonal=1)
        a = attention(q, k, v, allowed).transpose(1, 2).reshape(B, L, -1)
        h = x + self.o_proj(a)
        return h + self.ffn(self.ffn_norm(h))
'''),
    "ex4_tiny_lm": ("defines the final norm but never applies it", '''
class TinyLlama(nn.Module):
    def __init__(self, vocab_size, d_model, n_layers, n_heads, n_kv_heads, hidden):
        super().__init__()
        self.embed = nn.Embedding(vocab_size, d_model)
        self.layers = nn.ModuleList(LlamaBlock(d_model, n_heads, n_kv_heads, hidden) for _ in range(n_layers))
        self.norm = nn.RMSNorm(d_model, eps=1e-5)
        self.lm_head = nn.Linear(d_model, vocab_size, bias=False)
        self.lm_head.weight = self.embed.weight

    def forward(self, tokens):
        h = self.embed(tokens)
        for layer in self.layers:
            h = layer(h)
        return self.lm_head(h)
'''),
    "ex5_next_token_loss": ("shifts the wrong way: logits at t + 1 against the token at t", '''
def next_token_loss(logits, tokens):
    V = logits.shape[-1]
    return F.cross_entropy(logits[:, 1:].reshape(-1, V), tokens[:, :-1].reshape(-1))
'''),
    "ex6_train": ("keeps AdamW's default weight decay (0.01)", '''
def train_lm(model, batches, lr=1e-2):
    model.train()
    opt = torch.optim.AdamW(model.parameters(), lr=lr)
    losses = []
    for batch in batches:
        loss = next_token_loss(model(batch), batch)
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses.append(loss.item())
    return losses
'''),
    "ex7_sft_batch": ("leaves pad_id, not -100, in the labels at padding positions", '''
def build_sft_batch(pairs, pad_id, device="cpu"):
    L = max(len(p) + len(r) for p, r in pairs)
    tokens = torch.full((len(pairs), L), pad_id, dtype=torch.long, device=device)
    labels = torch.full((len(pairs), L), pad_id, dtype=torch.long, device=device)
    for b, (p, r) in enumerate(pairs):
        seq = torch.tensor(p + r, dtype=torch.long, device=device)
        tokens[b, : len(seq)] = seq
        labels[b, : len(p)] = -100
        labels[b, len(p): len(seq)] = seq[len(p):]
    return tokens, labels
'''),
    "ex8_sft_loss": ("averages per-row means instead of pooling the tokens", '''
def sft_loss(logits, labels):
    V = logits.shape[-1]
    per = F.cross_entropy(logits[:, :-1].reshape(-1, V), labels[:, 1:].reshape(-1), reduction="none")
    per = per.view(labels.shape[0], -1)
    valid = (labels[:, 1:] != -100).to(per.dtype)
    return ((per * valid).sum(1) / valid.sum(1)).mean()
'''),
}

ALT = {
    "ex1_hidden_size": '''
def swiglu_hidden_size(d_model, multiple_of=256):
    hidden = (8 * d_model) // 3
    return int(-(-hidden // multiple_of) * multiple_of)
''',
    "ex2_swiglu": _EX2_SWIGLU_HEAD + '''        a = F.linear(x, self.gate_proj.weight)
        return F.linear(a * torch.sigmoid(a) * F.linear(x, self.up_proj.weight), self.down_proj.weight)
''',
    "ex3_block": '''
class LlamaBlock(nn.Module):
    def __init__(self, d_model, n_heads, n_kv_heads, hidden, eps=1e-5):
        super().__init__()
        assert d_model % n_heads == 0 and n_heads % n_kv_heads == 0
        hd = d_model // n_heads
        self.heads = (n_heads, n_kv_heads)
        self.attn_norm = nn.RMSNorm(d_model, eps=eps)
        self.q_proj = nn.Linear(d_model, n_heads * hd, bias=False)
        self.k_proj = nn.Linear(d_model, n_kv_heads * hd, bias=False)
        self.v_proj = nn.Linear(d_model, n_kv_heads * hd, bias=False)
        self.o_proj = nn.Linear(n_heads * hd, d_model, bias=False)
        self.ffn_norm = nn.RMSNorm(d_model, eps=eps)
        self.ffn = SwiGLU(d_model, hidden)

    def _attend(self, n):
        L = n.shape[1]
        idx = torch.arange(L, device=n.device)
        split = lambda t, h: t.unflatten(-1, (h, -1)).permute(0, 2, 1, 3)  # noqa: E731
        q = apply_rope(split(self.q_proj(n), self.heads[0]), idx)
        k = apply_rope(split(self.k_proj(n), self.heads[1]), idx)
        v = split(self.v_proj(n), self.heads[1])
        allowed = idx[None, :] <= idx[:, None]
        return self.o_proj(attention(q, k, v, allowed).permute(0, 2, 1, 3).flatten(2))

    def forward(self, x):
        x = x + self._attend(self.attn_norm(x))
        return x + self.ffn(self.ffn_norm(x))
''',
    "ex4_tiny_lm": '''
class TinyLlama(nn.Module):
    def __init__(self, vocab_size, d_model, n_layers, n_heads, n_kv_heads, hidden):
        super().__init__()
        self.lm_head = nn.Linear(d_model, vocab_size, bias=False)
        self.embed = nn.Embedding(vocab_size, d_model)
        self.embed.weight = self.lm_head.weight
        self.layers = nn.ModuleList()
        for _ in range(n_layers):
            self.layers.append(LlamaBlock(d_model, n_heads, n_kv_heads, hidden))
        self.norm = nn.RMSNorm(d_model, eps=1e-5)

    def forward(self, tokens):
        h = F.embedding(tokens, self.embed.weight)
        for block in self.layers:
            h = block(h)
        return F.linear(self.norm(h), self.embed.weight)
''',
    "ex5_next_token_loss": '''
def next_token_loss(logits, tokens):
    logp = F.log_softmax(logits[:, :-1], dim=-1)
    picked = logp.gather(-1, tokens[:, 1:].unsqueeze(-1)).squeeze(-1)
    return -picked.mean()
''',
    "ex6_train": '''
def train_lm(model, batches, lr=1e-2):
    model.train(True)
    optimizer = torch.optim.AdamW(model.parameters(), lr=lr, weight_decay=0.0)
    history = []
    for tokens in batches:
        optimizer.zero_grad(set_to_none=True)
        loss = next_token_loss(model(tokens), tokens)
        loss.backward()
        optimizer.step()
        history.append(float(loss.detach()))
    return history
''',
    "ex7_sft_batch": '''
def build_sft_batch(pairs, pad_id, device="cpu"):
    width = max(len(p) + len(r) for p, r in pairs)
    tok_rows, lab_rows = [], []
    for prompt, response in pairs:
        pad = width - len(prompt) - len(response)
        tok_rows.append(list(prompt) + list(response) + [pad_id] * pad)
        lab_rows.append([-100] * len(prompt) + list(response) + [-100] * pad)
    return (torch.tensor(tok_rows, dtype=torch.long, device=device),
            torch.tensor(lab_rows, dtype=torch.long, device=device))
''',
    "ex8_sft_loss": '''
def sft_loss(logits, labels):
    target = labels[:, 1:]
    keep = target != -100
    logp = F.log_softmax(logits[:, :-1], dim=-1)
    picked = logp.gather(-1, target.clamp(min=0).unsqueeze(-1)).squeeze(-1)
    return -(picked * keep).sum() / keep.sum()
''',
}
