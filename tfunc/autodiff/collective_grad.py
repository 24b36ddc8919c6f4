"""Gradients of the collectives (:mod:`tfunc.ops.collective`), as ``tf.distribute``'s replica
context defines them: the loss being differentiated is the sum of the replicas' losses.

* all-reduce: every replica's output depends on every replica's input, so the gradient of an
  input is the same all-reduce of the outputs' gradients.
* all-gather: the gradient of a replica's input is its own slice of the summed gradient of
  the gathered tensor.
* broadcast: no gradient (it sets initial values).
"""

from __future__ import annotations

from ..api import array_ops, collective_ops, creation_ops, reduction_ops
from .registry import no_gradient, register_gradient


@register_gradient("collective_all_reduce")
def _all_reduce_grad(op, *dys):
    """Returns all_reduce(dys) with the same reduction (sum or mean)."""
    reduction = op.attrs["reduction"]
    if reduction not in ("sum", "mean"):
        raise LookupError(f"No gradient for an all-reduce with reduction {reduction!r} (only 'sum' and 'mean').")
    flowing = [i for i, d in enumerate(dys) if d is not None]
    reduced = collective_ops.all_reduce(
        [dys[i] for i in flowing], op.attrs["group"], reduction, op.attrs.get("bytes_per_pack", 0)
    )
    grads: list = [None] * len(dys)
    for i, g in zip(flowing, reduced):
        grads[i] = g
    return grads


@register_gradient("collective_all_gather")
def _all_gather_grad(op, dy):
    """Returns all_reduce_sum(dy)[this replica's rows along axis]."""
    group, axis = op.attrs["group"], op.attrs["axis"]
    (x,) = op.inputs
    (summed,) = collective_ops.all_reduce([dy], group, "sum")
    axis = axis % x.shape.rank if x.shape.rank is not None else axis
    n_local = array_ops.shape(x)[axis]
    sizes = collective_ops.all_gather(array_ops.reshape(n_local, [1]), group, axis=0)
    begin = reduction_ops.reduce_sum(sizes[: group.rank])
    return [array_ops.gather(summed, creation_ops.range(begin, begin + n_local), axis=axis)]


no_gradient("collective_broadcast")
