"""Gradient rules of the neural-network ops (:mod:`tfunc.ops.nn`): matmul, conv2d and conv3d
with their two backprop ops (their second-order gradients) and transposes, bias_add, softmax,
log-softmax and the softmax cross-entropies."""

from __future__ import annotations

from ..api.array_ops import expand_dims, sum_to_like
from ..api.creation_ops import zeros_like
from ..api.math_ops import exp
from ..api.nn_ops import log_softmax, matmul, softmax
from ..api.reduction_ops import reduce_sum
from ..eager.dispatch import call
from ..ops.conv_variants import (
    conv2d_transpose_op,
    conv3d_backprop_filter_op,
    conv3d_backprop_input_op,
    conv3d_op,
    conv3d_transpose_op,
    depthwise_conv2d_backprop_filter_op,
    depthwise_conv2d_backprop_input_op,
    depthwise_conv2d_op,
)
from ..ops.nn import conv2d_backprop_filter_op, conv2d_backprop_input_op, conv2d_op
from .registry import register_gradient


@register_gradient("matmul")
def _matmul_grad(op, dy):
    """da = dy @ b^T, db = a^T @ dy (with the transposes folded into the products);
    a gradient nobody needs is not computed."""
    a, b = op.inputs
    ta, tb = op.attrs["transpose_a"], op.attrs["transpose_b"]
    da = db = None
    if op.needs(0):
        if not ta:
            da = matmul(dy, b, transpose_b=not tb)
        else:
            da = matmul(b, dy, transpose_a=tb, transpose_b=True)
        da = sum_to_like(da, a)
    if op.needs(1):
        if not tb:
            db = matmul(a, dy, transpose_a=not ta)
        else:
            db = matmul(dy, a, transpose_a=True, transpose_b=ta)
        db = sum_to_like(db, b)
    return [da, db]


def _register_conv_gradients(forward, backprop_input, backprop_filter, transpose):
    """The gradient rules of a convolution (2-D or 3-D), its two backprop ops (their
    second-order gradients) and its transpose; ``forward`` etc. are the ops."""

    @register_gradient(forward.name)
    def _conv_grad(op, dy):
        """dx = backprop_input(dy, f), df = backprop_filter(x, dy), each only when needed."""
        x, f = op.inputs
        a = op.attrs
        return [
            call(backprop_input, (dy, f, x), a) if op.needs(0) else None,
            call(backprop_filter, (x, dy, f), a) if op.needs(1) else None,
        ]

    @register_gradient(backprop_input.name, inputs=(0, 1))
    def _conv_backprop_input_grad(op, ddx):
        """The op is linear in dy and in f: d dy = conv(ddx, f), d f = backprop_filter(ddx, dy);
        the input x is read for its shape only."""
        return [
            call(forward, (ddx, op.inputs[1]), op.attrs),
            call(backprop_filter, (ddx, op.inputs[0], op.inputs[1]), op.attrs),
            None,
        ]

    @register_gradient(backprop_filter.name, inputs=(0, 1))
    def _conv_backprop_filter_grad(op, ddf):
        """The op is linear in x and in dy: d x = backprop_input(dy, ddf), d dy = conv(x, ddf);
        the filter f is read for its shape only."""
        return [
            call(backprop_input, (op.inputs[1], ddf, op.inputs[0]), op.attrs),
            call(forward, (op.inputs[0], ddf), op.attrs),
            None,
        ]

    @register_gradient(transpose.name)
    def _conv_transpose_grad(op, dy):
        """The transpose is the convolution's input gradient: linear in its input and filters,
        so d input = conv(dy, f) and d filters = backprop_filter(dy, input)."""
        value, f = op.inputs
        a = {k: op.attrs[k] for k in ("strides", "padding", "dilations")}
        return [
            call(forward, (dy, f), a) if op.needs(0) else None,
            call(backprop_filter, (dy, value, f), a) if op.needs(1) else None,
        ]


_register_conv_gradients(conv2d_op, conv2d_backprop_input_op, conv2d_backprop_filter_op, conv2d_transpose_op)
_register_conv_gradients(conv3d_op, conv3d_backprop_input_op, conv3d_backprop_filter_op, conv3d_transpose_op)


