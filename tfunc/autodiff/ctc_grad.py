"""Gradient rule of the CTC loss (:mod:`tfunc.ops.ctc`); the beam search decoder has none."""

from __future__ import annotations

from ..api.array_ops import reshape
from ..eager.dispatch import call
from ..ops.ctc import ctc_loss_grad_op
from .registry import no_gradient, register_gradient


@register_gradient("ctc_loss", inputs=(0,))
def _ctc_loss_grad(op, dy):
    """d logits = dy (per sequence) * d loss / d logits, which the gradient op computes from
    the same inputs (TensorFlow's ``_ctc_loss_grad``); labels and lengths get None.  The
    gradient op has no gradient itself: as TensorFlow's, CTC has no second derivative."""
    grad = call(ctc_loss_grad_op, op.inputs, op.attrs)
    return [reshape(dy, [1, -1, 1]) * grad, None, None, None]


no_gradient("ctc_beam_search_decoder")
