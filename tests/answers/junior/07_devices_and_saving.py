"""Known-wrong and alternative answers for notebooks/junior/07_devices_and_saving.ipynb."""

WRONG = {
    "ex1_predict_to": [
        ("thinks Tensor.to works in place and Module.to returns a copy", '''
TENSOR_TO_SAME_IS_SELF = False
TENSOR_TO_IN_PLACE = True
MODULE_TO_IS_SELF = False
MODULE_TO_IN_PLACE = False
'''),
    ],
    "ex2_causal_scores": [
        ("leaves the mask on the CPU (the original bug)", '''
def causal_scores(q, k):
    T = q.shape[1]
    scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
    mask = torch.triu(torch.ones(T, T), diagonal=1).bool()
    return scores.masked_fill(mask, float("-inf"))
'''),
        ("moves the mask to 'cuda if available', ignoring where q lives", '''
def causal_scores(q, k):
    T = q.shape[1]
    scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
    mask = torch.triu(torch.ones(T, T), diagonal=1).bool()
    mask = mask.to("cuda" if torch.cuda.is_available() else "cpu")
    return scores.masked_fill(mask, float("-inf"))
'''),
    ],
    "ex3_causal_module": [
        ("stores the mask as a plain attribute: model.to() does not move it", '''
class CausalScores(nn.Module):
    def __init__(self, max_len):
        super().__init__()
        self.mask = torch.triu(torch.ones(max_len, max_len, dtype=torch.bool), diagonal=1)

    def forward(self, q, k):
        T = q.shape[1]
        scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
        return scores.masked_fill(self.mask[:T, :T], float("-inf"))
'''),
        ("a persistent buffer: the rebuildable mask ends up in every checkpoint", '''
class CausalScores(nn.Module):
    def __init__(self, max_len):
        super().__init__()
        self.register_buffer("mask", torch.triu(torch.ones(max_len, max_len, dtype=torch.bool), diagonal=1))

    def forward(self, q, k):
        T = q.shape[1]
        scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
        return scores.masked_fill(self.mask[:T, :T], float("-inf"))
'''),
    ],
    "ex4_save_load": [
        ("pickles the whole module instead of its state_dict", '''
def save_weights(model, path):
    torch.save(model, path)


def load_weights(make_model, path):
    return torch.load(path, map_location="cpu", weights_only=False).to(device).eval()
'''),
        ("forgets eval() after loading: dropout and batch statistics stay on", '''
def save_weights(model, path):
    torch.save(model.state_dict(), path)


def load_weights(make_model, path):
    model = make_model()
    model.load_state_dict(torch.load(path, map_location="cpu", weights_only=True))
    return model.to(device)
'''),
    ],
    "ex5_load_matching": [
        ("relies on strict=False, which still raises on a shape mismatch", '''
def load_matching(model, state_dict):
    result = model.load_state_dict(state_dict, strict=False)
    return sorted(result.unexpected_keys)
'''),
        ("reports the model's keys that were not loaded, not the checkpoint's skipped keys", '''
def load_matching(model, state_dict):
    own = model.state_dict()
    keep = {k: v for k, v in state_dict.items() if k in own and own[k].shape == v.shape}
    model.load_state_dict(keep, strict=False)
    return sorted(k for k in own if k not in keep)
'''),
    ],
    "ex6_strip_prefix": [
        ("uses str.lstrip, which strips a set of characters", '''
def strip_prefix(state_dict, prefix):
    return {k.lstrip(prefix): v for k, v in state_dict.items()}
'''),
        ("uses str.replace, which also hits the prefix in the middle of a key", '''
def strip_prefix(state_dict, prefix):
    return {k.replace(prefix, ""): v for k, v in state_dict.items()}
'''),
    ],
}

ALT = {
    "ex1_predict_to": '''
TENSOR_TO_SAME_IS_SELF = not False
TENSOR_TO_IN_PLACE = 1 == 2
MODULE_TO_IS_SELF = bool(1)
MODULE_TO_IN_PLACE = 2 > 1
''',
    "ex2_causal_scores": '''
def causal_scores(q, k):
    T = q.shape[1]
    idx = torch.arange(T, device=q.device)
    future = idx[None, :] > idx[:, None]
    scores = torch.einsum("btd,bsd->bts", q, k) / q.shape[-1] ** 0.5
    return scores.masked_fill(future, float("-inf"))
''',
    "ex3_causal_module": '''
class CausalScores(nn.Module):
    def __init__(self, max_len):
        super().__init__()
        i = torch.arange(max_len)
        self.register_buffer("mask", i[None, :] > i[:, None], persistent=False)

    def forward(self, q, k):
        T = q.shape[1]
        scores = torch.matmul(q, k.transpose(1, 2)) * q.shape[-1] ** -0.5
        return torch.where(self.mask[:T, :T], torch.full_like(scores, float("-inf")), scores)
''',
    "ex4_save_load": '''
def save_weights(model, path):
    torch.save({k: v.detach().cpu() for k, v in model.state_dict().items()}, path)


def load_weights(make_model, path):
    model = make_model().to(device)
    model.load_state_dict(torch.load(path, map_location=device, weights_only=True))
    model.train(False)
    return model
''',
    "ex5_load_matching": '''
def load_matching(model, state_dict):
    own = dict(model.named_parameters())
    own.update(dict(model.named_buffers()))
    skipped = []
    with torch.no_grad():
        for key, value in state_dict.items():
            if key in own and own[key].shape == value.shape:
                own[key].copy_(value)
            else:
                skipped.append(key)
    return sorted(skipped)
''',
    "ex6_strip_prefix": '''
def strip_prefix(state_dict, prefix):
    return {k.removeprefix(prefix): v for k, v in state_dict.items()}
''',
}
