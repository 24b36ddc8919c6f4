"""Text and DOT forms of a graph.

Text form, one node per line, in topological order::

    graph double(%a: string[]) {
      %add = add(%a, %a) : string[]
      %Identity = identity(%add) : string[]
      return %Identity
    }

Shapes are written ``f32[3,?]`` (``?`` unknown dimension, ``[*]`` unknown rank).
"""

from __future__ import annotations

import numpy as np

from ..core.shapes import format_shape


def format_spec(spec) -> str:
    if spec.shape is None:
        dims = "*"
    else:
        dims = ",".join("?" if d is None else str(d) for d in spec.shape)
    return f"{spec.dtype.name}[{dims}]"


def _attr_text(k, v) -> str:
    if isinstance(v, np.ndarray):
        if v.size <= 4:
            return f"{k}={v.tolist()!r}"
        return f"{k}=<{v.dtype}{list(v.shape)}>"
    if hasattr(v, "name") and hasattr(v, "is_floating"):  # DType
        return f"{k}={v.name}"
    if hasattr(v, "nx"):  # a sub-graph
        return f"{k}=<graph {v.name}>"
    text = repr(v)
    if len(text) > 40:
        text = text[:37] + "..."
    return f"{k}={text}"


def _ref(graph, ref) -> str:
    name = graph.node(ref[0]).name
    return f"%{name}" if ref[1] == 0 else f"%{name}:{ref[1]}"


def format_node(graph, node) -> str:
    args = [_ref(graph, r) for r in node.inputs]
    args += [_attr_text(k, v) for k, v in node.attrs.items() if k not in ("value",) or node.op != "const"]
    if node.op == "const":
        args.append(_attr_text("value", node.attrs["value"]))
    ctrl = ""
    if node.control:
        ctrl = " after " + ", ".join(f"%{graph.node(c).name}" for c in node.control)
    outs = ", ".join(format_spec(s) for s in node.outputs) or "()"
    lhs = f"%{node.name}"
    if len(node.outputs) > 1:
        lhs = ", ".join(f"%{node.name}:{i}" for i in range(len(node.outputs)))
    elif not node.outputs:
        lhs = f"%{node.name}"
    text = f"  {lhs} = {node.op}({', '.join(args)}) : {outs}{ctrl}"
    members = node.meta.get("fused")
    if members:
        text += "   # fused: " + " -> ".join(members)
    return text


def format_graph(graph) -> str:
    params = ", ".join(f"%{graph.node(i).name}: {format_spec(graph.node(i).outputs[0])}" for i in graph.inputs)
    lines = [f"graph {graph.name}({params}) {{"]
    for node in graph.nodes():
        if node.op == "placeholder":
            continue
        lines.append(format_node(graph, node))
    lines.append("  return " + ", ".join(_ref(graph, r) for r in graph.outputs))
    lines.append("}")
    return "\n".join(lines)


def to_dot(graph) -> str:
    """Graphviz DOT text; nodes of one fused group are drawn as a cluster."""

    def q(s):
        return '"' + str(s).replace('"', '\\"') + '"'

    lines = [f"digraph {q(graph.name)} {{", "  rankdir=TB;", "  node [shape=box, fontname=monospace];"]
    for node in graph.nodes():
        label = f"{node.name}\\n{node.op} {format_spec(node.outputs[0]) if node.outputs else ''}"
        members = node.meta.get("fused_nodes")
        if members:
            lines.append(f"  subgraph {q('cluster_' + node.name)} {{")
            lines.append(f"    label={q('fused ' + node.name)}; style=rounded; color=blue;")
            for m in members:
                lines.append(f"    {q(node.name + '/' + m['name'])} [label={q(m['name'] + chr(92) + 'n' + m['op'])}];")
            for m in members:
                for src in m["inputs"]:
                    if src.startswith("@"):
                        lines.append(f"    {q(node.name + '/' + src[1:])} -> {q(node.name + '/' + m['name'])};")
            lines.append("  }")
            for m in members:
                for src in m["inputs"]:
                    if not src.startswith("@"):
                        lines.append(f"  {q(src)} -> {q(node.name + '/' + m['name'])};")
            for user in graph.users(node.id):
                lines.append(f"  {q(node.name + '/' + members[-1]['name'])} -> {q(user.name)};")
            continue
        lines.append(f"  {q(node.name)} [label={q(label)}];")
    # the adjacency dict, not ``nx.edges``: that view is cached on the graph and holds it (a cycle)
    edges = [(src, dst, key) for src, succ in graph.nx.succ.items() for dst, keys in succ.items() for key in keys]
    for src, dst, key in edges:
        s, d = graph.node(src), graph.node(dst)
        if s.meta.get("fused_nodes"):
            continue
        if d.meta.get("fused_nodes"):
            continue
        style = " [style=dashed]" if key[0] == "c" else ""
        lines.append(f"  {q(s.name)} -> {q(d.name)}{style};")
    lines.append("}")
    return "\n".join(lines)


__all__ = ["format_graph", "format_node", "format_spec", "to_dot", "format_shape"]
