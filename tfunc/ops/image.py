"""Image resizing op definitions (NHWC): ``resize`` (bilinear or nearest neighbour, with
TensorFlow 2's half-pixel centres and no antialiasing) and its gradient ``resize_grad``.

Both methods are separable, one axis after the other, and read only the input pixels they
sample, as TensorFlow's kernels do: a NaN or inf pixel reaches only the outputs that sample
it (a dense interpolation matrix would spread it through ``0 * inf = NaN``).  Sampling
positions are computed in float32, as TensorFlow's kernels compute them
(``scale = float(in) / out``):

* nearest: ``src = min(floor((o + 0.5) * scale), in - 1)``, a gather (exact for every dtype);
* bilinear: ``src = (o + 0.5) * scale - 0.5``, the taps ``lo = max(floor(src), 0)`` and
  ``hi = min(ceil(src), in - 1)`` mixed as ``a + (b - a) * (src - floor(src))``, along the
  width first, then the height.  A same-size resize is a copy (TensorFlow's shortcut).

The gradient is the adjoint of those gathers: each input index sums the outputs that read it.
"""

from __future__ import annotations

import functools

import numpy as np

from ..core import dtypes as D
from ..core.errors import InvalidArgumentError
from ..core.shapes import format_shape
from ..core.specs import Spec
from . import sampling as S
from .infer import FLOATS, INTS, check_dtype
from .registry import OpDef, register

METHODS = ("bilinear", "nearest")
# TensorFlow's ResizeBilinear / ResizeNearestNeighbor registrations (no bool, uint32/64, complex)
RESIZE_DTYPES = FLOATS | (INTS - {D.uint32, D.uint64})


@functools.lru_cache(maxsize=256)
def _taps(in_size: int, out_size: int, method: str) -> tuple:
    """Along one axis, per output index: ``(index,)`` for nearest, ``(lo, hi, lerp)`` for
    bilinear (lerp float32), in TensorFlow's float32 arithmetic."""
    scale = np.float32(in_size) / np.float32(out_size)
    centre = np.arange(out_size, dtype=np.float32) + np.float32(0.5)
    if method == "nearest":
        return (np.minimum(np.floor(centre * scale).astype(np.int64), in_size - 1),)
    src = centre * scale - np.float32(0.5)
    floor = np.floor(src)
    lo = np.maximum(floor.astype(np.int64), 0)
    hi = np.minimum(np.ceil(src).astype(np.int64), in_size - 1)
    return lo, hi, src - floor


