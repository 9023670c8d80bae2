"""Known-wrong and alternative answers for notebooks/junior/09_embeddings_and_freezing.ipynb."""

from functools import partial

from tests.answers import edited, reference

_ref = partial(reference, "junior/09_embeddings_and_freezing")

WRONG = {
    "ex1_predict_embedding": [
        ("thinks the embedding returns one vector per row of indices", '''
OUT_SHAPE = (2, 4)
N_PARAMS = 4
FLOAT_INDEX_RAISES = False
'''),
    ],
    "ex2_one_hot": [
        ("shortcut: calls F.embedding", """
def embedding_via_one_hot(indices, weight):
    return F.embedding(indices, weight)
"""),
        ("shortcut: indexes the table, weight[indices], with no one-hot product", """
def embedding_via_one_hot(indices, weight):
    return weight[indices]
"""),
        ("lets one_hot infer the width from the largest index in the batch",
         edited(_ref("ex2_one_hot"), "F.one_hot(indices, num_classes=weight.shape[0])", "F.one_hot(indices)")),
        ("multiplies the integer one-hot tensor by the float weight", edited(_ref("ex2_one_hot"), ".to(weight.dtype)")),
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
        ("masks the sum but still divides by T",
         edited(_ref("ex4_mean_pool"), "count = keep.sum(dim=1).clamp(min=1)", "count = tokens.shape[1]")),
    ],
    "ex5_freeze": [
        ("sets module.requires_grad = False, a plain attribute that freezes nothing", edited(_ref("ex5_freeze"), """    for p in module.parameters():
        p.requires_grad = False""", """    module.requires_grad = False""")),
        ("counts parameter tensors instead of their elements", edited(
            _ref("ex5_freeze"), "sum(p.numel() for p in model.parameters() if p.requires_grad)",
            "len([p for p in model.parameters() if p.requires_grad])")),
    ],
    "ex6_setup_finetuning": [
        ("hands every parameter to the optimizer", edited(
            edited(_ref("ex6_setup_finetuning"), "    trainable = [p for p in model.parameters() if p.requires_grad]\n"),
            "AdamW(trainable,", "AdamW(model.parameters(),")),
    ],
    "ex7_finetune_step": [
        ("the original: model.train() lets BatchNorm update the frozen backbone's statistics",
         edited(_ref("ex7_finetune_step"), "    model.backbone.eval()\n")),
        ("puts the whole model in eval mode, so the head trains without dropout",
         edited(_ref("ex7_finetune_step"), "    model.train()\n    model.backbone.eval()\n", "    model.eval()\n")),
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
