"""Segment reduction op definitions: ``segment_sum/mean/max/min`` (sorted segment ids, as many
segments as the largest id + 1) and ``unsorted_segment_sum/mean/max/min`` (any order, a
given ``num_segments``, negative ids dropped), as TensorFlow defines them.

``segment_ids`` has the shape of a prefix of ``data``'s shape (a vector for the sorted
ops); output row ``i`` reduces every slice of ``data`` whose id is ``i``.  An empty segment
gives 0 for the sorted ops and for sums and means; the unsorted max (min) of an empty
segment is the lowest (highest) value of the dtype.
"""

from __future__ import annotations

import ml_dtypes
import numpy as np

from ..core import dtypes as D
from ..core.errors import InvalidArgumentError
from ..core.shapes import format_shape
from ..core.specs import Spec
from . import sampling as S
from .indexing import scatter_add
from .infer import NUMERIC, check_dtype
from .registry import OpDef, register

_IDS = frozenset({D.int32, D.int64})


def _extreme(dtype, kind):
    """TensorFlow's value for an empty unsorted max (min): the lowest (highest) finite value."""
    info = np.iinfo(dtype) if dtype.kind in "iu" else ml_dtypes.finfo(dtype)
    return info.min if kind == "max" else info.max


def _scatter_extreme(xp, out, ids, values, kind):
    if xp is np:
        (np.maximum if kind == "max" else np.minimum).at(out, ids, values)
    else:
        import cupyx  # NOTE: optional dependency, imported on the GPU path only

        (cupyx.scatter_max if kind == "max" else cupyx.scatter_min)(out, ids, values)


def segment_reduce(xp, data, ids, kind, num_segments, sorted_ids):
    """The kernel of every segment op: ``num_segments`` None means ``max(ids) + 1``."""
    name = ("segment_" if sorted_ids else "unsorted_segment_") + kind
    if ids.ndim > data.ndim or ids.shape != data.shape[: ids.ndim]:  # shapes unknown while tracing
        raise InvalidArgumentError(
            f"{name}: segment_ids shape {format_shape(ids.shape)} must be a prefix of data shape "
            f"{format_shape(data.shape)}."
        )
    flat_ids = ids.reshape(-1)
    rows = data.reshape((flat_ids.shape[0],) + data.shape[ids.ndim :])
    if flat_ids.size:
        lo, hi = int(flat_ids.min()), int(flat_ids.max())
        if sorted_ids and (lo < 0 or bool((flat_ids[1:] < flat_ids[:-1]).any())):
            raise InvalidArgumentError(f"{name}: segment_ids must be sorted and non-negative.")
    else:
        lo, hi = 0, -1
    n = hi + 1 if num_segments is None else num_segments
    if hi >= n:
        raise InvalidArgumentError(f"{name}: segment id {hi} is out of range [0, {n}).")
    if lo < 0:  # unsorted ops drop negative ids
        keep = flat_ids >= 0
        flat_ids, rows = flat_ids[keep], rows[keep]
    shape = (n,) + rows.shape[1:]
    if kind in ("sum", "mean"):
        out = xp.zeros(shape, data.dtype)
        scatter_add(xp, out, flat_ids, rows)
        if kind == "mean":
            count = xp.zeros((n,), data.dtype)
            scatter_add(xp, count, flat_ids, xp.ones(flat_ids.shape, data.dtype))
            count = xp.maximum(count, 1).reshape((n,) + (1,) * (len(shape) - 1))
            if data.dtype.kind in "iu":  # integer means truncate toward zero, as TensorFlow's
                q = xp.abs(out) // count
                return xp.where(out < 0, -q, q)
            out /= count
        return out
    out = xp.full(shape, _extreme(data.dtype, kind), data.dtype)
    _scatter_extreme(xp, out, flat_ids, rows, kind)
    if sorted_ids:  # TensorFlow: an empty sorted segment is 0
        present = xp.zeros((n,), bool)
        present[flat_ids] = True
        out[~present] = 0
    return out


