"""Each optimizer pass: its changed flag, the structure after, equal outputs."""

import numpy as np
import pytest

import tfunc as tf
from tfunc.graph.printer import to_dot
from tfunc.graph.verify import verify_graph
from tfunc.optimize import pipeline
from tfunc.optimize.cse import eliminate_common_subexpressions
from tfunc.optimize.dce import eliminate_dead_code
from tfunc.optimize.fold_constants import fold_constants
from tfunc.optimize.fuse_elementwise import fuse_elementwise
from tfunc.optimize.simplify import simplify_arithmetic
from tfunc.testing import optimizer_options

from .helpers import ops, run, traced


def check_pass(fn, pass_fn, args, expect_changed=True):
    graph, _ = traced(fn, *args)
    arrays = [a._value for a in args]
    before = run(graph, *arrays)
    g = graph.copy()
    changed = pass_fn(g)
    assert changed == expect_changed
    verify_graph(g, f"after {pass_fn.__name__}")
    after = run(g, *arrays)
    for x, y in zip(before, after):
        np.testing.assert_allclose(np.asarray(y), np.asarray(x), rtol=1e-6)
    # the traced graph itself is untouched
    assert len(graph) == len(traced(fn, *args)[0])
    return g


def test_fold_constants_folds_pure_ops_on_constants():
    def f(x):
        return x * (tf.constant(2.0) * tf.constant(3.0)) + tf.reduce_sum(tf.constant([1.0, 2.0]))

    g = check_pass(f, fold_constants, [tf.constant([1.0, 2.0])])
    g2 = g.copy()
    eliminate_dead_code(g2)
    assert ops(g2).count("const") == 2 and "reduce_sum" not in ops(g2)


def test_fold_constants_respects_the_size_cap_and_static_shapes():
    def f(x):
        big = tf.zeros([1000, 1000])  # a fill: folding would bloat the graph
        return x + tf.cast(tf.shape(x)[0], tf.float32) + tf.reduce_sum(big)

    g = check_pass(f, fold_constants, [tf.ones([3])])
    assert "fill" in ops(g) and "shape" not in ops(g)


def test_fold_constants_never_folds_random_or_stateful_ops():
    def f(x):
        return x + tf.random.uniform([2], seed=1)

    graph, _ = traced(f, tf.ones([2]))
    g = graph.copy()
    assert not fold_constants(g)
    assert "random_uniform" in ops(g)


@pytest.mark.parametrize(
    "expr, gone",
    [
        (lambda x: x * 1.0, "multiply"),
        (lambda x: 1.0 * x, "multiply"),
        (lambda x: x + 0.0, "add"),
        (lambda x: x - 0.0, "subtract"),
        (lambda x: x / 1.0, "divide"),
        (lambda x: -(-x), "negative"),  # noqa: B002 - a negation of a negation, on purpose
        (lambda x: tf.identity(tf.identity(x)), "identity"),
        (lambda x: tf.transpose(tf.transpose(x, [1, 0]), [1, 0]), "transpose"),
        (lambda x: tf.reshape(tf.reshape(x, [6]), [2, 3]), "reshape"),
    ],
)
def test_arithmetic_simplification(expr, gone):
    g = check_pass(expr, simplify_arithmetic, [tf.ones([2, 3])])
    eliminate_dead_code(g)
    assert gone not in ops(g)


@pytest.mark.parametrize(
    "make, removed",
    [
        (lambda: tf.constant([1.0]), True),  # a one-element array of the neutral value
        (lambda: tf.constant([[1.0]]), False),  # neutral, but it broadcasts [3] to [1, 3]
        (lambda: tf.constant([1.0 + 2**-20]), False),  # near 1 is not 1
        (lambda: tf.constant(float("nan")), False),
        (lambda: tf.constant([1.0, 1.0, 1.0]), True),  # every element neutral
        (lambda: tf.constant([1.0, 2.0, 1.0]), False),
    ],
)
def test_neutral_constants_are_recognised_by_value_and_shape(make, removed):
    g = check_pass(lambda x: x * make(), simplify_arithmetic, [tf.ones([3])])
    eliminate_dead_code(g)
    assert ("multiply" not in ops(g)) == removed


