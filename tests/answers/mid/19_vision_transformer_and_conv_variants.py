"""Known-wrong and alternative answers for notebooks/mid/19_vision_transformer_and_conv_variants.ipynb."""

_PATCHIFY_OK = '''def patchify(x, p):
    B, C, H, W = x.shape
    if H % p or W % p:
        raise ValueError("not a multiple of p")
    return x.reshape(B, C, H // p, p, W // p, p).permute(0, 2, 4, 1, 3, 5).reshape(B, -1, C * p * p)

'''

_PATCH_EMBED_HEAD = '''class PatchEmbed(nn.Module):
    def __init__(self, in_chans, embed_dim, patch_size):
        super().__init__()
        self.p = patch_size
        self.proj = nn.Conv2d(in_chans, embed_dim, kernel_size=patch_size, stride=patch_size)

    def forward(self, x):
        if x.shape[-2] % self.p or x.shape[-1] % self.p:
            raise ValueError("not a multiple of p")
'''

_SINCOS_OK = '''def sincos_2d(grid_h, grid_w, dim, device=None):
    q = dim // 4
    omega = 1.0 / 10000 ** (torch.arange(q, dtype=torch.float64) / q)
    r = torch.arange(grid_h, dtype=torch.float64).repeat_interleave(grid_w)[:, None] * omega
    c = torch.arange(grid_w, dtype=torch.float64).repeat(grid_h)[:, None] * omega
    return torch.cat([r.sin(), r.cos(), c.sin(), c.cos()], dim=1).float().to(device)

'''

_VIT_INIT_HEAD = '''class ViTEmbed(nn.Module):
    def __init__(self, in_chans, embed_dim, patch_size, img_size, pos="learned"):
        super().__init__()
        n = (img_size[0] // patch_size) * (img_size[1] // patch_size)
        self.patch = PatchEmbed(in_chans, embed_dim, patch_size)
        self.cls_token = nn.Parameter(torch.zeros(1, 1, embed_dim))
'''

_VIT_OK = _VIT_INIT_HEAD + '''        if pos == "learned":
            self.pos_embed = nn.Parameter(0.02 * torch.randn(1, 1 + n, embed_dim))
        else:
            gh, gw = img_size[0] // patch_size, img_size[1] // patch_size
            self.register_buffer("pos_embed", torch.cat([torch.zeros(1, embed_dim), sincos_2d(gh, gw, embed_dim)])[None])

    def forward(self, x):
        t = self.patch(x)
        return torch.cat([self.cls_token.expand(t.shape[0], -1, -1), t], dim=1) + self.pos_embed
'''

_MASKING_OK = '''def random_masking(x, mask_ratio, generator):
    B, N, D = x.shape
    keep = int(N * (1 - mask_ratio))
    ids_shuffle = torch.rand(B, N, generator=generator).to(x.device).argsort(dim=1)
    ids_restore = ids_shuffle.argsort(dim=1)
    x_kept = torch.gather(x, 1, ids_shuffle[:, :keep, None].expand(-1, -1, D))
    mask = torch.ones(B, N, dtype=x.dtype, device=x.device)
    mask[:, :keep] = 0
    return x_kept, torch.gather(mask, 1, ids_restore), ids_restore

'''

_LOSS_OK = '''
def mae_loss(pred, target, mask):
    return (((pred - target) ** 2).mean(-1) * mask).sum() / mask.sum()
'''

_COUNTS_OK = '''def conv_param_count(c_in, c_out, k, bias=True):
    return c_out * c_in * k * k + (c_out if bias else 0)


def dwsep_param_count(c_in, c_out, k, bias=True):
    return c_in * k * k + c_in * c_out + ((c_in + c_out) if bias else 0)

'''

_DWSEP_OK = '''class DepthwiseSeparableConv2d(nn.Module):
    def __init__(self, c_in, c_out, kernel_size, stride=1, padding=0, bias=True):
        super().__init__()
        self.depthwise = nn.Conv2d(c_in, c_in, kernel_size, stride=stride, padding=padding, groups=c_in, bias=bias)
        self.pointwise = nn.Conv2d(c_in, c_out, 1, bias=bias)

    def forward(self, x):
        return self.pointwise(self.depthwise(x))
'''

