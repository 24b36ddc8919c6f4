"""The graph optimizer: one named, ordered list of passes.

Each pass is ``pass_fn(graph) -> bool`` (did it change the graph?) and can be
switched off by name through ``tfunc._options.set_experimental_options``.
The cleanup passes repeat until nothing changes (a fold can enable a CSE and
the reverse); then independent all-reduces are combined, and fusion runs last.
Sub-graphs of control flow (branches, loop bodies) are optimized the same way.  The traced graph is never modified:
``optimize`` works on a copy and returns it with a report.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

from ..core.options import optimizer as _options
from ..core.options import switch_enabled
from ..graph.verify import verify_graph
from .combine_collectives import combine_collectives
from .cse import eliminate_common_subexpressions
from .dce import eliminate_dead_code
from .facts import is_stateful
from .fold_constants import fold_constants
from .fuse_elementwise import fuse_elementwise
from .simplify import simplify_arithmetic

CLEANUP = [
    ("constant_folding", fold_constants),
    ("arithmetic_simplification", simplify_arithmetic),
    ("common_subexpression_elimination", eliminate_common_subexpressions),
    ("dead_code_elimination", eliminate_dead_code),
]
MAX_ROUNDS = 4


def _fusion():
    return [("scoped_allocator_optimization", combine_collectives), ("elementwise_fusion", fuse_elementwise)]


@dataclass
class PassRecord:
    name: str
    changed: bool
    nodes_before: int
    nodes_after: int
    seconds: float
    notes: list = field(default_factory=list)


@dataclass
class OptimizationReport:
    nodes_before: int
    nodes_after: int
    passes: list
    fused_groups: list = field(default_factory=list)  # [(group node name, [member names])]

    def __str__(self) -> str:
        lines = [f"optimizer: {self.nodes_before} -> {self.nodes_after} nodes"]
        for p in self.passes:
            mark = "changed" if p.changed else "no change"
            lines.append(f"  {p.name}: {mark}, {p.nodes_before} -> {p.nodes_after} nodes ({p.seconds * 1e3:.2f} ms)")
            lines.extend(f"    - {n}" for n in p.notes)
        for name, members in self.fused_groups:
            lines.append(f"  fused {name}: {' -> '.join(members)}")
        return "\n".join(lines)


def _run(graph, name, fn, records, options):
    n0 = len(graph)
    t0 = time.perf_counter()
    graph.notes = []
    changed = bool(fn(graph))
    records.append(PassRecord(name, changed, n0, len(graph), time.perf_counter() - t0, list(graph.notes)))
    if options["debug_verify"]:
        verify_graph(graph, f"after {name}")
    return changed


def _optimize_subgraphs(graph, records, options):
    for node in list(graph.nodes()):
        for key, value in list(node.attrs.items()):
            if key.endswith("_graph") and value is not None:
                sub = value.copy()
                _optimize_in_place(sub, records, options, prefix=f"{node.name}/")
                node.attrs = dict(node.attrs, **{key: sub})


def _forward_output_identities(graph) -> bool:
    """Graph outputs read past the ``Identity`` nodes the trace ends them with (TensorFlow's
    graphs show them; the plan does not need them), and those nodes go.  Done once, before
    the cleanup rounds, so that a graph whose only change would be this one is not swept a
    second time to prove nothing else changed.  Part of arithmetic simplification (the same
    rewrite its ``identity`` rule makes) and switched off with it."""
    changed = False
    for i, (nid, idx) in enumerate(graph.outputs):
        node = graph.node(nid)
        if node.op != "identity" or node.control or is_stateful(node) or graph.users(nid):
            continue
        graph.outputs[i] = node.inputs[0]
        if graph.outputs.count((nid, idx)) == 0 and node.id not in graph.inputs:
            graph.note(f"{node.name}: identity -> {graph.node(node.inputs[0][0]).name}")
            graph.remove_node(nid)
        changed = True
    return changed


def _optimize_in_place(graph, records, options, prefix=""):
    sub_records: list = []
    _optimize_subgraphs(graph, sub_records, options)
    if switch_enabled(options, "arithmetic_simplification"):
        _run(graph, "arithmetic_simplification", _forward_output_identities, sub_records, options)
    for _ in range(MAX_ROUNDS):
        changed = False
        for name, fn in CLEANUP:
            if switch_enabled(options, name):
                changed |= _run(graph, name, fn, sub_records, options)
        if not changed:
            break
    for name, fn in _fusion():
        if switch_enabled(options, name):
            _run(graph, name, fn, sub_records, options)
    for r in sub_records:
        r.name = prefix + r.name
    records.extend(sub_records)


def optimize(graph, options: dict | None = None):
    """Returns (optimized copy of ``graph``, OptimizationReport).  ``options``: the optimizer
    switches to run under (a ``snapshot()`` of ``tfunc``'s optimizer options; default: the
    current ones)."""
    if options is None:
        options = _options.snapshot()
    g = graph.copy()
    before = len(g)
    records: list = []
    _optimize_in_place(g, records, options)
    merged = {}
    for r in records:  # one record per pass name, in first-run order
        m = merged.get(r.name)
        if m is None:
            merged[r.name] = PassRecord(r.name, r.changed, r.nodes_before, r.nodes_after, r.seconds, list(r.notes))
        else:
            m.changed |= r.changed
            m.nodes_after = r.nodes_after
            m.seconds += r.seconds
            m.notes += r.notes
    groups = [(n.name, list(n.meta.get("fused", ()))) for n in g.nodes() if n.meta.get("fused")]
    return g, OptimizationReport(before, len(g), list(merged.values()), groups)
