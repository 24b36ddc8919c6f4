"""Gradient rules of the image resizing ops (:mod:`tfunc.ops.image`).  ``resize_area`` has
none, as TensorFlow registers none for ResizeArea: a tape through it raises LookupError."""

from __future__ import annotations

from ..api import array_ops
from ..api.slicing import slice_
from ..eager.dispatch import call
from ..ops.image import (
    SIZED_GRADS,
    resize_grad_op,
    resize_op,
    resize_to_grad_op,
    resize_to_op,
    scale_and_translate_grad_op,
    scale_and_translate_op,
)
from .registry import register_gradient


@register_gradient("resize")
def _resize_grad(op, dy):
    """resize is linear in the image: its gradient applies the transposed interpolation
    (resize_grad)."""
    return [call(resize_grad_op, (dy, op.inputs[0]), op.attrs)]


@register_gradient("resize_grad", inputs=(0,))
def _resize_grad_grad(op, ddx):
    """Linear in dy, the adjoint of the transposed interpolation is the interpolation."""
    return [call(resize_op, (ddx,), op.attrs), None]


@register_gradient("scale_and_translate")
def _scale_and_translate_grad(op, dy):
    """Linear in the image, as resize: the transposed kernel weights."""
    return [call(scale_and_translate_grad_op, (dy, op.inputs[0]), op.attrs)]


@register_gradient("scale_and_translate_grad", inputs=(0,))
def _scale_and_translate_grad_grad(op, ddx):
    return [call(scale_and_translate_op, (ddx,), op.attrs), None]


@register_gradient("resize_to", inputs=(0,))
def _resize_to_grad(op, dy):
    """As the static op it runs (a run-time size has no gradient): ``resize_area`` has none."""
    if op.attrs["base"] not in SIZED_GRADS:
        raise LookupError(f"No gradient defined for operation {op.attrs['base']!r}, as in TensorFlow (ResizeArea).")
    return [call(resize_to_grad_op, (dy, op.inputs[0]), op.attrs), None]


@register_gradient("resize_to_grad", inputs=(0,))
def _resize_to_grad_grad(op, ddx):
    """Linear in dy: the interpolation, to dy's height and width."""
    size = slice_(array_ops.shape(op.inputs[0]), [1], [2])
    return [call(resize_to_op, (ddx, size), op.attrs), None]
