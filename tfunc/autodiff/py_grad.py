"""The gradient of ``py_function``: the Python function run again, eagerly under a tape,
on every backward pass (itself a py_function, so it works inside traced functions)."""

from __future__ import annotations

from ..api.creation_ops import zeros_like
from ..api.indexed_slices import densify
from ..api.py_ops import py_function
from .registry import register_gradient
from .tape import GradientTape


@register_gradient("py_function")
def _grad(op, *dys):
    """Runs ``func`` again, eagerly under a tape, on every backward pass (itself a py_function)."""
    func = op.attrs["func"]
    n = len(op.inputs)
    wrt = [i for i, t in enumerate(op.inputs) if t.dtype.is_floating and op.needs(i)]
    if not wrt or getattr(func, "not_differentiable", False):  # tf.numpy_function
        return [None] * n

    def backward(*args):
        xs, gs = list(args[:n]), list(args[n:])
        with GradientTape(watch_accessed_variables=False) as tape:
            for i in wrt:
                tape.watch(xs[i])
            outs = func(*xs)
        outs = list(outs) if isinstance(outs, (list, tuple)) else [outs]
        grads = tape.gradient(outs, [xs[i] for i in wrt], output_gradients=gs)
        return [densify(g) if g is not None else zeros_like(xs[i]) for g, i in zip(grads, wrt)]

    dys = [d if d is not None else zeros_like(o) for d, o in zip(dys, op.outputs)]
    grads = py_function(backward, list(op.inputs) + list(dys), [op.inputs[i].dtype for i in wrt])
    out = [None] * n
    for i, g in zip(wrt, grads):
        out[i] = g
    return out
