"""Known-wrong and alternative answers for notebooks/junior/01_tensors_and_memory.ipynb."""

WRONG = {
    "ex1_bridge_predict": [
        ("assumes from_numpy gives torch's default float32",
         "DTYPE_FROM_NUMPY = torch.float32\nFROM_NUMPY_SEES_WRITE = True\nTENSOR_SEES_WRITE = False\n"
         "AS_TENSOR_SEES_WRITE = True\nAS_TENSOR_F32_SEES_WRITE = False\n"),
        ("believes torch.tensor shares memory and as_tensor with a new dtype too",
         "DTYPE_FROM_NUMPY = torch.float64\nFROM_NUMPY_SEES_WRITE = True\nTENSOR_SEES_WRITE = True\n"
         "AS_TENSOR_SEES_WRITE = True\nAS_TENSOR_F32_SEES_WRITE = True\n"),
    ],
    "ex2_to_numpy": [
        ("calls .numpy() without detach(): fails on tensors that require grad",
         "def to_numpy(t):\n    return t.cpu().numpy()\n"),
        ("goes through Python lists: float32 becomes float64",
         "def to_numpy(t):\n    return np.array(t.detach().cpu().tolist())\n"),
        ("detaches but forgets .cpu(): fails on a tensor in GPU memory",
         "def to_numpy(t):\n    return t.detach().numpy()\n"),
    ],
    "ex3_broadcast_predict": [
        ("thinks (8, 1) * (8,) is element-wise",
         "BCAST_A = (5, 3, 4)\nBCAST_B = (8,)\nBCAST_C = None\nBCAST_D = (4, 3, 2)\n"),
        ("aligns shapes from the left",
         "BCAST_A = (5, 3, 4)\nBCAST_B = (8, 8)\nBCAST_C = (2, 3)\nBCAST_D = (4, 3, 2)\n"),
    ],
    "ex4_pairwise": [
        ("subtracts without inserting dims: only works when n == m",
         "def pairwise_sq_dists(x, y):\n    return ((x - y) ** 2).sum(dim=-1)\n"),
        ("squares after summing the differences",
         "def pairwise_sq_dists(x, y):\n    return (x[:, None, :] - y[None, :, :]).sum(dim=-1) ** 2\n"),
    ],
    "ex5_masked_mean": [
        ("multiplies by the mask but divides by T (padding counts)",
         "def masked_mean(x, mask):\n    return (x * mask).mean(dim=1)\n"),
        ("divides by the count without guarding empty rows (NaN)",
         "def masked_mean(x, mask):\n    m = mask.to(x.dtype)\n    return (x * m).sum(dim=1) / m.sum(dim=1)\n"),
    ],
    "ex6_stack_cat_predict": [
        ("swaps stack and cat",
         "STACK_SHAPE = (8, 3)\nCAT_SHAPE = (4, 2, 3)\nSTACK_LAST_SHAPE = (2, 3, 4)\nCAT_DIM1_SHAPE = (2, 12)\n"),
        ("thinks stack(dim=-1) puts the new dim first",
         "STACK_SHAPE = (4, 2, 3)\nCAT_SHAPE = (8, 3)\nSTACK_LAST_SHAPE = (4, 2, 3)\nCAT_DIM1_SHAPE = (2, 12)\n"),
    ],
    "ex7_images_to_batch": [
        ("uses reshape to move the channel axis (scrambles pixels)",
         "def images_to_batch(images):\n    b = torch.stack(images)\n    n, h, w, c = b.shape\n"
         "    return b.reshape(n, c, h, w)\n"),
        ("uses cat instead of stack",
         "def images_to_batch(images):\n    return torch.cat(images, dim=0).permute(2, 0, 1)\n"),
    ],
    "ex8_predict_one": [
        ("squeeze() without a dim drops K when K == 1",
         "def predict_one(model, image):\n    return model(image.unsqueeze(0)).squeeze()\n"),
        ("forgets the batch dimension",
         "def predict_one(model, image):\n    return model(image).squeeze(0)\n"),
    ],
    "ex9_strides_predict": [
        ("thinks reshape never copies",
         "Y_STRIDE = (1, 4)\nY_IS_CONTIGUOUS = False\nY_VIEW_WORKS = False\nY_RESHAPE_SHARES = True\n"
         "COLUMN_SHARES = True\nFANCY_SHARES = False\n"),
        ("thinks transpose copies the data into a new contiguous layout",
         "Y_STRIDE = (4, 1)\nY_IS_CONTIGUOUS = True\nY_VIEW_WORKS = True\nY_RESHAPE_SHARES = False\n"
         "COLUMN_SHARES = True\nFANCY_SHARES = False\n"),
    ],
    "ex10_flatten_batch": [
        ("view fails on non-contiguous input",
         "def flatten_batch(x):\n    return x.view(x.shape[0], -1)\n"),
        ("always copies",
         "def flatten_batch(x):\n    return x.clone().reshape(x.shape[0], -1)\n"),
    ],
}

