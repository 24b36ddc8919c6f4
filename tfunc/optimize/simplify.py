"""Arithmetic simplification: algebraic identities, one rule per op.

Before::                                  After::

    %a = multiply(%x, 1.0)                    %y = tanh(%x)
    %b = add(%a, 0.0)
    %n = negative(negative(%b))
    %y = tanh(%n)

Rules: ``x*1``, ``1*x``, ``x+0``, ``0+x``, ``x-0``, ``x/1``, ``--x``,
``not not x``, ``cast`` to the same dtype, ``identity`` and ``stop_gradient``
(gradients are built while tracing, before optimization), ``transpose`` of a
``transpose``, ``reshape`` of a ``reshape`` or to the same shape.  A rule
applies only where the result has exactly the node's shape and dtype (so a
broadcasting ``x + 0`` stays).

One rule moves work rather than removing it: it hoists a unary elementwise op above a
``split`` whose parts it is applied to (as Grappler's HoistCWiseUnaryChains, which asks for
every part; here two parts that hold at least half of the input are enough): an LSTM's three
gate sigmoids become one call on the whole pre-activation, which the elementwise fusion then
joins to the matmul's epilogue::

    %i, %f, %c, %o = split(%z, 4)             %s = sigmoid(%z)
    %si = sigmoid(%i)                   ->    %si, %sf, _, %so = split(%s, 4)
    %sf = sigmoid(%f)                         %i, %f, %c, %o = split(%z, 4)
    %so = sigmoid(%o)
"""

from __future__ import annotations

import numpy as np

from ..core.shapes import num_elements
from ..ops.registry import REGISTRY
from .facts import attrs_key, const_value, is_pure


def _is_const(graph, ref, value) -> bool:
    v = const_value(graph, ref)
    if v is None or v.dtype.kind not in "biuf":
        return False
    if v.size == 1:  # most constants are scalars: one comparison, no ufunc reduction
        return bool(v.item() == value)
    return bool(np.all(v == value))


def _same_spec(graph, node, ref) -> bool:
    return graph.spec(ref) == node.outputs[0]


def _cannot_broadcast(graph, x_ref, c_ref) -> bool:
    """Whether a constant of ``c_ref``'s shape leaves every tensor of ``x_ref``'s spec its
    shape when broadcast with it (with unknown dimensions, equal static specs do not say so:
    ``[*] * ones([2, 0])`` is ``[2, 0]``)."""
    cs, xs = graph.spec(c_ref).shape, graph.spec(x_ref).shape
    if cs == ():
        return True
    if cs is None or xs is None or len(cs) > len(xs):
        return False
    return all(dc == 1 or dc == dx for dc, dx in zip(reversed(cs), reversed(xs)))


def _neutral(left_value=None, right_value=None):
    """x op c -> x when c is the neutral element (on the given sides)."""

    def rule(graph, node):
        a, b = node.inputs
        if (
            right_value is not None
            and _is_const(graph, b, right_value)
            and _same_spec(graph, node, a)
            and _cannot_broadcast(graph, a, b)
        ):
            return a
        if (
            left_value is not None
            and _is_const(graph, a, left_value)
            and _same_spec(graph, node, b)
            and _cannot_broadcast(graph, b, a)
        ):
            return b
        return None

    return rule


def _multiply(graph, node):
    return _neutral(1, 1)(graph, node)


def _passthrough(graph, node):
    return node.inputs[0]


def _involution(graph, node):
    inner = graph.node(node.inputs[0][0])
    if inner.op == node.op:
        return inner.inputs[0]
    return None


def _cast(graph, node):
    return node.inputs[0] if _same_spec(graph, node, node.inputs[0]) else None


def _transpose(graph, node):
    inner = graph.node(node.inputs[0][0])
    p2 = node.attrs["perm"]
    if inner.op != "transpose" or p2 is None or inner.attrs["perm"] is None:
        return None
    p1 = inner.attrs["perm"]
    combined = tuple(p1[i] for i in p2)
    if combined == tuple(range(len(combined))):
        return inner.inputs[0]
    graph.set_input(node.id, 0, inner.inputs[0])
    node.attrs = dict(node.attrs, perm=combined)
    return None


