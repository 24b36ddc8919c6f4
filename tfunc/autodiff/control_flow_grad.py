"""Gradients of control flow: conditionals, loops, and the per-iteration loop stacks."""

from __future__ import annotations

from ..api.control_flow_ops import build_cond, build_while
from ..api.indexed_slices import densify
from ..eager.dispatch import call
from ..ops.control_flow import VARIANT, loop_stack_read_op, loop_stack_size_op, unstash_op
from ..ops.registry import REGISTRY
from ..tracing.replay import GivenControl, replay
from ..tracing.symbolic import SymbolicTensor
from .registry import no_gradient, register_gradient
from .tape import GradientTape
from .tensor_array_grad import handle_info, info_at, zeros_grad

no_gradient("loop_stack_size", "loop_stack_read")
# As TensorFlow's ReduceDataset: no gradient flows through a loop over a dataset (a tape inside
# the function records no loop; one outside, replaying the function for its gradient, does).
no_gradient("dataset_loop")


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
            if info is None and _is_kept_values(t):
                continue  # a stash or a loop's stack: forward values, no gradient
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


def _is_kept_values(t) -> bool:
    """Whether ``t`` is a stash of forward values (a cond's or a stash node's) or a loop's
    stack of iterations (see :func:`with_stash`)."""
    if not isinstance(t, SymbolicTensor):
        return False
    node = t.graph.ir.node(t.node)
    if node.op in ("stash", "unstash", "loop_stack_read"):
        return True
    stash = node.attrs.get("stash") if node.op == "cond" else None
    if stash is not None and t.index == stash[2]:
        return True
    return node.op == "while_loop" and node.attrs.get("accumulate") and t.index == node.attrs["n_loop_vars"]


def _stashed(node) -> bool:
    """Whether the forward run keeps this node's values for the gradient's recomputation: a
    random draw must not be drawn again, a variable read must see the value of its time, an
    assignment must not happen twice, and a TensorArray's size must be that of its time (its
    buffer grows in place: recomputed, ``ta.write(ta.size(), x)`` would write past the end).
    None of them passes a gradient to its inputs."""
    if not node.outputs or node.op in ("const", "placeholder"):
        return False
    op = REGISTRY[node.op]
    return op.kind != "control" and (
        op.random or op.writes == "var" or node.op in ("read_variable", "tensor_array_size")
    )


def _keeps(ir) -> bool:
    """Whether a sub-graph, or one nested in it, has values to keep."""
    for n in ir.nodes():
        if _stashed(n) or n.op in ("cond", "while_loop") and any(_keeps(g) for g in _subgraphs(n)):
            return True
    return False


def _subgraphs(node):
    keys = ("true_graph", "false_graph") if node.op == "cond" else ("cond_graph", "body_graph")
    return [node.attrs[k] for k in keys]


def with_stash(ir):
    """``(copy of ir with one more output, a stash of its kept values, entries)``; entries are
    ``(node id, output specs, kind)`` in the stash's order. A nested cond or loop with values
    to keep is made to output its own stash, kept whole (kind: ``("cond", its stash entries)``
    or ``("while", its body's)``; None for a plain node)."""
    new = ir.copy()
    entries = []
    for n in new.nodes():
        if _stashed(n):
            entries.append((n.id, tuple(n.outputs), None))
        elif n.op == "cond" and any(_keeps(g) for g in _subgraphs(n)):
            _stash_cond_node(n)
            entries.append((n.id, tuple(n.outputs), ("cond", n.attrs["stash"])))
        elif n.op == "while_loop" and any(_keeps(g) for g in _subgraphs(n)):
            _accumulate(n)
            entries.append((n.id, tuple(n.outputs), ("while", n.attrs.get("stash"))))
    refs = [(nid, k) for nid, specs, _ in entries for k in range(len(specs))]
    stash = new.add_node("stash", refs, {}, (VARIANT,), name="stash")
    new.outputs = list(new.outputs) + [(stash.id, 0)]
    return new, tuple(entries)


def unstash(stash, entries, ir, inputs) -> dict:
    """The forward values of a stash of sub-graph ``ir`` (recomputed from ``inputs``) as
    ``Replay``'s ``given``: node id -> output tensors (for a nested cond or loop, a
    :class:`GivenControl` with its own stash for its gradient)."""
    specs = [spec for _, out, _ in entries for spec in out]
    if not specs:
        return {}
    values = call(unstash_op, (stash,), {"specs": tuple(specs)})
    values = list(values) if isinstance(values, (list, tuple)) else [values]
    given, k, handles = {}, 0, {}
    for nid, out, kind in entries:
        got = tuple(values[k : k + len(out)])
        if kind is not None:  # a nested loop or cond may output TensorArray handles: note which
            for p in range(len(out) - 1):  # (not its own stash, the last)
                if out[p].dtype.is_variant and (info := info_at(ir, (nid, p), inputs)) is not None:
                    handles[k + p] = info
        k += len(out)
        if kind is None:
            given[nid] = got
        elif kind[0] == "cond":  # its last output: its branches' stash
            given[nid] = GivenControl(got[:-1], {"forward_stash": got[-1], "stash": kind[1]})
        else:  # a loop's last output: the stack of its iterations
            given[nid] = GivenControl(got[:-1], {"forward_stack": got[-1], "stash": kind[1]})
    if handles:  # for handle_info, as on a loop's stack read
        values[0].graph.ir.node(values[0].node).meta["handle_infos"] = handles
    return given


