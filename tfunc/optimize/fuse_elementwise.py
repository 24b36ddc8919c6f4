"""Elementwise fusion: maximal groups of elementwise ops with one output shape
become a single ``fused_elementwise`` node (one kernel).

Before::                                  After::

    %a = multiply(%x, 2.0)                    %f = fused_elementwise(%x, 2.0, %b)
    %t = tanh(%a)                                  # multiply -> tanh -> add
    %y = add(%t, %b)

A group may also start with the matmul or conv2d that produces its input
(bias + activation epilogues) and end in a reduction of its only output (an
elementwise prologue of ``reduce_sum`` and friends).  Groups never make the
graph cyclic: a node joins a group only if none of its other inputs depends
on that group through nodes outside it.  Stateful and random ops never fuse, nor do
nodes at either end of a control edge.

Every member of a group must have the group's shape, since a fused kernel
computes each step at the broadcast shape of the group's inputs.  With fully
known shapes that is plain equality.  With unknown dimensions, ``(None,)``
equal to ``(None,)`` proves nothing (one may be 1 and the other 5 at run time),
so a node joins only if each of its inputs is a group member or provably
broadcasts into the node's shape (a scalar, a bias of known trailing size),
and groups with unknown dimensions never merge.
"""

from __future__ import annotations

from ..ops.registry import REGISTRY
from .facts import is_pure


def _eligible_op(name) -> bool:
    """What fusion asks of a node's OpDef (``_eligible_node`` asks the rest of the node)."""
    op = REGISTRY[name]
    return op.kind == "elementwise" and op.accepts_out and op.pure and not op.stateful and name != "placeholder"


def _eligible_node(node) -> bool:
    if len(node.outputs) != 1 or not is_pure(node):
        return False
    dtype = node.outputs[0].dtype
    return not (dtype.is_string or dtype.is_variant)


class _Groups:
    """Union-find over group ids, with member lists."""

    def __init__(self):
        self.parent: dict = {}
        self.members: dict = {}

    def new(self, nid) -> int:
        g = len(self.parent)
        self.parent[g] = g
        self.members[g] = [nid]
        return g

    def find(self, g):
        while self.parent[g] != g:
            self.parent[g] = self.parent[self.parent[g]]
            g = self.parent[g]
        return g

    def union(self, a, b):
        a, b = self.find(a), self.find(b)
        if a != b:
            self.parent[b] = a
            self.members[a] += self.members.pop(b)
        return a


def _within(inner, shape) -> bool:
    """Broadcasting a value of shape ``inner`` against ``shape`` leaves ``shape`` unchanged,
    whatever its unknown dimensions turn out to be."""
    if inner is None or shape is None or len(inner) > len(shape):
        return False
    return all(d == 1 or (d is not None and d == g) for d, g in zip(reversed(inner), reversed(shape)))


def _static(shape) -> bool:
    return shape is not None and None not in shape


def _plan_groups(graph, order, pinned=frozenset()):
    groups = _Groups()
    find = groups.find
    group_of: dict = {}
    reach: dict = {}  # node id -> set of raw group ids it depends on (never mutated once stored)
    node_of = graph.node
    eligible_op: dict = {}  # op name -> whether its OpDef allows fusion (this call only: ops may be re-registered)
    empty: frozenset = frozenset()

    def g_of(nid):
        g = group_of.get(nid)
        return None if g is None else find(g)

    def depends_on(nid, g) -> bool:
        r = reach.get(nid)
        return bool(r) and any(find(x) == g for x in r)

    def safe_add(node, g) -> bool:
        for src, _ in node.inputs:
            if g_of(src) != g and depends_on(src, g):
                return False
        return True

    def safe_merge(a, b) -> bool:
        for x, y in ((a, b), (b, a)):
            for m in groups.members[y]:
                for src, _ in node_of(m).inputs:
                    if g_of(src) not in (a, b) and depends_on(src, x):
                        return False
        return True

    def provably_same_shape(node, g) -> bool:
        return all(g_of(r[0]) == g or _within(graph.spec(r).shape, node.outputs[0].shape) for r in node.inputs)

    for nid in order:
        node = node_of(nid)
        inputs = node.inputs
        ok = eligible_op.get(node.op)
        if ok is None:
            ok = eligible_op[node.op] = _eligible_op(node.op)
        if ok and nid not in pinned and _eligible_node(node):
            shape = node.outputs[0].shape
            static = _static(shape)
            cands = []
            for src, _ in inputs:
                g = group_of.get(src)
                if g is None:
                    continue
                g = find(g)
                if (
                    g not in cands
                    and node_of(src).outputs[0].shape == shape
                    and (static or provably_same_shape(node, g))
                ):
                    cands.append(g)
            if not static:
                cands = cands[:1]  # no merging of groups whose shapes cannot be compared
            target = None
            for g in cands:
                if safe_add(node, g):
                    target = g
                    break
            if target is None:
                target = groups.new(nid)
            else:
                groups.members[target].append(nid)
            group_of[nid] = target
            for g in cands:
                if find(g) != find(target) and safe_merge(find(target), find(g)):
                    target = groups.union(target, g)
        reach[nid] = _reach_of(inputs, node.control, reach, group_of, empty)
    position = {nid: i for i, nid in enumerate(order)}
    return [(sorted(m, key=position.__getitem__), reach) for g, m in groups.members.items()], group_of, groups, reach


