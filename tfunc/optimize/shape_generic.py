"""Retraces that differ only in dimension sizes reuse the optimizer's work.

A function called with a new input shape is traced again (as in TensorFlow: the guide's
retracing rules), and the new graph is usually the old one with other sizes.  For a graph
made only of elementwise ops, constants, placeholders and identities, no optimizer pass
reads a size as a number: simplification and fusion compare shapes for equality and
broadcasting (is a dimension 1, unknown, equal to another), constant folding computes
only from constant values, and CSE and dead-code elimination read the structure.  So two
such graphs that agree in everything but the sizes, with the same pattern of which
dimensions are 0, 1, unknown or equal to one another, are optimized alike.

:class:`ShapeGenericCache` keys a graph by that structure (every other size replaced by a
symbol numbered by first appearance; constants, names and attrs by value) and, on a hit,
returns the earlier trace's optimized graph with each symbol's old size replaced by the
new one in every spec and the new trace's source locations.  Anything it cannot key
exactly (another op, a constant above :data:`~.facts.SMALL` elements, an attr without a
value key) is optimized from scratch, as is every first trace.  Lowering always runs
on the result, so the plan is built for the new shapes.
"""

from __future__ import annotations

import collections
import threading

from ..core.specs import Spec
from ..graph.verify import GraphVerificationError, verify_graph
from ..ops.registry import REGISTRY
from .facts import Unkeyable, value_key
from .pipeline import optimize

_OTHER_OPS = frozenset({"const", "placeholder", "identity"})
_FUSED = "fused_elementwise"
_CONST_ATTRS = {"value", "dtype"}
_GENERIC: dict = {}  # op name -> _generic_op(name)
MAX_ENTRIES = 8  # per function: a few dtype or rank variants
MAX_NODES = 4096  # larger traces are not kept (a key and a graph copy each, for as long as the function)


def _generic_op(name: str) -> bool:
    """Ops whose optimization reads sizes only through the shape pattern (memoized by name)."""
    ok = _GENERIC.get(name)
    if ok is None:
        op = REGISTRY.get(name)
        ok = _GENERIC[name] = name in _OTHER_OPS or (
            op is not None and op.kind == "elementwise" and not op.shape_only_inputs and op.static_value is None
        )
    return ok


def _meta_key(meta: dict, name, sources: dict):
    """Node meta less its source location (which goes into ``sources``): the output
    identities of a trace carry the caller's line, which differs between call sites."""
    items = []
    for k, v in meta.items():
        if k == "source":
            sources[name] = v
        else:
            items.append((k, v))
    if not items:
        return ()
    items_t = tuple(items)
    try:
        hash(items_t)
    except TypeError:
        return value_key(dict(items))
    return items_t


def structure_key(graph):
    """``(key, sizes, sources)``: the graph's structure with each dimension other than 0, 1
    and unknown replaced by a symbol (``-1``, ``-2``, ... by first appearance), the sizes the
    symbols stand for, and each node's source location by name; None when the graph holds
    something this cache cannot key."""
    symbols: dict = {}
    sources: dict = {}
    shapes: dict = {}  # shape -> its key (most tensors of a trace share a few shapes)

    def shape_key(shape):
        if shape is None:
            return None
        key = shapes.get(shape)
        if key is None:
            out = []
            for d in shape:
                if d is None or d == 0 or d == 1:
                    out.append(d)
                else:
                    s = symbols.get(d)
                    if s is None:
                        s = symbols[d] = -1 - len(symbols)
                    out.append(s)
            key = shapes[shape] = tuple(out)
        return key

    parts = []
    try:
        for i, node in enumerate(graph.nodes()):
            op = node.op
            if not _generic_op(op) or node.id != i:  # ids of a fresh trace are its positions
                return None
            attrs, outs = node.attrs, node.outputs
            if not attrs:
                attrs_key = ()
            elif op == "const" and attrs.keys() == _CONST_ATTRS:  # the usual const: no dict sort
                attrs_key = (value_key(attrs["value"]), attrs["dtype"])
            elif op == "placeholder" and attrs == {"spec": outs[0]}:
                attrs_key = "spec"  # its output spec, keyed below
            else:
                attrs_key = value_key(attrs)
            if len(outs) == 1:
                out_key = (shape_key(outs[0].shape), outs[0].dtype)
            else:
                out_key = tuple((shape_key(s.shape), s.dtype) for s in outs)
            meta_key = _meta_key(node.meta, node.name, sources) if node.meta else ()
            parts.append((op, node.name, attrs_key, node.inputs, node.control, out_key, meta_key))
    except Unkeyable:
        return None
    return (graph.name, tuple(parts), tuple(graph.inputs), tuple(graph.outputs)), list(symbols), sources


