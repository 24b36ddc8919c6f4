"""Control-flow ops: ``cond`` and ``while_loop`` hold sub-graphs (attrs ``true_graph`` /
``false_graph``, ``cond_graph`` / ``body_graph``) and are lowered inline, never run as
kernels.  ``loop_stack_*`` read the per-iteration values a loop keeps for its gradient;
``function_call`` is the record a gradient tape keeps of a traced function called eagerly.
"""

from __future__ import annotations

import numpy as np

from ..core import dtypes as D
from ..core.errors import InvalidArgumentError
from ..core.specs import Spec
from .registry import OpDef, register

VARIANT = Spec((), D.variant)


def _attr_specs(specs, attrs):
    return tuple(attrs["out_specs"])


def _no_kernel(xp, *args, **attrs):
    raise InvalidArgumentError("control-flow nodes are lowered inline and never run as kernels")


def _stack_read_impl(xp, stack, i, specs):
    return tuple(stack[int(i)])


cond_op = register(OpDef(name="cond", kind="control", infer=_attr_specs, impl=_no_kernel, pure=False))
while_op = register(OpDef(name="while_loop", kind="control", infer=_attr_specs, impl=_no_kernel, pure=False))

loop_stack_size_op = register(
    OpDef(
        name="loop_stack_size",
        kind="other",
        infer=lambda specs, attrs: (Spec((), D.int32),),
        pure=False,
        impl=lambda xp, stack: np.int32(len(stack)),
    )
)
loop_stack_read_op = register(
    OpDef(
        name="loop_stack_read",
        kind="other",
        infer=lambda specs, attrs: tuple(attrs["specs"]),
        pure=False,
        num_outputs=-1,
        impl=_stack_read_impl,
    )
)

# The values of a branch's or loop body's random draws, variable reads and assignments, kept by
# the forward run (an extra output of the cond, or per iteration on the loop's stack) so that the
# gradient, which runs the sub-graph again under a tape, uses them instead of drawing new random
# numbers, reading variables changed since or assigning again (see autodiff.control_flow_grad).
stash_op = register(
    OpDef(
        name="stash",
        kind="other",
        infer=lambda specs, attrs: (VARIANT,),
        pure=False,
        impl=lambda xp, *values: tuple(values),
    )
)
unstash_op = register(
    OpDef(
        name="unstash",
        kind="other",
        infer=lambda specs, attrs: tuple(attrs["specs"]),
        pure=False,
        num_outputs=-1,
        impl=lambda xp, stash, specs: tuple(stash),
    )
)

# Recorded on gradient tapes only (never a graph node): its attrs carry the forward/backward split.
function_call_op = register(
    OpDef(name="function_call", kind="other", infer=lambda specs, attrs: (), impl=_no_kernel, pure=False)
)
