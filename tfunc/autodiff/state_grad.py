"""Variable ops: a read's gradient flows to the variable through the tape's read
tracking (``GradientTape._variable_read``); the ops themselves pass none, except a read in
a cond branch or loop body, which passes it to its captured read from outside."""

from __future__ import annotations

from .registry import no_gradient, register_gradient

# variable_scatter: its value only feeds an assignment, which passes no gradient either
no_gradient(
    "read_variable",
    "variable_scatter",
    "assign_variable",
    "assign_add_variable",
    "assign_sub_variable",
    "initialize_variable",
)


@register_gradient("read_in_body")
def _read_in_body_grad(op, dy):
    return [None, dy]
