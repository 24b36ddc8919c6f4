"""A finished trace's graph, kept small until someone asks for it: :class:`GraphStore`.

Calls of a concrete function need only its plan.  The traced :class:`FuncGraph` is
needed again only for inspection (``cf.graph``), for gradients through the call, for
inlining into another trace and for saving.  So once a trace is finished its FuncGraph
is *frozen*: pickled (``zlib``-compressed) with everything that is plain data (node
records, specs, names, containers) written out by value and every other object (dtypes,
arrays, Variables, captured tensors, Python callables, classes) kept by reference.  The
first ``get()`` thaws it back into an equal FuncGraph (same node ids, names, order and
the very same referenced objects) and keeps that from then on.

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
# and already held by the plan (a constant's array).
_BY_VALUE = frozenset({tuple, list, dict, set, frozenset, str, bytes, int, float, bool, type(None), Spec, Node, Graph})

_LOCK = threading.Lock()  # thawing is rare: one lock for all stores


class _Freezer(pickle.Pickler):
    def __init__(self, file, refs: list, keep: set):
        super().__init__(file, protocol=pickle.HIGHEST_PROTOCOL)
        self.refs = refs
        self._index: dict = {}  # id(obj) -> position in refs
        self._keep = keep  # ids of containers whose identity matters: by reference

    def reducer_override(self, obj):
        if type(obj) is SymbolicTensor:  # refuses pickling for users; here it is a record
            return SymbolicTensor, (obj.graph, obj.node, obj.index, obj._spec)
        if type(obj) is FuncGraph:  # by value, without going through copyreg's generic path
            return _new_func_graph, (), obj.__dict__
        return NotImplemented

    def persistent_id(self, obj):
        if type(obj) in _BY_VALUE and id(obj) not in self._keep:
            return None
        if type(obj) is FuncGraph or type(obj) is SymbolicTensor:
            return None
        i = self._index.get(id(obj))
        if i is None:
            i = self._index[id(obj)] = len(self.refs)
            self.refs.append(obj)
        return i


class _Thawer(pickle.Unpickler):
    def __init__(self, file, refs: list):
        super().__init__(file)
        self.refs = refs

    def persistent_load(self, pid):
        return self.refs[pid]


def _new_func_graph() -> FuncGraph:
    return FuncGraph.__new__(FuncGraph)


class GraphStore:
    """Holds one trace's FuncGraph: as is until ``freeze()``, then as bytes until ``get()``."""

    __slots__ = ("_graph", "_data", "_refs")

    def __init__(self, graph: FuncGraph):
        self._graph: FuncGraph | None = graph
        self._data: bytes | None = None
        self._refs: tuple = ()

    def freeze(self) -> None:
        """Replaces the graph by its frozen form (a no-op for a nested trace, whose graph
        refers to an enclosing one that is still being built)."""
        with _LOCK:
            g = self._graph
            if g is None or g.outer is not None:
                return
            refs: list = []
            buf = io.BytesIO()
            # shared with other traces of the same Function (see trace_concrete)
            _Freezer(buf, refs, {id(g.argument_variables)}).dump(g)
            self._data = zlib.compress(buf.getvalue(), 1)
            self._refs = tuple(refs)
            self._graph = None

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
                    g = _Thawer(io.BytesIO(zlib.decompress(self._data)), list(self._refs)).load()
                    self._graph, self._data, self._refs = g, None, ()
        return g
