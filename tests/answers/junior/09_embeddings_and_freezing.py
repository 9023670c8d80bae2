"""Known-wrong and alternative answers for notebooks/junior/09_embeddings_and_freezing.ipynb."""

WRONG = {
    "ex1_predict_embedding": [
        ("thinks the embedding returns one vector per row of indices", '''
OUT_SHAPE = (2, 4)
N_PARAMS = 4
FLOAT_INDEX_RAISES = False
'''),
    ],
    "ex2_one_hot": [
        ("lets one_hot infer the width from the largest index in the batch", '''
def embedding_via_one_hot(indices, weight):
    return F.one_hot(indices).to(weight.dtype) @ weight
'''),
        ("multiplies the integer one-hot tensor by the float weight", '''
def embedding_via_one_hot(indices, weight):
    return F.one_hot(indices, num_classes=weight.shape[0]) @ weight
'''),
    ],
    "ex3_predict_grad_rows": [
        ("thinks every row gets a gradient and repeated lookups do not accumulate", '''
ROWS_WITH_GRAD = list(range(10))
GRAD_ROW_3 = [1.0, 1.0]
PAD_ROW_GRAD = [2.0, 2.0]
PAD_ROW_AT_INIT = [0.0, 0.0]
'''),
    ],
    "ex4_mean_pool": [
        ("divides by the padded length T", '''
def mean_pool(emb, tokens, pad_idx):
    return emb(tokens).mean(dim=1)
'''),
        ("masks the sum but still divides by T", '''
def mean_pool(emb, tokens, pad_idx):
    keep = (tokens != pad_idx).unsqueeze(-1).float()
    return (emb(tokens) * keep).sum(dim=1) / tokens.shape[1]
'''),
    ],
    "ex5_freeze": [
        ("sets module.requires_grad = False, a plain attribute that freezes nothing", '''
def freeze(module):
    module.requires_grad = False


def count_trainable(model):
    return sum(p.numel() for p in model.parameters() if p.requires_grad)
'''),
        ("counts parameter tensors instead of their elements", '''
def freeze(module):
    for p in module.parameters():
        p.requires_grad = False


def count_trainable(model):
    return len([p for p in model.parameters() if p.requires_grad])
'''),
    ],
    "ex6_setup_finetuning": [
        ("hands every parameter to the optimizer", '''
def setup_finetuning(model, lr):
    freeze(model.backbone)
    return torch.optim.AdamW(model.parameters(), lr=lr)
'''),
    ],
    "ex7_finetune_step": [
        ("the original: model.train() lets BatchNorm update the frozen backbone's statistics", '''
def finetune_step(model, optimizer, x, y):
    model.train()
    optimizer.zero_grad()
    loss = F.cross_entropy(model(x), y)
    loss.backward()
    optimizer.step()
    return loss.item()
'''),
        ("puts the whole model in eval mode, so the head trains without dropout", '''
def finetune_step(model, optimizer, x, y):
    model.eval()
    optimizer.zero_grad()
    loss = F.cross_entropy(model(x), y)
    loss.backward()
    optimizer.step()
    return loss.item()
'''),
    ],
}

ALT = {
    "ex1_predict_embedding": '''
OUT_SHAPE = tuple([2, 3]) + (4,)
N_PARAMS = 10 * 4
FLOAT_INDEX_RAISES = not False
''',
    "ex2_one_hot": '''
def embedding_via_one_hot(indices, weight):
    eye = torch.eye(weight.shape[0], dtype=weight.dtype, device=weight.device)
    return torch.matmul(eye[indices], weight)
''',
    "ex3_predict_grad_rows": '''
ROWS_WITH_GRAD = sorted({1, 3, 3, 7})
GRAD_ROW_3 = [1.0 + 1.0] * 2
PAD_ROW_GRAD = [0.0] * 2
PAD_ROW_AT_INIT = [0, 0]
''',
    "ex4_mean_pool": '''
def mean_pool(emb, tokens, pad_idx):
    return F.embedding_bag(tokens, emb.weight, mode="mean", padding_idx=pad_idx)
''',
    "ex5_freeze": '''
def freeze(module):
    module.requires_grad_(False)


def count_trainable(model):
    total = 0
    for _, p in model.named_parameters():
        if p.requires_grad:
            total += p.nelement()
    return total
''',
    "ex6_setup_finetuning": '''
def setup_finetuning(model, lr):
    model.backbone.requires_grad_(False)
    return torch.optim.AdamW(filter(lambda p: p.requires_grad, model.parameters()), lr=lr)
''',
    "ex7_finetune_step": '''
def finetune_step(model, optimizer, x, y):
    for module in model.backbone.modules():
        module.train(False)
    model.head.train(True)
    model.training = True
    logits = model(x)
    loss = F.cross_entropy(logits, y)
    optimizer.zero_grad(set_to_none=True)
    loss.backward()
    optimizer.step()
    return float(loss.detach())
''',
}
