"""Retraces that differ only in sizes reuse the optimizer's work (``optimize/shape_generic.py``):
the reused graph must equal the optimizer's own result node for node, and run alike."""

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import tfunc as tf
from tfunc.core.options import optimizer as optimizer_options
from tfunc.optimize.facts import SMALL, attrs_key
from tfunc.optimize.pipeline import optimize
from tfunc.optimize.shape_generic import ShapeGenericCache, _generic_op, structure_key

from .helpers import run, traced
from .test_random_graphs import build, programs


def _resized(shape, extra):
    """``shape`` with every size other than 0 and 1 grown by ``extra`` (same equality pattern)."""
    return tuple(d if d in (0, 1) else d + extra for d in shape)


def assert_same_graph(got, want):
    """Same nodes (op, name, attrs, specs, inputs) in the same order, same inputs and outputs."""
    g_order, w_order = got.topological_order(), want.topological_order()
    assert len(g_order) == len(w_order)
    ids = {}
    for gi, wi in zip(g_order, w_order):
        g, w = got.node(gi), want.node(wi)
        ids[gi] = wi
        assert (g.op, g.name) == (w.op, w.name)
        assert g.outputs == w.outputs, (g.name, g.outputs, w.outputs)
        assert attrs_key(g.attrs) == attrs_key(w.attrs), g.name
        assert g.meta.get("source") == w.meta.get("source") and g.meta.get("members") == w.meta.get("members")
        assert [(ids[s], i) for s, i in g.inputs] == list(w.inputs), g.name
        assert [ids[c] for c in g.control] == list(w.control), g.name
    assert [ids[i] for i in got.inputs] == list(want.inputs)
    assert [(ids[s], i) for s, i in got.outputs] == list(want.outputs)


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(programs(), st.integers(1, 5), st.integers(0, 2**31 - 1))
def test_a_reused_graph_equals_the_optimizer_result_and_runs_like_eager(program, extra, seed):
    shapes = program[0]
    other = [_resized(s, extra) for s in shapes]
    rng = np.random.default_rng(seed)
    fn = build(program)
    first, _ = traced(fn, *[tf.constant(rng.uniform(-2, 2, size=s).astype(np.float32)) for s in shapes])
    arrays = [rng.uniform(-2, 2, size=s).astype(np.float32) for s in other]
    second = tf.function(fn, autograph=False).get_concrete_function(*[tf.constant(a) for a in arrays]).graph.ir
    # (from another line than ``traced``: the output identities carry the caller's location)
    options = optimizer_options.snapshot()
    cache = ShapeGenericCache(start_after=0)
    cache.optimize(first, options)
    got = cache.optimize(second, options)
    keyed = structure_key(first) is not None
    if all(_generic_op(n.op) for n in first.nodes()):  # only elementwise ops: reuse must happen
        assert keyed
    assert cache.hits == (1 if keyed and structure_key(first)[0] == structure_key(second)[0] else 0)
    assert_same_graph(got, optimize(second, options)[0])
    eager = fn(*[tf.constant(a) for a in arrays])
    for e, r in zip(eager, run(got, *arrays)):
        assert e.shape == r.shape
        np.testing.assert_allclose(np.asarray(r), e.numpy(), rtol=1e-5, atol=1e-6)


def _chain(x, b):
    y = tf.tanh(x * 0.5 + b) * x
    return tf.nn.relu(tf.sigmoid(y) - 0.25), y + 1.0


def test_a_function_retraced_on_new_lengths_reuses_and_stays_right():
    f = tf.function(_chain)
    rng = np.random.default_rng(0)
    for n in (2, 3, 5, 8, 13, 40_000):  # 40_000: the lowering picks the blocked kernel
        x = rng.uniform(-2, 2, n).astype(np.float32)
        b = rng.uniform(-1, 1, n).astype(np.float32)
        got = f(tf.constant(x), tf.constant(b))
        for g, w in zip(got, _chain(tf.constant(x), tf.constant(b))):
            assert g.shape == (n,)
            np.testing.assert_allclose(g.numpy(), w.numpy(), rtol=1e-6, atol=1e-7)
    assert f.experimental_get_tracing_count() == 6  # TensorFlow's retracing is unchanged
    assert f._shape_cache.hits == 4  # the first trace is not kept; the second is, for the rest


def test_a_size_that_becomes_one_or_equal_to_another_is_a_new_structure():
    """Broadcasting depends on which sizes are 1 and which are equal: (3,) + (3,) and
    (4,) + (1,) are different patterns, so nothing is reused between them."""
    f = tf.function(_chain)
    f._shape_cache = ShapeGenericCache(start_after=0)  # the first trace is kept too
    cases = [((3,), (3,)), ((1,), (1,)), ((4,), (1,)), ((2, 3), (3,)), ((3, 3), (3,)), ((5, 3), (1,)), ((0, 3), (3,))]
    for xs, bs in cases:
        x = np.arange(np.prod(xs), dtype=np.float32).reshape(xs) / 7
        b = np.linspace(-1, 1, int(np.prod(bs)), dtype=np.float32).reshape(bs)
        for g, w in zip(f(tf.constant(x), tf.constant(b)), _chain(tf.constant(x), tf.constant(b))):
            assert g.shape == w.shape
            np.testing.assert_allclose(g.numpy(), w.numpy(), rtol=1e-6, atol=1e-7)
    assert f._shape_cache.hits == 0


