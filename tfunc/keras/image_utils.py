"""Keras 3.15's image helpers: the file ones, ``keras.utils.load_img``, ``save_img`` and
``array_to_img``, Pillow images as Keras's (Pillow is an optional dependency, the ``image``
extra: without it these raise an ImportError that says so), and ``smart_resize``."""

from __future__ import annotations

import io
import pathlib
import warnings

import numpy as np

from ..api import array_ops, image_ops
from ..eager.convert import convert_to_tensor
from .backend import floatx, image_data_format
from .layers.image_preprocessing import RESIZE_INTERPOLATIONS, _aspect_crop

# Keras's PIL_INTERPOLATION_METHODS, by Pillow's resampling filter numbers
_RESAMPLE = {"nearest": 0, "bilinear": 2, "bicubic": 3, "hamming": 5, "box": 4, "lanczos": 1}
_MODES = {"grayscale": "L", "rgb": "RGB", "rgba": "RGBA"}


def pillow_image():
    """Pillow's ``PIL.Image`` module, or an ImportError that says how to get it."""
    try:
        from PIL import Image  # NOTE: Pillow is optional (the image extra): only image files need it
    except ImportError as e:
        raise ImportError(
            "Reading and writing image files needs Pillow, which tfunc does not require: "
            "`pip install pillow` (or `pip install tfunc[image]`)."
        ) from e
    return Image


def _data_format(data_format):
    if data_format not in (None, "channels_last", "channels_first"):
        raise ValueError(
            f"The `data_format` argument must be one of {{'channels_first', 'channels_last'}}. Received: {data_format}"
        )
    return data_format or "channels_last"


def array_to_img(x, data_format=None, scale=True, dtype=None):
    """A rank-3 array as a Pillow image (RGBA, RGB, or L, or I for one channel above 255), its
    values moved to [0, 255] first when ``scale``."""
    image = pillow_image()
    x = np.asarray(x, dtype=dtype or floatx())
    if x.ndim != 3:
        raise ValueError(f"Expected image array to have rank 3 (single image). Got array with shape: {x.shape}")
    if _data_format(data_format) == "channels_first":
        x = x.transpose(1, 2, 0)
    if scale:
        x = x - np.min(x)
        x_max = np.max(x)
        if x_max != 0:
            x /= x_max
        x *= 255
    if x.shape[2] in (3, 4):
        return image.fromarray(x.astype("uint8"), "RGB" if x.shape[2] == 3 else "RGBA")
    if x.shape[2] == 1:
        if np.max(x) > 255:
            return image.fromarray(x[:, :, 0].astype("int32"), "I")
        return image.fromarray(x[:, :, 0].astype("uint8"), "L")
    raise ValueError(f"Unsupported channel number: {x.shape[2]}")


def save_img(path, x, data_format=None, file_format=None, scale=True, **kwargs):
    """``x`` written as an image file (its format from the file's extension unless given)."""
    if file_format is None and isinstance(path, (str, pathlib.Path)):
        file_format = pathlib.Path(path).suffix[1:].lower()
    if file_format and file_format.lower() == "jpg":
        file_format = "jpeg"
    img = array_to_img(x, data_format=data_format, scale=scale)
    if img.mode == "RGBA" and file_format == "jpeg":
        warnings.warn("The JPEG format does not support RGBA images, converting to RGB.", stacklevel=2)
        img = img.convert("RGB")
    img.save(path, format=file_format, **kwargs)


