"""Blind set for notebooks/mid/19_vision_transformer_and_conv_variants.ipynb, written from release/ alone
(issue 33)."""

SHORTCUT = {
    "ex5_maxpool_backward": ("uses F.max_pool2d_with_indices in forward and scatters with its indices", '''
class MaxPool2x2(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        y, idx = F.max_pool2d_with_indices(x, 2)
        ctx.save_for_backward(idx)
        ctx.shape = x.shape
        return y

    @staticmethod
    def backward(ctx, grad_out):
        (idx,) = ctx.saved_tensors
        B, C, H, W = ctx.shape
        g = grad_out.new_zeros(B, C, H * W)
        g.scatter_(2, idx.flatten(2), grad_out.flatten(2))
        return g.view(B, C, H, W)


def maxpool2x2(x):
    return MaxPool2x2.apply(x)
'''),
}

WRONG = {
    "ex1_patch_embed": ("reshapes the conv output (B, D, gh, gw) straight to (B, N, D)", '''
def patchify(x, p):
    B, C, H, W = x.shape
    if H % p or W % p:
        raise ValueError(f"H={H} and W={W} must be multiples of p={p}")
    return F.unfold(x, p, stride=p).transpose(1, 2)


class PatchEmbed(nn.Module):
    def __init__(self, in_chans, embed_dim, patch_size):
        super().__init__()
        self.p = patch_size
        self.proj = nn.Conv2d(in_chans, embed_dim, kernel_size=patch_size, stride=patch_size)

    def forward(self, x):
        if x.shape[-2] % self.p or x.shape[-1] % self.p:
            raise ValueError("image size must be a multiple of the patch size")
        y = self.proj(x)
        return y.reshape(y.shape[0], -1, y.shape[1])
'''),
    "ex2_cls_and_positions": ("puts the column's code first and the row's second", '''
def sincos_2d(grid_h, grid_w, dim, device=None):
    q = dim // 4
    omega = 1.0 / 10000 ** (torch.arange(q, dtype=torch.float64, device=device) / q)
    n = torch.arange(grid_h * grid_w, device=device)
    code = lambda t: torch.cat([torch.sin(t[:, None] * omega), torch.cos(t[:, None] * omega)], dim=1)  # noqa: E731
    return torch.cat([code((n % grid_w).double()), code((n // grid_w).double())], dim=1).float()


class ViTEmbed(nn.Module):
    def __init__(self, in_chans, embed_dim, patch_size, img_size, pos="learned"):
        super().__init__()
        gh, gw = img_size[0] // patch_size, img_size[1] // patch_size
        self.patch = PatchEmbed(in_chans, embed_dim, patch_size)
        self.cls_token = nn.Parameter(torch.zeros(1, 1, embed_dim))
        if pos == "learned":
            self.pos_embed = nn.Parameter(0.02 * torch.randn(1, 1 + gh * gw, embed_dim))
        else:
            table = torch.cat([torch.zeros(1, embed_dim), sincos_2d(gh, gw, embed_dim)])[None]
            self.register_buffer("pos_embed", table)

    def forward(self, x):
        t = self.patch(x)
        return torch.cat([self.cls_token.expand(t.shape[0], -1, -1), t], dim=1) + self.pos_embed
'''),
    "ex3_mae_masking": ("draws the noise from the global generator", '''
def random_masking(x, mask_ratio, generator):
    B, N, D = x.shape
    K = int(N * (1 - mask_ratio))
    noise = torch.rand(B, N).to(x.device)
    ids_shuffle = noise.argsort(dim=1)
    ids_restore = ids_shuffle.argsort(dim=1)
    x_kept = torch.gather(x, 1, ids_shuffle[:, :K, None].expand(-1, -1, D))
    mask = torch.ones(B, N, dtype=x.dtype, device=x.device)
    mask[:, :K] = 0
    mask = torch.gather(mask, 1, ids_restore)
    return x_kept, mask, ids_restore


def mae_loss(pred, target, mask):
    per_patch = ((pred - target) ** 2).mean(dim=-1)
    return (per_patch * mask).sum() / mask.sum()
'''),
    "ex4_depthwise_separable": ("counts the bias of the pointwise layer only", '''
def conv_param_count(c_in, c_out, k, bias=True):
    return c_out * c_in * k * k + (c_out if bias else 0)


def dwsep_param_count(c_in, c_out, k, bias=True):
    return c_in * k * k + c_in * c_out + (c_out if bias else 0)


class DepthwiseSeparableConv2d(nn.Module):
    def __init__(self, c_in, c_out, kernel_size, stride=1, padding=0, bias=True):
        super().__init__()
        self.depthwise = nn.Conv2d(c_in, c_in, kernel_size, stride=stride, padding=padding, groups=c_in, bias=bias)
        self.pointwise = nn.Conv2d(c_in, c_out, 1, bias=bias)

    def forward(self, x):
        return self.pointwise(self.depthwise(x))
'''),
    "ex5_maxpool_backward": ("routes the gradient with x == max, so ties all receive it", '''
class MaxPool2x2(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        B, C, H, W = x.shape
        y = x.reshape(B, C, H // 2, 2, W // 2, 2).amax(dim=(3, 5))
        ctx.save_for_backward(x, y)
        return y

    @staticmethod
    def backward(ctx, grad_out):
        x, y = ctx.saved_tensors
        up = lambda t: t.repeat_interleave(2, dim=2).repeat_interleave(2, dim=3)  # noqa: E731
        return (x == up(y)).to(grad_out.dtype) * up(grad_out)


def maxpool2x2(x):
    return MaxPool2x2.apply(x)
'''),
    "ex6_grad_cam": ("uses the softmax probability of the class instead of its logit", '''
def grad_cam(model, layer, x, class_idx):
    store = {}
    handle = layer.register_forward_hook(lambda m, i, o: store.__setitem__("a", o))
    try:
        with torch.enable_grad():
            logits = model(x)
            a = store["a"]
            probs = logits.softmax(-1)
            score = probs[torch.arange(x.shape[0], device=x.device), class_idx].sum()
            (g,) = torch.autograd.grad(score, a)
    finally:
        handle.remove()
    cam = torch.relu((g.mean(dim=(2, 3), keepdim=True) * a).sum(1, keepdim=True))
    return F.interpolate(cam, size=x.shape[-2:], mode="bilinear", align_corners=False)[:, 0].detach()
'''),
}

