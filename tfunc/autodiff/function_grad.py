"""A traced function called eagerly under a gradient tape.

The tape records the whole call as one op.  Its gradient runs a traced
backward graph that reuses values the forward run saved, instead of
recomputing the function: the traced graph is replayed under a tape in a
scratch graph, the gradient is taken there, and the result is split in two
at the nodes the gradient added.  Forward values the backward part reads
become extra outputs of the forward plan.  Both halves are optimized and
lowered like any function; the split is built once per concrete function.
"""

from __future__ import annotations

from .. import backend as _backend
from ..api.creation_ops import zeros_like
from ..api.indexed_slices import densify
from ..core.context import ctx, record_operation
from ..eager.tensor import EagerTensor
from ..ops.control_flow import function_call_op
from ..optimize.pipeline import optimize
from ..plan.lower import annotate_error, lower_graph
from ..tracing.func_graph import FuncGraph
from ..tracing.replay import replay
from .registry import register_gradient
from .tape import GradientTape


class _Split:
    """Forward plan (outputs + saved values) and backward plan (grads from dys + saved)."""

    def __init__(self, cf, variables, needed, constants=()):
        """``needed``: which flat inputs, then which ``constants`` (const node ids of eager
        tensors the trace folded in), then which variables, need gradients.  Those constants
        become inputs of the split graph, after the function's own."""
        ir = cf.graph.ir
        if constants:
            ir = ir.copy()
            for nid in constants:
                spec = ir.spec((nid, 0))
                p = ir.add_node("placeholder", (), {"spec": spec}, (spec,), name="captured", at=nid)
                ir.replace_uses((nid, 0), (p.id, 0))
                ir.remove_node(nid)
                ir.inputs.append(p.id)
        self.ir = ir
        self.variables = variables
        specs = [ir.spec((nid, 0)) for nid in ir.inputs]
        fg = FuncGraph(f"{cf.name}_forward_backward")
        with fg.as_default():
            inputs = [fg.placeholder(s, name=ir.node(nid).name) for s, nid in zip(specs, ir.inputs)]
            with GradientTape(watch_accessed_variables=False) as tape:
                for t, need in zip(list(inputs) + list(variables), needed):
                    if need:
                        tape.watch(t)
                outputs = replay(ir, inputs)
            first_backward = fg.ir._next_id
            self.float_outputs = [i for i, o in enumerate(outputs) if o.dtype.is_floating]
            dys = [fg.placeholder(outputs[i]._spec, name="output_grad") for i in self.float_outputs]
            sources = [t for t in inputs] + list(variables)
            grads = tape.gradient([outputs[i] for i in self.float_outputs], sources, output_gradients=dys)
            grads = [densify(g) if need else None for g, need in zip(grads, needed)]  # graph outputs: dense
        self.n_inputs = len(inputs)
        self.has_grad = [g is not None for g in grads]
        g_refs = [(g.node, g.index) for g in grads if g is not None]
        self._build(
            fg.ir, [(o.node, o.index) for o in outputs], [(d.node, 0) for d in dys], g_refs, first_backward, cf.name
        )

    def _build(self, ir, out_refs, dy_nodes, grad_refs, first_backward, name):
        backward_ids = {nid for nid in ir.nx.nodes if nid >= first_backward}
        saved = []
        for nid in backward_ids:
            for r in ir.node(nid).inputs:
                if r[0] not in backward_ids and ir.node(r[0]).op != "const" and r not in saved:
                    saved.append(r)
        # forward: the original inputs -> the outputs and every saved value
        fwd = ir.copy()
        fwd.remove_nodes(backward_ids)
        fwd.outputs = list(out_refs) + saved
        fwd.name = f"{name}_forward"
        self.n_outputs = len(out_refs)
        # backward: output grads + saved values -> input and variable grads
        bwd = ir.copy()
        bwd.name = f"{name}_backward"
        keep = set(backward_ids)
        for nid in list(keep):
            for r in ir.node(nid).inputs:
                if ir.node(r[0]).op == "const":
                    keep.add(r[0])
        mapping = {}
        for r in saved:
            p = bwd.add_node("placeholder", (), {"spec": ir.spec(r)}, (ir.spec(r),), name="saved")
            mapping[r] = (p.id, 0)
        for nid in backward_ids:
            node = bwd.node(nid)
            for slot, r in enumerate(node.inputs):
                if r in mapping:
                    bwd.set_input(nid, slot, mapping[r])
            bwd.set_control(nid, [c for c in node.control if c in keep])
        bwd.remove_nodes([nid for nid in bwd.nx.nodes if nid not in keep and (nid, 0) not in mapping.values()])
        bwd.inputs = [r[0] for r in dy_nodes] + [mapping[r][0] for r in saved]
        bwd.outputs = list(grad_refs)
        self.forward_graph, _ = optimize(fwd)
        self.backward_graph, _ = optimize(bwd)
        self.forward = lower_graph(self.forward_graph, _backend.current(), name=fwd.name)
        self.backward = lower_graph(self.backward_graph, _backend.current(), name=bwd.name)