def test_simplification_keeps_broadcasting_identities():
    # x + zeros of a larger shape changes the shape: must stay
    g = check_pass(lambda x: x + tf.zeros([4, 3]), simplify_arithmetic, [tf.ones([3])], expect_changed=True)
    eliminate_dead_code(g)
    assert "add" in ops(g)


def test_transposes_compose():
    def f(x):
        return tf.transpose(tf.transpose(x, [1, 2, 0]), [1, 2, 0])

    g = check_pass(f, simplify_arithmetic, [tf.ones([2, 3, 4])])
    eliminate_dead_code(g)
    assert ops(g).count("transpose") == 1


def test_cse_merges_pure_duplicates_only():
    def f(x):
        a, b = tf.tanh(x), tf.tanh(x)
        r1, r2 = tf.random.uniform([2], seed=5), tf.random.uniform([2], seed=5)
        return a + b + r1 + r2

    graph, _ = traced(f, tf.ones([2]))
    g = graph.copy()
    assert eliminate_common_subexpressions(g)
    eliminate_dead_code(g)
    assert ops(g).count("tanh") == 1 and ops(g).count("random_uniform") == 2


def test_dce_keeps_outputs_and_stateful_ops():
    v = tf.Variable(0)

    def f(x):
        tf.tanh(x)  # dead
        tf.print("kept")  # stateful
        v.assign_add(1)  # stateful, result unused
        return x * 2.0

    g = check_pass(f, eliminate_dead_code, [tf.ones([2])])
    assert "tanh" not in ops(g) and "print" in ops(g) and "assign_add_variable" in ops(g)


def test_fusion_groups_a_chain_into_one_node():
    def f(x, b):
        return tf.nn.relu(tf.tanh(x * 2.0) + b) * 0.5

    g = check_pass(f, fuse_elementwise, [tf.ones([5]), tf.ones([5])])
    assert ops(g).count("fused_elementwise") == 1
    assert not {"multiply", "tanh", "add", "relu"} & set(ops(g))
    fused = next(n for n in g.nodes() if n.op == "fused_elementwise")
    assert [m.split(":")[1] for m in fused.meta["fused"]] == ["multiply", "tanh", "add", "relu", "multiply"]


def test_fusion_with_an_intermediate_used_outside_has_two_outputs():
    def f(x):
        a = tf.tanh(x) * 2.0
        return a + 1.0, tf.reduce_max(a)  # 'a' also feeds a reduction

    g = check_pass(f, fuse_elementwise, [tf.ones([7])])
    fused = [n for n in g.nodes() if n.op == "fused_elementwise"]
    assert len(fused) == 1 and len(fused[0].outputs) == 2


def test_fusion_never_creates_a_cycle():
    def f(x):
        a = x * 2.0
        s = tf.reduce_sum(a)  # not elementwise, reads a
        b = tf.tanh(a) + s  # reads a and s: joining a's group with s outside would cycle
        return b

    g = check_pass(f, fuse_elementwise, [tf.ones([4])])
    import networkx as nx

    assert nx.is_directed_acyclic_graph(g.nx)


def test_matmul_bias_activation_epilogue_and_reduction_prologue():
    def f(x, w, b):
        h = tf.nn.relu(tf.matmul(x, w) + b)
        return tf.reduce_sum(h * h)

    g = check_pass(f, fuse_elementwise, [tf.ones([3, 4]), tf.ones([4, 5]), tf.ones([5])])
    fused = [n for n in g.nodes() if n.op == "fused_elementwise"]
    assert len(fused) == 1 and "matmul" not in ops(g) and "reduce_sum" not in ops(g)
    kinds = [m.split(":")[1] for m in fused[0].meta["fused"]]
    assert kinds[0] == "matmul" and kinds[-1] == "reduce_sum"