def _stash_cond_node(node) -> None:
    """Makes a cond node output its branches' stash (once)."""
    if "stash" in node.attrs:
        return
    tg, t_entries = with_stash(node.attrs["true_graph"])
    fg, f_entries = with_stash(node.attrs["false_graph"])
    if not t_entries and not f_entries:
        node.attrs = dict(node.attrs, stash=None)
        return
    node.attrs = dict(
        node.attrs,
        true_graph=tg,
        false_graph=fg,
        stash=(t_entries, f_entries, len(node.outputs)),
        out_specs=tuple(node.attrs["out_specs"]) + (VARIANT,),
    )
    node.outputs = tuple(node.outputs) + (VARIANT,)


def _accumulate(node) -> None:
    """Makes a loop node keep each iteration's values, and its body's stash, on a stack (its
    last output; once)."""
    if node.attrs.get("accumulate"):
        return
    body, entries = with_stash(node.attrs["body_graph"])
    kept = {"body_graph": body, "stash": entries} if entries else {}
    node.attrs = dict(node.attrs, accumulate=True, out_specs=tuple(node.attrs["out_specs"]) + (VARIANT,), **kept)
    node.outputs = tuple(node.outputs) + (VARIANT,)


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
    return [densify(g) if g is not None else zeros_grad(inputs[i], infos.get(i)) for g, i in zip(grads, wrt)]


def _cond_stash(op):
    """``(true entries, false entries, stash tensor)`` of the forward cond (made to output its
    branches' stash once), or None when neither branch has values to keep."""
    if "forward_stash" in op.attrs:  # a nested cond recomputed by an outer gradient: its forward stash
        node_attrs = op.attrs
        stash = op.attrs["forward_stash"]
    else:
        out0 = op.outputs[0] if op.outputs else None
        if not isinstance(out0, SymbolicTensor):
            return None
        node = out0.graph.ir.node(out0.node)
        _stash_cond_node(node)
        node_attrs = node.attrs
        stash = (
            None
            if node_attrs["stash"] is None
            else SymbolicTensor(out0.graph, node.id, node_attrs["stash"][2], VARIANT)
        )
    if node_attrs.get("stash") is None:
        return None
    t_entries, f_entries, _ = node_attrs["stash"]
    return t_entries, f_entries, stash


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
            given = unstash(stash[2], stash[which], graph, caps) if stash is not None else None
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
    if "forward_stack" in op.attrs:  # a nested loop recomputed by an outer gradient: its forward stack
        stack, entries = op.attrs["forward_stack"], op.attrs.get("stash")
    else:
        out0 = op.outputs[0] if op.outputs else None
        if out0 is None or not isinstance(out0, SymbolicTensor):
            raise TypeError("while_loop gradients are computed while tracing.")
        node = out0.graph.ir.node(out0.node)
        _accumulate(node)
        entries = node.attrs.get("stash")
        stack = SymbolicTensor(out0.graph, node.id, n, VARIANT)
    infos: dict = {}  # index in init + caps -> handle_info of a TensorArray handle
    fvars = _float_indices(init, infos)
    cap_infos: dict = {}
    fcaps = [j for j in _float_indices(caps, cap_infos) if op.needs(n + j)]
    infos.update({n + j: info for j, info in cap_infos.items()})
    if not fvars and not fcaps:
        return [None] * len(op.inputs)
    body = op.attrs["body_graph"]
    specs = tuple(op.attrs["out_specs"][:n])
    count = call(loop_stack_size_op, (stack,), {})
    dl0 = [dys[i] if dys[i] is not None else zeros_grad(op.outputs[i], infos.get(i)) for i in fvars]
    dc0 = [zeros_grad(caps[j], infos.get(n + j)) for j in fcaps]

    handles = {k: info for k, info in infos.items() if k < n}  # of the loop variables

    def cond_fn(i, *rest):
        return i >= 0

    def body_fn(i, *rest):
        dl, dc = list(rest[: len(fvars)]), list(rest[len(fvars) :])
        vals = list(call(loop_stack_read_op, (stack, i), {"specs": specs + ((VARIANT,) if entries else ())}))
        if handles:  # the stack keeps no trace of which values are TensorArray handles: note it
            # on the read for handle_info (a nested loop or cond of the recomputed body takes them)
            vals[0].graph.ir.node(vals[0].node).meta["handle_infos"] = handles
        stashed = vals.pop() if entries else None
        ins = vals + caps
        given = unstash(stashed, entries, body, ins) if entries else None  # the iteration's draws, reads, writes
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
