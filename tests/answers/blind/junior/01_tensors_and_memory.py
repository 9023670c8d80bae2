"""Blind set for notebooks/junior/01_tensors_and_memory.ipynb, written from release/ alone (issue 33)."""

WRONG = {
    "ex1_bridge_predict": ("from_numpy gives torch's default float32", """
DTYPE_FROM_NUMPY = torch.float32
FROM_NUMPY_SEES_WRITE = True
TENSOR_SEES_WRITE = False
AS_TENSOR_SEES_WRITE = True
AS_TENSOR_F32_SEES_WRITE = False
"""),
    "ex2_to_numpy": ("goes through tolist, so float32 comes back as float64", """
def to_numpy(t: torch.Tensor) -> np.ndarray:
    return np.array(t.detach().cpu().tolist())
"""),
    "ex3_broadcast_predict": ("(8, 1) * (8,) taken for an element-wise (8, 1)", """
BCAST_A = (5, 3, 4)
BCAST_B = (8, 1)
BCAST_C = None
BCAST_D = (4, 3, 2)
"""),
    "ex4_pairwise": ("sums the differences before squaring", """
def pairwise_sq_dists(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    return ((x[:, None, :] - y[None, :, :]).sum(-1)) ** 2
"""),
    "ex5_masked_mean": ("no guard for an empty row: 0 / 0 gives NaN", """
def masked_mean(x: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    m = mask.to(x.dtype)
    return (x * m).sum(dim=1) / m.sum(dim=1)
"""),
    "ex6_stack_cat_predict": ("stack(dim=-1) counted in the inputs' dims", """
STACK_SHAPE = (4, 2, 3)
CAT_SHAPE = (8, 3)
STACK_LAST_SHAPE = (2, 4, 3)
CAT_DIM1_SHAPE = (2, 12)
"""),
    "ex7_images_to_batch": ("reshape instead of permute: scrambles the pixels", """
def images_to_batch(images: list[torch.Tensor]) -> torch.Tensor:
    x = torch.stack(images)
    n, h, w, c = x.shape
    return x.reshape(n, c, h, w)
"""),
    "ex8_predict_one": ("squeeze() with no dim: K = 1 gives a 0-d tensor", """
def predict_one(model: torch.nn.Module, image: torch.Tensor) -> torch.Tensor:
    return model(image.unsqueeze(0)).squeeze()
"""),
    "ex9_strides_predict": ("believes reshape of the transpose is still a view", """
Y_STRIDE = (1, 4)
Y_IS_CONTIGUOUS = False
Y_VIEW_WORKS = False
Y_RESHAPE_SHARES = True
COLUMN_SHARES = True
FANCY_SHARES = False
"""),
    "ex10_flatten_batch": ("view: raises on a permuted input", """
def flatten_batch(x: torch.Tensor) -> torch.Tensor:
    return x.view(x.shape[0], -1)
"""),
}

ALT = {
    "ex1_bridge_predict": """
DTYPE_FROM_NUMPY = torch.double
FROM_NUMPY_SEES_WRITE, TENSOR_SEES_WRITE = True, False
AS_TENSOR_SEES_WRITE, AS_TENSOR_F32_SEES_WRITE = True, False
""",
    "ex2_to_numpy": """
def to_numpy(t: torch.Tensor) -> np.ndarray:
    return t.numpy(force=True)
""",
    "ex3_broadcast_predict": """
BCAST_A = torch.Size([5, 3, 4])
BCAST_B = [8, 8]
BCAST_C = None
BCAST_D = torch.Size([4, 3, 2])
""",
    "ex4_pairwise": """
def pairwise_sq_dists(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    # |a - b|^2 = |a|^2 - 2 a.b + |b|^2, in float64 so that the cancellation stays small
    a, b = x.double(), y.double()
    d = (a * a).sum(1)[:, None] - 2 * a @ b.T + (b * b).sum(1)[None, :]
    return d.clamp_min(0).to(x.dtype)
""",
    "ex5_masked_mean": """
def masked_mean(x: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    return torch.nanmean(x.masked_fill(~mask, float("nan")), dim=1).nan_to_num(0.0)
""",
    "ex6_stack_cat_predict": """
STACK_SHAPE = torch.Size([4, 2, 3])
CAT_SHAPE = [8, 3]
STACK_LAST_SHAPE = (2, 3, 4)
CAT_DIM1_SHAPE = (2, 3 * 4)
""",
    "ex7_images_to_batch": """
def images_to_batch(images: list[torch.Tensor]) -> torch.Tensor:
    return torch.stack([im.movedim(-1, 0) for im in images])
""",
    "ex8_predict_one": """
def predict_one(model: torch.nn.Module, image: torch.Tensor) -> torch.Tensor:
    return model(image[None]).select(0, 0)
""",
    "ex9_strides_predict": """
Y_STRIDE = [1, 4]
Y_IS_CONTIGUOUS = not True
Y_VIEW_WORKS = False
Y_RESHAPE_SHARES = False
COLUMN_SHARES = True
FANCY_SHARES = False
""",
    "ex10_flatten_batch": """
import math


def flatten_batch(x: torch.Tensor) -> torch.Tensor:
    return x.reshape(x.shape[0], math.prod(x.shape[1:]))
""",
}
