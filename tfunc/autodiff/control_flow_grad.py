"""Gradients of control flow: conditionals, loops, and the per-iteration loop stacks."""

from __future__ import annotations

from ..api.control_flow_ops import build_cond, build_while
from ..eager.dispatch import call
from ..ops.control_flow import VARIANT, loop_stack_read_op, loop_stack_size_op, unstash_op
from ..ops.registry import REGISTRY
from ..tracing.replay import replay
from ..tracing.symbolic import SymbolicTensor
from .registry import no_gradient, register_gradient
from .tape import GradientTape
from .tensor_array_grad import handle_info, zeros_grad

no_gradient("loop_stack_size", "loop_stack_read")


def _float_indices(tensors, infos=None):
    """Indices of the tensors that carry gradients: floats, and the handles of float
    TensorArrays (whose gradient is a dense (size, *element shape) tensor); ``infos`` (a dict)
    receives each such handle's :func:`handle_info`."""
    out = []
    for i, t in enumerate(tensors):
        dt = t.dtype
        if dt.is_floating:
            out.append(i)
        elif dt.is_variant:
            info = handle_info(t)
            if info is None:
                raise LookupError(
                    "gradient registry has no entry for a variant value passing through control flow "
                    "(tfunc cannot tell which TensorArray it is)."
                )
            if info[0].is_floating:
                out.append(i)
                if infos is not None:
                    infos[i] = info
    return out


def _stashed(node) -> bool:
    """Whether the forward run keeps this node's values for the gradient's recomputation: a
    random draw must not be drawn again, a variable read must see the value of its time, an
    assignment must not happen twice (none of them passes a gradient to its inputs)."""
    if not node.outputs or node.op in ("const", "placeholder"):
        return False
    op = REGISTRY[node.op]
    return op.kind != "control" and (op.random or op.writes == "var" or node.op == "read_variable")


def with_stash(ir):
    """``(ir with one more output, a stash of its kept values, entries)``: entries are
    ``(node id, output specs)`` in the stash's order (none: a stash of nothing)."""
    entries = tuple((n.id, tuple(n.outputs)) for n in ir.nodes() if _stashed(n))
    new = ir.copy()
    refs = [(nid, k) for nid, specs in entries for k in range(len(specs))]
    stash = new.add_node("stash", refs, {}, (VARIANT,), name="stash")
    new.outputs = list(new.outputs) + [(stash.id, 0)]
    return new, entries


def unstash(stash, entries) -> dict:
    """The forward values of a stash as ``Replay``'s ``given``: node id -> output tensors."""
    specs = [spec for _, out in entries for spec in out]
    if not specs:
        return {}
    values = call(unstash_op, (stash,), {"specs": tuple(specs)})
    values = list(values) if isinstance(values, (list, tuple)) else [values]
    given, k = {}, 0
    for nid, out in entries:
        given[nid] = tuple(values[k : k + len(out)])
        k += len(out)
    return given


def subgraph_vjp(graph, inputs, wrt, output_grads, infos=None, given=None):
    """Gradients of ``graph``'s outputs (weighted by ``output_grads``) with respect to
    ``inputs[i]`` for i in ``wrt``: the graph is replayed (recomputed) under a tape, with the
    forward run's values of its stashed nodes (``given``, see :func:`unstash`) and without its
    side effects.  ``infos`` maps the index of a TensorArray handle input to its
    :func:`handle_info` (for its zeros)."""
    infos = infos or {}
    with GradientTape(watch_accessed_variables=False) as tape:
        for i in wrt:
            tape.watch(inputs[i])
        outs = replay(graph, inputs, given={} if given is None else given)
    pairs = [
        (o, g) for o, g in zip(outs, output_grads) if g is not None and (o.dtype.is_floating or o.dtype.is_variant)
    ]
    if not pairs:
        return [zeros_grad(inputs[i], infos.get(i)) for i in wrt]
    grads = tape.gradient([o for o, _ in pairs], [inputs[i] for i in wrt], output_gradients=[g for _, g in pairs])
    return [g if g is not None else zeros_grad(inputs[i], infos.get(i)) for g, i in zip(grads, wrt)]


def _cond_stash(op):
    """The forward cond node made to output its branch's stash (once): ``(true entries, false
    entries, stash tensor)``, or None when neither branch has values to keep."""
    out0 = op.outputs[0] if op.outputs else None
    if not isinstance(out0, SymbolicTensor):
        return None
    graph = out0.graph
    node = graph.ir.node(out0.node)
    if "stash" not in node.attrs:
        tg, t_entries = with_stash(node.attrs["true_graph"])
        fg, f_entries = with_stash(node.attrs["false_graph"])
        if not t_entries and not f_entries:
            node.attrs = dict(node.attrs, stash=None)
        else:
            index = len(node.outputs)
            node.attrs = dict(
                node.attrs,
                true_graph=tg,
                false_graph=fg,
                stash=(t_entries, f_entries, index),
                out_specs=tuple(node.attrs["out_specs"]) + (VARIANT,),
            )
            node.outputs = tuple(node.outputs) + (VARIANT,)
    if node.attrs["stash"] is None:
        return None
    t_entries, f_entries, index = node.attrs["stash"]
    return t_entries, f_entries, SymbolicTensor(graph, node.id, index, VARIANT)