def test_shape_read_as_a_value_keys_the_value():
    """A size turned into a constant (``x * n``) is a constant of another value: no reuse."""
    f = tf.function(lambda x: x * float(x.shape[0]) + 1.0)
    for n in (2, 3, 4):
        np.testing.assert_allclose(f(tf.ones([n])).numpy(), np.full(n, n + 1.0))
    assert f._shape_cache.hits == 0


@pytest.mark.parametrize(
    "fn",
    [
        lambda x: tf.matmul(x, x) + 1.0,  # matmul: simplification compares sizes
        lambda x: tf.reshape(x, [-1]) * 2.0,
        lambda x: x * tf.cast(tf.size(x), tf.float32),  # folded from the static shape
        lambda x: tf.zeros_like(x) + x,
        lambda x: x + tf.constant(np.ones(SMALL + 1, np.float32))[: x.shape[0]],
    ],
)
def test_graphs_whose_optimization_reads_sizes_are_not_keyed(fn):
    g, _ = traced(fn, tf.ones([3, 3]))
    assert structure_key(g) is None


def test_elementwise_graph_is_keyed_without_its_sizes():
    def fn(x, y):
        return tf.tanh(x) * y + 2.0

    a, _ = traced(fn, tf.ones([2, 3]), tf.ones([3]))
    b, _ = traced(fn, tf.ones([5, 7]), tf.ones([7]))
    c, _ = traced(fn, tf.ones([5, 5]), tf.ones([5]))
    ka, kb, kc = structure_key(a), structure_key(b), structure_key(c)
    assert ka[0] == kb[0] and ka[1] == [2, 3] and kb[1] == [5, 7]
    assert kc[0] != ka[0]  # 5 and 5 are one symbol


def test_options_are_part_of_the_key():
    g, _ = traced(lambda x: tf.tanh(x) + 1.0, tf.ones([3]))
    cache = ShapeGenericCache(start_after=0)
    on = optimizer_options.snapshot()
    off = dict(on, elementwise_fusion=False)
    assert [n.op for n in cache.optimize(g, on).nodes()].count("fused_elementwise") == 1
    assert [n.op for n in cache.optimize(g, off).nodes()].count("fused_elementwise") == 0
    assert cache.hits == 0


def test_a_function_traced_once_keeps_no_copy():
    f = tf.function(lambda x: tf.tanh(x) + 1.0)
    f(tf.ones([3]))
    assert not f._shape_cache._entries
    f(tf.ones([4]))
    f(tf.ones([5]))
    assert len(f._shape_cache._entries) == 1 and f._shape_cache.hits == 1


def _two_lines(x):
    if x.shape[0] > 3:
        return tf.tanh(x * 2.0) + 1.0
    return tf.tanh(x * 2.0) + 1.0


def test_a_reused_graph_carries_the_new_trace_source_lines():
    """Same structure written on other lines: the reused graph names the lines of the trace it
    now stands for (errors and fused-group reports quote them)."""
    first, _ = traced(_two_lines, tf.ones([5]))
    second, _ = traced(_two_lines, tf.ones([2]))
    options = optimizer_options.snapshot()
    cache = ShapeGenericCache(start_after=0)
    cache.optimize(first, options)
    got = cache.optimize(second, options)
    assert cache.hits == 1
    want = optimize(second, options)[0]
    assert_same_graph(got, want)
    lines = {m[2][1] for n in got.nodes() for m in n.meta.get("members", ())}
    assert len(lines) == 1 and lines != {
        m[2][1] for n in optimize(first, options)[0].nodes() for m in n.meta.get("members", ())
    }


def test_a_reused_graph_must_match_the_new_trace_at_its_ends():
    from tfunc.graph.verify import GraphVerificationError
    from tfunc.optimize import shape_generic

    options = dict(optimizer_options.snapshot(), debug_verify=True)
    graphs = [traced(lambda x: tf.exp(x) * 3.0 - x, tf.ones([n]))[0] for n in (2, 3, 4)]
    cache = ShapeGenericCache(start_after=0)
    for g in graphs[:2]:
        cache.optimize(g, options)
    assert cache.hits == 1
    real = shape_generic._respecialized
    try:  # a reused graph whose specs kept the old sizes must not pass
        shape_generic._respecialized = lambda graph, sizes, sources: real(graph, {}, sources)
        with pytest.raises(GraphVerificationError):
            cache.optimize(graphs[2], options)
        quiet = dict(options, debug_verify=False)  # without debug checks: optimized afresh
        cache.optimize(graphs[1], quiet)
        assert_same_graph(cache.optimize(graphs[2], quiet), optimize(graphs[2], quiet)[0])
    finally:
        shape_generic._respecialized = real


def test_large_graphs_are_not_kept():
    from tfunc.optimize import shape_generic

    def many(x):
        for _ in range(shape_generic.MAX_NODES):
            x = x * 1.5
        return x

    graphs = [traced(many, tf.ones([n]))[0] for n in (2, 3)]
    cache = ShapeGenericCache(start_after=0)
    for g in graphs:
        cache.optimize(g, optimizer_options.snapshot())
    assert cache.hits == 0 and not cache._entries


def test_value_keys_tell_apart_what_compares_equal():
    from tfunc.optimize.facts import Unkeyable, value_key

    assert value_key(0.0) != value_key(-0.0)
    assert value_key({"a": 1.0}) != value_key({"a": 1})
    with pytest.raises(Unkeyable):
        value_key({1: "x", "y": 2})
