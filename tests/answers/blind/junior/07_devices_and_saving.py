"""Blind set for notebooks/junior/07_devices_and_saving.ipynb, written from release/ alone (issue 33)."""

WRONG = {
    "ex1_predict_to": ("thinks Module.to returns a copy like Tensor.to", """
TENSOR_TO_SAME_IS_SELF = True
TENSOR_TO_IN_PLACE = False
MODULE_TO_IS_SELF = False
MODULE_TO_IN_PLACE = False
"""),
    "ex2_causal_scores": ("picks the device from a string, not from q: breaks on any other device", """
def causal_scores(q, k):
    T = q.shape[1]
    scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
    mask = torch.triu(torch.ones(T, T), diagonal=1).bool()
    mask = mask.to("cuda" if torch.cuda.is_available() else "cpu")
    return scores.masked_fill(mask, float("-inf"))
"""),
    "ex3_causal_module": ("a persistent buffer: the mask ends up in every checkpoint", """
class CausalScores(nn.Module):
    def __init__(self, max_len):
        super().__init__()
        self.register_buffer("mask", torch.triu(torch.ones(max_len, max_len, dtype=torch.bool), diagonal=1))

    def forward(self, q, k):
        T = q.shape[1]
        scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
        return scores.masked_fill(self.mask[:T, :T], float("-inf"))
"""),
    "ex4_save_load": ("forgets eval(): dropout and batch statistics stay on", """
def save_weights(model, path):
    torch.save(model.state_dict(), path)


def load_weights(make_model, path):
    model = make_model()
    model.load_state_dict(torch.load(path, map_location="cpu", weights_only=True))
    return model.to(device)
"""),
    "ex5_load_matching": ("reports only the keys with another shape, not the ones the model lacks", """
def load_matching(model, state_dict):
    own = model.state_dict()
    keep = {k: v for k, v in state_dict.items() if k in own and own[k].shape == v.shape}
    model.load_state_dict(keep, strict=False)
    return sorted(k for k in state_dict if k in own and own[k].shape != state_dict[k].shape)
"""),
    "ex6_strip_prefix": ("str.replace removes the prefix wherever it appears, not only at the start", """
def strip_prefix(state_dict, prefix):
    return {k.replace(prefix, "", 1): v for k, v in state_dict.items()}
"""),
}

ALT = {
    "ex1_predict_to": """
TENSOR_TO_SAME_IS_SELF = not False
TENSOR_TO_IN_PLACE = not True
MODULE_TO_IS_SELF = MODULE_TO_IN_PLACE = True
""",
    "ex2_causal_scores": """
def causal_scores(q, k):
    scores = torch.matmul(q, k.transpose(-2, -1)) * q.shape[-1] ** -0.5
    i = torch.arange(q.shape[1], device=q.device)
    j = torch.arange(k.shape[1], device=k.device)
    future = j[None, :] > i[:, None]
    return torch.where(future, torch.full_like(scores, float("-inf")), scores)
""",
    "ex3_causal_module": """
class CausalScores(nn.Module):
    def __init__(self, max_len):
        super().__init__()
        pos = torch.arange(max_len)
        self.register_buffer("mask", pos[None, :] > pos[:, None], persistent=False)

    def forward(self, q, k):
        T = q.shape[-2]
        scores = torch.einsum("btd,bsd->bts", q, k) / math.sqrt(q.shape[-1])
        return scores.masked_fill(self.mask[:T, :T], -math.inf)
""",
    "ex4_save_load": """
def save_weights(model, path):
    state = {name: t.detach().cpu().clone() for name, t in model.state_dict().items()}
    with open(path, "wb") as f:
        torch.save(state, f)


def load_weights(make_model, path):
    state = torch.load(path, map_location="cpu", weights_only=True)
    model = make_model()
    model.load_state_dict(state)
    model.to(device)
    model.train(False)
    return model
""",
    "ex5_load_matching": """
def load_matching(model, state_dict):
    own = model.state_dict()  # references to the live tensors: copy_ writes into the model
    loaded = set()
    with torch.no_grad():
        for key, value in state_dict.items():
            if key in own and tuple(own[key].shape) == tuple(value.shape):
                own[key].copy_(value)
                loaded.add(key)
    return sorted(set(state_dict) - loaded)
""",
    "ex6_strip_prefix": """
import re


def strip_prefix(state_dict, prefix):
    start = re.compile("^" + re.escape(prefix))
    return {start.sub("", key, count=1): value for key, value in state_dict.items()}
""",
}