_POOL_FORWARD = '''class MaxPool2x2(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        B, C, H, W = x.shape
        out = x.reshape(B, C, H // 2, 2, W // 2, 2).amax(dim=(3, 5))
        ctx.save_for_backward(x, out)
        return out

    @staticmethod
    def backward(ctx, grad_out):
        x, out = ctx.saved_tensors
'''

_POOL_TAIL = '''

def maxpool2x2(x):
    return MaxPool2x2.apply(x)
'''

_CAM_HEAD = '''def grad_cam(model, layer, x, class_idx):
    store = {}
    handle = layer.register_forward_hook(lambda m, i, o: store.__setitem__("A", o))
    try:
        logits = model(x)
    finally:
        handle.remove()
    A = store["A"]
'''

_CAM_TAIL = '''    cam = F.interpolate(cam[:, None], size=x.shape[-2:], mode="bilinear", align_corners=False)
    return cam[:, 0].detach()
'''

WRONG = {
    "ex1_patch_embed": [
        ("patchify by a plain reshape, which scrambles the patches",
         '''def patchify(x, p):
    B, C, H, W = x.shape
    if H % p or W % p:
        raise ValueError("not a multiple of p")
    return x.reshape(B, (H // p) * (W // p), C * p * p)

''' + _PATCH_EMBED_HEAD + '''        return self.proj(x).flatten(2).transpose(1, 2)
'''),
        ("no divisibility check: the strided conv silently drops the border",
         '''def patchify(x, p):
    return F.unfold(x, p, stride=p).transpose(1, 2)


class PatchEmbed(nn.Module):
    def __init__(self, in_chans, embed_dim, patch_size):
        super().__init__()
        self.proj = nn.Conv2d(in_chans, embed_dim, kernel_size=patch_size, stride=patch_size)

    def forward(self, x):
        return self.proj(x).flatten(2).transpose(1, 2)
'''),
        ("patches flattened channel-last (row, column, channel), and the conv output reshaped without a transpose",
         '''def patchify(x, p):
    B, C, H, W = x.shape
    if H % p or W % p:
        raise ValueError("not a multiple of p")
    return x.reshape(B, C, H // p, p, W // p, p).permute(0, 2, 4, 3, 5, 1).reshape(B, -1, C * p * p)

''' + _PATCH_EMBED_HEAD + '''        y = self.proj(x)
        return y.reshape(y.shape[0], -1, y.shape[1])
'''),
    ],
    "ex2_cls_and_positions": [
        ("sin and cos interleaved per frequency (and the column half first)",
         '''def sincos_2d(grid_h, grid_w, dim, device=None):
    q = dim // 4
    omega = 1.0 / 10000 ** (torch.arange(q, dtype=torch.float64) / q)
    r = torch.arange(grid_h, dtype=torch.float64).repeat_interleave(grid_w)[:, None] * omega
    c = torch.arange(grid_w, dtype=torch.float64).repeat(grid_h)[:, None] * omega
    code = lambda a: torch.stack([a.sin(), a.cos()], dim=-1).flatten(1)
    return torch.cat([code(c), code(r)], dim=1).float().to(device)

''' + _VIT_OK),
        ("the sin-cos table stored as a trainable nn.Parameter",
         _SINCOS_OK + _VIT_INIT_HEAD + '''        if pos == "learned":
            self.pos_embed = nn.Parameter(0.02 * torch.randn(1, 1 + n, embed_dim))
        else:
            gh, gw = img_size[0] // patch_size, img_size[1] // patch_size
            self.pos_embed = nn.Parameter(torch.cat([torch.zeros(1, embed_dim), sincos_2d(gh, gw, embed_dim)])[None])

    def forward(self, x):
        t = self.patch(x)
        return torch.cat([self.cls_token.expand(t.shape[0], -1, -1), t], dim=1) + self.pos_embed
'''),
        ("positions only for the patches; the CLS token gets none",
         _SINCOS_OK + _VIT_INIT_HEAD + '''        if pos == "learned":
            self.pos_embed = nn.Parameter(0.02 * torch.randn(1, n, embed_dim))
        else:
            gh, gw = img_size[0] // patch_size, img_size[1] // patch_size
            self.register_buffer("pos_embed", sincos_2d(gh, gw, embed_dim)[None])

    def forward(self, x):
        t = self.patch(x) + self.pos_embed
        return torch.cat([self.cls_token.expand(t.shape[0], -1, -1), t], dim=1)
'''),
    ],
    "ex3_mae_masking": [
        ("one permutation shared by every image of the batch",
         '''def random_masking(x, mask_ratio, generator):
    B, N, D = x.shape
    keep = int(N * (1 - mask_ratio))
    ids_shuffle = torch.randperm(N, generator=generator).to(x.device).expand(B, -1)
    ids_restore = ids_shuffle.argsort(dim=1)
    x_kept = torch.gather(x, 1, ids_shuffle[:, :keep, None].expand(-1, -1, D))
    mask = torch.ones(B, N, dtype=x.dtype, device=x.device)
    mask[:, :keep] = 0
    return x_kept, torch.gather(mask, 1, ids_restore), ids_restore

''' + _LOSS_OK),
        ("mask returned in the shuffled order, not the original one",
         '''def random_masking(x, mask_ratio, generator):
    B, N, D = x.shape
    keep = int(N * (1 - mask_ratio))
    ids_shuffle = torch.rand(B, N, generator=generator).to(x.device).argsort(dim=1)
    ids_restore = ids_shuffle.argsort(dim=1)
    x_kept = torch.gather(x, 1, ids_shuffle[:, :keep, None].expand(-1, -1, D))
    mask = torch.ones(B, N, dtype=x.dtype, device=x.device)
    mask[:, :keep] = 0
    return x_kept, mask, ids_restore

''' + _LOSS_OK),
        ("loss averaged over every patch (visible ones count as zero)",
         _MASKING_OK + '''
def mae_loss(pred, target, mask):
    return (((pred - target) ** 2).mean(-1) * mask).mean()
'''),
    ],
    "ex4_depthwise_separable": [
        ("depthwise conv without groups: a full c_in -> c_in convolution",
         _COUNTS_OK + '''class DepthwiseSeparableConv2d(nn.Module):
    def __init__(self, c_in, c_out, kernel_size, stride=1, padding=0, bias=True):
        super().__init__()
        self.depthwise = nn.Conv2d(c_in, c_in, kernel_size, stride=stride, padding=padding, bias=bias)
        self.pointwise = nn.Conv2d(c_in, c_out, 1, bias=bias)

    def forward(self, x):
        return self.pointwise(self.depthwise(x))
'''),
        ("parameter count forgets the depthwise bias",
         '''def conv_param_count(c_in, c_out, k, bias=True):
    return c_out * c_in * k * k + (c_out if bias else 0)


def dwsep_param_count(c_in, c_out, k, bias=True):
    return c_in * k * k + c_in * c_out + (c_out if bias else 0)

''' + _DWSEP_OK),
        ("stride and padding given to the pointwise conv instead of the depthwise one",
         _COUNTS_OK + '''class DepthwiseSeparableConv2d(nn.Module):
    def __init__(self, c_in, c_out, kernel_size, stride=1, padding=0, bias=True):
        super().__init__()
        self.depthwise = nn.Conv2d(c_in, c_in, kernel_size, groups=c_in, bias=bias)
        self.pointwise = nn.Conv2d(c_in, c_out, 1, stride=stride, padding=padding, bias=bias)

    def forward(self, x):
        return self.pointwise(self.depthwise(x))
'''),
    ],
    "ex5_maxpool_backward": [
        ("the colleague's backward: every input of a window gets the gradient",
         _POOL_FORWARD + '''        return grad_out.repeat_interleave(2, dim=2).repeat_interleave(2, dim=3)
''' + _POOL_TAIL),
        ("routes by comparing x == max: tied inputs all get the gradient",
         _POOL_FORWARD + '''        up = lambda t: t.repeat_interleave(2, dim=2).repeat_interleave(2, dim=3)
        return (x == up(out)).to(grad_out.dtype) * up(grad_out)
''' + _POOL_TAIL),
        ("average-pool gradient: a quarter to each input",
         _POOL_FORWARD + '''        return grad_out.repeat_interleave(2, dim=2).repeat_interleave(2, dim=3) / 4
''' + _POOL_TAIL),
    ],
    "ex6_grad_cam": [
        ("no ReLU: negative evidence stays in the map",
         _CAM_HEAD + '''    (dA,) = torch.autograd.grad(logits[torch.arange(len(class_idx)), class_idx].sum(), A)
    cam = (dA.mean(dim=(2, 3), keepdim=True) * A).sum(1)
''' + _CAM_TAIL),
        ("gradient times activation per position instead of a spatial mean per channel",
         _CAM_HEAD + '''    (dA,) = torch.autograd.grad(logits[torch.arange(len(class_idx)), class_idx].sum(), A)
    cam = F.relu((dA * A).sum(1))
''' + _CAM_TAIL),
        ("backward() on the score: every parameter gets a .grad",
         _CAM_HEAD + '''    A.retain_grad()
    logits[torch.arange(len(class_idx)), class_idx].sum().backward()
    cam = F.relu((A.grad.mean(dim=(2, 3), keepdim=True) * A).sum(1)).detach()
''' + _CAM_TAIL),
    ],
}

