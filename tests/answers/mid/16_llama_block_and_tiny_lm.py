"""Known-wrong and alternative answers for notebooks/mid/16_llama_block_and_tiny_lm.ipynb."""

from tests.answers import edited, reference

_SWIGLU_INIT = '''class SwiGLU(nn.Module):
    def __init__(self, d_model, hidden):
        super().__init__()
        self.gate_proj = nn.Linear(d_model, hidden, bias=False)
        self.up_proj = nn.Linear(d_model, hidden, bias=False)
        self.down_proj = nn.Linear(hidden, d_model, bias=False)

    def forward(self, x):
'''

_BLOCK_INIT = '''class LlamaBlock(nn.Module):
    def __init__(self, d_model, n_heads, n_kv_heads, hidden, eps=1e-5):
        super().__init__()
        self.n_heads, self.n_kv_heads = n_heads, n_kv_heads
        self.head_dim = d_model // n_heads
        self.attn_norm = nn.RMSNorm(d_model, eps=eps)
        self.q_proj = nn.Linear(d_model, n_heads * self.head_dim, bias=False)
        self.k_proj = nn.Linear(d_model, n_kv_heads * self.head_dim, bias=False)
        self.v_proj = nn.Linear(d_model, n_kv_heads * self.head_dim, bias=False)
        self.o_proj = nn.Linear(n_heads * self.head_dim, d_model, bias=False)
        self.ffn_norm = nn.RMSNorm(d_model, eps=eps)
        self.ffn = SwiGLU(d_model, hidden)

    def _attn(self, n, tril_diagonal=0, rope_v=False):
        B, L, _ = n.shape
        pos = torch.arange(L, device=n.device)
        q = self.q_proj(n).view(B, L, self.n_heads, self.head_dim).transpose(1, 2)
        k = self.k_proj(n).view(B, L, self.n_kv_heads, self.head_dim).transpose(1, 2)
        v = self.v_proj(n).view(B, L, self.n_kv_heads, self.head_dim).transpose(1, 2)
        q, k = apply_rope(q, pos), apply_rope(k, pos)
        if rope_v:
            v = apply_rope(v, pos)
        allowed = torch.ones(L, L, dtype=torch.bool, device=n.device).tril(diagonal=tril_diagonal)
        return self.o_proj(attention(q, k, v, allowed).transpose(1, 2).reshape(B, L, -1))

    def forward(self, x):
'''

_LM_INIT = '''class TinyLlama(nn.Module):
    def __init__(self, vocab_size, d_model, n_layers, n_heads, n_kv_heads, hidden):
        super().__init__()
        self.embed = nn.Embedding(vocab_size, d_model)
        self.layers = nn.ModuleList(LlamaBlock(d_model, n_heads, n_kv_heads, hidden) for _ in range(n_layers))
        self.norm = nn.RMSNorm(d_model, eps=1e-5)
        self.lm_head = nn.Linear(d_model, vocab_size, bias=False)
'''

_LM_FORWARD = '''
    def forward(self, tokens):
        x = self.embed(tokens)
        for layer in self.layers:
            x = layer(x)
        return self.lm_head(self.norm(x))
'''

_TRAIN = '''def train_lm(model, batches, lr=1e-2):
    model.train()
    opt = torch.optim.AdamW(model.parameters(), lr=lr, weight_decay=0.0)
    losses = []
    for batch in batches:
BODY
    return losses
'''

_SFT_BATCH = '''def build_sft_batch(pairs, pad_id, device="cpu"):
    L = max(len(p) + len(r) for p, r in pairs)
    tokens = torch.full((len(pairs), L), pad_id, dtype=torch.long)
    labels = torch.full((len(pairs), L), -100, dtype=torch.long)
    for b, (prompt, response) in enumerate(pairs):
        seq = torch.tensor(list(prompt) + list(response), dtype=torch.long)
        tokens[b, :len(seq)] = seq
BODY
    return tokens.to(device), labels.to(device)
'''

