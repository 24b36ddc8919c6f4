"""Variable reads and writes.

In graphs these are stateful nodes (ordered by automatic control dependencies)
holding the Variable in ``attrs["var"]``: the graph captures the variable by
reference, so assignments made outside are seen by later calls.  The kernels ask
the variable itself to read or write its array (``tfunc.api.variables``), which
keeps a value read earlier unchanged: a write replaces the variable's array,
except that ``assign_add``/``assign_sub`` update it in place when nothing but the
variable can see it (copy-on-write, as TensorFlow's resource variables).
"""

from __future__ import annotations

from ..core.errors import DTypeMismatchError, IncompatibleShapesError
from ..core.shapes import format_shape, shapes_compatible
from ..core.specs import Spec
from .registry import OpDef, register


def _var_spec(var) -> Spec:
    return Spec(var._shape, var._dtype)


def _check_shape(var, spec):
    if not shapes_compatible(var._shape, spec.shape) or (
        var._shape is not None and spec.shape is not None and len(var._shape) != len(spec.shape)
    ):
        raise IncompatibleShapesError(
            f"Cannot assign a value of shape {format_shape(spec.shape)} to variable {var.name!r} of "
            f"shape {format_shape(var._shape)}."
        )


def _assign_infer(specs, attrs):
    var = attrs["var"]
    s = specs[0]
    if s.dtype is not var._dtype:
        raise DTypeMismatchError(
            f"Cannot assign a value of dtype {s.dtype.name} to variable {var.name!r} of dtype {var._dtype.name}."
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
