"""Segment reductions: ``math.segment_sum/mean/max/min`` (sorted ids) and
``math.unsorted_segment_sum/mean/max/min`` (any order, ``num_segments`` given, negative ids
dropped).  The ops are defined in :mod:`tfunc.ops.segment`, their gradients in
:mod:`tfunc.autodiff.segment_grad`."""

from __future__ import annotations

from ..eager.convert import convert_to_tensor
from ..eager.dispatch import call
from ..ops import segment as _seg
from .array_ops import reshape
from .creation_ops import ones_like
from .math_ops import divide, maximum


def _sorted_fn(op):
    def fn(data, segment_ids, name=None):
        return call(op, (convert_to_tensor(data), convert_to_tensor(segment_ids)))

    fn.__name__ = op.name
    fn.__doc__ = f"``{op.name}(data, segment_ids)``: one output row per segment id 0..max(ids)."
    return fn


def _unsorted_fn(op):
    def fn(data, segment_ids, num_segments, name=None):
        if hasattr(num_segments, "numpy"):
            num_segments = num_segments.numpy()
        n = int(num_segments)
        if n < 0:
            raise ValueError(f"{op.name}: num_segments must be non-negative, got {n}.")
        return call(op, (convert_to_tensor(data), convert_to_tensor(segment_ids)), {"num_segments": n})

    fn.__name__ = op.name
    fn.__doc__ = f"``{op.name}(data, segment_ids, num_segments)``: ids in any order; negative ids are dropped."
    return fn


segment_sum = _sorted_fn(_seg.segment_sum_op)
segment_mean = _sorted_fn(_seg.segment_mean_op)
segment_max = _sorted_fn(_seg.segment_max_op)
segment_min = _sorted_fn(_seg.segment_min_op)
unsorted_segment_sum = _unsorted_fn(_seg.unsorted_segment_sum_op)
_unsorted_segment_mean = _unsorted_fn(_seg.unsorted_segment_mean_op)


def unsorted_segment_mean(data, segment_ids, num_segments, name=None):
    """``unsorted_segment_mean(data, segment_ids, num_segments)``: ids in any order; negative
    ids are dropped.  Integer data divides as TensorFlow's does: the segment sums over the
    counts with true division (an int32 input gives float64), not truncated."""
    data = convert_to_tensor(data)
    if not data.dtype.is_integer:
        return _unsorted_segment_mean(data, segment_ids, num_segments)
    ids = convert_to_tensor(segment_ids)
    sums = unsorted_segment_sum(data, ids, num_segments)
    counts = unsorted_segment_sum(ones_like(ids, data.dtype), ids, num_segments)
    if data.shape.rank is None or ids.shape.rank is None:
        raise ValueError("unsorted_segment_mean of integer data needs inputs of known rank.")
    counts = reshape(counts, [-1] + [1] * (data.shape.rank - ids.shape.rank))
    return divide(sums, maximum(counts, 1))


unsorted_segment_max = _unsorted_fn(_seg.unsorted_segment_max_op)
unsorted_segment_min = _unsorted_fn(_seg.unsorted_segment_min_op)
