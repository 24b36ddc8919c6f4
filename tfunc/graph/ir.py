"""The graph IR: :class:`Node` records stored in a networkx ``MultiDiGraph``.

Each networkx node holds one :class:`Node` under the attribute ``"node"``.
Data edges are keyed ``("d", slot)`` and carry the producer's output index as
``out``; control edges (ordering of stateful ops) are keyed ``("c", i)``.
``Node.inputs`` lists the same data edges in slot order; :class:`Graph` is the
only mutator and keeps both in step (``graph/verify.py`` checks it).

The networkx view is built the first time something asks for it (an optimizer
pass, the verifier, the printer): tracing only appends records, so a traced
graph that is copied for the optimizer builds networkx's structures once.

Each node has an order key; tracing appends, so keys follow program order.
Rewrites that only remove nodes or point uses at earlier nodes keep the keys
a valid topological order; one that makes an earlier node read a later one
marks the order stale, and the next ``topological_order()`` re-sorts (Kahn,
ties by id, so the order is deterministic).
"""

from __future__ import annotations

import heapq
from dataclasses import dataclass, field
from typing import Iterator, Optional

import networkx as nx

from ..core.specs import Spec
from .printer import format_graph, to_dot

Ref = tuple  # (node_id, output_index)


@dataclass(eq=False, slots=True)
class Node:
    id: int
    op: str  # registry op name
    inputs: tuple  # tuple[Ref, ...], in slot order
    attrs: dict
    outputs: tuple  # tuple[Spec, ...]
    name: str
    control: tuple = ()  # ids of nodes that must run before this one
    meta: dict = field(default_factory=dict)  # source location, pass notes

    def ref(self, index: int = 0) -> Ref:
        return (self.id, index)


def _build_nx(records: dict) -> nx.MultiDiGraph:
    """The ``MultiDiGraph`` that ``add_nodes_from`` plus ``add_edges_from`` would make from the
    records (same nodes, edges, keys, data and insertion order), written into networkx's
    adjacency dicts (``_node``, ``_succ``, ``_pred``, there since networkx 2.0) directly: about
    6x faster on a 100-node graph, where the generic calls re-check every node and clear
    networkx's caches per edge.  As in ``add_edge``, an edge's key dict is one object shared by
    ``succ[u][v]`` and ``pred[v][u]``.  Unlike the generic calls, an edge from an id with no
    record raises ``KeyError`` instead of adding a bare node.  ``tests/graph`` checks the
    result against the generic build."""
    g = nx.MultiDiGraph()
    node_data, succ, pred = g._node, g._succ, g._pred
    for nid, n in records.items():
        node_data[nid] = {"node": n}
        succ[nid] = {}
        pred[nid] = {}
    for nid, n in records.items():  # data edges first, then control edges, as the generic build
        into = pred[nid]
        for slot, (src, idx) in enumerate(n.inputs):
            keys = into.get(src)
            if keys is None:
                keys = into[src] = succ[src][nid] = {}
            keys[("d", slot)] = {"out": idx}
    for nid, n in records.items():
        into = pred[nid]
        for i, src in enumerate(n.control):
            keys = into.get(src)
            if keys is None:
                keys = into[src] = succ[src][nid] = {}
            keys[("c", i)] = {}
    return g  # (a new graph: none of networkx's cached views exists yet to go stale)


