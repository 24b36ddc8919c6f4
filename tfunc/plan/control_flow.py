"""Lowering of control flow: the sub-graphs of ``cond`` and ``while_loop`` nodes are
emitted inline into the plan::

    if bool(pred):                      while True:
        <true branch>                       <condition>
        o0 = t0                             if not c: break
    else:                                   <body>
        <false branch>                      l0, l1 = b0, b1
        o0 = f0
"""

from __future__ import annotations

from .rules import register_lowering


@register_lowering("cond")
def _lower_cond(node, em):
    outs = em.out_vars(node)
    pred = em.var(node.inputs[0])
    ins = [em.var(r) for r in node.inputs[1:]]
    em.emit(f"if {pred}:", node)  # a 0-d bool array or NumPy bool: its truth value
    with em.indent():
        t_outs = em.emit_graph(node.attrs["true_graph"], ins)
        for o, t in zip(outs, t_outs):
            em.emit(f"{o} = {t}")
        if not outs:
            em.emit("pass")
    em.emit("else:")
    with em.indent():
        f_outs = em.emit_graph(node.attrs["false_graph"], ins)
        for o, f in zip(outs, f_outs):
            em.emit(f"{o} = {f}")
        if not outs:
            em.emit("pass")


@register_lowering("while_loop")
def _lower_while(node, em):
    n = node.attrs["n_loop_vars"]
    outs = em.out_vars(node)
    uid = f"{em.tag}{node.id}"  # unique across nested sub-graphs (ids are per graph)
    loop = [f"l{uid}_{i}" for i in range(n)]
    ins = [em.var(r) for r in node.inputs]
    accumulate = node.attrs.get("accumulate", False)
    stack = f"acc{uid}"
    for v, init in zip(loop, ins[:n]):
        em.emit(f"{v} = {init}", node)
    if accumulate:  # a gradient needs the values entering every iteration
        em.emit(f"{stack} = []")
    caps = ins[n:]
    limit = node.attrs.get("maximum_iterations")
    counter = f"it{uid}"
    if limit is not None:
        em.emit(f"{counter} = 0")
    em.emit("while True:", node)
    with em.indent():
        if limit is not None:
            em.emit(f"if {counter} >= {limit}: break")
        (c,) = em.emit_graph(node.attrs["cond_graph"], loop + caps)
        em.emit(f"if not {c}: break", node)
        if accumulate:
            em.emit(f"{stack}.append(({', '.join(loop)},))")
        b_outs = em.emit_graph(node.attrs["body_graph"], loop + caps)
        if node.attrs.get("stash"):  # the body's last output: its stash, kept with the iteration's values
            em.emit(f"{stack}[-1] += ({b_outs[n]},)")
            b_outs = b_outs[:n]
        if b_outs:
            em.emit(f"{', '.join(loop)}, = {', '.join(b_outs)},")
        if limit is not None:
            em.emit(f"{counter} += 1")
    for o, v in zip(outs, loop):
        em.emit(f"{o} = {v}")
    if accumulate:
        em.emit(f"{outs[n]} = {stack}")
