"""Variable reads and writes.

In graphs these are stateful nodes (ordered by automatic control dependencies)
holding the Variable in ``attrs["var"]``: the graph captures the variable by
reference, so assignments made outside are seen by later calls.  The kernels ask
the variable itself to read or write its array (``tfunc.api.variables``), which
keeps a value read earlier unchanged: a write replaces the variable's array,
except that ``assign_add``/``assign_sub`` update it in place when nothing but the
variable can see it (copy-on-write, as TensorFlow's resource variables).
``variable_scatter`` computes the value a sparse update (``Variable.scatter_*``) writes.
"""

from __future__ import annotations

import numpy as np

from ..core import dtypes as D
from ..core.errors import DTypeMismatchError, IncompatibleShapesError, InvalidArgumentError
from ..core.shapes import format_shape, shapes_compatible
from ..core.specs import Spec
from .infer import ALL, COMPLEX, NUMERIC, check_dtype
from .registry import OpDef, register


def _label(var) -> str:
    """A variable's name in errors: a Keras weight's path ('dense/kernel'), else its name."""
    return getattr(var, "path", None) or var.name


def _var_spec(var) -> Spec:
    return Spec(var._shape, var._dtype)


def _check_shape(var, spec):
    if not shapes_compatible(var._shape, spec.shape) or (
        var._shape is not None and spec.shape is not None and len(var._shape) != len(spec.shape)
    ):
        raise IncompatibleShapesError(
            f"Cannot assign a value of shape {format_shape(spec.shape)} to variable {_label(var)!r} of "
            f"shape {format_shape(var._shape)}."
        )


def _assign_infer(specs, attrs):
    var = attrs["var"]
    s = specs[0]
    if s.dtype is not var._dtype:
        raise DTypeMismatchError(
            f"Cannot assign a value of dtype {s.dtype.name} to variable {_label(var)!r} of dtype {var._dtype.name}."
        )
    _check_shape(var, s)
    return (_var_spec(var),)


read_variable_op = register(
    OpDef(
        name="read_variable",
        kind="state",
        infer=lambda specs, attrs: (_var_spec(attrs["var"]),),
        impl=lambda xp, var: var._read_array(),
        stateful=True,
    )
)
# A read of a variable inside a cond branch or loop body that cannot be a value captured from
# outside (the branch or loop writes the variable first): its value is the inner read, its
# gradient goes to a read outside, captured, so gradients through the cond or loop reach the
# variable (TensorFlow's reads go through the captured resource handle).
read_in_body_op = register(
    OpDef(
        name="read_in_body",
        kind="state",
        infer=lambda specs, attrs: (specs[0],),
        impl=lambda xp, value, outside: value,
    )
)
assign_variable_op = register(
    OpDef(
        name="assign_variable",
        writes="var",
        kind="state",
        infer=_assign_infer,
        stateful=True,
        impl=lambda xp, value, var: var._assign_array(value),
    )
)
assign_add_variable_op = register(
    OpDef(
        name="assign_add_variable",
        writes="var",
        kind="state",
        infer=_assign_infer,
        stateful=True,
        impl=lambda xp, delta, var: var._update_array(xp.add, delta),
    )
)
assign_sub_variable_op = register(
    OpDef(
        name="assign_sub_variable",
        writes="var",
        kind="state",
        infer=_assign_infer,
        stateful=True,
        impl=lambda xp, delta, var: var._update_array(xp.subtract, delta),
    )
)
initialize_variable_op = register(
    OpDef(
        name="initialize_variable",
        writes="var",
        kind="state",
        infer=_assign_infer,
        stateful=True,
        impl=lambda xp, value, var: var._initialize_array(value),
    )
)


# --- sparse updates: Variable.scatter_update/add/sub/mul/div/max/min ----------------------------


def _truncate_divide(xp, a, b):
    """``a / b``, integers rounded toward zero (C division, as TensorFlow's ScatterDiv)."""
    if a.dtype.kind not in "iu":
        return a / b
    q = a // b
    return q + ((q < 0) & (q * b != a))