WRONG = {
    "ex1_hidden_size": [
        ("rounds down to a multiple instead of up",
         '''def swiglu_hidden_size(d_model, multiple_of=256):
    hidden = int(2 * 4 * d_model / 3)
    return multiple_of * (hidden // multiple_of)
'''),
        ("forgets the 2/3 factor (keeps the 4d hidden size of a plain MLP)",
         '''def swiglu_hidden_size(d_model, multiple_of=256):
    hidden = 4 * d_model
    return multiple_of * ((hidden + multiple_of - 1) // multiple_of)
'''),
        ("rounds to the nearest multiple",
         '''def swiglu_hidden_size(d_model, multiple_of=256):
    hidden = int(2 * 4 * d_model / 3)
    return multiple_of * round(hidden / multiple_of)
'''),
    ],
    "ex2_swiglu": [
        ("puts SiLU on the up projection instead of the gate",
         _SWIGLU_INIT + '''        return self.down_proj(self.gate_proj(x) * F.silu(self.up_proj(x)))
'''),
        ("GELU instead of SiLU",
         _SWIGLU_INIT + '''        return self.down_proj(F.gelu(self.gate_proj(x)) * self.up_proj(x))
'''),
        ("linear layers with biases",
         '''class SwiGLU(nn.Module):
    def __init__(self, d_model, hidden):
        super().__init__()
        self.gate_proj = nn.Linear(d_model, hidden)
        self.up_proj = nn.Linear(d_model, hidden)
        self.down_proj = nn.Linear(hidden, d_model)

    def forward(self, x):
        return self.down_proj(F.silu(self.gate_proj(x)) * self.up_proj(x))
'''),
    ],
    "ex3_block": [
        ("keeps the colleague's post-norm (norms the residual stream) but fixes the mask",
         _BLOCK_INIT + '''        h = self.attn_norm(x + self._attn(x))
        return self.ffn_norm(h + self.ffn(h))
'''),
        ("pre-norm, but keeps the off-by-one mask (each token sees the next one)",
         _BLOCK_INIT + '''        h = x + self._attn(self.attn_norm(x), tril_diagonal=1)
        return h + self.ffn(self.ffn_norm(h))
'''),
        ("rotates the values with RoPE too",
         _BLOCK_INIT + '''        h = x + self._attn(self.attn_norm(x), rope_v=True)
        return h + self.ffn(self.ffn_norm(h))
'''),
        ("residual adds onto the normalised input",
         _BLOCK_INIT + '''        n = self.attn_norm(x)
        h = n + self._attn(n)
        m = self.ffn_norm(h)
        return m + self.ffn(m)
'''),
    ],
    "ex4_tiny_lm": [
        ("copies the embedding values into lm_head instead of tying the Parameter",
         _LM_INIT + '''        with torch.no_grad():
            self.lm_head.weight.copy_(self.embed.weight)
''' + _LM_FORWARD),
        ("forgets the final norm",
         _LM_INIT + '''        self.lm_head.weight = self.embed.weight

    def forward(self, tokens):
        x = self.embed(tokens)
        for layer in self.layers:
            x = layer(x)
        return self.lm_head(x)
'''),
        ("ties through .data (two Parameters sharing storage at first)",
         _LM_INIT + '''        self.lm_head.weight.data = self.embed.weight.data
''' + _LM_FORWARD),
    ],
    "ex5_next_token_loss": [
        ("no shift: logits at t against the token at t",
         '''def next_token_loss(logits, tokens):
    return F.cross_entropy(logits.reshape(-1, logits.shape[-1]), tokens.reshape(-1))
'''),
        ("shifts the wrong way: logits at t + 1 against the token at t",
         '''def next_token_loss(logits, tokens):
    V = logits.shape[-1]
    return F.cross_entropy(logits[:, 1:].reshape(-1, V), tokens[:, :-1].reshape(-1))
'''),
        ("sums instead of averaging",
         '''def next_token_loss(logits, tokens):
    V = logits.shape[-1]
    return F.cross_entropy(logits[:, :-1].reshape(-1, V), tokens[:, 1:].reshape(-1), reduction="sum")
'''),
    ],
    "ex6_train": [
        ("never zeroes the gradients",
         _TRAIN.replace("BODY", '''        loss = next_token_loss(model(batch), batch)
        loss.backward()
        opt.step()
        losses.append(loss.item())''')),
        ("trains on the unshifted loss",
         _TRAIN.replace("BODY", '''        logits = model(batch)
        loss = F.cross_entropy(logits.reshape(-1, logits.shape[-1]), batch.reshape(-1))
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses.append(loss.item())''')),
        ("records the loss tensors instead of floats",
         _TRAIN.replace("BODY", '''        loss = next_token_loss(model(batch), batch)
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses.append(loss)''')),
    ],
    "ex7_sft_batch": [
        ("labels the prompt tokens too (trains on the prompt)",
         _SFT_BATCH.replace("BODY", "        labels[b, :len(seq)] = seq")),
        ("labels padding with pad_id instead of -100",
         _SFT_BATCH.replace("BODY", '''        labels[b, len(prompt):len(seq)] = seq[len(prompt):]
        labels[b, len(seq):] = pad_id''')),
        ("shifts the labels here (the loss shifts them again)",
         _SFT_BATCH.replace("BODY", "        labels[b, len(prompt) - 1:len(seq) - 1] = seq[len(prompt):]")),
    ],
    "ex8_sft_loss": [
        ("averages over all positions, masked ones counted as zeros",
         '''def sft_loss(logits, labels):
    V = logits.shape[-1]
    tgt = labels[:, 1:]
    per_tok = F.cross_entropy(logits[:, :-1].reshape(-1, V), tgt.clamp_min(0).reshape(-1), reduction="none")
    return (per_tok * (tgt != -100).reshape(-1)).mean()
'''),
        ("no shift",
         '''def sft_loss(logits, labels):
    return F.cross_entropy(logits.reshape(-1, logits.shape[-1]), labels.reshape(-1), ignore_index=-100)
'''),
        ("mean of per-row means",
         '''def sft_loss(logits, labels):
    tgt = labels[:, 1:]
    mask = (tgt != -100).float()
    per_tok = F.cross_entropy(logits[:, :-1].transpose(1, 2), tgt.clamp_min(0), reduction="none")
    return ((per_tok * mask).sum(1) / mask.sum(1)).mean()
'''),
    ],
}

