"""``tfunc.recompute_grad``: trade computation for memory.

The wrapped function's gradient runs the function again, under a tape of its own, instead
of keeping what its forward pass computed: where it is differentiated from outside a traced
function, the backward plan keeps only the arguments (the forward intermediates are not
saved values).  Built on ``tfunc.custom_gradient``; variables the function reads get their
gradients through ``grad_fn``'s ``variables``."""

from __future__ import annotations

import functools

from ..api.array_ops import identity
from ..api.custom_gradient import custom_gradient
from ..api.indexed_slices import densify
from ..core import nest
from ..eager.tensor import Tensor
from .tape import GradientTape

__all__ = ["recompute_grad"]


def recompute_grad(f):
    """``f`` whose gradient recomputes ``f`` rather than reading saved intermediates
    (``tf.recompute_grad``)."""

    @custom_gradient
    def recomputed(*args, **kwargs):
        result = f(*args, **kwargs)

        def grad_fn(*upstream, variables=None):
            flat = nest.flatten(args)
            fresh = [identity(a) if isinstance(a, Tensor) else a for a in flat]
            watched = [a for a in fresh if isinstance(a, Tensor)]
            variables = list(variables or [])
            with GradientTape(watch_accessed_variables=False) as tape:
                tape.watch(watched)
                for v in variables:
                    tape.watch(v)
                again = f(*nest.pack_sequence_as(args, fresh), **kwargs)
            grads = tape.gradient(
                nest.flatten(again), watched + variables, output_gradients=list(upstream), unconnected_gradients="zero"
            )
            grads = [densify(g) for g in grads]
            it = iter(grads[: len(watched)])
            arg_grads = [next(it) if isinstance(a, Tensor) else None for a in fresh]
            return arg_grads, grads[len(watched) :]

        return result, grad_fn

    return functools.wraps(f)(recomputed)
