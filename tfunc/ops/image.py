"""Image resizing op definitions (NHWC): ``resize`` (bilinear or nearest neighbour, with
TensorFlow 2's half-pixel centres and no antialiasing) and its gradient ``resize_grad``.

Both methods are separable linear maps: ``out = Wh @ image @ Ww^T`` per channel, with
interpolation matrices ``Wh`` (out_h x in_h) and ``Ww`` (out_w x in_w) built on the host
from the sizes alone.  The gradient applies the transposed matrices.

Sampling positions, as TensorFlow's kernels compute them (``scale = in / out``):

* bilinear: ``src = (o + 0.5) * scale - 0.5``; the two neighbours ``floor(src)`` and
  ``floor(src) + 1`` (clamped to the image) weighted ``1 - frac`` and ``frac``;
* nearest: ``src = min(floor((o + 0.5) * scale), in - 1)``.
"""

from __future__ import annotations

import functools

import numpy as np

from ..core import dtypes as D
from ..core.errors import InvalidArgumentError
from ..core.shapes import format_shape
from ..core.specs import Spec
from . import sampling as S
from .infer import FLOATS, NUMERIC, check_dtype
from .registry import OpDef, register

METHODS = ("bilinear", "nearest")


@functools.lru_cache(maxsize=256)
def interpolation_matrix(in_size: int, out_size: int, method: str) -> np.ndarray:
    """(out_size, in_size) float64 weights of each output row over the input rows."""
    w = np.zeros((out_size, in_size))
    if in_size == 0 or out_size == 0:
        return w
    scale = in_size / out_size
    o = np.arange(out_size)
    if method == "nearest":
        src = np.minimum(np.floor((o + 0.5) * scale).astype(np.int64), in_size - 1)
        w[o, src] = 1.0
        return w
    src = (o + 0.5) * scale - 0.5
    lo = np.floor(src)
    frac = src - lo
    lo_i = np.clip(lo.astype(np.int64), 0, in_size - 1)
    hi_i = np.clip(lo.astype(np.int64) + 1, 0, in_size - 1)
    np.add.at(w, (o, lo_i), 1.0 - frac)
    np.add.at(w, (o, hi_i), frac)
    return w


def _apply(xp, x, wh, ww):
    """``wh`` over axis 1 and ``ww`` over axis 2 of an NHWC array."""
    t = xp.einsum("oh,nhwc->nowc", wh, x)
    return xp.einsum("pw,nowc->nopc", ww, t)


def _matrices(xp, dtype, in_hw, out_hw, method):
    kind = "bilinear" if method == "bilinear" else "nearest"
    wh = interpolation_matrix(in_hw[0], out_hw[0], kind)
    ww = interpolation_matrix(in_hw[1], out_hw[1], kind)
    return xp.asarray(wh.astype(dtype)), xp.asarray(ww.astype(dtype))


def _resize_infer(specs, attrs):
    x = specs[0]
    method = attrs["method"]
    if method not in METHODS:
        raise InvalidArgumentError(f"resize: method must be one of {METHODS}, got {method!r}.")
    check_dtype("resize", x, FLOATS if method == "bilinear" else NUMERIC, "images")
    if x.shape is not None and len(x.shape) != 4:
        raise InvalidArgumentError(f"resize: images must be 4-D (NHWC), got shape {format_shape(x.shape)}.")
    h, w = attrs["size"]
    if h < 0 or w < 0:
        raise InvalidArgumentError(f"resize: size must be non-negative, got {attrs['size']}.")
    n, c = (None, None) if x.shape is None else (x.shape[0], x.shape[3])
    return (Spec((n, h, w, c), x.dtype),)


def _resize_impl(xp, x, size, method):
    if x.shape[1:3] == tuple(size):
        return x.copy()
    # NOTE: integer images (nearest only) go through float64 weights: every output picks one
    # input value, so the round trip is exact.
    work = x.dtype if x.dtype.kind == "f" else (np.float32 if x.dtype.kind == "V" else np.float64)
    wh, ww = _matrices(xp, work, x.shape[1:3], size, method)
    out = _apply(xp, x.astype(work, copy=False), wh, ww)
    return out.astype(x.dtype, copy=False)


def _resize_ref(x, size, method):
    """Output pixel by pixel from the sampling formulas, in float64."""
    n, h, w, c = x.shape
    oh, ow = size
    out = np.zeros((n, oh, ow, c))
    xs = x.astype(np.float64)
    for a in range(oh):
        for b in range(ow):
            if method == "nearest":
                i = min(int(np.floor((a + 0.5) * h / oh)), h - 1)
                j = min(int(np.floor((b + 0.5) * w / ow)), w - 1)
                out[:, a, b] = xs[:, i, j]
                continue
            sy, sx = (a + 0.5) * h / oh - 0.5, (b + 0.5) * w / ow - 0.5
            y0, x0 = int(np.floor(sy)), int(np.floor(sx))
            fy, fx = sy - y0, sx - x0
            ys = [min(max(y0, 0), h - 1), min(max(y0 + 1, 0), h - 1)]
            xs_ = [min(max(x0, 0), w - 1), min(max(x0 + 1, 0), w - 1)]
            top = xs[:, ys[0], xs_[0]] * (1 - fx) + xs[:, ys[0], xs_[1]] * fx
            bottom = xs[:, ys[1], xs_[0]] * (1 - fx) + xs[:, ys[1], xs_[1]] * fx
            out[:, a, b] = top * (1 - fy) + bottom * fy
    return out.astype(x.dtype)


def _resize_cases():
    return [((1, 4, 4, 1), (8, 8)), ((2, 5, 3, 2), (3, 7)), ((1, 6, 6, 3), (2, 3)), ((1, 3, 4, 1), (3, 4))]