ALT = {
    "ex1_hidden_size": '''def swiglu_hidden_size(d_model, multiple_of=256):
    return math.ceil((8 * d_model // 3) / multiple_of) * multiple_of
''',
    "ex2_swiglu": '''class SwiGLU(nn.Module):
    def __init__(self, d_model, hidden):
        super().__init__()
        self.down_proj = nn.Linear(hidden, d_model, bias=False)
        self.up_proj = nn.Linear(d_model, hidden, bias=False)
        self.gate_proj = nn.Linear(d_model, hidden, bias=False)

    def forward(self, x):
        gate = self.gate_proj(x)
        return self.down_proj(gate * torch.sigmoid(gate) * self.up_proj(x))
''',
    "ex3_block": '''class LlamaBlock(nn.Module):
    def __init__(self, d_model, n_heads, n_kv_heads, hidden, eps=1e-5):
        super().__init__()
        self.h, self.hkv, self.hd = n_heads, n_kv_heads, d_model // n_heads
        self.ffn = SwiGLU(d_model, hidden)
        self.ffn_norm = nn.RMSNorm(d_model, eps=eps)
        self.o_proj = nn.Linear(d_model, d_model, bias=False)
        self.v_proj = nn.Linear(d_model, n_kv_heads * self.hd, bias=False)
        self.k_proj = nn.Linear(d_model, n_kv_heads * self.hd, bias=False)
        self.q_proj = nn.Linear(d_model, d_model, bias=False)
        self.attn_norm = nn.RMSNorm(d_model, eps=eps)

    def forward(self, x):
        B, L, D = x.shape
        pos = torch.arange(L, device=x.device)
        n = self.attn_norm(x)
        q = apply_rope(self.q_proj(n).unflatten(-1, (self.h, self.hd)).permute(0, 2, 1, 3), pos)
        k = apply_rope(self.k_proj(n).unflatten(-1, (self.hkv, self.hd)).permute(0, 2, 1, 3), pos)
        v = self.v_proj(n).unflatten(-1, (self.hkv, self.hd)).permute(0, 2, 1, 3)
        allowed = ~torch.triu(torch.ones(L, L, dtype=torch.bool, device=x.device), diagonal=1)
        a = attention(q, k, v, allowed)
        x = x + self.o_proj(a.permute(0, 2, 1, 3).flatten(2))
        x = x + self.ffn(self.ffn_norm(x))
        return x
''',
    "ex4_tiny_lm": '''class TinyLlama(nn.Module):
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
        x = F.embedding(tokens, self.embed.weight)
        for layer in self.layers:
            x = layer(x)
        return F.linear(self.norm(x), self.lm_head.weight)
''',
    "ex5_next_token_loss": '''def next_token_loss(logits, tokens):
    logp = logits[:, :-1].float().log_softmax(dim=-1)
    picked = logp.gather(-1, tokens[:, 1:].unsqueeze(-1)).squeeze(-1)
    return -picked.mean()
''',
    "ex6_train": '''def train_lm(model, batches, lr=1e-2):
    model.train()
    optimizer = torch.optim.AdamW(model.parameters(), lr=lr, weight_decay=0.0)
    out = []
    for tokens in batches:
        optimizer.zero_grad()
        loss = next_token_loss(model(tokens), tokens)
        loss.backward()
        optimizer.step()
        out.append(float(loss.detach()))
    return out
''',
    "ex7_sft_batch": '''def build_sft_batch(pairs, pad_id, device="cpu"):
    seqs = [list(p) + list(r) for p, r in pairs]
    L = max(map(len, seqs))
    tokens = [s + [pad_id] * (L - len(s)) for s in seqs]
    labels = [[-100] * len(p) + list(r) + [-100] * (L - len(p) - len(r)) for p, r in pairs]
    return (torch.tensor(tokens, dtype=torch.long, device=device),
            torch.tensor(labels, dtype=torch.long, device=device))
''',
    "ex8_sft_loss": '''def sft_loss(logits, labels):
    tgt = labels[:, 1:]
    mask = tgt != -100
    logp = logits[:, :-1].double().log_softmax(-1)
    nll = -logp.gather(-1, tgt.clamp_min(0).unsqueeze(-1)).squeeze(-1)
    return (nll * mask).sum() / mask.sum()
''',
}

# Ignores the `device` argument: on a CPU-only machine only the meta device shows it.
_CPU_SFT = ALT["ex7_sft_batch"].replace(", device=device)", ")")
assert _CPU_SFT != ALT["ex7_sft_batch"]
WRONG["ex7_sft_batch"].append(("build_sft_batch ignores its device argument: the batch stays on the CPU", _CPU_SFT))

# issue 33 (blind set): AdamW with its default weight decay (0.01) where the statement says 0.
WRONG["ex6_train"].append(("AdamW with its default weight decay instead of weight_decay=0.0",
                           edited(reference("mid/16_llama_block_and_tiny_lm", "ex6_train"), ", weight_decay=0.0", "")))
