"""``tf.image.resize`` (bilinear and nearest neighbour, TensorFlow 2's half-pixel centres).
The ops are defined in :mod:`tfunc.ops.image`, their gradients in
:mod:`tfunc.autodiff.image_grad`."""

from __future__ import annotations

from ..core import dtypes as D
from ..eager.convert import convert_to_tensor
from ..eager.dispatch import call
from ..ops.image import adjust_contrast_op, resize_op
from .array_ops import _required_static_ints, expand_dims, squeeze
from .math_ops import cast

_METHODS = {"bilinear": "bilinear", "nearest": "nearest", "nearest_neighbor": "nearest"}


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


def resize(images, size, method=ResizeMethod.BILINEAR, preserve_aspect_ratio=False, antialias=False, name=None):
    """Resizes 4-D ``[batch, h, w, c]`` or 3-D ``[h, w, c]`` images to ``size = [h, w]``.

    'bilinear' returns float32 whatever the images' dtype (float64 included, as TensorFlow's),
    'nearest' keeps the images' dtype.  With ``preserve_aspect_ratio`` the result fits inside ``size``."""
    key = str(method).lower()
    if key not in _METHODS:
        raise ValueError(
            f"tfunc.image.resize supports method 'bilinear' and 'nearest', got {method!r}."
            if key in ("bicubic", "area", "lanczos3", "lanczos5", "gaussian", "mitchellcubic")
            else f"Unknown resize method {method!r}."
        )
    if antialias:
        raise ValueError("tfunc.image.resize does not support antialias=True.")
    x = convert_to_tensor(images)
    rank = x.shape.rank
    if rank not in (3, 4):
        raise ValueError(f"'images' must have either 3 or 4 dimensions, got shape {x.shape}.")
    if rank == 3:
        x = expand_dims(x, 0)
    h, w = _required_static_ints(size, "size", "image.resize")
    if preserve_aspect_ratio:
        ih, iw = x.shape[1], x.shape[2]
        if ih is None or iw is None:
            raise ValueError("resize with preserve_aspect_ratio needs static image sizes.")
        scale = min(h / ih, w / iw)
        h, w = round(ih * scale), round(iw * scale)  # half to even, as tf.round
    m = _METHODS[key]
    if m == "bilinear":
        x = cast(x, D.float32)
    out = call(resize_op, (x,), {"size": (int(h), int(w)), "method": m})
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
