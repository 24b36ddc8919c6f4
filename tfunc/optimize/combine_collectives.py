"""Combine all-reduces: independent ``collective_all_reduce`` nodes over the same group, with
the same reduction, become one node (one set of packed messages instead of several), as
TensorFlow's scoped-allocator optimizer coalesces collectives.

Before::                                           After::

    %g = collective_all_reduce(%dw, %db)               %r:0, %r:1, %r:2 = collective_all_reduce(%dw, %db, %l)
    ... assign_sub(%g:0) ... assign_sub(%g:1)          ... assign_sub(%r:0) ... assign_sub(%r:1)
    %m = collective_all_reduce(%l)                     return %r:2
    return %m

Collectives are stateful: they stay in program order with the other stateful nodes, and every
replica must issue the same ones in the same order.  Merging an earlier node ``A`` with a later
``B`` moves one of them past the stateful nodes between them (variable reads and writes, prints:
none of them is a collective, and a collective reads no variable), which keeps that order on
every replica, since every replica traces the same program:

* ``B`` moves up to ``A`` when nothing ``B`` reads through data edges runs after ``A``;
* otherwise ``A`` moves down to ``B`` when nothing that reads ``A``'s results runs before ``B``.

Pairs that are neither (``B`` reads what depends on ``A``) stay apart.
"""

from __future__ import annotations

import networkx as nx

OP = "collective_all_reduce"


def _key(node):
    a = node.attrs
    return (id(a["group"]), a["reduction"], a.get("bytes_per_pack", 0))


def _data_cone(graph, start: int, forward: bool) -> set:
    """Nodes reachable from ``start`` through data edges only (``start`` excluded)."""
    seen: set = set()
    stack = [start]
    while stack:
        nid = stack.pop()
        if forward:
            nxt = graph.user_ids(nid)
        else:
            nxt = [src for src, _ in graph.node(nid).inputs]
        for n in nxt:
            if n not in seen:
                seen.add(n)
                stack.append(n)
    return seen


def _merged(graph, a, b, at, control):
    """One node computing ``a``'s and ``b``'s all-reduces, placed just before ``at``."""
    node = graph.add_node(
        OP,
        tuple(a.inputs) + tuple(b.inputs),
        dict(a.attrs),
        tuple(a.outputs) + tuple(b.outputs),
        name=a.name,
        control=control,
        meta=dict(a.meta),
        at=at.id,
    )
    for i in range(len(a.outputs)):
        graph.replace_uses((a.id, i), (node.id, i))
    for j in range(len(b.outputs)):
        graph.replace_uses((b.id, j), (node.id, len(a.outputs) + j))
    node.meta["combined"] = tuple(node.meta.get("combined", (a.name,))) + tuple(b.meta.get("combined", (b.name,)))
    return node


def _repoint_control(graph, old: int, new: int) -> None:
    for dst, edges in list(graph.nx.succ[old].items()):
        if any(k[0] == "c" for k in edges):
            succ = graph.node(dst)
            graph.set_control(dst, [new if c == old else c for c in succ.control])


def _try_merge(graph, a, b):
    """Merges ``b`` (later) into ``a`` (earlier) if one can move to the other; the new node or None."""
    after_a = nx.descendants(graph.nx, a.id)
    if not (_data_cone(graph, b.id, forward=False) & after_a):  # b moves up to a
        node = _merged(graph, a, b, at=a, control=a.control)
        graph.remove_node(b.id)  # nodes ordered after b keep b's predecessors
        _repoint_control(graph, a.id, node.id)
        graph.remove_node(a.id)
        return node
    before_b = nx.ancestors(graph.nx, b.id)
    if not (_data_cone(graph, a.id, forward=True) & before_b):  # a moves down to b
        control = [c for c in b.control if c != a.id] + list(a.control)
        node = _merged(graph, a, b, at=b, control=control)
        graph.remove_node(a.id)  # nodes ordered after a keep a's predecessors
        _repoint_control(graph, b.id, node.id)
        graph.remove_node(b.id)
        return node
    return None


def combine_collectives(graph) -> bool:
    groups: dict = {}
    for node in graph.nodes():
        if node.op == OP:
            groups.setdefault(_key(node), []).append(node.id)
    changed = False
    for ids in groups.values():
        current = graph.node(ids[0])
        for nid in ids[1:]:
            later = graph.node(nid)
            merged = _try_merge(graph, current, later)
            if merged is None:
                current = later
            else:
                graph.note(f"combined {current.name} and {later.name} into {merged.name}")
                current = merged
                changed = True
    return changed