def _reshape(graph, node):
    src = node.inputs[0]
    inner = graph.node(src[0])
    if inner.op == "reshape":
        graph.set_input(node.id, 0, inner.inputs[0])
        src = inner.inputs[0]
    spec = graph.spec(src)
    if spec.shape is not None and None not in spec.shape and spec.shape == node.outputs[0].shape:
        return src
    return None


def _forward_results(graph, node):
    """A ``custom_gradient`` node is an identity on its first ``num_results`` inputs (the
    rest only connect tapes): every output reads its input instead."""
    n = node.attrs["num_results"]
    read = any(graph.uses((node.id, i)) for i in range(n)) or any(r[0] == node.id for r in graph.outputs)
    return list(node.inputs[:n]) if read else None


RULES = {
    "identity": _passthrough,
    "custom_gradient": _forward_results,
    "stop_gradient": _passthrough,
    "multiply": _multiply,
    "add": _neutral(0, 0),
    "subtract": _neutral(None, 0),
    "divide": _neutral(None, 1),
    "negative": _involution,
    "logical_not": _involution,
    "cast": _cast,
    "transpose": _transpose,
    "reshape": _reshape,
}


def _hoist_unary_through_split(graph) -> bool:
    changed = False
    for node in list(graph.nodes()):
        if node.op != "split" or node.id not in graph:
            continue
        x = node.inputs[0]
        x_spec = graph.spec(x)
        total = num_elements(x_spec.shape) if x_spec.shape is not None else None
        if not total:
            continue
        groups: dict = {}  # (op, attrs) -> {part index: [users]}
        for i in range(len(node.outputs)):
            for user, _slot in graph.uses((node.id, i)):
                op = REGISTRY[user.op]
                if op.is_elementwise and len(user.inputs) == 1 and len(user.outputs) == 1 and is_pure(user):
                    groups.setdefault((user.op, attrs_key(user.attrs)), {}).setdefault(i, []).append(user)
        for parts in groups.values():
            covered = sum(num_elements(node.outputs[i].shape) or 0 for i in parts)
            if len(parts) < 2 or 2 * covered < total:
                continue
            first = next(iter(parts.values()))[0]
            op = REGISTRY[first.op]
            (u_spec,) = op.infer([x_spec], first.attrs)
            u = graph.add_node(first.op, [x], dict(first.attrs), (u_spec,), name=first.name, at=node.id)
            part_specs = REGISTRY["split"].infer([u_spec], node.attrs)
            split = graph.add_node("split", [(u.id, 0)], dict(node.attrs), part_specs, name=node.name, at=node.id)
            for i, users in parts.items():
                for user in users:
                    graph.replace_uses((user.id, 0), (split.id, i))
            graph.note(f"{first.op} of {len(parts)} parts of {node.name} -> {u.name} before {split.name}")
            changed = True
    return changed


def simplify_arithmetic(graph) -> bool:
    changed = _hoist_unary_through_split(graph)
    for node in list(graph.nodes()):
        rule = RULES.get(node.op)
        if rule is None or node.id not in graph:
            continue
        inputs_before = node.inputs
        replacement = rule(graph, node)
        if isinstance(replacement, list):  # a multi-output node: one replacement per output
            for i, ref in enumerate(replacement):
                graph.replace_uses((node.id, i), ref)
            graph.note(f"{node.name}: {node.op} -> its inputs")
            changed = True
        elif replacement is not None:
            graph.replace_uses((node.id, 0), replacement)
            graph.note(f"{node.name}: {node.op} -> {graph.node(replacement[0]).name}")
            changed = True
        elif node.inputs != inputs_before:
            graph.note(f"{node.name}: {node.op} of {node.op} combined")
            changed = True
    return changed