def test_stateful_ops_are_never_reordered():
    v = tf.Variable(1.0)

    @tf.function
    def f(x):
        a = v.read_value() * 1.0
        v.assign(x)
        b = v.read_value() + 0.0
        tf.print("between")
        v.assign_add(1.0)
        return a, b, v.read_value()

    a, b, c = f(tf.constant(5.0))
    assert (float(a), float(b), float(c)) == (1.0, 5.0, 6.0)
    order = [
        n.op
        for n in f.get_concrete_function(tf.constant(5.0)).optimized_graph.nodes()
        if n.op in ("read_variable", "assign_variable", "assign_add_variable", "print")
    ]
    assert order == [
        "read_variable",
        "assign_variable",
        "read_variable",
        "print",
        "assign_add_variable",
        "read_variable",
    ]


def test_report_dot_and_switches():
    @tf.function
    def f(x):
        return tf.tanh(x * 1.0) * 3.0 + 1.0

    cf = f.get_concrete_function(tf.ones([3]))
    report = str(cf.optimization_report)
    assert "arithmetic_simplification: changed" in report and "fused" in report
    assert cf.optimization_report.nodes_after < cf.optimization_report.nodes_before
    dot = cf.optimized_graph.to_dot()
    assert dot == to_dot(cf.optimized_graph)
    assert dot.startswith("digraph") and 'subgraph "cluster_fused"' in dot
    assert "identity" in [n.op for n in cf.graph.nodes()]  # the traced graph is untouched
    with optimizer_options(elementwise_fusion=False, arithmetic_simplification=False):
        cf2 = tf.function(f.python_function).get_concrete_function(tf.ones([3]))
    assert "fused_elementwise" not in [n.op for n in cf2.optimized_graph.nodes()]
    assert "elementwise_fusion" not in str(cf2.optimization_report)
    with optimizer_options(disable_meta_optimizer=True):
        cf3 = tf.function(f.python_function).get_concrete_function(tf.ones([3]))
    assert cf3.optimization_report.passes == []
    with pytest.raises(ValueError, match="Unknown optimizer options"):
        tf.config.optimizer.set_experimental_options({"nonsense": True})


def test_debug_verify_runs_between_passes():
    with optimizer_options(debug_verify=True):

        @tf.function
        def f(x):
            return tf.reduce_sum(tf.exp(x) * 2.0) + tf.cast(tf.shape(x)[0], tf.float32)

        assert float(f(tf.zeros([3]))) == 9.0


def test_optimized_plan_of_the_tanh_loop_has_no_dead_test_and_no_identities():
    @tf.function
    def f(x):
        while tf.reduce_sum(x) > 1:
            x = tf.tanh(x)
        return x

    cf = f.get_concrete_function(tf.ones([5]))
    names = [n.op for n in cf.optimized_graph.nodes()]
    assert names.count("reduce_sum") == 0 and "identity" not in names  # the loop test lives in the loop
    loop = next(n for n in cf.optimized_graph.nodes() if n.op == "while_loop")
    assert "identity" not in [n.op for n in loop.attrs["body_graph"].nodes()]


def test_fold_constants_folds_ops_that_read_only_static_shapes():
    def fn(x):
        g = tf.broadcast_to(tf.constant(1.0), tf.shape(x)) / 8.0  # the shape of a mean's gradient
        return x * tf.zeros_like(x) + g + tf.ones_like(x) * 2.0

    small = tf.function(fn, input_signature=[tf.TensorSpec([8], tf.float32)], autograph=False)
    cf = small.get_concrete_function()
    remaining = {n.op for n in cf.optimized_graph.nodes()}
    assert not {"zeros_like", "ones_like", "broadcast_to", "broadcast_to_like", "shape"} & remaining, remaining
    np.testing.assert_allclose(small(tf.range(8.0)).numpy(), np.full(8, 2.125, np.float32))

    def like(x):
        return tf.zeros_like(x) + x

    big = tf.function(like, input_signature=[tf.TensorSpec([512, 512], tf.float32)], autograph=False)
    consts = [n.attrs["value"] for n in big.get_concrete_function().optimized_graph.nodes() if n.op == "const"]
    assert all(np.size(v) <= 1024 for v in consts)  # the size cap: no 512x512 constant
    dyn = tf.function(like, input_signature=[tf.TensorSpec([None], tf.float32)], autograph=False)
    assert "zeros_like" in {n.op for n in dyn.get_concrete_function().optimized_graph.nodes()}
    np.testing.assert_array_equal(dyn(tf.constant([1.0, 2.0])).numpy(), [1.0, 2.0])