ALT = {
    "ex1_patch_embed": '''def patchify(x, p):
    if x.shape[-2] % p != 0 or x.shape[-1] % p != 0:
        raise ValueError(f"{tuple(x.shape[-2:])} is not divisible by {p}")
    return F.unfold(x, kernel_size=p, stride=p).permute(0, 2, 1)


class PatchEmbed(nn.Module):
    def __init__(self, in_chans, embed_dim, patch_size):
        super().__init__()
        self.proj = nn.Conv2d(in_chans, embed_dim, patch_size, patch_size)

    def forward(self, x):
        p = self.proj.kernel_size[0]
        if x.shape[-2] % p != 0 or x.shape[-1] % p != 0:
            raise ValueError("image size must be a multiple of the patch size")
        y = self.proj(x)
        return y.permute(0, 2, 3, 1).reshape(y.shape[0], -1, y.shape[1])
''',
    "ex2_cls_and_positions": '''def sincos_2d(grid_h, grid_w, dim, device=None):
    q = dim // 4
    k = torch.arange(q, dtype=torch.float64)
    omega = torch.exp(-math.log(10000.0) * k / q)
    rr, cc = torch.meshgrid(torch.arange(grid_h, dtype=torch.float64), torch.arange(grid_w, dtype=torch.float64),
                            indexing="ij")
    parts = []
    for t in (rr.reshape(-1), cc.reshape(-1)):
        a = torch.outer(t, omega)
        parts += [torch.sin(a), torch.cos(a)]
    return torch.cat(parts, dim=1).to(device=device, dtype=torch.float32)


class ViTEmbed(nn.Module):
    def __init__(self, in_chans, embed_dim, patch_size, img_size, pos="learned"):
        super().__init__()
        gh, gw = img_size[0] // patch_size, img_size[1] // patch_size
        self.patch = PatchEmbed(in_chans, embed_dim, patch_size)
        self.cls_token = nn.Parameter(torch.randn(1, 1, embed_dim) * 1e-6)
        table = torch.zeros(1, 1 + gh * gw, embed_dim)
        if pos == "learned":
            self.pos_embed = nn.Parameter(table)
        else:
            table[0, 1:] = sincos_2d(gh, gw, embed_dim)
            self.register_buffer("pos_embed", table, persistent=False)

    def forward(self, x):
        patches = self.patch(x) + self.pos_embed[:, 1:]
        cls = (self.cls_token + self.pos_embed[:, :1]).expand(x.shape[0], -1, -1)
        return torch.cat((cls, patches), dim=1)
''',
    "ex3_mae_masking": '''def random_masking(x, mask_ratio, generator):
    B, N, D = x.shape
    keep = int(N * (1 - mask_ratio))
    perms = torch.stack([torch.randperm(N, generator=generator) for _ in range(B)]).to(x.device)
    ids_restore = torch.empty_like(perms)
    ids_restore.scatter_(1, perms, torch.arange(N, device=x.device).expand(B, -1))
    x_kept = x[torch.arange(B, device=x.device)[:, None], perms[:, :keep]]
    mask = torch.ones(B, N, dtype=x.dtype, device=x.device)
    mask.scatter_(1, perms[:, :keep], 0.0)
    return x_kept, mask, ids_restore


def mae_loss(pred, target, mask):
    per_patch = F.mse_loss(pred, target, reduction="none").mean(dim=-1)
    return per_patch[mask.bool()].mean()
''',
    "ex4_depthwise_separable": '''def conv_param_count(c_in, c_out, k, bias=True):
    return c_out * (c_in * k ** 2 + int(bias))


def dwsep_param_count(c_in, c_out, k, bias=True):
    return conv_param_count(1, c_in, k, bias) + conv_param_count(c_in, c_out, 1, bias)


class DepthwiseSeparableConv2d(nn.Module):
    def __init__(self, c_in, c_out, kernel_size, stride=1, padding=0, bias=True):
        super().__init__()
        self.stride, self.padding, self.c_in = stride, padding, c_in
        self.depthwise = nn.Conv2d(c_in, c_in, kernel_size, stride, padding, groups=c_in, bias=bias)
        self.pointwise = nn.Conv2d(c_in, c_out, kernel_size=1, bias=bias)

    def forward(self, x):
        h = F.conv2d(x, self.depthwise.weight, self.depthwise.bias, self.stride, self.padding, groups=self.c_in)
        return F.conv2d(h, self.pointwise.weight, self.pointwise.bias)
''',
    "ex5_maxpool_backward": '''class MaxPool2x2(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        B, C, H, W = x.shape
        cols = F.unfold(x.reshape(B * C, 1, H, W), kernel_size=2, stride=2)
        vals, arg = cols.max(dim=1, keepdim=True)
        ctx.save_for_backward(arg)
        ctx.dims = (B, C, H, W)
        return vals.reshape(B, C, H // 2, W // 2)

    @staticmethod
    def backward(ctx, grad_out):
        (arg,) = ctx.saved_tensors
        B, C, H, W = ctx.dims
        cols = torch.zeros(B * C, 4, arg.shape[-1], dtype=grad_out.dtype, device=grad_out.device)
        cols.scatter_(1, arg, grad_out.reshape(B * C, 1, -1))
        return F.fold(cols, (H, W), kernel_size=2, stride=2).reshape(B, C, H, W)


def maxpool2x2(x):
    return MaxPool2x2.apply(x)
''',
    "ex6_grad_cam": '''def grad_cam(model, layer, x, class_idx):
    saved = []
    h_fwd = layer.register_forward_hook(lambda m, inp, out: saved.append(out))
    try:
        out = model(x)
    finally:
        h_fwd.remove()
    feats = saved[-1]
    score = out[torch.arange(x.shape[0], device=x.device), class_idx]
    grads = torch.autograd.grad(score, feats, grad_outputs=torch.ones_like(score))[0]
    weights = grads.flatten(2).mean(-1)
    cam = torch.einsum("bk,bkhw->bhw", weights, feats).clamp(min=0)
    return F.interpolate(cam.unsqueeze(1), size=tuple(x.shape[-2:]), mode="bilinear",
                         align_corners=False).squeeze(1).detach()
''',
}

# Ignores the `device` argument: on a CPU-only machine only the meta device shows it.
_CPU_TABLE = ALT["ex2_cls_and_positions"].replace(".to(device=device, dtype=torch.float32)", ".to(dtype=torch.float32)")
assert _CPU_TABLE != ALT["ex2_cls_and_positions"]
WRONG["ex2_cls_and_positions"].append(("sincos_2d ignores its device argument: the table is always on the CPU",
                                       _CPU_TABLE))

# issue 33: max-pooling by hand; calling F.max_pool2d in forward is a shortcut.
WRONG["ex5_maxpool_backward"].append(("shortcut: forward calls F.max_pool2d with indices", '''
class MaxPool2x2(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        out, idx = F.max_pool2d(x, 2, return_indices=True)
        ctx.save_for_backward(idx)
        ctx.shape = x.shape
        return out

    @staticmethod
    def backward(ctx, grad_out):
        (idx,) = ctx.saved_tensors
        g = torch.zeros(ctx.shape, dtype=grad_out.dtype, device=grad_out.device).flatten(2)
        g.scatter_(2, idx.flatten(2), grad_out.flatten(2))
        return g.reshape(ctx.shape)


def maxpool2x2(x):
    return MaxPool2x2.apply(x)
'''))