def _reach_of(inputs, control, reach, group_of, empty):
    """The raw group ids a node depends on: its producers' and theirs.  Sets are never changed
    once stored, so a node whose producers add nothing to one producer's set shares that set
    (along a chain, ``x + 1.0`` after ``x = ...``): a new set only where the union grows."""
    r = empty
    owned = False
    for src in [s for s, _ in inputs] + list(control):
        rs = reach.get(src, empty)
        if rs and rs is not r:
            if not r:
                r = rs
            elif not rs <= r:
                if not owned:
                    r, owned = set(r), True
                r |= rs
        g = group_of.get(src)
        if g is not None and g not in r:
            if not owned:
                r, owned = set(r), True
            r.add(g)
    return r


def _closes_a_cycle(graph, nodes) -> bool:
    """Would one node in place of ``nodes`` make the graph cyclic?  True when a path leaves
    the set and comes back into it.  Planning checks node-level paths as groups form; this
    check on the live graph also sees paths through groups fused before (a group that
    reads a fused group which reads it back)."""
    succ = graph.nx.successors
    stack = [d for n in nodes for d in succ(n) if d not in nodes]
    seen = set(stack)
    while stack:
        for d in succ(stack.pop()):
            if d in nodes:
                return True
            if d not in seen:
                seen.add(d)
                stack.append(d)
    return False


def _uses_outside(graph, nid, members, graph_outputs) -> bool:
    return (nid, 0) in graph_outputs or graph.read_outside(nid, members)


def fuse_elementwise(graph) -> bool:
    order = graph.topological_order()
    # nodes on either end of a control edge keep their own node: a fused node would drop the
    # edge (tracing puts control edges only on stateful ops, but a graph built or restored by
    # other means may order a pure op)
    pinned: set = set()
    for nid in order:
        control = graph.node(nid).control
        if control:
            pinned.add(nid)
            pinned.update(control)
    plans, group_of, groups, reach = _plan_groups(graph, order, pinned)
    changed = False
    claimed: set = set()
    for members, _ in plans:
        graph_outputs = set(graph.outputs)
        member_set = set(members)
        prologue = _find_prologue(graph, members, member_set, reach, groups, group_of, claimed | pinned)
        outputs = [m for m in members if _uses_outside(graph, m, member_set, graph_outputs)]
        reduction = _find_reduction(graph, members, outputs, member_set, pinned)
        extras = {prologue, reduction} - {None}
        if extras and _closes_a_cycle(graph, member_set | extras):
            prologue = reduction = None
            outputs = [m for m in members if _uses_outside(graph, m, member_set, graph_outputs)]
        size = len(members) + (prologue is not None) + (reduction is not None)
        if size < 2 or not outputs or _closes_a_cycle(graph, member_set):
            continue
        _replace_group(graph, members, outputs, prologue, reduction)
        if prologue is not None:
            claimed.add(prologue)
        changed = True
    return changed