@functools.lru_cache(maxsize=256)
def _adjoint_taps(in_size: int, out_size: int, method: str) -> tuple:
    """The transpose of :func:`_taps`: per input index, the output indices that read it and
    their weights, as ``(in_size, k)`` tables padded with output index ``out_size`` (a zero
    slot the gradient appends) and weight 0, so a padding entry never touches a real value."""
    taps = _taps(in_size, out_size, method)
    if method == "nearest":
        src, weight = taps[0], np.ones(out_size)
    else:
        lo, hi, lerp = taps
        src, weight = np.concatenate([lo, hi]), np.concatenate([1.0 - lerp.astype(np.float64), lerp])
    dst = np.tile(np.arange(out_size), len(src) // out_size)
    order = np.argsort(src, kind="stable")
    src, dst, weight = src[order], dst[order], weight[order]
    counts = np.bincount(src, minlength=in_size)
    slot = np.arange(len(src)) - (np.cumsum(counts) - counts)[src]  # rank within its input index
    index = np.full((in_size, counts.max()), out_size)
    weights = np.zeros(index.shape)
    index[src, slot] = dst
    weights[src, slot] = weight
    return index, weights


def _broadcast_along(v, axis, ndim):
    """A per-index array (1-D, or 2-D for the gradient's tables) that starts at ``axis`` of an
    ``ndim``-D array, shaped to broadcast against it."""
    return v.reshape(v.shape + (1,) * (ndim - axis - v.ndim))


def _resize_axis(xp, x, out_size, method, axis):
    taps = _taps(x.shape[axis], out_size, method)
    if method == "nearest":
        return xp.take(x, xp.asarray(taps[0]), axis=axis)
    lo, hi, lerp = taps
    a = xp.take(x, xp.asarray(lo), axis=axis)
    b = xp.take(x, xp.asarray(hi), axis=axis)
    return a + (b - a) * xp.asarray(_broadcast_along(lerp.astype(x.dtype), axis, x.ndim))


def _resize_grad_axis(xp, dy, in_size, method, axis):
    """The adjoint of :func:`_resize_axis`: a gather of the outputs each input feeds, summed."""
    index, weights = _adjoint_taps(in_size, dy.shape[axis], method)
    zero = xp.zeros(dy.shape[:axis] + (1,) + dy.shape[axis + 1 :], dy.dtype)
    picked = xp.take(xp.concatenate([dy, zero], axis=axis), xp.asarray(index.reshape(-1)), axis=axis)
    picked = picked.reshape(dy.shape[:axis] + index.shape + dy.shape[axis + 1 :])
    return (picked * xp.asarray(_broadcast_along(weights.astype(dy.dtype), axis, dy.ndim + 1))).sum(axis=axis + 1)


def _check_image_size(shape):
    if shape is not None and (shape[1] == 0 or shape[2] == 0):
        raise InvalidArgumentError(f"resize: input image must be of non-zero size, got shape {format_shape(shape)}.")


def _resize_infer(specs, attrs):
    x = specs[0]
    method = attrs["method"]
    if method not in METHODS:
        raise InvalidArgumentError(f"resize: method must be one of {METHODS}, got {method!r}.")
    check_dtype("resize", x, FLOATS if method == "bilinear" else RESIZE_DTYPES, "images")
    if x.shape is not None and len(x.shape) != 4:
        raise InvalidArgumentError(f"resize: images must be 4-D (NHWC), got shape {format_shape(x.shape)}.")
    _check_image_size(x.shape)
    h, w = attrs["size"]
    if h <= 0 or w <= 0:
        raise InvalidArgumentError(f"resize: output dimensions must be positive, got size {attrs['size']}.")
    n, c = (None, None) if x.shape is None else (x.shape[0], x.shape[3])
    return (Spec((n, h, w, c), x.dtype),)


def _resize_impl(xp, x, size, method):
    _check_image_size(x.shape)
    if x.shape[1:3] == tuple(size):
        return x.copy()
    # half floats are interpolated in float32, as TensorFlow's kernels compute in float
    work = x if method == "nearest" or x.dtype.itemsize >= 4 else x.astype(np.float32)
    out = _resize_axis(xp, work, size[1], method, 2)  # the width first, as TensorFlow
    out = _resize_axis(xp, out, size[0], method, 1)
    return out.astype(x.dtype, copy=False)


def _resize_ref(x, size, method):
    """Output pixel by pixel from the sampling formulas (positions in float32, values in
    float64)."""
    n, h, w, c = x.shape
    oh, ow = size
    if (h, w) == (oh, ow):
        return x.copy()
    out = np.zeros((n, oh, ow, c))
    xs = x.astype(np.float64)
    f32 = np.float32
    for a in range(oh):
        for b in range(ow):
            cy, cx = (f32(a) + f32(0.5)) * (f32(h) / f32(oh)), (f32(b) + f32(0.5)) * (f32(w) / f32(ow))
            if method == "nearest":
                out[:, a, b] = xs[:, min(int(np.floor(cy)), h - 1), min(int(np.floor(cx)), w - 1)]
                continue
            sy, sx = cy - f32(0.5), cx - f32(0.5)
            ys = [max(int(np.floor(sy)), 0), min(int(np.ceil(sy)), h - 1)]
            xs_ = [max(int(np.floor(sx)), 0), min(int(np.ceil(sx)), w - 1)]
            fy, fx = float(sy - np.floor(sy)), float(sx - np.floor(sx))
            top = xs[:, ys[0], xs_[0]] + (xs[:, ys[0], xs_[1]] - xs[:, ys[0], xs_[0]]) * fx
            bottom = xs[:, ys[1], xs_[0]] + (xs[:, ys[1], xs_[1]] - xs[:, ys[1], xs_[0]]) * fx
            out[:, a, b] = top + (bottom - top) * fy
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
    _check_image_size(x_shape)
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
    """The adjoint of resize (the height first, reversing the forward order); ``x`` is read
    for its shape only."""
    _check_resize_grad(dy.shape, x.shape, size)
    work = dy if dy.dtype.itemsize >= 4 else dy.astype(np.float32)  # half floats in float32
    dx = _resize_grad_axis(xp, work, x.shape[1], method, 1)
    dx = _resize_grad_axis(xp, dx, x.shape[2], method, 2)
    return dx.astype(dy.dtype, copy=False)


def _resize_grad_ref(dy, x, size, method):
    """Dense transposed interpolation matrices built from the reference forward (finite
    gradients only)."""

    def matrix(in_size, out_size):
        eye = np.eye(in_size).reshape(1, 1, in_size, in_size)  # channel c: the unit image at c
        return _resize_ref(eye, (1, out_size), method)[0, 0]  # (out_size, in_size)

    wh, ww = matrix(x.shape[1], size[0]), matrix(x.shape[2], size[1])
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
