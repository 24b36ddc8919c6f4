"""Gradient rules of the pooling ops (:mod:`tfunc.ops.pooling`, 2-D and 3-D) and of their
gradient ops (second order)."""

from __future__ import annotations

from ..api.creation_ops import zeros_like
from ..eager.dispatch import call
from ..ops import pooling as P
from .registry import register_gradient


def _zeros_where_needed(op):
    """Zeros for a max-pool gradient op's x and y (they only choose where values go)."""
    return [zeros_like(t) if op.needs(i) else None for i, t in enumerate(op.inputs[:2])]


def _register_pool_gradients(rank):
    max_pool = f"max_pool{rank}d"
    max_grad = getattr(P, f"max_pool{rank}d_grad_op")
    max_grad_grad = getattr(P, f"max_pool{rank}d_grad_grad_op")
    avg_op, avg_grad = getattr(P, f"avg_pool{rank}d_op"), getattr(P, f"avg_pool{rank}d_grad_op")

    @register_gradient(max_pool)
    def _max_pool_grad(op, dy):
        """Returns dy routed to the maxima of each window (2-D: the first; 3-D: every tie):
        max_pool_grad(x, y, dy)."""
        return [call(max_grad, (op.inputs[0], op.outputs[0], dy), op.attrs)]

    @register_gradient(max_grad.name, inputs=(2,))
    def _max_pool_grad_grad(op, ddx):
        """Linear in dy: returns ddx read at each window's first maximum (max_pool_grad_grad,
        as TensorFlow registers it); the input and output only choose where, so they get
        zeros (TensorFlow's: a second derivative of max_pool is zeros, not None)."""
        x, y, _ = op.inputs
        return [*_zeros_where_needed(op), call(max_grad_grad, (x, y, ddx), op.attrs)]

    @register_gradient(max_grad_grad.name, inputs=(2,))
    def _max_pool_grad_grad_grad(op, dddy):
        """Linear in ddx, the adjoint of a gather at the maxima: a scatter to them (max_pool_grad)."""
        x, y, _ = op.inputs
        return [*_zeros_where_needed(op), call(max_grad, (x, y, dddy), op.attrs)]

    @register_gradient(avg_op.name)
    def _avg_pool_grad(op, dy):
        """Returns each dy divided by its window's count, spread over the window (avg_pool_grad)."""
        return [call(avg_grad, (dy, op.inputs[0]), op.attrs)]

    @register_gradient(avg_grad.name, inputs=(0,))
    def _avg_pool_grad_grad(op, ddx):
        """Linear in dy, the adjoint of spreading is averaging: avg_pool(ddx); x is a shape only."""
        return [call(avg_op, (ddx,), op.attrs), None]


_register_pool_gradients(2)
_register_pool_gradients(3)