@register_gradient("bias_add")
def _bias_grad(op, dy):
    """Returns dy for the value and dy summed down to the bias's shape."""
    return [dy, sum_to_like(dy, op.inputs[1])]


@register_gradient("softmax")
def _softmax_grad(op, dy):
    """Returns y * (dy - sum(dy * y)) along the axis."""
    y = op.outputs[0]
    ax = op.attrs["axis"]
    return [y * (dy - reduce_sum(dy * y, axis=ax, keepdims=True))]


@register_gradient("log_softmax")
def _log_softmax_grad(op, dy):
    """Returns dy - exp(y) * sum(dy) along the axis."""
    ax = op.attrs["axis"]
    return [dy - exp(op.outputs[0]) * reduce_sum(dy, axis=ax, keepdims=True)]


def _sce_logits_grad(op, logits, dy, dbackprop):
    """d/d logits of dy * loss is dy * backprop; of the backprop output (a second-order
    gradient), the softmax Jacobian applied to its incoming gradient."""
    grad = None if dy is None else expand_dims(dy, -1) * op.outputs[1]
    if dbackprop is not None:
        p = softmax(logits)
        second = p * (dbackprop - reduce_sum(dbackprop * p, axis=-1, keepdims=True))
        grad = second if grad is None else grad + second
    return grad


@register_gradient("sparse_softmax_cross_entropy_with_logits", inputs=(1,))
def _sce_grad(op, dy, dbackprop=None):
    """Labels get None."""
    return [None, _sce_logits_grad(op, op.inputs[1], dy, dbackprop)]


# inputs=(0,): the labels' rule is TensorFlow's, which leaves out what flows into the backprop
# output, so finite differences of both outputs would not match it (tests check it against TF).
@register_gradient("softmax_cross_entropy_with_logits", inputs=(0,))
def _dense_sce_grad(op, dy, dbackprop=None):
    """Labels get dy * -log_softmax(logits); as TensorFlow's rule, not what flows into the
    backprop output (so the labels' part of a second-order gradient is zero)."""
    logits, labels = op.inputs
    d_labels = None
    if op.needs(1):
        d_labels = zeros_like(labels) if dy is None else expand_dims(dy, -1) * -log_softmax(logits)
    return [_sce_logits_grad(op, logits, dy, dbackprop) if op.needs(0) else None, d_labels]


# --- depthwise and transposed convolution ------------------------------------------------------


@register_gradient("depthwise_conv2d")
def _depthwise_grad(op, dy):
    """dx = depthwise_conv2d_backprop_input(dy, f), df = depthwise_conv2d_backprop_filter(x, dy)."""
    x, f = op.inputs
    return [
        call(depthwise_conv2d_backprop_input_op, (dy, f, x), op.attrs) if op.needs(0) else None,
        call(depthwise_conv2d_backprop_filter_op, (x, dy, f), op.attrs) if op.needs(1) else None,
    ]


@register_gradient("depthwise_conv2d_backprop_input", inputs=(0, 1))
def _depthwise_backprop_input_grad(op, ddx):
    """Linear in dy and f: d dy = depthwise_conv2d(ddx, f), d f = backprop_filter(ddx, dy)."""
    dy, f, _ = op.inputs
    return [
        call(depthwise_conv2d_op, (ddx, f), op.attrs),
        call(depthwise_conv2d_backprop_filter_op, (ddx, dy, f), op.attrs),
        None,
    ]


@register_gradient("depthwise_conv2d_backprop_filter", inputs=(0, 1))
def _depthwise_backprop_filter_grad(op, ddf):
    """Linear in x and dy: d x = backprop_input(dy, ddf), d dy = depthwise_conv2d(x, ddf)."""
    x, dy, _ = op.inputs
    return [
        call(depthwise_conv2d_backprop_input_op, (dy, ddf, x), op.attrs),
        call(depthwise_conv2d_op, (x, ddf), op.attrs),
        None,
    ]