@register_gradient("cond")
def _cond_grad(op, *dys):
    """A cond of the two branches' gradients (each branch recomputed from the captures, with
    the forward run's random draws, variable reads and assignments)."""
    pred, caps = op.inputs[0], list(op.inputs[1:])
    infos: dict = {}
    wrt = [i for i in _float_indices(caps, infos) if op.needs(i + 1)]
    if not wrt:
        return [None] * len(op.inputs)
    stash = _cond_stash(op)

    def branch(graph, which):
        def vjp():
            given = unstash(stash[2], stash[which]) if stash is not None else None
            return subgraph_vjp(graph, caps, wrt, list(dys), infos, given)

        return vjp

    grads = build_cond(pred, branch(op.attrs["true_graph"], 0), branch(op.attrs["false_graph"], 1))
    out = [None] * len(op.inputs)
    for i, g in zip(wrt, grads):
        out[i + 1] = g
    return out


@register_gradient("while_loop")
def _while_grad(op, *dys):
    """Reverse-mode through a loop by storing each iteration's loop values: the forward
    loop is switched to accumulate them; a backward loop walks them from the last
    iteration, recomputing one body at a time under a tape."""
    n = op.attrs["n_loop_vars"]
    init, caps = list(op.inputs[:n]), list(op.inputs[n:])
    out0 = op.outputs[0] if op.outputs else None
    if out0 is None or not isinstance(out0, SymbolicTensor):
        raise TypeError("while_loop gradients are computed while tracing.")
    graph = out0.graph
    node = graph.ir.node(out0.node)
    if not node.attrs.get("accumulate"):
        body_with_stash, entries = with_stash(node.attrs["body_graph"])
        kept = {"body_graph": body_with_stash, "stash": entries} if entries else {}
        node.attrs = dict(node.attrs, accumulate=True, out_specs=tuple(node.attrs["out_specs"]) + (VARIANT,), **kept)
        node.outputs = tuple(node.outputs) + (VARIANT,)
    entries = node.attrs.get("stash")
    stack = SymbolicTensor(graph, node.id, n, VARIANT)
    infos: dict = {}  # index in init + caps -> handle_info of a TensorArray handle
    fvars = _float_indices(init, infos)
    cap_infos: dict = {}
    fcaps = [j for j in _float_indices(caps, cap_infos) if op.needs(n + j)]
    infos.update({n + j: info for j, info in cap_infos.items()})
    if not fvars and not fcaps:
        return [None] * len(op.inputs)
    body = op.attrs["body_graph"]
    specs = node.attrs["out_specs"][:n]
    count = call(loop_stack_size_op, (stack,), {})
    dl0 = [dys[i] if dys[i] is not None else zeros_grad(op.outputs[i], infos.get(i)) for i in fvars]
    dc0 = [zeros_grad(caps[j], infos.get(n + j)) for j in fcaps]

    def cond_fn(i, *rest):
        return i >= 0

    def body_fn(i, *rest):
        dl, dc = list(rest[: len(fvars)]), list(rest[len(fvars) :])
        vals = list(call(loop_stack_read_op, (stack, i), {"specs": specs + ((VARIANT,) if entries else ())}))
        given = unstash(vals.pop(), entries) if entries else None  # the iteration's draws, reads, writes
        ins = vals + caps
        wrt = fvars + [n + j for j in fcaps]
        out_grads = [None] * n
        for k, v in zip(fvars, dl):
            out_grads[k] = v
        grads = subgraph_vjp(body, ins, wrt, out_grads, infos, given)
        new_dl = grads[: len(fvars)]
        new_dc = [a + b for a, b in zip(dc, grads[len(fvars) :])]
        return [i - 1] + new_dl + new_dc

    outs = build_while(
        cond_fn,
        body_fn,
        [count - 1] + dl0 + dc0,
        names=["grad_index"] + [f"grad_{k}" for k in fvars] + [f"grad_capture_{j}" for j in fcaps],
    )
    result = [None] * len(op.inputs)
    for k, g in zip(fvars, outs[1 : 1 + len(fvars)]):
        result[k] = g
    for j, g in zip(fcaps, outs[1 + len(fvars) :]):
        result[n + j] = g
    return result
