"""``tf.IndexedSlices``: a sparse gradient, rows ``values[i]`` at ``indices[i]`` of a tensor of
``dense_shape``; repeated indices add up.

The gradient of ``gather`` along axis 0 is one, as in TensorFlow (an ``Embedding`` lookup's);
any op given one converts it to the dense tensor (``convert_to_tensor``).  Keras's optimizers
read its rows as TensorFlow's do: a slot of squared gradients (Adam's ``v``) adds the squares
of the rows, repeated ids one at a time.
"""

from __future__ import annotations

from ..core import nest
from ..core.shapes import TensorShape
from ..eager.convert import convert_to_tensor
from ..tracing.symbolic import constant_value
from . import array_ops, creation_ops, indexing_ops, math_ops, segment_ops

__all__ = ["IndexedSlices", "concat_slices", "densify", "map_rows"]


class IndexedSlices:
    """Rows ``values`` of a tensor of shape ``dense_shape`` at ``indices`` (the other rows zero)."""

    _tfunc_tensor_like = True  # tf.is_tensor(slices) is True, as TensorFlow's composite tensors

    def __init__(self, values, indices, dense_shape=None):
        self._values = convert_to_tensor(values)
        self._indices = convert_to_tensor(indices)
        self._dense_shape = None if dense_shape is None else convert_to_tensor(dense_shape)

    @property
    def values(self):
        return self._values

    @property
    def indices(self):
        return self._indices

    @property
    def dense_shape(self):
        return self._dense_shape

    @property
    def dtype(self):
        return self._values.dtype

    @property
    def shape(self) -> TensorShape:
        """The dense shape as far as it is known while tracing (rows from ``dense_shape``)."""
        rest = self._values.shape.as_list()[1:] if self._values.shape.rank is not None else None
        if self._dense_shape is None or rest is None:
            return TensorShape(None if rest is None else [None] + rest)
        known = constant_value(self._dense_shape)  # eagerly, or what tracing can tell
        return TensorShape([int(known[0]) if known is not None else None] + rest)

    def _as_tensor(self):
        """The dense tensor: the rows added into zeros (``tf.convert_to_tensor``)."""
        if self._dense_shape is None:
            raise ValueError("Cannot convert an IndexedSlices without dense_shape to a Tensor: give it a dense_shape.")
        known = constant_value(self._dense_shape)
        if known is not None:  # eagerly, or a shape tracing knows
            rows = segment_ops.unsorted_segment_sum(self._values, self._indices, int(known[0]))
            return array_ops.reshape(rows, [int(d) for d in known])
        zeros = creation_ops.zeros(self._dense_shape, self._values.dtype)
        return indexing_ops.tensor_scatter_nd_add(zeros, array_ops.expand_dims(self._indices, -1), self._values)

    def _tf_cast(self, dtype) -> IndexedSlices:
        """``tf.cast(slices, dtype)``: the values cast, the same indices and dense_shape (an
        IndexedSlices, with or without dense_shape, as TensorFlow's)."""
        return IndexedSlices(math_ops.cast(self._values, dtype), self._indices, self._dense_shape)

    def _tf_components(self) -> list:
        """``values, indices[, dense_shape]``: the leaves ``tf.nest`` gives with
        ``expand_composites=True``, as TensorFlow's."""
        parts = [self._values, self._indices]
        return parts if self._dense_shape is None else parts + [self._dense_shape]

    def _tf_from_components(self, components) -> IndexedSlices:
        return IndexedSlices(*components)

    def numpy(self):
        raise AttributeError(
            "'IndexedSlices' object has no attribute 'numpy' (as in TensorFlow): use "
            "tf.convert_to_tensor(slices).numpy() for the dense value, or .values and .indices."
        )

    def __neg__(self):
        return IndexedSlices(-self._values, self._indices, self._dense_shape)

    def __repr__(self) -> str:
        return f"IndexedSlices(indices={self._indices!s}, values={self._values!s}, dense_shape={self._dense_shape!s})"


nest.register_composite(IndexedSlices)


def map_rows(g, fn):
    """``fn(g)``, or for an IndexedSlices the same slices with ``fn`` of its rows (as
    TensorFlow's elementwise ops act on a sparse gradient: one row per occurrence of an id)."""
    return IndexedSlices(fn(g.values), g.indices, g.dense_shape) if isinstance(g, IndexedSlices) else fn(g)


def densify(g):
    """``g`` as a dense tensor when it is an IndexedSlices (None and tensors pass through)."""
    return g._as_tensor() if isinstance(g, IndexedSlices) else g


def concat_slices(a: IndexedSlices, b: IndexedSlices) -> IndexedSlices:
    """The sum of two IndexedSlices of one tensor: their rows side by side (TensorFlow's
    aggregation of sparse gradients)."""
    return IndexedSlices(
        array_ops.concat([a.values, b.values], 0),
        array_ops.concat([a.indices, math_ops.cast(b.indices, a.indices.dtype)], 0),
        a.dense_shape if a.dense_shape is not None else b.dense_shape,
    )
