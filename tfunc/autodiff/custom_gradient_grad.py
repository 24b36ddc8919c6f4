"""The gradient of a ``tf.custom_gradient`` function: the user's ``grad_fn``.

Its results get no gradient through this node (what the function computed is not
differentiated); its arguments and variables get what ``grad_fn`` returns.  Where the node
was replayed (a function differentiated from outside, or inlined into another), the stored
``grad_fn`` belongs to another trace, and the function is called again on the replayed
arguments for a fresh one."""

from __future__ import annotations

from ..api.creation_ops import zeros_like
from ..api.custom_gradient import rerun
from ..eager.convert import convert_to_tensor
from .registry import register_gradient


def _flat(value) -> list:
    """Gradients as a flat list, keeping None entries (a single tensor is a list of one)."""
    if isinstance(value, (list, tuple)):
        out: list = []
        for v in value:
            out.extend(_flat(v))
        return out
    return [value]


def _tensor(g, like):
    if g is None:
        return None
    g = convert_to_tensor(g, dtype=like.dtype) if not hasattr(g, "dtype") else convert_to_tensor(g)
    return g


@register_gradient("custom_gradient")
def _custom_gradient_grad(op, *dys):
    a = op.attrs
    n, slots = a["num_results"], a["arg_slots"]
    args = list(op.inputs[n : n + len(slots)])
    reads = list(op.inputs[n + len(slots) :])
    made_for = a["made_for"]
    if len(made_for) == len(op.inputs) and all(x is y for x, y in zip(made_for, op.inputs)):
        grad_fn, variables = a["grad_fn"], list(a["variables"])
    else:
        grad_fn, variables = rerun(a, args)
    upstream = [d if d is not None else zeros_like(o) for d, o in zip(dys, op.outputs)]
    if variables:
        out = grad_fn(*upstream, variables=variables)
        if not (isinstance(out, (list, tuple)) and len(out) == 2):
            raise TypeError(
                "A @tf.custom_gradient grad_fn called with variables= must return "
                "(input gradients, variable gradients)."
            )
        input_grads, variable_grads = out
        variable_grads = _flat(variable_grads)
        if len(variable_grads) != len(variables):
            raise ValueError("Must return gradient for each variable from @custom_gradient grad_fn.")
    else:
        input_grads, variable_grads = grad_fn(*upstream), []
    input_grads = _flat(input_grads)
    if len(input_grads) != a["num_args"]:
        raise ValueError(
            f"custom_gradient function expected to return {a['num_args']} gradients, but returned "
            f"{len(input_grads)} instead."
        )
    grads: list = [None] * n
    grads += [_tensor(input_grads[s], t) for s, t in zip(slots, args)]
    by_uid = {v._unique_id: g for v, g in zip(variables, variable_grads)}
    grads += [_tensor(by_uid.get(v._unique_id), t) for v, t in zip(a["variables"], reads)]
    return grads
