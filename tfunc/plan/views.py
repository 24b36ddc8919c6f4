"""Lowering of ops whose results are views of their input: a ``split`` whose sizes are known
while tracing becomes basic slicing written into the plan (``x[:, 0:10], x[:, 10:20]``), the
same views the kernel returns, without a call and its run-time checks (the static shape
already proved what they check).  Only the parts something reads are sliced (an LSTM's
gates often leave one part of a split unread)."""

from __future__ import annotations

from .rules import register_lowering


@register_lowering("split")
def _lower_split(node, em):
    (ref,) = node.inputs
    shape = em.graph.spec(ref).shape
    axis, sizes = node.attrs["axis"], node.attrs["sizes"]
    if shape is None or not shape or not -len(shape) <= axis < len(shape) or shape[axis] is None:
        em.emit_call(node)  # checked at run time by the kernel
        return
    axis %= len(shape)
    x = em.var(ref)
    lead = ":, " * axis
    graph = em.graph
    returned = set(graph.outputs)
    outs, parts, start = [], [], 0
    for i, (name, n) in enumerate(zip(em.out_vars(node), sizes)):
        if (node.id, i) in returned or graph.uses((node.id, i)):  # a part no one reads is not sliced
            outs.append(name)
            parts.append(f"{x}[{lead}{start}:{start + n}]")
        start += n
    if outs:
        em.emit(f"{', '.join(outs)}, = {', '.join(parts)},", node)
