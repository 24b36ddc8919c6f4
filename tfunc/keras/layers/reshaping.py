"""Reshaping layers: ``Flatten``, ``Reshape``, ``Permute``, ``ZeroPadding1D/2D/3D``,
``Cropping1D/2D/3D``, ``UpSampling1D/2D/3D``, ``RepeatVector``."""

from __future__ import annotations

import numpy as np

from ...api import array_composites, array_ops, image_ops, indexing_ops, math_ops
from ...core.shapes import TensorShape
from ...eager.convert import convert_to_tensor
from .base import _ndim_error, _pair
from .conv_utils import data_format_arg
from .policy import PolicyLayer

# --- Flatten, Activation, Dropout ----------------------------------------------------------


class Flatten(PolicyLayer):
    """Flattens every dimension but the first (batch) one; a rank-1 input becomes ``(batch, 1)``."""

    def __init__(self, data_format=None, **kwargs):
        super().__init__(**kwargs)
        if data_format not in (None, "channels_last", "channels_first"):
            raise ValueError(f"data_format must be 'channels_last' or 'channels_first', got {data_format!r}.")
        self.data_format = data_format or "channels_last"

    def call(self, inputs):
        x = convert_to_tensor(inputs)
        rank = x.shape.rank
        if rank is None:
            raise ValueError(f"Flatten layer {self.name!r} needs inputs of known rank.")
        if rank == 0:
            raise ValueError(f"Flatten layer {self.name!r} needs inputs with a batch dimension, got a scalar.")
        if rank == 1:
            return array_ops.expand_dims(x, 1)
        if self.data_format == "channels_first" and rank > 2:
            x = array_ops.transpose(x, [0] + list(range(2, rank)) + [1])
        dims = x.shape.as_list()
        rest = dims[1:]
        if None not in rest:
            flat = int(np.prod(rest))
            if dims[0] is not None:
                return array_ops.reshape(x, [dims[0], flat])
            return (
                array_ops.reshape(x, [-1, flat])
                if flat
                else array_ops.reshape(x, array_ops.stack([array_ops.shape(x)[0], 0]))
            )
        batch = dims[0] if dims[0] is not None else array_ops.shape(x)[0]
        if isinstance(batch, int):
            return array_ops.reshape(x, [batch, -1])
        return array_ops.reshape(x, array_ops.stack([batch, -1]))

    def compute_output_shape(self, input_shape):
        dims = TensorShape(input_shape).as_list()
        if not dims:
            raise ValueError("Flatten needs an input shape with a batch dimension.")
        rest = dims[1:]
        flat = None if None in rest else int(np.prod(rest)) if rest else 1
        return TensorShape([dims[0], flat])


class Reshape(PolicyLayer):
    """Reshapes every example to ``target_shape`` (the batch dimension is kept; one entry may
    be -1)."""

    def __init__(self, target_shape, **kwargs):
        super().__init__(**kwargs)
        self.target_shape = tuple(int(d) for d in target_shape)
        if self.target_shape.count(-1) > 1:
            raise ValueError(f"Reshape: at most one dimension of target_shape can be -1, got {self.target_shape}.")

    def call(self, inputs):
        x = convert_to_tensor(inputs)
        batch = x.shape[0] if x.shape.rank else None
        if batch is not None:
            return array_ops.reshape(x, [batch] + list(self.target_shape))
        target = self.compute_output_shape(x.shape).as_list()[1:] if x.shape.rank else list(self.target_shape)
        if None not in target:  # the -1 worked out from the known sizes (static shapes stay known)
            return array_ops.reshape(x, [-1] + target)
        # an unknown batch and a -1 that unknown sizes decide: the batch size is read at run time
        return array_ops.reshape(x, array_ops.stack([array_ops.shape(x)[0]] + list(self.target_shape)))

    def compute_output_shape(self, input_shape):
        dims = TensorShape(input_shape).as_list()
        target = list(self.target_shape)
        rest = dims[1:]
        known = int(np.prod([d for d in target if d != -1]))
        if None not in rest and (
            (-1 in target and known and int(np.prod(rest)) % known)
            or (-1 not in target and int(np.prod(rest)) != known)
        ):
            raise ValueError(
                "The total size of the tensor must be unchanged. Received: "
                f"input_shape={tuple(rest)}, target_shape={self.target_shape}"
            )
        if -1 in target:
            target[target.index(-1)] = None if None in rest or not known else int(np.prod(rest)) // known
        return TensorShape([dims[0]] + target)


