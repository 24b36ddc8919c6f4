"""Reductions: ``reduce_sum/mean/max/min/prod/any/all/logsumexp``, ``argmax/argmin``,
and cumulative sums/products.  The ops are defined in :mod:`tfunc.ops.reduction`,
their gradients in :mod:`tfunc.autodiff.reduction_grad`.

Attrs: ``axis`` (``None`` = all, else a sorted tuple of non-negative axes) and
``keepdims``.  Integer reductions keep the input dtype, as in TensorFlow.
"""

from __future__ import annotations

import functools

import numpy as np

from ..core import dtypes as D
from ..eager.convert import convert_to_tensor
from ..eager.dispatch import call
from ..eager.tensor import Tensor
from ..ops.infer import normalize_axes, normalize_axis
from ..ops.reduction import (
    argmax_op,
    argmin_op,
    cumprod_op,
    cumsum_op,
    cumulative_logsumexp_op,
    reduce_all_op,
    reduce_any_op,
    reduce_logsumexp_op,
    reduce_max_op,
    reduce_mean_op,
    reduce_min_op,
    reduce_prod_op,
    reduce_sum_op,
)
from ..tracing.symbolic import constant_value


class _RunTimeAxis(Exception):
    """The axis is a tensor whose value is known only when the graph runs."""


def _static_axis(axis):
    if axis is None or isinstance(axis, int):
        return axis
    if isinstance(axis, Tensor):
        v = constant_value(axis)  # an eager tensor's value, or what tracing can tell (tf.rank(x) - 1)
        if v is None:
            raise _RunTimeAxis
        if not np.issubdtype(v.dtype, np.integer):
            raise TypeError(f"axis must be an integer tensor, got dtype {axis.dtype.name}.")
        return int(v) if np.ndim(v) == 0 else [int(a) for a in v.reshape(-1)]
    if isinstance(axis, (np.integer,)):
        return int(axis)
    return [int(a) for a in axis]


def _at_run_time_axis(name: str, x, axis, run):
    """``run(k)`` for the axis ``k`` that the scalar tensor ``axis`` holds when the graph runs:
    one branch per axis of ``x`` (TensorFlow's kernels take the axis as an input; tfunc's ops
    take it as an attribute, so the choice becomes a ``switch_case``)."""
    from . import math_ops
    from .debugging_ops import Assert  # (these modules import this one)
    from .functional_ops import switch_case

    rank = x.shape.rank
    if rank is None:
        raise ValueError(f"{name}: an axis known only at run time needs an input of known rank, got {x!r}.")
    if not axis.dtype.is_integer or axis.shape.rank != 0:
        raise TypeError(f"{name}: axis must be an integer scalar here, got {axis!r}.")
    a = math_ops.cast(axis, D.int32)
    Assert(
        math_ops.logical_and(math_ops.greater_equal(a, -rank), math_ops.less(a, rank)),
        [f"{name}: axis out of range [-{rank}, {rank}): ", axis],
    )
    a = math_ops.where(math_ops.less(a, 0), a + rank, a)
    return switch_case(a, [functools.partial(run, k) for k in range(rank)])


def _reduce_fn(op):
    def fn(input_tensor, axis=None, keepdims=False, name=None):
        x = convert_to_tensor(input_tensor)
        try:
            static = _static_axis(axis)
        except _RunTimeAxis:
            return _reduce_at_run_time_axes(fn, op.name, x, axis, bool(keepdims))
        axes = normalize_axes(static, x.shape.rank, name or op.name)
        if axes is None and axis is not None:
            raise TypeError(f"{op.name}: negative axes need a tensor of known rank.")
        return call(op, (x,), {"axis": axes, "keepdims": bool(keepdims)})

    fn.__name__ = op.name
    fn.__doc__ = f"``{op.name}(input_tensor, axis=None, keepdims=False)``."
    return fn


def _reduce_at_run_time_axes(fn, name, x, axis, keepdims):
    """A reduction over axes known only at run time: one axis after the other, keeping the
    reduced dimensions, then dropping them unless ``keepdims``."""
    from . import array_composites, array_ops, creation_ops, math_ops  # (they import this module)

    if axis.shape.rank == 0:
        return _at_run_time_axis(name, x, axis, lambda k: fn(x, k, keepdims))
    if axis.shape.rank != 1 or axis.shape[0] is None:
        raise ValueError(f"{name}: axis must be a scalar or a vector of known length, got {axis!r}.")
    y = x
    for a in array_ops.unstack(axis):
        y = _at_run_time_axis(name, y, a, lambda k, t=y: fn(t, k, True))
    if keepdims or x.shape.rank == 0:
        return y
    rank = x.shape.rank
    a = math_ops.cast(axis, D.int32)
    a = math_ops.where(math_ops.less(a, 0), a + rank, a)
    kept = reduce_all(
        math_ops.not_equal(array_ops.reshape(creation_ops.range(rank), [-1, 1]), array_ops.reshape(a, [1, -1])), axis=1
    )
    return array_ops.reshape(y, array_composites.boolean_mask(array_ops.shape(y), kept))


reduce_sum = _reduce_fn(reduce_sum_op)
reduce_prod = _reduce_fn(reduce_prod_op)
reduce_mean = _reduce_fn(reduce_mean_op)
reduce_max = _reduce_fn(reduce_max_op)
reduce_min = _reduce_fn(reduce_min_op)
reduce_any = _reduce_fn(reduce_any_op)
reduce_all = _reduce_fn(reduce_all_op)
reduce_logsumexp = _reduce_fn(reduce_logsumexp_op)


# --- argmax / argmin -----------------------------------------------------------


def _arg_fn(op):
    def fn(input, axis=None, output_type=D.int64, name=None):
        x = convert_to_tensor(input)
        out = D.as_dtype(output_type)
        try:
            ax = 0 if axis is None else _static_axis(axis)
        except _RunTimeAxis:
            return _at_run_time_axis(op.name, x, axis, lambda k: fn(x, k, out))
        ax = normalize_axis(ax, x.shape.rank, op.name)
        return call(op, (x,), {"axis": ax, "output_type": out})

    fn.__name__ = op.name
    return fn


argmax = _arg_fn(argmax_op)
argmin = _arg_fn(argmin_op)


# --- cumulative ----------------------------------------------------------------


def _cum_fn(op):
    def fn(x, axis=0, exclusive=False, reverse=False, name=None):
        x = convert_to_tensor(x)
        try:
            ax = _static_axis(axis)
        except _RunTimeAxis:
            return _at_run_time_axis(op.name, x, axis, lambda k: fn(x, k, exclusive, reverse))
        ax = normalize_axis(ax, x.shape.rank, op.name)
        return call(op, (x,), {"axis": ax, "exclusive": bool(exclusive), "reverse": bool(reverse)})

    fn.__name__ = op.name
    return fn


cumsum = _cum_fn(cumsum_op)
cumprod = _cum_fn(cumprod_op)
cumulative_logsumexp = _cum_fn(cumulative_logsumexp_op)