def _ref(kind, sorted_ids):
    def ref(data, ids, **attrs):
        n = attrs.get("num_segments")
        flat = ids.reshape(-1)
        rows = data.reshape((flat.shape[0],) + data.shape[ids.ndim :])
        if n is None:
            n = int(flat.max()) + 1 if flat.size else 0
        out = np.zeros((n,) + rows.shape[1:], data.dtype)
        for i in range(n):
            sel = rows[flat == i].astype(np.float64)
            if not len(sel):
                if kind in ("max", "min") and not sorted_ids:
                    out[i] = _extreme(data.dtype, kind)
                continue
            r = {"sum": np.sum, "mean": np.mean, "max": np.max, "min": np.min}[kind](sel, axis=0)
            out[i] = np.trunc(r) if kind == "mean" and data.dtype.kind in "iu" else r
        return out

    return ref


def _infer(name, sorted_ids):
    def infer(specs, attrs):
        data, ids = specs
        check_dtype(name, data, NUMERIC, "data")
        check_dtype(name, ids, _IDS, "segment_ids")
        if sorted_ids and ids.shape is not None and len(ids.shape) != 1:
            raise InvalidArgumentError(f"{name}: segment_ids must be a vector, got shape {format_shape(ids.shape)}.")
        if data.shape is None or ids.shape is None:
            return (Spec(None, data.dtype),)
        if len(ids.shape) > len(data.shape) or any(
            a is not None and b is not None and a != b for a, b in zip(ids.shape, data.shape)
        ):
            raise InvalidArgumentError(
                f"{name}: segment_ids shape {format_shape(ids.shape)} must be a prefix of data shape "
                f"{format_shape(data.shape)}."
            )
        n = attrs.get("num_segments")
        return (Spec((n,) + tuple(data.shape[len(ids.shape) :]), data.dtype),)

    return infer


def _samples(sorted_ids, kind):
    def samples(rng):
        out = []
        for dt in (D.float32, D.float64, D.int32):
            if sorted_ids:
                out.append(S.Sample((S.draw(rng, (6, 3), dt), np.array([0, 0, 1, 3, 3, 3], np.int32)), {}))
                out.append(S.Sample((S.draw(rng, (4,), dt), np.array([0, 1, 1, 2], np.int64)), {}))
                out.append(S.Sample((S.draw(rng, (0, 2), dt), np.zeros((0,), np.int32)), {}, "empty"))
            else:
                attrs = {"num_segments": 4}
                ids = np.array([3, 0, 2, 1, -1, 0, 2], np.int32)  # -1: dropped
                out.append(S.Sample((S.draw(rng, (7, 3), dt), ids), attrs))
                out.append(S.Sample((S.draw(rng, (2, 3, 2), dt), np.array([[3, 0, 3], [1, 2, 0]], np.int64)), attrs))
                # Empty segments (lowest/highest values for max/min): integers only, as float32's
                # extremes overflow the finite-difference check of the gradient table.
                empty_ok = dt.is_integer or kind in ("sum", "mean")
                if empty_ok:
                    out.append(S.Sample((S.draw(rng, (3,), dt), np.array([5, 0, 5], np.int32)), {"num_segments": 7}))
                    out.append(S.Sample((S.draw(rng, (0,), dt), np.zeros((0,), np.int32)), attrs, "empty"))
        return out

    return samples


def _def(kind, sorted_ids):
    name = ("segment_" if sorted_ids else "unsorted_segment_") + kind

    def impl(xp, data, segment_ids, num_segments=None):
        return segment_reduce(xp, data, segment_ids, kind, num_segments, sorted_ids)

    return register(
        OpDef(
            name=name,
            kind="other",
            infer=_infer(name, sorted_ids),
            impl=impl,
            ref=_ref(kind, sorted_ids),
            samples=_samples(sorted_ids, kind),
            host_sync=True,  # id range and order
        )
    )


segment_sum_op = _def("sum", True)
segment_mean_op = _def("mean", True)
segment_max_op = _def("max", True)
segment_min_op = _def("min", True)
unsorted_segment_sum_op = _def("sum", False)
unsorted_segment_mean_op = _def("mean", False)
unsorted_segment_max_op = _def("max", False)
unsorted_segment_min_op = _def("min", False)