ALT = {
    "ex1_bridge_predict": (
        "# run the experiment instead of guessing\n"
        "_a = np.zeros(3)\n"
        "_t = [torch.from_numpy(_a), torch.tensor(_a), torch.as_tensor(_a), torch.as_tensor(_a, dtype=torch.float32)]\n"
        "_a[0] = 7.0\n"
        "DTYPE_FROM_NUMPY = _t[0].dtype\n"
        "FROM_NUMPY_SEES_WRITE, TENSOR_SEES_WRITE, AS_TENSOR_SEES_WRITE, AS_TENSOR_F32_SEES_WRITE = "
        "[bool(t[0] == 7.0) for t in _t]\n"
    ),
    "ex2_to_numpy": "def to_numpy(t):\n    return np.asarray(t.detach().to('cpu'))\n",
    "ex3_broadcast_predict": (
        "BCAST_A = torch.Size([5, 3, 4])\nBCAST_B = torch.broadcast_shapes((8, 1), (8,))\n"
        "BCAST_C = None\nBCAST_D = [4, 3, 2]\n"
    ),
    "ex4_pairwise": (
        "def pairwise_sq_dists(x, y):\n"
        "    # ||a||^2 - 2 a.b + ||b||^2, clamped against rounding\n"
        "    xx = (x * x).sum(1, keepdim=True)\n"
        "    yy = (y * y).sum(1)\n"
        "    return (xx - 2 * x @ y.T + yy).clamp_min(0)\n"
    ),
    "ex5_masked_mean": (
        "def masked_mean(x, mask):\n"
        "    out = []\n"
        "    for row, m in zip(x, mask):\n"
        "        out.append(row[m].mean() if m.any() else row.new_zeros(()))\n"
        "    return torch.stack(out)\n"
    ),
    "ex6_stack_cat_predict": (
        "_ts = [torch.zeros(2, 3) for _ in range(4)]\n"
        "STACK_SHAPE = torch.stack(_ts).shape\nCAT_SHAPE = torch.cat(_ts).shape\n"
        "STACK_LAST_SHAPE = torch.stack(_ts, dim=-1).shape\nCAT_DIM1_SHAPE = torch.cat(_ts, dim=1).shape\n"
    ),
    "ex7_images_to_batch": "def images_to_batch(images):\n    return torch.stack([im.movedim(-1, 0) for im in images])\n",
    "ex8_predict_one": "def predict_one(model, image):\n    return model(image[None])[0]\n",
    "ex9_strides_predict": (
        "_x = torch.arange(12).reshape(3, 4)\n_y = _x.t()\n"
        "Y_STRIDE = _y.stride()\nY_IS_CONTIGUOUS = _y.is_contiguous()\n"
        "Y_VIEW_WORKS = False  # y.view(12) raises: the strides cannot express a flat view\n"
        "_ptr = lambda t: t.untyped_storage().data_ptr()\n"
        "Y_RESHAPE_SHARES = _ptr(_y.reshape(12)) == _ptr(_x)\n"
        "COLUMN_SHARES = _ptr(_x[:, 1]) == _ptr(_x)\nFANCY_SHARES = _ptr(_x[[0, 2]]) == _ptr(_x)\n"
    ),
    "ex10_flatten_batch": "def flatten_batch(x):\n    return x.contiguous().view(x.size(0), -1)\n",
}
