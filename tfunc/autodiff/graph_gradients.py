"""``tf.gradients`` and ``tf.hessians``: symbolic gradients of a function being traced.

TensorFlow's graph-mode gradients need no tape: they walk the graph built so far from the
targets back to the sources.  Here the same walk reads the traced graph (``ctx.graph``):
every node between the sources and the targets becomes a tape entry (its op, its inputs and
outputs as symbolic tensors, its attrs) and the tape's ``backprop`` applies the registry's
gradient rules, whose ops are added to the graph being traced.  Eagerly there is no graph
to walk, and TensorFlow's RuntimeError says to use a GradientTape.
"""

from __future__ import annotations

from ..api.array_ops import reshape, stack
from ..api.creation_ops import zeros, zeros_like
from ..core.context import ctx
from ..eager.convert import convert_to_tensor
from ..eager.tensor import EagerTensor
from ..ops.registry import REGISTRY
from ..tracing.symbolic import SymbolicTensor
from .tape import UnconnectedGradients, _differentiable, _Entry, backprop

__all__ = ["gradients", "hessians", "AggregationMethod"]


class AggregationMethod:
    """How gradients reaching one tensor are summed (``tf.AggregationMethod``).  Accepted for
    compatibility: every method gives the same sum, and tfunc adds them one by one."""

    ADD_N = 0
    DEFAULT = ADD_N
    EXPERIMENTAL_TREE = 1
    EXPERIMENTAL_ACCUMULATE_N = 2


_EAGER = "tf.gradients is not supported when eager execution is enabled. Use tf.GradientTape instead."


def _as_list(values) -> list:
    return list(values) if isinstance(values, (list, tuple)) else [values]


class _GraphWalk:
    """The traced graph seen as tape entries: one symbolic tensor object per node output (the
    caller's own objects where it holds them), so ``backprop`` can key gradients by id."""

    def __init__(self, graph, known):
        self.graph = graph
        self.ir = graph.ir
        self._tensors = {(t.node, t.index): t for t in known if _in_graph(t, graph)}

    def tensor(self, ref):
        t = self._tensors.get(ref)
        if t is None:
            t = self._tensors[ref] = SymbolicTensor(self.graph, ref[0], ref[1], self.ir.spec(ref))
        return t

    def stand_ins(self, x):
        """The graph tensors a source not made in the graph stands for: the reads of a variable
        (a Variable argument's stand-in counts), the constants holding an eager tensor the trace
        took in (``tf.constant`` while tracing is one); None for a tensor of the graph."""
        if getattr(x, "_is_tfunc_variable", False):
            return [self.tensor((n.id, 0)) for n in self.ir.nodes() if n.op == "read_variable" and _reads(n, x)]
        if isinstance(x, EagerTensor):
            value = x._value
            return [self.tensor((n.id, 0)) for n in self.ir.nodes() if n.op == "const" and n.attrs["value"] is value]
        if isinstance(x, SymbolicTensor) and x.graph is not self.graph:
            inner = _captured(self.graph, x)
            return [] if inner is None else [self.tensor((inner.node, inner.index))]
        return None

    def entries(self, sources, stopped):
        """(tape entries of the nodes that depend on ``sources``, the ids of the tensors that
        do).  A ``stopped`` tensor passes no gradient to the node that made it: that output
        is replaced, in its entry, by an object no gradient reaches."""
        tracked = {id(t): t for t in sources if _differentiable(t)}
        entries = []
        for node in sorted(self.ir.nodes(), key=lambda n: n.id):
            inputs = tuple(self.tensor(r) for r in node.inputs)
            if not any(id(t) in tracked for t in inputs):
                continue
            outputs = tuple(self.tensor((node.id, i)) for i in range(len(node.outputs)))
            for o in outputs:
                if _differentiable(o):
                    tracked[id(o)] = o
            cut = tuple(object() if id(o) in stopped else o for o in outputs)
            entries.append(_Entry(REGISTRY[node.op], inputs, cut, node.attrs))
        return entries, tracked


