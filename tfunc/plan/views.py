"""Lowering of ops whose results are views of their input: a ``split`` whose sizes are known
while tracing becomes basic slicing written into the plan (``x[:, 0:10], x[:, 10:20]``), the
same views the kernel returns, without a call and its run-time checks (the static shape
already proved what they check)."""

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
    parts, start = [], 0
    for n in sizes:
        parts.append(f"{x}[{lead}{start}:{start + n}]")
        start += n
    outs = em.out_vars(node)
    em.emit(f"{', '.join(outs)}, = {', '.join(parts)},", node)
