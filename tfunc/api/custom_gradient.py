"""``tfunc.custom_gradient``: a function that says what its own gradient is.

``f(*args)`` returns ``(result, grad_fn)``; ``grad_fn(*upstream)`` returns one gradient per
argument (a single tensor for a single argument, None where an argument gets none).  Where
``f`` reads variables that are not among its arguments, ``grad_fn`` must accept the keyword
``variables`` and return ``(argument gradients, variable gradients)``.

The results pass through one ``custom_gradient`` node (see ``tfunc.ops.custom_gradient``) whose
inputs are the results, the arguments and a read of each variable, so a tape connects the
results to the arguments through the node only; its gradient rule calls ``grad_fn``.  Graph
code is replayed to be differentiated from outside a function (and to inline a nested
function), and a ``grad_fn`` closes over the tensors of the trace that made it: the rule then
calls ``f`` again on the replayed arguments (:func:`rerun`) for a ``grad_fn`` of its own.
"""

from __future__ import annotations

import functools
import inspect

from ..core import nest
from ..core.context import ctx
from ..eager.convert import convert_to_tensor
from ..eager.dispatch import call
from ..eager.tensor import Tensor
from ..ops.custom_gradient import custom_gradient_op

__all__ = ["custom_gradient", "grad_pass_through", "rerun"]


class _VariableWatcher:
    """An observer on the tape stack that only notes which variables are read (first read
    of each, in order); it records no ops and tracks no tensors."""

    def __init__(self):
        self._recording = True
        self._tracked: dict = {}
        self.reads: dict = {}  # variable uid -> (variable, first read tensor)

    def _record(self, op, inputs, outputs, attrs) -> None:
        pass

    def _variable_read(self, var, tensor) -> None:
        self.reads.setdefault(var._unique_id, (var, tensor))


def _run_watched(f, args, kwargs):
    watcher = _VariableWatcher()
    ctx.tapes = ctx.tapes + [watcher]
    try:
        out = f(*args, **kwargs)
    finally:
        ctx.tapes = [t for t in ctx.tapes if t is not watcher]
    if not (isinstance(out, (tuple, list)) and len(out) == 2 and callable(out[1])):
        raise TypeError(
            f"A @tf.custom_gradient function must return (result, grad_fn), where grad_fn is callable; "
            f"{getattr(f, '__name__', f)} returned {type(out).__name__}."
        )
    return out[0], out[1], watcher.reads


def _is_variable(x) -> bool:
    return getattr(x, "_is_tfunc_variable", False)


def _accepts_variables(grad_fn) -> bool:
    try:
        spec = inspect.getfullargspec(grad_fn)
    except TypeError:
        return True  # not introspectable (a builtin): let the call decide
    return "variables" in spec.args or "variables" in spec.kwonlyargs or spec.varkw is not None


def custom_gradient(f=None):
    """Decorator: ``f`` returns ``(result, grad_fn)`` and its gradient is ``grad_fn``'s
    (``tf.custom_gradient``)."""
    if f is None:
        return custom_gradient
    return _CustomGradient(f)


class _CustomGradient:
    """The decorated function; on a class it binds ``self`` outside the differentiated
    arguments (``grad_fn`` returns one gradient per argument after ``self``), as TensorFlow."""

    def __init__(self, f):
        self._f = f
        functools.update_wrapper(self, f)

    def __call__(self, *args, **kwargs):
        return _call(self._f, args, kwargs)

    def __get__(self, obj, objtype=None):
        return self if obj is None else _CustomGradient(functools.partial(self._f, obj))


def _call(f, args, kwargs):
    result, grad_fn, reads = _run_watched(f, args, kwargs)
    flat_args = nest.flatten(args)
    variables = [v for v, _ in reads.values() if not any(v is a for a in flat_args)]
    if variables and not _accepts_variables(grad_fn):
        names = ", ".join(repr(v.name) for v in variables)
        raise TypeError(
            "@tf.custom_gradient grad_fn must accept keyword argument 'variables', since function "
            f"uses variables: [{names}]"
        )
    if ctx.graph is None and not any(t._recording for t in ctx.tapes):
        return result  # eager and nothing records: no gradient can ever be asked for
    flat_result = [convert_to_tensor(r) for r in nest.flatten(result)]
    arg_slots, arg_tensors = [], []
    for i, a in enumerate(flat_args):
        if _is_variable(a):
            read = reads.get(a._unique_id)
            arg_tensors.append(read[1] if read is not None else a.read_value())
        elif isinstance(a, Tensor):
            arg_tensors.append(a)
        else:
            continue  # a Python value: no gradient flows to it
        arg_slots.append(i)
    var_reads = [reads[v._unique_id][1] for v in variables]
    inputs = tuple(flat_result) + tuple(arg_tensors) + tuple(var_reads)
    attrs = {
        "num_results": len(flat_result),
        "num_args": len(flat_args),
        "arg_slots": tuple(arg_slots),
        "fn": f,
        "args": args,
        "kwargs": kwargs,
        "grad_fn": grad_fn,
        "variables": tuple(variables),
        "made_for": inputs,
    }
    outs = call(custom_gradient_op, inputs, attrs)
    return nest.pack_sequence_as(result, list(outs))


def rerun(attrs, arg_tensors):
    """Calls the node's function again on ``arg_tensors`` (one per ``arg_slots`` entry, in the
    graph being built or eagerly): returns ``(grad_fn, variables)`` made for them."""
    flat = nest.flatten(attrs["args"])
    for slot, t in zip(attrs["arg_slots"], arg_tensors):
        if not _is_variable(flat[slot]):  # a variable argument stays the variable
            flat[slot] = t
    args = nest.pack_sequence_as(attrs["args"], flat)
    _, grad_fn, reads = _run_watched(attrs["fn"], args, attrs["kwargs"])
    variables = [v for v, _ in reads.values() if not any(v is a for a in flat)]
    return grad_fn, variables


def grad_pass_through(f):
    """``f`` with the identity as its gradient (``tf.grad_pass_through``): the upstream
    gradients go to the arguments unchanged (a straight-through estimator, as
    ``grad_pass_through(tf.round)``), and variables ``f`` reads get none."""

    @custom_gradient
    def passed(*args, **kwargs):
        def grad(*dys, variables=None):
            if variables is not None:
                return dys, [None] * len(variables)
            return dys

        return f(*args, **kwargs), grad

    return functools.wraps(f)(passed) if callable(f) and hasattr(f, "__name__") else passed