def _resize_samples(rng):
    out = []
    for method in METHODS:
        for dt in (D.float32, D.float64):
            for shape, size in _resize_cases():
                out.append(S.Sample((S.draw(rng, shape, dt),), {"size": size, "method": method}))
    out.append(S.Sample((S.draw(rng, (1, 3, 3, 2), D.int32),), {"size": (5, 4), "method": "nearest"}, "integers"))
    out.append(S.Sample((S.draw(rng, (0, 3, 3, 1), D.float32),), {"size": (2, 2), "method": "bilinear"}, "empty"))
    return out


resize_op = register(
    OpDef(
        name="resize",
        kind="other",
        infer=_resize_infer,
        impl=_resize_impl,
        ref=_resize_ref,
        samples=_resize_samples,
    )
)


def _check_resize_grad(dy_shape, x_shape, size):
    """grads (N, size[0], size[1], C) and the original image (N, H, W, C) must agree (either
    may have unknown dimensions while tracing)."""
    if dy_shape is None or x_shape is None:
        return
    if len(dy_shape) != 4 or len(x_shape) != 4:
        raise InvalidArgumentError(
            f"resize_grad: grads and the original image must be rank 4, got shapes {format_shape(dy_shape)} "
            f"and {format_shape(x_shape)}."
        )
    want = (x_shape[0], size[0], size[1], x_shape[3])
    if any(a is not None and b is not None and a != b for a, b in zip(dy_shape, want)):
        raise InvalidArgumentError(
            f"resize_grad: grads of shape {format_shape(dy_shape)} do not match the original image of shape "
            f"{format_shape(x_shape)} resized to {tuple(size)}."
        )


def _resize_grad_infer(specs, attrs):
    dy, x = specs
    check_dtype("resize_grad", dy, FLOATS, "grads")
    _check_resize_grad(dy.shape, x.shape, attrs["size"])
    return (Spec(x.shape, dy.dtype),)


def _resize_grad_impl(xp, dy, x, size, method):
    """The adjoint of resize: the transposed interpolation matrices; ``x`` is read for its
    shape only."""
    _check_resize_grad(dy.shape, x.shape, size)
    work = dy.dtype if dy.dtype.kind == "f" else np.float32  # bfloat16 (kind 'V') in float32
    wh, ww = _matrices(xp, work, x.shape[1:3], size, method)
    return xp.ascontiguousarray(_apply(xp, dy.astype(work, copy=False), wh.T, ww.T)).astype(dy.dtype, copy=False)


def _resize_grad_ref(dy, x, size, method):
    wh = interpolation_matrix(x.shape[1], size[0], "bilinear" if method == "bilinear" else "nearest")
    ww = interpolation_matrix(x.shape[2], size[1], "bilinear" if method == "bilinear" else "nearest")
    return np.einsum("oh,pw,nopc->nhwc", wh, ww, dy.astype(np.float64)).astype(dy.dtype)


def _resize_grad_samples(rng):
    out = []
    for method in METHODS:
        for dt in (D.float32, D.float64):
            for shape, size in _resize_cases():
                dy = S.draw(rng, (shape[0],) + size + (shape[3],), dt)
                out.append(S.Sample((dy, S.draw(rng, shape, dt)), {"size": size, "method": method}))
    return out


resize_grad_op = register(
    OpDef(
        name="resize_grad",
        kind="other",
        infer=_resize_grad_infer,
        impl=_resize_grad_impl,
        ref=_resize_grad_ref,
        samples=_resize_grad_samples,
        shape_only_inputs=(1,),
    )
)


# --- adjust_contrast ---------------------------------------------------------------------------


def _adjust_contrast_infer(specs, attrs):
    x, factor = specs
    check_dtype("adjust_contrast", x, FLOATS, "images")
    check_dtype("adjust_contrast", factor, FLOATS, "contrast_factor")
    if x.shape is not None and len(x.shape) < 3:
        raise InvalidArgumentError(f"adjust_contrast: images must be at least 3-D, got shape {format_shape(x.shape)}.")
    if factor.shape is not None and factor.shape != ():
        raise InvalidArgumentError(
            f"adjust_contrast: contrast_factor must be a scalar, got shape {format_shape(factor.shape)}."
        )
    return (Spec(x.shape, x.dtype),)


def _adjust_contrast_impl(xp, x, factor):
    """``(x - mean) * factor + mean`` per image and channel, the mean over height and width
    (TensorFlow's AdjustContrastv2), computed in float32 for half-precision images."""
    work = x.astype(np.float32) if x.dtype.itemsize < 4 else x
    mean = work.mean(axis=(-3, -2), keepdims=True)
    out = (work - mean) * xp.asarray(factor, dtype=work.dtype) + mean
    return out.astype(x.dtype, copy=False)


def _adjust_contrast_ref(x, factor):
    x64 = x.astype(np.float64)
    mean = x64.mean(axis=(-3, -2), keepdims=True)
    return ((x64 - mean) * float(factor) + mean).astype(x.dtype)


def _adjust_contrast_samples(rng):
    out = []
    for dt in (D.float32, D.float64):
        for shape in ((2, 3, 4, 3), (5, 1, 2), (1, 1, 1, 1), (0, 2, 2, 3)):
            factor = np.asarray(rng.uniform(-1.0, 3.0), dtype=dt._np)
            out.append(S.Sample((S.draw(rng, shape, dt), factor), {}))
    return out


adjust_contrast_op = register(
    OpDef(
        name="adjust_contrast",
        kind="other",
        infer=_adjust_contrast_infer,
        impl=_adjust_contrast_impl,
        ref=_adjust_contrast_ref,
        samples=_adjust_contrast_samples,
        tf_name="AdjustContrastv2",
    )
)
