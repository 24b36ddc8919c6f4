"""``py_function``: a node that calls back into Python on every run.  Its ``run`` attr
(set by ``tfunc.api.py_ops``) turns the input arrays into eager tensors, calls the user's
``func`` outside any trace and returns the output arrays."""

from __future__ import annotations

from ..core.specs import Spec
from .registry import OpDef, register


def _infer(specs, attrs):
    return tuple(Spec(None, dt) for dt in attrs["Tout"])


def _impl(xp, *arrays, func, Tout, single, run):
    return run(arrays, func, Tout, single)


py_function_op = register(
    OpDef(
        name="py_function",
        kind="io",
        infer=_infer,
        impl=_impl,
        num_outputs=-1,
        stateful=True,
        host_only=True,
        writes="any",
    )
)
