"""Gradient rules of :mod:`tfunc.ops.nn_extra`: ``max_pool_with_argmax`` and ``dilation2d``
(their gradient ops have no gradients of their own, as TensorFlow's)."""

from __future__ import annotations

from ..eager.dispatch import call
from ..ops.nn_extra import dilation2d_backprop_filter_op, dilation2d_backprop_input_op, max_pool_grad_with_argmax_op
from .registry import register_gradient


@register_gradient("max_pool_with_argmax")
def _max_pool_with_argmax_grad(op, dy, _):
    """dy goes to each window's maximum, read from the argmax output (the index output
    gets no gradient), as TensorFlow's MaxPoolGradWithArgmax."""
    attrs = {"include_batch_in_index": op.attrs["include_batch_in_index"]}
    return [call(max_pool_grad_with_argmax_op, (op.inputs[0], dy, op.outputs[1]), attrs)]


@register_gradient("dilation2d")
def _dilation2d_grad(op, dy):
    """dy goes to the input element and the filter tap of each window's first maximum."""
    args = (*op.inputs, dy)
    return [
        call(dilation2d_backprop_input_op, args, op.attrs) if op.needs(0) else None,
        call(dilation2d_backprop_filter_op, args, op.attrs) if op.needs(1) else None,
    ]