_COMBINE = {
    "update": lambda xp, a, b: b,
    "add": lambda xp, a, b: a + b,
    "sub": lambda xp, a, b: a - b,
    "mul": lambda xp, a, b: a * b,
    "div": _truncate_divide,
    "max": lambda xp, a, b: xp.maximum(a, b),
    "min": lambda xp, a, b: xp.minimum(a, b),
}


def _check_scatter_shapes(value, indices, updates):
    """TensorFlow's rule: ``updates.shape`` is ``indices.shape + value.shape[1:]`` or ``[]``."""
    if value is not None and len(value) == 0:
        raise InvalidArgumentError("Cannot scatter into a scalar variable: it must be at least 1-D.")
    if value is None or indices is None or updates is None or updates == ():
        return
    expected = tuple(indices) + tuple(value[1:])
    if not shapes_compatible(expected, updates) or len(expected) != len(updates):
        raise InvalidArgumentError(
            f"Must have updates.shape = indices.shape + params.shape[1:] or updates.shape = [], got updates.shape "
            f"{format_shape(updates)}, indices.shape {format_shape(indices)}, params.shape {format_shape(value)}."
        )


def _variable_scatter_infer(specs, attrs):
    value, indices, updates = specs
    check_dtype("variable_scatter", indices, (D.int32, D.int64), "indices")
    mode = attrs["mode"]
    allowed = ALL if mode == "update" else NUMERIC if mode in ("max", "min") else NUMERIC | COMPLEX
    check_dtype("variable_scatter", value, allowed, "variable")
    if updates.dtype is not value.dtype:
        raise DTypeMismatchError(
            f"variable_scatter: updates are {updates.dtype.name}, the variable {value.dtype.name}."
        )
    _check_scatter_shapes(value.shape, indices.shape, updates.shape)
    return (Spec(value.shape, value.dtype),)


def _rounds(flat):
    """The update positions in rounds without a repeated index: round ``r`` holds each
    index's ``r``-th update, so applying the rounds in turn applies every index's updates in
    order, as TensorFlow's CPU kernels do (the last update wins, divisions truncate in turn)."""
    order = np.argsort(flat, kind="stable")
    s = flat[order]
    first = np.ones(s.size, bool)
    first[1:] = s[1:] != s[:-1]
    if first.all():
        return [slice(None)]
    starts = np.flatnonzero(first)
    rank = np.empty(s.size, np.intp)
    rank[order] = np.arange(s.size) - np.repeat(starts, np.diff(np.append(starts, s.size)))
    return [np.flatnonzero(rank == r) for r in range(int(rank.max()) + 1)]


def _variable_scatter_impl(xp, value, indices, updates, mode):
    _check_scatter_shapes(value.shape, indices.shape, updates.shape)  # shapes unknown while tracing
    flat = np.asarray(indices.get() if xp is not np else indices).reshape(-1)
    n = value.shape[0]
    bad = np.flatnonzero((flat < 0) | (flat >= n))
    if bad.size:
        raise InvalidArgumentError(f"indices[{bad[0]}] = {flat[bad[0]]} is not in [0, {n})")
    rows = xp.broadcast_to(updates, indices.shape + value.shape[1:]).reshape((flat.size,) + value.shape[1:])
    if mode == "div" and bool((rows == 0).any()):
        raise InvalidArgumentError("scatter_div: updates must not contain 0 (TensorFlow's ScatterDiv refuses it).")
    out = value.copy()
    combine = _COMBINE[mode]
    with np.errstate(divide="ignore", invalid="ignore"):  # inf / inf and the like: NaN, silently
        for pos in _rounds(flat):
            at = flat[pos]
            out[at] = combine(xp, out[at], rows[pos])
    return out


# The value a sparse update writes (the variable's value with ``updates`` combined into the
# rows ``indices`` names, by ``mode``); Variable.scatter_* assign it, so the write is an
# ordinary assignment to traces, tapes and checkpoints.
variable_scatter_op = register(
    OpDef(
        name="variable_scatter",
        kind="state",
        infer=_variable_scatter_infer,
        impl=_variable_scatter_impl,
        host_sync=True,  # the index range and repeats
    )
)