ALT = {
    "ex1_patch_embed": '''
def patchify(x, p):
    B, C, H, W = x.shape
    if H % p != 0 or W % p != 0:
        raise ValueError(f"image {H}x{W} is not a multiple of the patch size {p}")
    gh, gw = H // p, W // p
    return x.reshape(B, C, gh, p, gw, p).permute(0, 2, 4, 1, 3, 5).reshape(B, gh * gw, C * p * p)


class PatchEmbed(nn.Module):
    def __init__(self, in_chans, embed_dim, patch_size):
        super().__init__()
        self.patch_size = patch_size
        self.proj = nn.Conv2d(in_chans, embed_dim, kernel_size=patch_size, stride=patch_size)

    def forward(self, x):
        patches = patchify(x, self.patch_size)
        return F.linear(patches, self.proj.weight.flatten(1), self.proj.bias)
''',
    "ex2_cls_and_positions": '''
def sincos_2d(grid_h, grid_w, dim, device=None):
    q = dim // 4
    k = torch.arange(q, dtype=torch.float64, device=device)
    omega = torch.exp(-math.log(10000.0) * k / q)
    rows = torch.arange(grid_h, dtype=torch.float64, device=device).repeat_interleave(grid_w)
    cols = torch.arange(grid_w, dtype=torch.float64, device=device).repeat(grid_h)
    parts = []
    for t in (rows, cols):
        ang = torch.outer(t, omega)
        parts += [ang.sin(), ang.cos()]
    return torch.cat(parts, dim=1).to(torch.float32)


class ViTEmbed(nn.Module):
    def __init__(self, in_chans, embed_dim, patch_size, img_size, pos="learned"):
        super().__init__()
        H, W = img_size
        gh, gw = H // patch_size, W // patch_size
        self.patch = PatchEmbed(in_chans, embed_dim, patch_size)
        self.cls_token = nn.Parameter(torch.randn(1, 1, embed_dim) * 0.02)
        table = torch.cat([torch.zeros(1, embed_dim), sincos_2d(gh, gw, embed_dim)], dim=0).unsqueeze(0)
        if pos == "sincos":
            self.register_buffer("pos_embed", table)
        else:
            self.pos_embed = nn.Parameter(table.clone())

    def forward(self, x):
        tokens = self.patch(x)
        cls = self.cls_token.expand(tokens.shape[0], 1, tokens.shape[2])
        return torch.cat((cls, tokens), dim=1) + self.pos_embed
''',
    "ex3_mae_masking": '''
def random_masking(x, mask_ratio, generator):
    B, N, D = x.shape
    K = int(N * (1 - mask_ratio))
    perms = torch.stack([torch.randperm(N, generator=generator) for _ in range(B)]).to(x.device)
    ids_restore = torch.empty_like(perms).scatter_(1, perms, torch.arange(N, device=x.device).expand(B, N))
    x_kept = x.gather(1, perms[:, :K].unsqueeze(-1).expand(B, K, D))
    mask = torch.ones(B, N, dtype=x.dtype, device=x.device).scatter(1, perms[:, :K], 0.0)
    return x_kept, mask, ids_restore


def mae_loss(pred, target, mask):
    per_patch = F.mse_loss(pred, target, reduction="none").mean(dim=-1)
    return per_patch[mask.bool()].mean()
''',
    "ex4_depthwise_separable": '''
def conv_param_count(c_in, c_out, k, bias=True):
    return int(c_out * (c_in * k * k + int(bool(bias))))


def dwsep_param_count(c_in, c_out, k, bias=True):
    return conv_param_count(1, c_in, k, bias) + conv_param_count(c_in, c_out, 1, bias)


class DepthwiseSeparableConv2d(nn.Module):
    def __init__(self, c_in, c_out, kernel_size, stride=1, padding=0, bias=True):
        super().__init__()
        self.depthwise = nn.Conv2d(c_in, c_in, kernel_size=kernel_size, stride=stride, padding=padding,
                                   groups=c_in, bias=bias)
        self.pointwise = nn.Conv2d(c_in, c_out, kernel_size=1, bias=bias)

    def forward(self, x):
        h = self.depthwise(x)
        return self.pointwise(h)
''',
    "ex5_maxpool_backward": '''
class MaxPool2x2(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        B, C, H, W = x.shape
        win = x.reshape(B, C, H // 2, 2, W // 2, 2).permute(0, 1, 2, 4, 3, 5).reshape(B, C, H // 2, W // 2, 4)
        idx = win.argmax(dim=-1)
        ctx.save_for_backward(idx)
        ctx.shape = (B, C, H, W)
        return win.gather(-1, idx.unsqueeze(-1)).squeeze(-1)

    @staticmethod
    def backward(ctx, grad_out):
        (idx,) = ctx.saved_tensors
        B, C, H, W = ctx.shape
        g = F.one_hot(idx, 4).to(grad_out.dtype) * grad_out.unsqueeze(-1)
        return g.reshape(B, C, H // 2, W // 2, 2, 2).permute(0, 1, 2, 4, 3, 5).reshape(B, C, H, W)


def maxpool2x2(x):
    return MaxPool2x2.apply(x)
''',
    "ex6_grad_cam": '''
def grad_cam(model, layer, x, class_idx):
    feats = []
    handle = layer.register_forward_hook(lambda module, inputs, output: feats.append(output))
    try:
        with torch.enable_grad():
            logits = model(x)
    finally:
        handle.remove()
    A = feats[0]
    pick = F.one_hot(class_idx.to(logits.device), logits.shape[-1]).to(logits.dtype)
    (dA,) = torch.autograd.grad(logits, A, grad_outputs=pick)
    weights = dA.mean(dim=(2, 3))
    cam = F.relu(torch.einsum("bk,bkhw->bhw", weights, A)).unsqueeze(1)
    up = F.interpolate(cam, size=tuple(x.shape[-2:]), mode="bilinear", align_corners=False)
    return up.squeeze(1).detach().to(x.device)
''',
}