def _read_variables(cf):
    ir = cf.graph.ir
    return [
        v
        for v in cf.graph.variables.values()
        if any(n.op == "read_variable" and n.attrs["var"] is v for n in ir.nodes())
    ]


_NESTED_CAPTURE = (
    "{name}: a watched tensor the function reads from its closure is used in a branch, loop body "
    "or nested function, where tfunc cannot differentiate it; pass it to the function as an argument."
)


def _capture_index(cf):
    """Built once per concrete function: its floating eager captures folded in as top-level
    constants (by tensor id: (tensor, const node id)), their ids as a frozenset, and the ids of
    the arrays held by constants of its sub-graphs (branches, loop bodies, nested functions)."""
    index = cf.__dict__.get("_capture_index")
    if index is None:
        captures = getattr(cf.graph, "_const_captures", None) or {}
        floats = {k: t for k, (t, _, _) in captures.items() if t._dtype.is_floating}
        inlined = getattr(cf.graph, "_inlined_captures", None) or {}
        floats.update({k: t for k, t in inlined.items() if t._dtype.is_floating})
        top: dict = {}  # id(array) -> the top-level const nodes holding it (an inlined nested
        nested: set = set()  # function copies its own const node of the same array)

        def walk(ir, is_top):
            for node in ir.nodes():
                if node.op == "const":
                    if is_top:
                        top.setdefault(id(node.attrs["value"]), []).append(node.id)
                    else:
                        nested.add(id(node.attrs["value"]))
                for v in node.attrs.values():
                    sub = v if hasattr(v, "nodes") else getattr(getattr(v, "graph", None), "ir", None)
                    if sub is not None and hasattr(sub, "nodes"):
                        walk(sub, False)

        walk(cf.graph.ir, True)
        inner = frozenset(getattr(cf.graph, "_nested_const_captures", None) or ())
        index = cf.__dict__["_capture_index"] = (floats, frozenset(floats), top, nested, inner)
    return index


def _captured_constants(cf, tapes) -> list:
    """The floating eager tensors a trace folded in as constants (a tensor the function reads
    from its closure) that a recording tape tracks: (tensor, const node id).  As constants
    they would be invisible to the tape; the split takes them as inputs instead.  One that a
    sub-graph folded in (a branch, a loop body) is refused: its gradient there would be lost,
    and a partial gradient, or None, would read as a wrong answer."""
    floats, keys, top, nested, inner = _capture_index(cf)
    if not keys and not inner:
        return []
    hit: set = set()
    for tape in tapes:
        hit |= keys & tape._tracked.keys()
        if inner and inner & tape._tracked.keys():
            raise NotImplementedError(_NESTED_CAPTURE.format(name=cf.name))
    out = []
    for k in hit:
        t = floats[k]
        if id(t._value) in nested:
            raise NotImplementedError(_NESTED_CAPTURE.format(name=cf.name))
        out.extend((t, nid) for nid in top.get(id(t._value), ()))  # each const node an input of its own
    return sorted(out, key=lambda pair: pair[1])


def _split(cf, variables, needed, constants=()):
    """The forward/backward split for this set of needed gradients (built once each)."""
    cache = cf.__dict__.setdefault("_grad_splits", {})
    key = (needed, tuple(constants))
    s = cache.get(key)
    if s is None:
        s = cache[key] = _Split(cf, variables, needed, tuple(constants))
    cf._grad_split = s
    return s