def _find_prologue(graph, members, member_set, reach, groups, group_of, claimed):
    """A matmul/conv2d whose output only this group reads, with the group's shape."""
    first = graph.node(members[0])
    for src, idx in first.inputs:
        p = graph.node(src)
        if not REGISTRY[p.op].epilogue_producer or not is_pure(p) or src in claimed:
            continue
        shape = first.outputs[0].shape
        if p.outputs[0].shape != shape or p.outputs[0].dtype != first.outputs[0].dtype:
            continue
        if not _static(shape) and not all(r == (src, idx) or _within(graph.spec(r).shape, shape) for r in first.inputs):
            continue  # the product sets the kernel's shape: nothing else may broadcast past it
        if (src, 0) in set(graph.outputs) or any(u.id not in member_set for u in graph.users(src)):
            continue
        g = groups.find(group_of[members[0]])
        if any(groups.find(x) == g for s, _ in p.inputs for x in reach.get(s, ())):
            continue
        return src
    return None


def _find_reduction(graph, members, outputs, member_set, pinned=frozenset()):
    """A reduction that is the only reader of the group's only output."""
    if len(outputs) != 1 or (outputs[0], 0) in set(graph.outputs):
        return None
    users = graph.users(outputs[0])
    if len(users) != 1 or not REGISTRY[users[0].op].fusable_reduction or not is_pure(users[0]) or users[0].id in pinned:
        return None
    return users[0].id


def _replace_group(graph, members, outputs, prologue, reduction):
    """Builds the fused node's program and swaps it in for the members."""
    ext_inputs: list = []  # refs from outside the group, in first-use order
    ext_index: dict = {}
    steps: list = []
    step_of: dict = {}
    node_of = graph.node

    nodes = ([prologue] if prologue is not None else []) + list(members)
    names, dot, members_meta = [], [], []
    for nid in nodes:
        node = node_of(nid)
        args, ins = [], []
        for ref in node.inputs:
            src = ref[0]
            step = step_of.get(src)
            if step is not None:
                args.append(("s", step))
                ins.append("@" + node_of(src).name)
                continue
            i = ext_index.get(ref)
            if i is None:
                i = ext_index[ref] = len(ext_inputs)
                ext_inputs.append(ref)
            args.append(("in", i))
            ins.append(node_of(src).name)
        step_of[nid] = len(steps)
        steps.append((node.op, tuple(args), dict(node.attrs), node.outputs[0]))
        names.append(f"{node.name}:{node.op}")
        members_meta.append((node.name, node.op, node.meta.get("source")))
        dot.append({"name": node.name, "op": node.op, "inputs": ins})
    out_steps = tuple(step_of[m] for m in outputs)
    out_specs = tuple(graph.node(m).outputs[0] for m in outputs)
    reduce_step = None
    source = graph.node(members[-1]).meta.get("source")
    if reduction is not None:
        rnode = graph.node(reduction)
        reduce_step = (rnode.op, dict(rnode.attrs))
        out_specs = rnode.outputs
        names.append(f"{rnode.name}:{rnode.op}")
        members_meta.append((rnode.name, rnode.op, rnode.meta.get("source")))
        dot.append({"name": rnode.name, "op": rnode.op, "inputs": ["@" + graph.node(outputs[0]).name]})
        source = rnode.meta.get("source", source)
    attrs = {
        "steps": tuple(steps),
        "outputs": out_steps,
        "out_specs": out_specs,
        "reduce": reduce_step,
        "in_specs": tuple(graph.spec(r) for r in ext_inputs),
    }
    fused = graph.add_node(
        "fused_elementwise",
        ext_inputs,
        attrs,
        out_specs,
        name="fused",
        meta={"fused": names, "fused_nodes": dot, "source": source, "members": members_meta},
    )
    if reduction is not None:
        graph.replace_uses((reduction, 0), (fused.id, 0))
        nodes.append(reduction)
    else:
        for i, m in enumerate(outputs):
            graph.replace_uses((m, 0), (fused.id, i))
    graph.remove_nodes(nodes)  # pure members, now read only by each other
    graph.note(f"{fused.name}: " + " -> ".join(names))
