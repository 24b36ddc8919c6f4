"""Gradient rules of the sorting ops (:mod:`tfunc.ops.sorting`)."""

from __future__ import annotations

from ..api.array_ops import concat, reshape, shape
from ..core import dtypes as D
from ..eager.dispatch import call
from ..ops.sorting import argsort_op, put_along_axis_add_op, take_along_axis_op
from .registry import no_gradient, register_gradient

no_gradient("argsort")
no_gradient("unique")  # as TensorFlow: no gradient is registered
no_gradient("searchsorted")


@register_gradient("sort")
def _sort_grad(op, dy):
    """Each sorted value's gradient goes back to where it came from: dy scattered by the
    sorting permutation (argsort with the same axis and direction)."""
    x = op.inputs[0]
    a = op.attrs
    order = call(argsort_op, (x,), {"axis": a["axis"], "descending": a["descending"], "dtype": D.int64})
    return [call(put_along_axis_add_op, (dy, order, x), {"axis": a["axis"]})]


@register_gradient("top_k", inputs=(0,))
def _top_k_grad(op, dvalues, dindices=None):
    """Returns dvalues scattered to the chosen indices along the last axis; 0 elsewhere.  An
    input of unknown rank (a ``TensorSpec(None)`` signature) is scattered as rows of its last
    axis, as TensorFlow's rule does for every input."""
    x = op.inputs[0]
    if dvalues is None:
        return [None]
    if x.shape.rank is not None:
        return [call(put_along_axis_add_op, (dvalues, op.outputs[1], x), {"axis": x.shape.rank - 1})]
    x_shape, k = shape(x), shape(dvalues)[-1:]
    rows = reshape(x, concat([[-1], x_shape[-1:]], 0))
    idx, dv = (reshape(t, concat([[-1], k], 0)) for t in (op.outputs[1], dvalues))
    return [reshape(call(put_along_axis_add_op, (dv, idx, rows), {"axis": 1}), x_shape)]


@register_gradient("take_along_axis", inputs=(0,))
def _take_along_axis_grad(op, dy):
    """Returns dy added back at the indices (put_along_axis_add)."""
    x, idx = op.inputs
    return [call(put_along_axis_add_op, (dy, idx, x), op.attrs), None]


@register_gradient("put_along_axis_add", inputs=(0,))
def _put_along_axis_add_grad(op, ddx):
    """Linear in dy: returns ddx read at the indices (take_along_axis)."""
    return [call(take_along_axis_op, (ddx, op.inputs[1]), op.attrs), None, None]
