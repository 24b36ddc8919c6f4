"""Replaying a graph: re-emit its nodes as op calls on given input tensors (an
:class:`~tfunc.graph.interpreter.Interpreter`).

In a graph being built this copies the nodes (a nested function call); every
op goes through ``dispatch.call`` (or, for control flow, is added and
recorded explicitly), so active gradient tapes see it.  Eagerly it evaluates
the graph op by op.  Gradients of sub-graphs (branches, loop bodies,
functions) are taken by replaying them under a tape.
"""

from __future__ import annotations

import re
from typing import NamedTuple

import numpy as np

from ..core import device as _device
from ..core.context import ctx, record_operation
from ..eager.dispatch import call
from ..eager.tensor import EagerTensor
from ..graph.interpreter import Interpreter
from ..ops.dataset import elements
from ..ops.registry import REGISTRY

_SUFFIX = re.compile(r"_\d+$")


def base_name(name: str) -> str:
    """``while_3`` -> ``while``: a copied node gets a fresh unique name from the same base."""
    return _SUFFIX.sub("", name)


class Replay(Interpreter):
    """Re-runs a graph's nodes as op calls: into the graph being traced (a nested function,
    a gradient's recomputation) or eagerly.  Every op goes through ``dispatch.call`` (control
    flow is added and recorded explicitly), so active gradient tapes see it.

    ``variable_read(var)`` (optional) supplies the value of a variable read; by default the
    variable's own ``read_value`` (which tapes watch) is used."""

    def __init__(self, variable_read=None, variables=None, given=None):
        self.variable_read = variable_read
        self.variables = variables or {}  # id(variable in the graph) -> variable to use instead
        # for a gradient's recomputation: node id -> the values the forward run gave (stashed
        # random draws, reads, assignments); side effects without outputs are not run again
        self.given = given

    def run_node(self, node, args) -> tuple:
        if self.given is not None:
            kept = self.given.get(node.id)
            if isinstance(kept, GivenControl):
                # a nested cond or loop: its forward outputs, recorded for tapes with what its own
                # gradient needs of the forward run (its stash), instead of running it again
                if ctx.tapes and ctx.recording:
                    record_operation(REGISTRY[node.op], tuple(args), kept.outputs, dict(node.attrs, **kept.attrs))
                return kept.outputs
            if kept is not None:
                return kept
            if not node.outputs and node.op != "const" and _side_effect(node):
                return ()
        return super().run_node(node, args)

    def const(self, node):
        value, dtype = node.attrs["value"], node.attrs["dtype"]
        if dtype.is_variant:
            # the object itself (a dataset, an iterator) to run ops on; a graph being built takes
            # the node's value as it is (a 0-d object array, as its const nodes hold it)
            if ctx.graph is None:
                value = value[()]
        elif not dtype.is_string and isinstance(value, (np.ndarray, np.generic)):
            value = _device.current().asarray(value)
        t = EagerTensor._make(value, dtype)
        if ctx.graph is not None:
            ctx.graph.mark_literal(t)
        return t

    def call(self, node, op, args) -> tuple:
        attrs = node.attrs
        if self.variables and "var" in attrs and id(attrs["var"]) in self.variables:
            attrs = dict(attrs, var=self.variables[id(attrs["var"])])
        if node.op == "read_variable":
            var = attrs["var"]
            return (self.variable_read(var) if self.variable_read is not None else var.read_value(),)
        outs = call(op, args, attrs)
        return outs if isinstance(outs, tuple) else (outs,)

    def control(self, node, op, args) -> tuple:
        g = ctx.graph
        if g is not None:
            refs, _ = g.refs_and_specs(args)
            stateful = op.stateful or bool(node.meta.get("stateful"))
            attrs = substitute_variables(node.attrs, self.variables) if self.variables else dict(node.attrs)
            outs = g.add_node(op, refs, attrs, node.outputs, name=base_name(node.name), stateful=stateful)
            if ctx.tapes and ctx.recording:
                record_operation(op, tuple(args), outs, node.attrs)
            return outs
        # eagerly: the control flow runs in Python over replayed sub-graphs
        if node.op == "cond":
            branch = node.attrs["true_graph"] if bool(args[0]) else node.attrs["false_graph"]
            return tuple(self.run(branch, args[1:]))
        if node.op == "while_loop":
            n = node.attrs["n_loop_vars"]
            vs, caps, i = list(args[:n]), list(args[n:]), 0
            limit = node.attrs.get("maximum_iterations")
            while (limit is None or i < limit) and bool(self.run(node.attrs["cond_graph"], vs + caps)[0]):
                vs = self.run(node.attrs["body_graph"], vs + caps)[:n]  # (not a stash)
                i += 1
            return tuple(vs)
        if node.op == "dataset_loop":  # as plan.dataset_loop lowers it
            n, cond, body = node.attrs["n_state"], node.attrs["cond_graph"], node.attrs["body_graph"]
            vs, caps = list(args[1 : 1 + n]), list(args[1 + n :])
            specs = [body.spec((nid, 0)) for nid in body.inputs[: node.attrs["n_elem"]]]
            it = iter(elements(args[0]._value))
            # the break test runs before the next element is pulled (an iterator resumes there)
            while cond is None or bool(self.run(cond, vs + caps)[0]):
                arrays = next(it, None)
                if arrays is None:
                    break
                elem = [EagerTensor._make(a, s.dtype) for a, s in zip(arrays, specs)]
                vs = self.run(body, elem + vs + caps)
            return tuple(vs)
        raise TypeError(f"{node.op} nodes can only be replayed while tracing.")


def replay(ir, inputs, variable_read=None, variables=None, given=None):
    """Outputs of graph ``ir`` computed from ``inputs`` (one per placeholder), as op calls;
    ``variables`` maps id(a variable of the graph) to the variable to use instead; ``given``
    (a gradient's recomputation) maps node ids to the values their forward run gave."""
    return Replay(variable_read, variables, given).run(ir, inputs)


class GivenControl(NamedTuple):
    """The forward run's outputs of a nested control-flow node, and the attrs its gradient
    reads them from (``autodiff.control_flow_grad``)."""

    outputs: tuple
    attrs: dict


def _side_effect(node) -> bool:
    op = REGISTRY[node.op]
    return bool(op.stateful or op.writes or node.meta.get("stateful"))


def substitute_variables(attrs, variables) -> dict:
    """A control-flow node's attrs with its sub-graphs' variables replaced (copies)."""
    out = dict(attrs)
    for k, v in attrs.items():
        if k == "var" and id(v) in variables:
            out[k] = variables[id(v)]
        elif hasattr(v, "nodes") and hasattr(v, "copy"):  # a sub-graph
            out[k] = _graph_with_variables(v, variables)
    return out


def _graph_with_variables(ir, variables):
    if not any("var" in n.attrs and id(n.attrs["var"]) in variables or _has_subgraph(n) for n in ir.nodes()):
        return ir
    new = ir.copy()
    for n in new.nodes():
        if "var" in n.attrs and id(n.attrs["var"]) in variables or _has_subgraph(n):
            n.attrs = substitute_variables(n.attrs, variables)
    return new


def _has_subgraph(node) -> bool:
    return any(hasattr(v, "nodes") and hasattr(v, "copy") for v in node.attrs.values())