def test_the_gradient_of_a_mean_folds_to_one_constant():
    @tf.function(input_signature=[tf.TensorSpec([128], tf.float32)])
    def grad_of_mean(x):
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = tf.reduce_mean(x * x)
        return tape.gradient(y, x)

    ops = [n.op for n in grad_of_mean.get_concrete_function().optimized_graph.nodes()]
    assert "broadcast_to_like" not in ops and "expand_dims" not in ops, ops
    x = np.linspace(-1, 1, 128).astype(np.float32)
    np.testing.assert_allclose(grad_of_mean(tf.constant(x)).numpy(), 2 * x / 128, rtol=1e-6)


def test_a_scale_of_a_matmul_stays_where_the_program_put_it():
    """(a @ b) * c is not rewritten to (a * c) @ b (TensorFlow's optimizer does not do it for
    MatMul): the two differ where the product overflows or underflows, in every float dtype."""
    cases = [
        (tf.fill([4, 1], 1e20), tf.fill([1, 4], 1e20), 0.0),  # inf * 0 is NaN
        (tf.fill([4, 1], 1e20), tf.fill([1, 4], 1e20), 1e-10),  # the product overflows first
        (tf.fill([4, 1], 1e-30), tf.fill([1, 4], 1e-30), 1e30),  # the product underflows first
        (tf.fill([8, 2], tf.constant(1000.0, tf.float16)), tf.fill([2, 4], tf.constant(1e-3, tf.float16)), 1e-5),
    ]
    for a, b, c in cases:

        def fn(a, b, c=c):
            return tf.matmul(a, b) * tf.constant(c, a.dtype)

        f = tf.function(fn, autograph=False)
        assert not [n for n in f.get_concrete_function(a, b).optimized_graph.nodes() if n.name.endswith("/scaled")]
        with np.errstate(over="ignore", invalid="ignore"):
            np.testing.assert_array_equal(f(a, b).numpy(), fn(a, b).numpy())


def test_output_identities_are_forwarded_before_the_cleanup_rounds(monkeypatch):
    @tf.function
    def chain(x):
        for _ in range(5):
            x = x + 1.0
        return x

    cf = chain.get_concrete_function(tf.ones([3]))
    assert "identity" in [n.op for n in cf.graph.ir.nodes()]  # the trace keeps TensorFlow's Identity
    assert "identity" not in [n.op for n in cf.optimized_graph.nodes()]
    # the forwarding alone enables nothing: one cleanup round, not a second one to prove it
    runs = []
    real_run = pipeline._run
    monkeypatch.setattr(pipeline, "_run", lambda g, name, *a: runs.append(name) or real_run(g, name, *a))
    pipeline.optimize(cf.graph.ir)
    assert runs.count("constant_folding") == 1
    np.testing.assert_allclose(chain(tf.ones([3])).numpy(), np.full(3, 6.0))


@pytest.mark.parametrize(
    "fn",
    [
        lambda x: (x, x),  # an input returned twice
        lambda x: (tf.identity(x), x * 2.0),
        lambda x: ((y := tf.exp(x)), y, y + 1.0),  # one tensor in three outputs, one also read
        lambda x: {"a": x * 1.0, "b": [x - 0.0, tf.stop_gradient(x)]},
    ],
)
def test_outputs_that_share_tensors_survive_the_forwarding(fn):
    x = tf.constant([0.5, -1.0, 2.0])
    eager = tf.nest.flatten(fn(x))
    with optimizer_options(debug_verify=True):
        traced = tf.nest.flatten(tf.function(fn)(x))
    assert len(eager) == len(traced)
    for e, t in zip(eager, traced):
        np.testing.assert_array_equal(t.numpy(), e.numpy())