class Graph:
    """A dataflow graph: nodes, ordered inputs (placeholders) and outputs."""

    def __init__(self, name: str = "graph"):
        self.name = name
        self._nx: Optional[nx.MultiDiGraph] = None  # built on first use (see ``nx``)
        self._records: dict[int, Node] = {}  # node id -> record (the record also sits in nx's node data)
        self.inputs: list[int] = []  # placeholder node ids, in argument order
        self.outputs: list[Ref] = []
        self._next_id = 0
        self._names: dict[str, int] = {}
        self.notes: list[str] = []  # what optimizer passes did (for the report)
        self._key: dict[int, float] = {}  # order key per node
        self._order: Optional[list[int]] = None  # cached topological order
        self._stale = False  # keys no longer a topological order

    @property
    def nx(self) -> nx.MultiDiGraph:
        """The networkx ``MultiDiGraph`` of the records, kept in step by every mutator."""
        g = self._nx
        if g is None:
            g = self._nx = _build_nx(self._records)
        return g

    @nx.setter
    def nx(self, value: nx.MultiDiGraph) -> None:
        self._nx = value

    def compact(self) -> None:
        """Drops the networkx view, which only repeats what the node records say (about half
        of a graph's memory): a graph kept for inspection after lowering costs its records."""
        self._nx = None
        self._order = None

    def note(self, text: str) -> None:
        self.notes.append(text)

    # --- building -----------------------------------------------------------
    def unique_name(self, base: str) -> str:
        n = self._names.get(base)
        if n is None:
            self._names[base] = 0
            return base
        while True:
            n += 1
            cand = f"{base}_{n}"
            if cand not in self._names:
                self._names[base] = n
                self._names[cand] = 0
                return cand

    def add_node(
        self,
        op: str,
        inputs,
        attrs,
        outputs,
        name: Optional[str] = None,
        control=(),
        meta=None,
        at: Optional[int] = None,
    ) -> Node:
        """Adds a node; ``at``: place it just before that node in the order (a replacement)."""
        nid = self._next_id
        self._next_id += 1
        key = float(nid) if at is None else self._key[at] - 0.5
        self._key[nid] = key
        self._order = None
        if at is not None and any(self._key[src] >= key for src, _ in inputs):
            self._stale = True
        node = Node(
            nid,
            op,
            tuple(inputs),
            attrs,
            tuple(outputs),
            self.unique_name(name or op),
            tuple(control),
            meta if meta is not None else {},
        )
        self._records[nid] = node
        g = self._nx
        if g is not None:
            g.add_node(nid, node=node)
            for slot, (src, idx) in enumerate(node.inputs):
                g.add_edge(src, nid, key=("d", slot), out=idx)
            for i, src in enumerate(node.control):
                g.add_edge(src, nid, key=("c", i))
        return node

    # --- queries --------------------------------------------------------------
    def node(self, nid: int) -> Node:
        return self._records[nid]

    def __contains__(self, nid) -> bool:
        return nid in self._records

    def __len__(self) -> int:
        return len(self._records)

    def nodes(self) -> Iterator[Node]:
        """Nodes in a stable topological order."""
        for nid in self.topological_order():
            yield self.node(nid)

    def topological_order(self) -> list[int]:
        if self._order is None:
            if self._stale:
                self._resort()
            key = self._key
            self._order = sorted(self._records, key=lambda n: (key[n], n))
        return self._order

    def _resort(self) -> None:
        """Kahn's algorithm, smallest id first; renumbers the order keys."""
        indeg: dict[int, int] = {}
        users: dict[int, list[int]] = {}
        for nid, n in self._records.items():
            srcs = {src for src, _ in n.inputs}
            srcs.update(n.control)
            indeg[nid] = len(srcs)
            for src in srcs:
                users.setdefault(src, []).append(nid)
        ready = [nid for nid, d in indeg.items() if d == 0]
        heapq.heapify(ready)
        order = []
        while ready:
            nid = heapq.heappop(ready)
            order.append(nid)
            for u in users.get(nid, ()):
                indeg[u] -= 1
                if indeg[u] == 0:
                    heapq.heappush(ready, u)
        if len(order) != len(indeg):
            raise ValueError(f"graph {self.name} has a cycle")
        self._key = {nid: float(i) for i, nid in enumerate(order)}
        self._stale = False

    def _check_order(self, src: int, dst: int) -> None:
        if self._key[src] >= self._key[dst]:
            self._stale = True
            self._order = None

    def spec(self, ref: Ref) -> Spec:
        return self.node(ref[0]).outputs[ref[1]]

    def user_ids(self, nid: int) -> list[int]:
        """Ids of the nodes that read an output of ``nid`` (data edges only)."""
        out = []
        for dst, edges in self.nx._succ[nid].items():  # the raw adjacency: no view objects per call
            for key in edges:
                if key[0] == "d":
                    out.append(dst)
                    break
        return out

    def read_outside(self, nid: int, inside) -> bool:
        """Whether a node not in ``inside`` (a set of ids) reads an output of ``nid``."""
        for dst, edges in self.nx._succ[nid].items():
            if dst not in inside:
                for key in edges:
                    if key[0] == "d":
                        return True
        return False

    def users(self, nid: int) -> list[Node]:
        """Nodes that read an output of ``nid`` (data edges only)."""
        return [self._records[dst] for dst in self.user_ids(nid)]

    def uses(self, ref: Ref) -> list[tuple[Node, int]]:
        """(node, slot) pairs reading ``ref``."""
        out = []
        for dst, edges in self.nx._succ[ref[0]].items():
            for key, data in edges.items():
                if key[0] == "d" and data["out"] == ref[1]:
                    out.append((self.node(dst), key[1]))
        return out

    def output_refs(self) -> set:
        return set(self.outputs)

    # --- rewriting --------------------------------------------------------------
    def set_input(self, nid: int, slot: int, ref: Ref) -> None:
        node = self.node(nid)
        old = node.inputs[slot]
        ins = list(node.inputs)
        ins[slot] = ref
        node.inputs = tuple(ins)
        g = self._nx
        if g is not None:
            g.remove_edge(old[0], nid, key=("d", slot))
            g.add_edge(ref[0], nid, key=("d", slot), out=ref[1])
        self._check_order(ref[0], nid)

    def replace_uses(self, old: Ref, new: Ref) -> None:
        """Every reader of ``old`` (and the graph outputs) now reads ``new``."""
        for node, slot in self.uses(old):
            self.set_input(node.id, slot, new)
        self.outputs = [new if r == old else r for r in self.outputs]

    def add_control(self, nid: int, before: int) -> None:
        node = self.node(nid)
        if before in node.control or before == nid:
            return
        node.control = node.control + (before,)
        if self._nx is not None:
            self._nx.add_edge(before, nid, key=("c", len(node.control) - 1))
        self._check_order(before, nid)

    def set_control(self, nid: int, control) -> None:
        node = self.node(nid)
        g = self._nx
        if g is not None:
            for i in range(len(node.control)):
                g.remove_edge(node.control[i], nid, key=("c", i))
        node.control = tuple(dict.fromkeys(c for c in control if c != nid))
        for i, src in enumerate(node.control):
            if g is not None:
                g.add_edge(src, nid, key=("c", i))
            self._check_order(src, nid)

    def remove_node(self, nid: int) -> None:
        """Removes a node; nodes ordered after it inherit its control predecessors."""
        node = self.node(nid)
        # NOTE: the adjacency dict, not ``out_edges``: networkx caches that view on the graph
        # and the view holds the graph, a cycle that keeps every record alive until a GC pass
        succ = self.nx.succ[nid]
        for dst, edges in succ.items():
            if any(key[0] == "d" for key in edges):
                raise ValueError(f"cannot remove node {node.name}: {self.node(dst).name} reads it")
        for dst in list(succ):  # control edges only
            self.set_control(dst, [c for c in self.node(dst).control if c != nid] + list(node.control))
        self.nx.remove_node(nid)
        del self._records[nid]
        del self._key[nid]
        self._order = None
        if nid in self.inputs:
            self.inputs.remove(nid)

    def remove_nodes(self, ids) -> None:
        """Removes a set of nodes that only each other read (dead code)."""
        ids = set(ids)
        if self._nx is not None:
            self._nx.remove_nodes_from(ids)
        for i in ids:
            del self._key[i]
            del self._records[i]
        self._order = None
        self.inputs = [i for i in self.inputs if i not in ids]

    def copy(self) -> "Graph":
        """A deep-enough copy: new Node records, shared attr values."""
        g = Graph(self.name)
        g._records = {
            nid: Node(n.id, n.op, n.inputs, dict(n.attrs), n.outputs, n.name, n.control, dict(n.meta))
            for nid, n in self._records.items()
        }
        g.inputs = list(self.inputs)
        g.outputs = list(self.outputs)
        g._next_id = self._next_id
        g._names = dict(self._names)
        g.notes = []
        g._key = dict(self._key)
        g._stale = self._stale
        return g

    # --- TensorFlow-style views ---------------------------------------------------
    def as_graph_def(self) -> "GraphDef":
        names = {}
        defs = []
        for node in self.nodes():
            names[node.id] = node.name
            ins = [names[s] if i == 0 else f"{names[s]}:{i}" for s, i in node.inputs]
            ins += [f"^{names[c]}" for c in node.control]
            defs.append(NodeDef(node.name, node.op, ins))
        return GraphDef(defs)

    def __str__(self) -> str:
        return format_graph(self)

    def to_dot(self) -> str:
        """Graphviz DOT text; fused groups are drawn as clusters of their members."""
        return to_dot(self)


@dataclass
class NodeDef:
    """One node as ``as_graph_def().node`` shows it: ``name``, ``op``, ``input``."""

    name: str
    op: str
    input: list

    def __repr__(self) -> str:
        return f"NodeDef(name={self.name!r}, op={self.op!r}, input={self.input!r})"


@dataclass
class GraphDef:
    node: list

    def __len__(self) -> int:
        return len(self.node)
