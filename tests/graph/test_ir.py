"""The graph IR keeps its records and its networkx view in step, whether the view was built
before the rewrites (and kept up to date by each mutator) or only afterwards, from the records."""

import numpy as np

import tfunc as tf
from tfunc.graph.verify import verify_graph
from tfunc.optimize.pipeline import optimize


def _traced():
    def f(x, y):
        a = tf.tanh(x) * 2.0
        b = a + y
        c = tf.reduce_sum(b * b) + tf.reduce_sum(a)
        return c, a

    spec = tf.TensorSpec([3, 4], tf.float32)
    return tf.function(f, autograph=False).get_concrete_function(spec, spec).graph.ir


def _edges(g):
    return sorted((u, v, k, tuple(sorted(d.items()))) for u, v, k, d in g.nx.edges(keys=True, data=True))


def _rewrite(g):
    """The same mutations, through every mutator the optimizer uses."""
    placeholder_x = g.inputs[0]
    by_op = {}
    for n in g.nodes():
        by_op.setdefault(n.op, []).append(n.id)
    tanh = by_op["tanh"][0]
    new = g.add_node("negative", [(placeholder_x, 0)], {}, g.node(tanh).outputs, at=tanh)
    g.replace_uses((tanh, 0), (new.id, 0))
    sums = by_op["reduce_sum"]
    g.add_control(sums[1], sums[0])
    g.set_control(sums[1], [sums[0], new.id])
    g.remove_node(tanh)
    dead = g.add_node("exp", [(new.id, 0)], {}, g.node(new.id).outputs)
    g.remove_nodes([dead.id])
    return g


def test_a_view_built_late_equals_one_kept_in_step():
    early = _traced().copy()
    assert len(early.nx) == len(early)  # built now: every later mutation updates it
    late = _traced().copy()
    assert late._nx is None  # tracing and copying never build it
    _rewrite(early)
    _rewrite(late)
    assert sorted(early.nx.nodes) == sorted(late.nx.nodes) == sorted(n.id for n in late.nodes())
    assert _edges(early) == _edges(late)
    verify_graph(early, "after rewrites (view kept in step)")
    verify_graph(late, "after rewrites (view built late)")


def test_the_optimizer_gives_the_same_graph_either_way():
    eager_view = _traced().copy()
    eager_view.nx  # noqa: B018 - builds the view before the passes run
    lazy_view = _traced().copy()
    (a, _), (b, _) = optimize(eager_view), optimize(lazy_view)
    assert str(a) == str(b)
    verify_graph(a)
    x = np.arange(12, dtype=np.float32).reshape(3, 4) / 10
    f = tf.function(lambda x, y: tf.reduce_sum(tf.tanh(x) * 2.0 + y))
    np.testing.assert_allclose(f(x, x).numpy(), np.sum(np.tanh(x) * 2 + x), rtol=1e-5)


def _generic_build(records):
    import networkx as nx

    g = nx.MultiDiGraph()
    g.add_nodes_from((nid, {"node": n}) for nid, n in records.items())
    g.add_edges_from(
        (src, nid, ("d", slot), {"out": idx}) for nid, n in records.items() for slot, (src, idx) in enumerate(n.inputs)
    )
    g.add_edges_from((src, nid, ("c", i)) for nid, n in records.items() for i, src in enumerate(n.control))
    return g


def test_the_view_equals_networkxs_own_build_and_stays_a_working_graph():
    import networkx as nx

    g = _rewrite(_traced().copy())
    sq = g.add_node("multiply", [(g.inputs[1], 0), (g.inputs[1], 0)], {}, g.node(g.inputs[1]).outputs)  # y * y
    g.add_control(sq.id, g.inputs[0])  # a control edge beside no data edge
    g.add_control(sq.id, next(n.id for n in g.nodes() if n.op == "negative"))
    g.compact()
    view, want = g.nx, _generic_build(g._records)
    assert list(view.nodes(data=True)) == list(want.nodes(data=True))  # same nodes, data, order
    assert list(view.edges(keys=True, data=True)) == list(want.edges(keys=True, data=True))
    assert list(view.in_edges(keys=True, data=True)) == list(want.in_edges(keys=True, data=True))
    for u, v in view.edges():  # one key dict per edge pair, shared by both directions, as add_edge makes it
        assert view._succ[u][v] is view._pred[v][u]
    assert g.users(g.inputs[1]).count(sq) == 1 and len(g.uses((g.inputs[1], 0))) >= 2
    assert nx.is_directed_acyclic_graph(view) and list(nx.topological_sort(view))
    verify_graph(g, "view built from the records")
    g.remove_node(sq.id)  # networkx's own mutators work on the directly built structures
    assert sq.id not in view and view.number_of_edges() == want.number_of_edges() - 4
    verify_graph(g, "after a removal")


def test_read_outside_agrees_with_the_user_lists():
    """``read_outside`` answers what ``user_ids`` would, for every node and inside-set, and
    ignores control edges (only data readers count)."""
    g = _traced()
    by_op = {}
    for n in g.nodes():
        by_op.setdefault(n.op, []).append(n.id)
    sums = by_op["reduce_sum"]
    g.add_control(sums[1], sums[0])  # a control edge: not a reader
    ids = [n.id for n in g.nodes()]
    for nid in ids:
        users = set(g.user_ids(nid))
        for inside in (set(), users, set(ids), users - set(list(users)[:1])):
            assert g.read_outside(nid, inside) == bool(users - inside)
    assert not g.read_outside(sums[0], {n for n in ids if n in g.user_ids(sums[0])})