def _captured(graph, t):
    """The placeholder by which ``graph`` (a branch or loop body) took in ``t``, a tensor of an
    enclosing graph; None where it did not (then no gradient reaches ``t`` from here)."""
    if t.graph is graph:
        return t
    if graph.outer is None:
        return None
    outer = _captured(graph.outer, t)
    pos = None if outer is None else graph._outer_index.get((outer.node, outer.index))
    return None if pos is None else graph.outer_captures[pos][1]


def _reads(node, var) -> bool:
    read = node.attrs["var"]
    return read is var or getattr(read, "_target", None) is var


def _in_graph(t, graph) -> bool:
    return isinstance(t, SymbolicTensor) and t.graph is graph


def gradients(
    ys,
    xs,
    grad_ys=None,
    name="gradients",
    gate_gradients=False,
    aggregation_method=None,
    stop_gradients=None,
    unconnected_gradients=UnconnectedGradients.NONE,
):
    """d(sum of ``ys``)/d``x`` for each of ``xs`` (tensors or variables), as a list
    (``tf.gradients``); only while tracing a function.  ``grad_ys`` weigh the targets (None
    entries: ones); ``stop_gradients`` are held constant; ``name``, ``gate_gradients`` and
    ``aggregation_method`` are accepted for compatibility."""
    g = ctx.graph
    if g is None:
        raise RuntimeError(_EAGER)
    how = getattr(unconnected_gradients, "value", unconnected_gradients)
    if how not in ("none", "zero"):
        raise ValueError(f"unconnected_gradients must be 'none' or 'zero', got {unconnected_gradients!r}")
    ys = [convert_to_tensor(y) for y in _as_list(ys)]
    xs = _as_list(xs)
    weights = [None] * len(ys) if grad_ys is None else _as_list(grad_ys)
    if len(weights) != len(ys):
        raise ValueError(f"tf.gradients: grad_ys has {len(weights)} entries for {len(ys)} ys.")
    weights = [None if w is None else convert_to_tensor(w, dtype=y.dtype) for w, y in zip(weights, ys)]
    stopped = [t for t in _as_list(stop_gradients or []) if isinstance(t, SymbolicTensor)]
    walk = _GraphWalk(g, ys + [x for x in xs if isinstance(x, SymbolicTensor)] + stopped)
    stand_ins = [walk.stand_ins(x) for x in xs]
    per_source = [[x] if s is None else s for x, s in zip(xs, stand_ins)]
    sources = [t for ts in per_source for t in ts if _in_graph(t, g)]
    entries, tracked = walk.entries(sources, {id(t) for t in stopped})
    grads = backprop(entries, ys, weights, tracked)
    return [_result(x, ts, grads, how) for x, ts in zip(xs, per_source)]


def _result(x, tensors, grads, how):
    """The gradient of one source (summed over the tensors it stands for), or its value when
    the targets do not reach it."""
    total = None
    for p in (grads[id(t)] for t in tensors if id(t) in grads):
        total = p if total is None else total + p
    if total is None and how == "zero":
        return zeros(x.shape, x.dtype) if getattr(x, "_is_tfunc_variable", False) else zeros_like(x)
    return total


def hessians(ys, xs, name="hessians", colocate_gradients_with_ops=False, gate_gradients=False, aggregation_method=None):
    """The Hessian of sum(``ys``) with respect to each of ``xs`` (``tf.hessians``), shaped
    ``x.shape + x.shape``; only while tracing a function, for sources of known size."""
    if ctx.graph is None:
        raise RuntimeError(_EAGER)
    xs = _as_list(xs)
    out = []
    for x, g in zip(xs, gradients(ys, xs)):
        if g is None:
            out.append(None)
            continue
        n = x.shape.num_elements()
        if n is None:
            raise ValueError(f"tf.hessians needs a source of known size while tracing, got shape {x.shape}.")
        flat = reshape(g, [n])
        rows = [_zero_if_none(gradients(flat[i], x)[0], x) for i in range(n)]
        shape = x.shape.as_list()
        out.append(reshape(stack(rows), shape + shape) if rows else zeros(shape + shape, x.dtype))
    return out


def _zero_if_none(g, x):
    return zeros_like(x) if g is None else g