def load_img(path, color_mode="rgb", target_size=None, interpolation="nearest", keep_aspect_ratio=False):
    """The image file ``path`` (or a ``BytesIO``) as a Pillow image in ``color_mode``, resized
    to ``target_size`` (``(height, width)``; after a central crop to its aspect ratio with
    ``keep_aspect_ratio``)."""
    image = pillow_image()
    if isinstance(path, io.BytesIO):
        img = image.open(path)
    elif isinstance(path, (pathlib.Path, bytes, str)):
        path = str(path.resolve()) if isinstance(path, pathlib.Path) else path
        with open(path, "rb") as f:
            img = image.open(io.BytesIO(f.read()))
    else:
        raise TypeError(f"path should be path-like or io.BytesIO, not {type(path)}")
    if color_mode not in _MODES:
        raise ValueError('color_mode must be "grayscale", "rgb", or "rgba"')
    keep = ("L", "I;16", "I") if color_mode == "grayscale" else (_MODES[color_mode],)
    if img.mode not in keep:
        img = img.convert(_MODES[color_mode])
    if target_size is None or img.size == (target_size[1], target_size[0]):
        return img
    if interpolation not in _RESAMPLE:
        raise ValueError(
            f"Invalid interpolation method {interpolation} specified. Supported methods are {', '.join(_RESAMPLE)}"
        )
    return img.resize(
        (target_size[1], target_size[0]),
        _RESAMPLE[interpolation],
        box=_crop_box(img.size, target_size) if keep_aspect_ratio else None,
    )


def _crop_box(size, target_size):
    """Keras's central box of an image of ``size`` (width, height) with ``target_size``'s aspect ratio."""
    width, height = size
    target_height, target_width = target_size
    crop_height = min(height, (width * target_height) // target_width)
    crop_width = min(width, (height * target_width) // target_height)
    top, left = (height - crop_height) // 2, (width - crop_width) // 2
    return [left, top, left + crop_width, top + crop_height]


def smart_resize(x, size, interpolation="bilinear", data_format="channels_last", **kwargs):
    """Images (3-D, or 4-D batches) resized to ``size`` (height, width) without distorting them:
    the central crop with the target's aspect ratio, resized by ``tf.image.resize`` (float32
    but for 'nearest'), as Keras's; a NumPy array comes back as one.  ``backend_module`` is
    accepted as Keras's keyword (tfunc has one backend, so it changes nothing)."""
    kwargs.pop("backend_module", None)
    if kwargs:
        raise TypeError(f"smart_resize() got unexpected keyword arguments: {list(kwargs.keys())}")
    if len(size) != 2:
        raise ValueError(f"Expected `size` to be a tuple of 2 integers, but got: {size}.")
    img = convert_to_tensor(x)
    if img.shape.rank not in (3, 4):
        raise ValueError(
            "Expected an image array with shape `(height, width, channels)`, or `(batch_size, height, "
            f"width, channels)`, but got input with incorrect rank, of shape {img.shape}."
        )
    # Keras crops channels-first for any data_format but 'channels_last' (None too), and
    # resizes in the standardized format (None: image_data_format()).
    crop_first = data_format != "channels_last"
    img = _channels_last(img, crop_first, lambda t: _aspect_crop(t, size[0], size[1]))
    resize_first = _data_format(data_format or image_data_format()) == "channels_first"
    img = _channels_last(img, resize_first, lambda t: _resize(t, size, interpolation))
    return np.array(img) if isinstance(x, np.ndarray) else img


def _channels_last(img, channels_first, fn):
    """``fn`` applied to ``img`` in channels-last layout: a channels-first ``img`` is moved
    there and back."""
    if not channels_first:
        return fn(img)
    rank = img.shape.rank
    to_last, to_first = ((1, 2, 0), (2, 0, 1)) if rank == 3 else ((0, 2, 3, 1), (0, 3, 1, 2))
    return array_ops.transpose(fn(array_ops.transpose(img, to_last)), to_first)


def _resize(img, size, interpolation):
    """Keras's TensorFlow ``image.resize`` of channels-last ``img``: the interpolation checked
    against Keras's list, then ``tf.image.resize``."""
    if interpolation not in RESIZE_INTERPOLATIONS:
        raise ValueError(
            f"Invalid value for argument `interpolation`. Expected of one {RESIZE_INTERPOLATIONS}. "
            f"Received: interpolation={interpolation}"
        )
    return image_ops.resize(img, tuple(size), method=interpolation)
