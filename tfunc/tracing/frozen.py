"""A finished trace's graph, kept small until someone asks for it: :class:`GraphStore`.

Calls of a concrete function need only its plan.  The traced :class:`FuncGraph` is
needed again only for inspection (``cf.graph``), for gradients through the call, for
inlining into another trace and for saving.  So a trace's FuncGraph can be *frozen*:
pickled (``zlib``-compressed) with everything that is plain data (node records, specs,
names, containers) written out by value and every other object (dtypes, arrays,
Variables, captured tensors, Python callables) kept by reference.  The first ``get()``
thaws it back into an equal FuncGraph (same node ids, names, order and the very same
referenced objects) and keeps that from then on.

A thawed graph is a new object: symbolic tensors made while tracing (say, ones a user
leaked out of the trace) keep pointing at the original, as they would at any finished
graph.
"""

from __future__ import annotations

import io
import pickle
import threading
import zlib

from ..core.specs import Spec
from ..graph.ir import Graph, Node
from .func_graph import FuncGraph
from .symbolic import SymbolicTensor

# Written out by value: plain data and the graph structures themselves.  Anything else is a
# reference: its identity matters (a dtype, a Variable, a captured tensor) or it is large
# and already held by the plan (a constant's array).  Builtin containers, strings and
# numbers never reach ``reducer_override``: the pickler writes them itself, which is what
# keeps freezing cheap.
_BY_VALUE = frozenset({Spec, Node, Graph})

COMPRESS_MIN = 16 << 10  # frozen graphs up to this many bytes are not compressed
_LOCK = threading.Lock()  # freezing and thawing are rare: one lock for all stores
_THAWING = threading.local()  # .refs: the referenced objects of the graph being thawed


class _Held:
    """A container whose identity matters, kept by reference (see ``_Freezer``)."""

    __slots__ = ("obj",)

    def __init__(self, obj):
        self.obj = obj


def _ref(i: int):
    return _THAWING.refs[i]


def _new_func_graph() -> FuncGraph:
    return FuncGraph.__new__(FuncGraph)


class _Freezer(pickle.Pickler):
    def __init__(self, file, refs: list):
        super().__init__(file, protocol=pickle.HIGHEST_PROTOCOL)
        self.refs = refs

    def reducer_override(self, obj):
        t = type(obj)
        # the two most frequent records as constructor calls on their fields: a third faster
        # than the default reduction (a NamedTuple's goes through a Python __getnewargs__)
        if t is Node:
            return Node, (obj.id, obj.op, obj.inputs, obj.attrs, obj.outputs, obj.name, obj.control, obj.meta)
        if t is Spec:
            return Spec, (obj.shape, obj.dtype)
        if t in _BY_VALUE or obj is _ref or obj is _new_func_graph:  # the last two: by name
            return NotImplemented
        if t is SymbolicTensor:  # refuses pickling for users; here it is a record
            return SymbolicTensor, (obj.graph, obj.node, obj.index, obj._spec)
        if t is FuncGraph:
            state = dict(obj.__dict__)
            # shared with the other traces of the same Function (see trace_concrete)
            state["argument_variables"] = _Held(obj.argument_variables)
            return _new_func_graph, (), state
        if t is _Held:
            obj = obj.obj
        self.refs.append(obj)  # the pickler's memo writes later uses of obj as this one
        return _ref, (len(self.refs) - 1,)


class GraphStore:
    """Holds one trace's FuncGraph: as is until ``freeze()``, then as bytes until ``get()``."""

    __slots__ = ("_graph", "_data", "_refs", "_compressed")

    def __init__(self, graph: FuncGraph):
        self._graph: FuncGraph | None = graph
        self._data: bytes | None = None
        self._refs: tuple = ()
        self._compressed = False

    def freeze(self) -> None:
        """Replaces the graph by its frozen form (once: a frozen store stays as it is)."""
        with _LOCK:
            g = self._graph
            if g is None:
                return
            refs: list = []
            buf = io.BytesIO()
            _Freezer(buf, refs).dump(g)
            data = buf.getvalue()
            # zlib's setup alone costs about 25 us: a small trace (W11's 28 nodes pickle to 3 KB,
            # 1.5 KB compressed) is kept as it is
            self._compressed = len(data) > COMPRESS_MIN
            self._data = zlib.compress(data, 1) if self._compressed else data
            self._refs = tuple(refs)
            self._graph = None
            g.release_own_tensors()

    @property
    def frozen(self) -> bool:
        return self._graph is None

    def get(self) -> FuncGraph:
        g = self._graph
        if g is None:
            with _LOCK:
                g = self._graph
                if g is None:
                    assert self._data is not None
                    _THAWING.refs = self._refs
                    try:
                        g = pickle.loads(zlib.decompress(self._data) if self._compressed else self._data)
                    finally:
                        _THAWING.refs = ()
                    self._graph, self._data, self._refs = g, None, ()
        return g
