"""Graph invariants, checked between optimizer passes in debug mode
(``tfunc.config.optimizer.set_experimental_options({"debug_verify": True})``)."""

from __future__ import annotations

import networkx as nx

from ..ops.registry import REGISTRY


class GraphVerificationError(AssertionError):
    pass


def verify_graph(graph, where: str = "") -> None:
    def fail(msg):
        raise GraphVerificationError(f"graph {graph.name} {where}: {msg}\n{graph}")

    g = graph.nx
    acyclic = nx.is_directed_acyclic_graph(g)
    for view in ("in_degree", "out_degree", "degree", "edges", "in_edges", "out_edges"):
        g.__dict__.pop(view, None)  # cached views hold the graph: a cycle that outlives the check
    if not acyclic:
        fail("has a cycle")
    for nid, data in g.nodes(data=True):
        node = data["node"]
        if node.id != nid:
            fail(f"node record {node.name} has id {node.id}, stored under {nid}")
        if graph.node(nid) is not node:
            fail(f"node {node.name}: the record index and the networkx node data disagree")
        if node.op not in REGISTRY:
            fail(f"node {node.name} has unknown op {node.op!r}")
        expected = set()
        for slot, (src, idx) in enumerate(node.inputs):
            if src not in g:
                fail(f"node {node.name} reads missing node {src}")
            producer = graph.node(src)
            if idx >= len(producer.outputs):
                fail(f"node {node.name} reads output {idx} of {producer.name}, which has {len(producer.outputs)}")
            expected.add((src, ("d", slot), idx))
        for i, src in enumerate(node.control):
            if src not in g:
                fail(f"node {node.name} is ordered after missing node {src}")
            expected.add((src, ("c", i), None))
        actual = {(u, k, d.get("out")) for u, keys in g.pred[nid].items() for k, d in keys.items()}
        if actual != expected:
            fail(
                f"edges into {node.name} do not match its inputs: {sorted(map(str, actual))} vs "
                f"{sorted(map(str, expected))}"
            )
        op = REGISTRY[node.op]
        if node.op == "fused_elementwise":
            if tuple(node.attrs["in_specs"]) != tuple(graph.spec(r) for r in node.inputs):
                fail(f"fused node {node.name}'s program expects {node.attrs['in_specs']}, not its inputs' specs")
            if tuple(node.attrs["out_specs"]) != tuple(node.outputs):
                fail(f"fused node {node.name}'s program gives {node.attrs['out_specs']}, not {node.outputs}")
        if op.kind not in ("control",) and node.op not in ("placeholder", "const", "fused_elementwise"):
            specs = [graph.spec(r) for r in node.inputs]
            try:
                inferred = op.infer(specs, node.attrs)
            except Exception as e:  # noqa: BLE001 - reported as a verification failure
                fail(f"inference fails for {node.name}: {e}")
            if tuple(inferred) != tuple(node.outputs):
                fail(f"node {node.name} records outputs {node.outputs} but inference gives {inferred}")
    for r in graph.outputs:
        if r[0] not in g or r[1] >= len(graph.node(r[0]).outputs):
            fail(f"output {r} does not exist")
    for nid in graph.inputs:
        if nid not in g or graph.node(nid).op != "placeholder":
            fail(f"input {nid} is not a placeholder")