class Permute(PolicyLayer):
    """Permutes the non-batch axes: ``dims`` is a permutation of ``1..rank-1`` (1-indexed, the
    batch axis excluded), as Keras writes it."""

    def __init__(self, dims, **kwargs):
        super().__init__(**kwargs)
        self.dims = tuple(int(d) for d in dims)
        if sorted(self.dims) != list(range(1, len(self.dims) + 1)):
            raise ValueError(
                "Invalid permutation argument `dims` for Permute Layer. The set of indices in `dims` must be "
                f"consecutive and start from 1. Received dims={dims}"
            )

    def call(self, inputs):
        return array_ops.transpose(convert_to_tensor(inputs), (0,) + self.dims)

    def compute_output_shape(self, input_shape):
        dims = TensorShape(input_shape).as_list()
        return TensorShape([dims[0]] + [dims[d] for d in self.dims])


def _spatial_axes(rank: int, data_format: str) -> list:
    """The spatial axes of a ``rank``-D input: after the batch axis, and after the channels axis
    too when the channels come first."""
    first = 2 if data_format == "channels_first" else 1
    return list(range(first, first + rank - 2))


def _side_pairs(value, n: int, name: str) -> tuple:
    """``n`` ``(before, after)`` pairs of non-negative ints, from an int (every side), ``n`` entries
    each an int (both sides) or a pair, or (for ``n == 1``, as Keras's 1-D layers) one pair."""
    if isinstance(value, (int, np.integer)):
        pairs = ((int(value), int(value)),) * n
    else:
        value = tuple(value)
        entries = (value,) if n == 1 else value
        if len(entries) != n:
            raise ValueError(f"`{name}` should have {n} elements. Received: {name}={value}.")
        pairs = []
        for entry in entries:
            pair = (entry, entry) if isinstance(entry, (int, np.integer)) else tuple(entry)
            if len(pair) != 2:
                raise ValueError(f"`{name}` entries should be ints or pairs of ints. Received: {name}={value}.")
            pairs.append((int(pair[0]), int(pair[1])))
        pairs = tuple(pairs)
    if any(v < 0 for pair in pairs for v in pair):
        raise ValueError(f"`{name}` cannot be negative. Received: {name}={value}.")
    return pairs


def _positive_ints(value, n: int, name: str) -> tuple:
    """``n`` positive ints from an int or ``n`` of them (Keras's ``standardize_tuple``)."""
    out = (int(value),) * n if isinstance(value, (int, np.integer)) else tuple(int(v) for v in value)
    if len(out) != n or any(v <= 0 for v in out):
        raise ValueError(f"The `{name}` argument must be a tuple of {n} positive integers. Received: {name}={value!r}")
    return out


def _check_rank(layer, x, rank: int):
    if x.shape.rank != rank:
        raise _ndim_error(layer, f"ndim={rank}", x.shape)


# --- ZeroPadding1D/2D/3D, Cropping1D/2D/3D ----------------------------------------------------------


class _SpatialSides(PolicyLayer):
    """What the padding and cropping layers share: ``(before, after)`` amounts per spatial axis
    (kept in ``_tfunc_pairs``; the Keras attribute holds them as Keras writes them: one pair for
    a 1-D layer, a pair per axis otherwise) and the data format."""

    _rank = 4  # of the inputs
    _attr = "padding"

    def __init__(self, value, data_format, **kwargs):
        super().__init__(**kwargs)
        self.data_format = data_format_arg(data_format)
        pairs = _side_pairs(value, self._rank - 2, self._attr)
        self._tfunc_pairs = pairs
        setattr(self, self._attr, pairs[0] if self._rank == 3 else pairs)

    def _sized(self, dims, sign):
        """``dims`` with each spatial size grown (sign 1) or shrunk (sign -1) by its pair."""
        dims = list(dims)
        for axis, pair in zip(_spatial_axes(self._rank, self.data_format), self._tfunc_pairs):
            if dims[axis] is not None:
                dims[axis] += sign * sum(pair)
                if sign < 0 and dims[axis] <= 0:
                    raise ValueError(
                        f"Values in `{self._attr}` argument should be smaller than the corresponding spatial "
                        f"dimension of the input. Received: input_shape={tuple(dims)}, "
                        f"{self._attr}={getattr(self, self._attr)}"
                    )
        return TensorShape(dims)