@pytest.mark.parametrize(
    "parts_used, hoisted",
    [
        ((0, 1, 3), True),  # an LSTM's gates: three of four parts
        ((0, 2), True),  # half of the input
        ((1,), False),  # one part: nothing to save
    ],
)
def test_a_unary_op_on_parts_of_a_split_is_hoisted_above_it(parts_used, hoisted):
    def f(z):
        parts = tf.split(z, 4, axis=1)
        outs = [tf.sigmoid(parts[i]) for i in parts_used]
        return outs + [p * 2.0 for i, p in enumerate(parts) if i not in parts_used]

    z = tf.constant(np.random.default_rng(0).standard_normal((3, 8)).astype(np.float32))
    g = check_pass(f, simplify_arithmetic, [z])
    eliminate_dead_code(g)
    assert ops(g).count("sigmoid") == (1 if hoisted else len(parts_used))
    assert ops(g).count("split") == (2 if hoisted else 1)


def test_hoisting_needs_the_same_op_and_attrs_and_enough_of_the_input():
    def f(z):
        a, b, c = tf.split(z, [2, 1, 5], axis=1)
        # a and b hold 3 of 8 columns: sigmoid on all 8 would waste more than it saves
        return tf.sigmoid(a), tf.sigmoid(b), tf.cast(a, tf.int32), tf.cast(c, tf.float64), tf.exp(c)

    g = check_pass(f, simplify_arithmetic, [tf.ones([2, 8])])
    eliminate_dead_code(g)
    assert ops(g).count("sigmoid") == 2 and ops(g).count("cast") == 2 and ops(g).count("split") == 1


def test_an_lstm_step_has_one_sigmoid_and_matches_eager():
    cell = tf.keras.layers.LSTMCell(6)
    rng = np.random.default_rng(1)
    x, h, c = (tf.constant(rng.standard_normal((4, n)).astype(np.float32)) for n in (5, 6, 6))
    eager = cell(x, [h, c])[1]
    step = tf.function(lambda x, h, c: cell(x, [h, c])[1])
    traced = step(x, h, c)
    for e, t in zip(eager, traced):
        np.testing.assert_allclose(t.numpy(), e.numpy(), rtol=1e-5, atol=1e-6)
    fused = [n for n in step.get_concrete_function(x, h, c).optimized_graph.nodes() if n.op == "fused_elementwise"]
    members = [m for n in fused for m in n.meta["fused"]]
    assert sum(m.endswith(":sigmoid") for m in members) == 1


@pytest.mark.parametrize("edge", ["into_member", "out_of_member", "into_product", "out_of_reduction"])
def test_fusion_keeps_nodes_at_either_end_of_a_control_edge(rng, edge):
    """A graph built other than by tracing may order pure ops: fusing such a node would drop
    its control edge (and one read by a later node would dangle: a cycle, or a lost order)."""

    def f(x, w):
        a = tf.tanh(tf.matmul(x, w) + 1.0)
        b = tf.exp(x[:, :3]) * 2.0
        return a * b, tf.reduce_sum(tf.sigmoid(b)), tf.reduce_max(x)

    x, w = rng.standard_normal((4, 5)).astype(np.float32), rng.standard_normal((5, 3)).astype(np.float32)
    graph, _ = traced(f, tf.constant(x), tf.constant(w))
    g = graph.copy()
    by = {n.op: n.id for n in g.nodes()}  # the last node of each op
    first = {}
    for n in g.nodes():
        first.setdefault(n.op, n.id)
    anchor = by["reduce_max"]  # not fusable itself
    if edge == "into_member":
        g.add_control(first["tanh"], anchor)
    elif edge == "out_of_member":
        g.add_control(anchor, first["exp"])
    elif edge == "into_product":
        g.add_control(first["matmul"], anchor)
    else:
        g.add_control(anchor, first["reduce_sum"])
    before = run(g, x, w)
    fuse_elementwise(g)
    verify_graph(g, "after fusion")
    pinned = {"into_member": first["tanh"], "out_of_member": first["exp"]}.get(edge)
    pinned = pinned or {"into_product": first["matmul"], "out_of_reduction": first["reduce_sum"]}[edge]
    assert pinned in g  # still its own node, with its edge
    edges = [(c, n.id) for n in g.nodes() for c in n.control]
    assert (anchor, pinned) in edges or (pinned, anchor) in edges
    assert any(n.op == "fused_elementwise" for n in g.nodes())  # the rest still fuses
    for got, want in zip(run(g, x, w), before):
        np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=1e-6)
