"""Blind set for notebooks/junior/09_embeddings_and_freezing.ipynb, written from release/ alone (issue 33)."""

SHORTCUT = {
    "ex2_one_hot": ("calls F.embedding", """
def embedding_via_one_hot(indices, weight):
    return F.embedding(indices, weight)
"""),
}

WRONG = {
    "ex1_predict_embedding": ("thinks a float index is cast and accepted", """
OUT_SHAPE = (2, 3, 4)
N_PARAMS = 40
FLOAT_INDEX_RAISES = False
"""),
    "ex2_one_hot": ("F.one_hot without num_classes: too narrow when the last rows are not looked up", """
def embedding_via_one_hot(indices, weight):
    return F.one_hot(indices).to(weight.dtype) @ weight
"""),
    "ex3_predict_grad_rows": ("a row used twice gets the gradient once", """
ROWS_WITH_GRAD = [1, 3, 7]
GRAD_ROW_3 = [1.0, 1.0]
PAD_ROW_GRAD = [0.0, 0.0]
PAD_ROW_AT_INIT = [0.0, 0.0]
"""),
    "ex4_mean_pool": ("relies on the pad row being zero: padding enters the sum without padding_idx", """
def mean_pool(emb, tokens, pad_idx):
    count = (tokens != pad_idx).sum(dim=1, keepdim=True).clamp(min=1)
    return emb(tokens).sum(dim=1) / count
"""),
    "ex5_freeze": ("module.requires_grad = False: a new attribute, nothing frozen", """
def freeze(module):
    module.requires_grad = False


def count_trainable(model):
    return sum(p.numel() for p in model.parameters() if p.requires_grad)
"""),
    "ex6_setup_finetuning": ("builds the optimizer over every parameter", """
def setup_finetuning(model, lr):
    opt = torch.optim.AdamW(model.parameters(), lr=lr)
    freeze(model.backbone)
    return opt
"""),
    "ex7_finetune_step": ("backbone.eval() then model.train(): the second call undoes the first", """
def finetune_step(model, optimizer, x, y):
    model.backbone.eval()
    model.train()
    optimizer.zero_grad()
    loss = F.cross_entropy(model(x), y)
    loss.backward()
    optimizer.step()
    return loss.item()
"""),
}

ALT = {
    "ex1_predict_embedding": """
OUT_SHAPE = torch.Size([2, 3, 4])
N_PARAMS = 10 * 4
FLOAT_INDEX_RAISES = not False
""",
    "ex2_one_hot": """
def embedding_via_one_hot(indices, weight):
    hot = F.one_hot(indices, num_classes=weight.shape[0]).to(weight.dtype)
    return torch.einsum("...v,vd->...d", hot, weight)
""",
    "ex3_predict_grad_rows": """
ROWS_WITH_GRAD = (1, 3, 7)
GRAD_ROW_3 = (2, 2)
PAD_ROW_GRAD = [0, 0]
PAD_ROW_AT_INIT = (0.0, 0.0)
""",
    "ex4_mean_pool": """
def mean_pool(emb, tokens, pad_idx):
    rows = []
    for row in tokens:
        real = row[row != pad_idx]
        if real.numel() == 0:
            rows.append(torch.zeros(emb.embedding_dim, device=emb.weight.device, dtype=emb.weight.dtype))
        else:
            rows.append(emb(real).mean(dim=0))
    return torch.stack(rows)
""",
    "ex5_freeze": """
def freeze(module):
    module.requires_grad_(False)


def count_trainable(model):
    trainable = [p for p in model.parameters() if p.requires_grad]
    return torch.nn.utils.parameters_to_vector(trainable).numel() if trainable else 0
""",
    "ex6_setup_finetuning": """
def setup_finetuning(model, lr):
    freeze(model.backbone)
    return torch.optim.AdamW([{"params": list(filter(lambda p: p.requires_grad, model.parameters()))}], lr=lr)
""",
    "ex7_finetune_step": """
def finetune_step(model, optimizer, x, y):
    model.training = True
    for name, child in model.named_children():
        child.train(name != "backbone")
    optimizer.zero_grad()
    loss = F.cross_entropy(model(x), y)
    loss.backward()
    optimizer.step()
    return loss.item()
""",
}