class _ZeroPadding(_SpatialSides):
    def call(self, inputs):
        x = self._convert_inputs(inputs)
        _check_rank(self, x, self._rank)
        paddings = [[0, 0]] * self._rank
        for axis, pair in zip(_spatial_axes(self._rank, self.data_format), self._tfunc_pairs):
            paddings[axis] = list(pair)
        return indexing_ops.pad(x, paddings)

    def compute_output_shape(self, input_shape):
        return self._sized(TensorShape(input_shape).as_list(), 1)


class ZeroPadding1D(_ZeroPadding):
    """Pads the steps of ``(batch, steps, channels)`` inputs with zeros: ``padding`` an int (both
    ends) or ``(before, after)``."""

    _rank = 3

    def __init__(self, padding=1, data_format=None, **kwargs):
        super().__init__(padding, data_format, **kwargs)


class ZeroPadding2D(_ZeroPadding):
    """Pads the rows and columns of images with zeros: ``padding`` an int (all four sides),
    ``(rows, cols)`` (symmetric), or ``((top, bottom), (left, right))``."""

    def __init__(self, padding=(1, 1), data_format=None, **kwargs):
        super().__init__(padding, data_format, **kwargs)


class ZeroPadding3D(_ZeroPadding):
    """Pads the three spatial axes of volumes with zeros: ``padding`` an int, three ints, or three
    ``(before, after)`` pairs."""

    _rank = 5

    def __init__(self, padding=((1, 1), (1, 1), (1, 1)), data_format=None, **kwargs):
        super().__init__(padding, data_format, **kwargs)


class _Cropping(_SpatialSides):
    _attr = "cropping"

    def call(self, inputs):
        x = self._convert_inputs(inputs)
        _check_rank(self, x, self._rank)
        self._sized(x.shape.as_list(), -1)  # refuses a crop that leaves nothing, as Keras
        key = [slice(None)] * self._rank
        for axis, (before, after) in zip(_spatial_axes(self._rank, self.data_format), self._tfunc_pairs):
            key[axis] = slice(before, -after if after else None)
        return x[tuple(key)]

    def compute_output_shape(self, input_shape):
        return self._sized(TensorShape(input_shape).as_list(), -1)


class Cropping1D(_Cropping):
    """Crops the steps of ``(batch, steps, channels)`` inputs: ``cropping`` an int (both ends) or
    ``(start, end)``."""

    _rank = 3

    def __init__(self, cropping=(1, 1), **kwargs):
        super().__init__(cropping, None, **kwargs)


class Cropping2D(_Cropping):
    """Crops the rows and columns of images: ``cropping`` an int, ``(rows, cols)`` (symmetric) or
    ``((top, bottom), (left, right))``."""

    def __init__(self, cropping=((0, 0), (0, 0)), data_format=None, **kwargs):
        super().__init__(cropping, data_format, **kwargs)


class Cropping3D(_Cropping):
    """Crops the three spatial axes of volumes: ``cropping`` an int, three ints, or three
    ``(before, after)`` pairs."""

    _rank = 5

    def __init__(self, cropping=((1, 1), (1, 1), (1, 1)), data_format=None, **kwargs):
        super().__init__(cropping, data_format, **kwargs)


# --- UpSampling1D/2D/3D, RepeatVector ---------------------------------------------------------------