def has_custom_gradient(ir) -> bool:
    """Whether a traced graph (or one of its branches or loop bodies) holds a
    ``tf.custom_gradient`` node."""
    for node in ir.nodes():
        if node.op == "custom_gradient":
            return True
        if any(hasattr(v, "nodes") and has_custom_gradient(v) for v in node.attrs.values()):
            return True
    return False


def gradient_split(cf) -> _Split:
    """The split of ``cf`` with every float input and every variable it reads needing a
    gradient (what a SavedModel keeps of a function with custom gradients)."""
    variables = _read_variables(cf)
    ir = cf.graph.ir
    needed = tuple(ir.spec((nid, 0)).dtype.is_floating for nid in ir.inputs) + tuple(
        v.dtype.is_floating for v in variables
    )
    return _Split(cf, variables, needed)


@register_gradient("function_call")
def _call_grad(op, *dys):
    if any(t._recording for t in ctx.tapes):
        return _replayed_grad(op, dys)
    split, saved = op.attrs["split"], op.attrs["saved"]
    arrays = [dys[i]._value if dys[i] is not None else _zeros(op.outputs[i]) for i in split.float_outputs]
    try:
        grads = split.backward.fn(*arrays, *saved)
    except Exception as e:
        raise annotate_error(e, split.backward) from e
    out, k = [], 0
    for present, t in zip(split.has_grad, op.inputs):
        if present:
            out.append(EagerTensor._make(grads[k], t.dtype))
            k += 1
        else:
            out.append(None)
    return out


def _replayed_grad(op, dys):
    """The gradient while an outer tape records (a higher-order gradient): replay the
    function eagerly under a tape, so every op of the backward pass is recorded too."""
    split, ir = op.attrs["split"], op.attrs["graph"]
    n = split.n_inputs
    inputs, reads = list(op.inputs[:n]), dict(zip((v._unique_id for v in split.variables), op.inputs[n:]))
    sources = list(op.inputs)
    with GradientTape(watch_accessed_variables=False) as tape:
        for t, present in zip(sources, split.has_grad):
            if present:
                tape.watch(t)
        outs = replay(ir, inputs, variable_read=lambda var: reads[var._unique_id])
    pairs = [(outs[i], dys[i]) for i in split.float_outputs if dys[i] is not None]
    grads = tape.gradient([o for o, _ in pairs], sources, output_gradients=[d for _, d in pairs])
    return [densify(g) if present else None for g, present in zip(grads, split.has_grad)]


def _zeros(t):
    return zeros_like(t)._value


def call_with_tape(cf, flat):
    """Runs ``cf`` eagerly on its flat input tensors and records the call on the active tapes
    as one op; returns its flat output tensors, or None when no tape needs the call (the
    caller then runs it plainly)."""
    tapes = [t for t in ctx.tapes if t._recording]
    # A variable this trace creates from an argument gets its value from this very run: no
    # tape saw it before, and (as in TensorFlow) no gradient reaches its initial value.
    variables = [v for v in _read_variables(cf) if v._value is not None]
    reads = [v._read_for_tapes() for v in variables]
    constants = _captured_constants(cf, tapes)
    flat = list(flat) + [t for t, _ in constants]
    needed = tuple(t.dtype.is_floating and any(id(t) in tape._tracked for tape in tapes) for t in flat + reads)
    if not any(needed):
        return None
    split = _split(cf, variables, needed, [nid for _, nid in constants])
    arrays = [t._value for t in flat]
    try:
        results = split.forward.fn(*arrays)
    except Exception as e:
        raise annotate_error(e, split.forward) from e
    outs, saved = results[: split.n_outputs], results[split.n_outputs :]
    out_tensors = tuple(EagerTensor._make(a, s.dtype) for a, s in zip(outs, cf._output_specs))
    record_operation(
        function_call_op,
        tuple(flat) + tuple(reads),
        out_tensors,
        {"split": split, "saved": saved, "graph": split.ir},
    )
    return out_tensors
