"""``tf.image.resize`` (bilinear and nearest neighbour, TensorFlow 2's half-pixel centres).
The ops are defined in :mod:`tfunc.ops.image`, their gradients in
:mod:`tfunc.autodiff.image_grad`."""

from __future__ import annotations

from ..core import dtypes as D
from ..eager.convert import convert_to_tensor
from ..eager.dispatch import call
from ..ops.image import RESIZE_DTYPES, adjust_contrast_op, resize_op
from ..ops.infer import check_dtype
from .array_ops import _required_static_ints, expand_dims, squeeze
from .math_ops import cast


class ResizeMethod:
    """The method names ``tf.image.resize`` takes."""

    BILINEAR = "bilinear"
    NEAREST_NEIGHBOR = "nearest"
    BICUBIC = "bicubic"
    AREA = "area"
    LANCZOS3 = "lanczos3"
    LANCZOS5 = "lanczos5"
    GAUSSIAN = "gaussian"
    MITCHELLCUBIC = "mitchellcubic"


_SUPPORTED = (ResizeMethod.BILINEAR, ResizeMethod.NEAREST_NEIGHBOR)
_NOT_SUPPORTED = (
    ResizeMethod.BICUBIC,
    ResizeMethod.AREA,
    ResizeMethod.LANCZOS3,
    ResizeMethod.LANCZOS5,
    ResizeMethod.GAUSSIAN,
    ResizeMethod.MITCHELLCUBIC,
)


def _holds_floats(v) -> bool:
    """Whether ``v`` (a number, array or tensor) holds floats: TensorFlow converts ``size`` to
    int32, which refuses them."""
    dtype = getattr(v, "dtype", None)
    return isinstance(v, float) if dtype is None else D.as_dtype(dtype).is_floating


def _size(size) -> tuple:
    """``size`` checked as TensorFlow checks it: two non-negative integers."""
    parts = size if isinstance(size, (list, tuple)) else [size]
    if any(_holds_floats(d) for d in parts):
        raise ValueError("'size' must be a 1-D int32 Tensor")
    nested = any(isinstance(d, (list, tuple)) for d in parts) or getattr(size, "ndim", 1) != 1
    hw = None if nested else _required_static_ints(size, "size", "image.resize")
    if hw is None or len(hw) != 2:
        raise ValueError("'size' must be a 1-D Tensor of 2 elements: new_height, new_width")
    for d in hw:
        if d < 0:
            raise ValueError(f"Dimension {d} must be >= 0")
    return tuple(hw)


def resize(images, size, method=ResizeMethod.BILINEAR, preserve_aspect_ratio=False, antialias=False, name=None):
    """Resizes 4-D ``[batch, h, w, c]`` or 3-D ``[h, w, c]`` images to ``size = [h, w]``.

    'bilinear' returns float32 whatever the images' dtype (float64 included, as TensorFlow's),
    'nearest' keeps the images' dtype.  With ``preserve_aspect_ratio`` the result fits inside ``size``.
    ``method`` is one of :class:`ResizeMethod`'s lowercase names, as in TensorFlow."""
    if method not in _SUPPORTED:
        raise ValueError(
            f"tfunc.image.resize supports method 'bilinear' and 'nearest', got {method!r}."
            if method in _NOT_SUPPORTED
            else f"Resize method is not implemented: {method}"
        )
    if antialias:
        raise ValueError("tfunc.image.resize does not support antialias=True.")
    x = convert_to_tensor(images)
    rank = x.shape.rank
    if rank not in (3, 4):
        raise ValueError(f"'images' must have either 3 or 4 dimensions, got shape {x.shape}.")
    # before the cast to float32 below, which would accept any dtype
    check_dtype("resize", x, RESIZE_DTYPES, "images")
    if rank == 3:
        x = expand_dims(x, 0)
    h, w = _size(size)
    if preserve_aspect_ratio:
        ih, iw = x.shape[1], x.shape[2]
        if ih is None or iw is None:
            raise ValueError("resize with preserve_aspect_ratio needs static image sizes.")
        scale = min(h / ih, w / iw)
        h, w = round(ih * scale), round(iw * scale)  # half to even, as tf.round
    if method == ResizeMethod.BILINEAR:
        x = cast(x, D.float32)
    out = call(resize_op, (x,), {"size": (int(h), int(w)), "method": method})
    return squeeze(out, axis=[0]) if rank == 3 else out


def adjust_contrast(images, contrast_factor):
    """Each channel of each image moved away from (factor > 1) or towards (factor < 1) its mean
    over height and width: ``(x - mean) * contrast_factor + mean``.  Images are ``[..., h, w, c]``
    floats (integer images as TensorFlow converts them are not supported); TensorFlow registers no
    gradient for it, and neither does tfunc."""
    x = convert_to_tensor(images)
    if not x.dtype.is_floating:
        raise TypeError(f"tfunc.image.adjust_contrast needs floating-point images, got {x.dtype.name}.")
    factor = convert_to_tensor(contrast_factor, dtype=x.dtype)
    return call(adjust_contrast_op, (x, factor))
