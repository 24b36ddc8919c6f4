"""Reshaping layers: ``Flatten``, ``Reshape``, ``Permute``, ``ZeroPadding2D``, ``UpSampling2D``."""

from __future__ import annotations

import numpy as np

from ...api import array_composites, array_ops, image_ops, indexing_ops, math_ops
from ...core.shapes import TensorShape
from ...eager.convert import convert_to_tensor
from .base import _ndim_error, _pair
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


def _pairs(padding, name):
    if isinstance(padding, int):
        return ((padding, padding), (padding, padding))
    padding = tuple(padding)
    if len(padding) != 2:
        raise ValueError(f"`{name}` should have two elements. Received: padding={padding}.")
    out = []
    for p in padding:
        if isinstance(p, int):
            out.append((p, p))
        else:
            p = tuple(int(v) for v in p)
            if len(p) != 2:
                raise ValueError(f"`{name}` entries should be ints or pairs of ints. Received: padding={padding}.")
            out.append(p)
    if any(v < 0 for pair in out for v in pair):
        raise ValueError(f"`{name}` cannot be negative. Received: padding={padding}.")
    return tuple(out)


class ZeroPadding2D(PolicyLayer):
    """Pads the rows and columns of NHWC inputs with zeros: ``padding`` an int (all four sides),
    ``(rows, cols)`` (symmetric), or ``((top, bottom), (left, right))``."""

    def __init__(self, padding=(1, 1), data_format=None, **kwargs):
        super().__init__(**kwargs)
        if data_format not in (None, "channels_last"):
            raise ValueError(
                f"tfunc.keras ZeroPadding2D supports data_format='channels_last' only, got {data_format!r}."
            )
        self.padding = _pairs(padding, "padding")
        self.data_format = "channels_last"

    def call(self, inputs):
        (t, b), (left, r) = self.padding
        return indexing_ops.pad(convert_to_tensor(inputs), [[0, 0], [t, b], [left, r], [0, 0]])

    def compute_output_shape(self, input_shape):
        n, h, w, c = TensorShape(input_shape).as_list()
        (t, b), (left, r) = self.padding
        return TensorShape([n, None if h is None else h + t + b, None if w is None else w + left + r, c])


class UpSampling2D(PolicyLayer):
    """Repeats the rows and columns of NHWC images ``size`` times (``interpolation='nearest'``),
    or resizes them to that size bilinearly (``'bilinear'``, ``tf.image.resize``'s half-pixel
    centres), as Keras's ``UpSampling2D``."""

    def __init__(self, size=(2, 2), data_format=None, interpolation="nearest", **kwargs):
        super().__init__(**kwargs)
        if data_format not in (None, "channels_last"):
            raise ValueError(
                f"tfunc.keras UpSampling2D supports data_format='channels_last' only, got {data_format!r}."
            )
        if interpolation not in ("nearest", "bilinear"):
            raise ValueError(
                f"tfunc.keras UpSampling2D supports interpolation 'nearest' and 'bilinear', got {interpolation!r}."
            )
        self.size = _pair(size, "size")
        self.data_format = "channels_last"
        self.interpolation = interpolation

    def call(self, inputs):
        x = self._convert_inputs(inputs)
        if x.shape.rank != 4:
            raise _ndim_error(self, "ndim=4", x.shape)
        if self.interpolation == "nearest":
            x = array_composites.repeat(x, self.size[0], axis=1)
            return array_composites.repeat(x, self.size[1], axis=2)
        _, h, w, _ = x.shape.as_list()
        if None in (h, w):
            raise ValueError(
                f"UpSampling2D {self.name!r} with 'bilinear' needs a static height and width, got {x.shape}."
            )
        out = image_ops.resize(x, [h * self.size[0], w * self.size[1]], method="bilinear")
        return math_ops.cast(out, x.dtype) if out.dtype is not x.dtype else out

    def compute_output_shape(self, input_shape):
        n, h, w, c = TensorShape(input_shape).as_list()
        return TensorShape([n, None if h is None else h * self.size[0], None if w is None else w * self.size[1], c])