class _UpSampling(PolicyLayer):
    """Repeats each spatial position ``size[i]`` times along spatial axis ``i`` (nearest
    neighbour upsampling)."""

    _rank = 4

    def _repeat(self, x):
        for axis, times in zip(_spatial_axes(self._rank, self.data_format), self._tfunc_size):
            x = array_composites.repeat(x, times, axis=axis)
        return x

    def call(self, inputs):
        x = self._convert_inputs(inputs)
        _check_rank(self, x, self._rank)
        return self._repeat(x)

    def compute_output_shape(self, input_shape):
        dims = TensorShape(input_shape).as_list()
        for axis, times in zip(_spatial_axes(self._rank, self.data_format), self._tfunc_size):
            dims[axis] = None if dims[axis] is None else dims[axis] * times
        return TensorShape(dims)


class UpSampling1D(_UpSampling):
    """Repeats each step of ``(batch, steps, features)`` inputs ``size`` times."""

    _rank = 3

    def __init__(self, size=2, **kwargs):
        super().__init__(**kwargs)
        if not isinstance(size, (int, np.integer)) or isinstance(size, bool):
            raise TypeError(f"Expected an integer value for `size`, got {type(size)}.")
        if size <= 0:
            raise ValueError(f"Argument `size` should be a positive integer. Received: size={size}")
        self.size = int(size)
        self._tfunc_size = (self.size,)
        self.data_format = "channels_last"


_UPSAMPLING_INTERPOLATIONS = ("bilinear", "nearest", "bicubic", "lanczos3", "lanczos5", "area")


class UpSampling2D(_UpSampling):
    """Repeats the rows and columns of images ``size`` times (``interpolation='nearest'``), or
    resizes them to that size with ``tf.image.resize``'s method of that name (half-pixel
    centres), as Keras's ``UpSampling2D``; the height and width may be known only at run time."""

    def __init__(self, size=(2, 2), data_format=None, interpolation="nearest", **kwargs):
        super().__init__(**kwargs)
        interpolation = str(interpolation).lower()
        if interpolation not in _UPSAMPLING_INTERPOLATIONS:
            raise ValueError(
                f"`interpolation` argument should be one of: {list(_UPSAMPLING_INTERPOLATIONS)}. "
                f"Received: interpolation={interpolation!r}"
            )
        self.size = _pair(size, "size")
        self._tfunc_size = self.size
        self.data_format = data_format_arg(data_format)
        self.interpolation = interpolation

    def call(self, inputs):
        x = self._convert_inputs(inputs)
        _check_rank(self, x, 4)
        if self.interpolation == "nearest":
            return self._repeat(x)
        if self.data_format == "channels_first":  # resized as NHWC, as Keras does
            x = array_ops.transpose(x, [0, 2, 3, 1])
        _, h, w, _ = x.shape.as_list()
        shape = array_ops.shape(x) if None in (h, w) else None  # sizes known only at run time
        size = [(shape[1 + i] if n is None else n) * f for i, (n, f) in enumerate(zip((h, w), self.size))]
        out = image_ops.resize(x, size, method=self.interpolation)
        out = math_ops.cast(out, x.dtype) if out.dtype is not x.dtype else out
        return array_ops.transpose(out, [0, 3, 1, 2]) if self.data_format == "channels_first" else out


class UpSampling3D(_UpSampling):
    """Repeats the three spatial axes of volumes ``size`` times."""

    _rank = 5

    def __init__(self, size=(2, 2, 2), data_format=None, **kwargs):
        super().__init__(**kwargs)
        self.size = _positive_ints(size, 3, "size")
        self._tfunc_size = self.size
        self.data_format = data_format_arg(data_format)


class RepeatVector(PolicyLayer):
    """Repeats ``(batch, features)`` inputs ``n`` times: ``(batch, n, features)``."""

    def __init__(self, n, **kwargs):
        super().__init__(**kwargs)
        if not isinstance(n, (int, np.integer)) or isinstance(n, bool):
            raise TypeError(f"Expected an integer value for `n`, got {type(n)}.")
        if n <= 0:
            raise ValueError(f"Argument `n` should be a positive integer. Received: n={n}")
        self.n = int(n)

    def call(self, inputs):
        x = self._convert_inputs(inputs)
        _check_rank(self, x, 2)
        return array_ops.tile(array_ops.expand_dims(x, 1), [1, self.n, 1])

    def compute_output_shape(self, input_shape):
        batch, features = TensorShape(input_shape).as_list()
        return TensorShape([batch, self.n, features])