def _respecialized(graph, sizes: dict, sources: dict):
    """``graph`` (a private copy) with every spec's dimensions mapped through ``sizes`` and
    the source locations of the trace it now stands for (``sources``: by node name)."""

    memo: dict = {}

    def spec(s):
        if not s.shape:
            return s
        new = memo.get(s)
        if new is None:
            new = memo[s] = Spec(tuple(sizes.get(d, d) for d in s.shape), s.dtype)
        return new

    for node in graph.nodes():
        node.outputs = tuple(spec(s) for s in node.outputs)
        meta = node.meta
        if "members" in meta:  # a fused node: (name, op, source) per member; its own is the last
            # member's (a cached graph holds no reduction, which would come last)
            members = [(name, op, sources.get(name, src)) for name, op, src in meta["members"]]
            node.meta = dict(meta, members=members, source=members[-1][2])
        elif "source" in meta and node.name in sources:
            node.meta = dict(meta, source=sources[node.name])
        if node.op == "placeholder" and "spec" in node.attrs:
            node.attrs = dict(node.attrs, spec=spec(node.attrs["spec"]))
        elif node.op == _FUSED:
            a = node.attrs
            node.attrs = dict(
                a,
                steps=tuple((op, args, attrs, spec(s)) for op, args, attrs, s in a["steps"]),
                out_specs=tuple(spec(s) for s in a["out_specs"]),
                in_specs=tuple(spec(s) for s in a["in_specs"]),
            )
    return graph


def _ends(graph) -> tuple:
    """The specs of the graph's inputs and outputs (a reused graph must match the new trace's)."""
    return tuple(graph.spec((i, 0)) for i in graph.inputs), tuple(graph.spec(r) for r in graph.outputs)


class ShapeGenericCache:
    """One function's optimized graphs, keyed by structure without sizes (module docstring)."""

    def __init__(self, max_entries: int = MAX_ENTRIES, start_after: int = 1):
        self._entries: collections.OrderedDict = collections.OrderedDict()
        self._max = max_entries
        self._lock = threading.Lock()
        self._start_after = start_after
        self._seen = 0
        self.hits = 0

    def optimize(self, graph, options: dict):
        """The optimized graph of ``graph`` under ``options``: reused from an earlier graph of
        the same structure when there is one, else from :func:`~.pipeline.optimize`.  The
        first ``start_after`` graphs are only optimized: most functions are traced once, and
        they keep no second copy of their graph here."""
        with self._lock:
            self._seen += 1
            first = self._seen <= self._start_after
        if first:
            return optimize(graph, options)[0]
        keyed = structure_key(graph) if len(graph) <= MAX_NODES else None
        if keyed is None:
            return optimize(graph, options)[0]
        key = (keyed[0], tuple(sorted(options.items())))
        with self._lock:
            entry = self._entries.get(key)
            if entry is not None:
                self._entries.move_to_end(key)
                self.hits += 1
        if entry is not None:
            cached, old_sizes = entry
            reused = _respecialized(cached.copy(), dict(zip(old_sizes, keyed[1])), keyed[2])
            if _ends(reused) == _ends(graph):
                if options.get("debug_verify"):  # every spec must still follow from inference
                    verify_graph(reused, "reused for new sizes")
                return reused
            if options.get("debug_verify"):
                raise GraphVerificationError(
                    f"graph {graph.name}: reused for new sizes with other input or output specs"
                )
            # (cannot happen for a key that captures what the passes read; optimized afresh if it does)
        optimized = optimize(graph, options)[0]
        if all(n.op == _FUSED or _generic_op(n.op) for n in optimized.nodes()):
            with self._lock:
                self._entries[key] = (optimized.copy(), keyed[1])
                while len(self._entries) > self._max:
                    self._entries.popitem(last=False)
        return optimized
