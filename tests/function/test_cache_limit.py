"""Bounded trace memory: a per-function LRU limit on concrete functions (tfunc.config),
experimental_clear_cache, traces that keep their plan and a frozen graph (thawed on demand), and
generated source released with the functions that run it."""

import gc
import linecache

import numpy as np
import pytest

import tfunc as tf
from tfunc.plan import source as plan_source
from tfunc.plan.lower import NodeInfo
from tfunc.tracing.frozen import GraphStore


@pytest.fixture
def cache_size():
    old = tf.config.experimental.get_function_cache_size()
    yield tf.config.experimental.set_function_cache_size
    tf.config.experimental.set_function_cache_size(old)


def _counting():
    traces = []

    @tf.function
    def f(x):
        traces.append(x.shape[0])
        return x * 2.0

    return f, traces


def test_default_limit():
    assert tf.config.experimental.get_function_cache_size() == 128


def test_least_recently_used_trace_is_dropped(cache_size):
    cache_size(3)
    f, traces = _counting()
    for n in (1, 2, 3):
        f(tf.ones([n]))
    f(tf.ones([1]))  # 1 is now the most recent: 2 goes first
    f(tf.ones([4]))
    assert len(f._list_all_concrete_functions_for_serialization()) == 3
    f(tf.ones([1]))
    f(tf.ones([3]))
    assert traces == [1, 2, 3, 4]  # 1 and 3 still cached
    assert np.array_equal(f(tf.ones([2])).numpy(), [2.0, 2.0])  # 2 was dropped: traced again
    assert traces == [1, 2, 3, 4, 2]
    assert f.experimental_get_tracing_count() == 5


def test_dropped_trace_keeps_working_when_held(cache_size):
    cache_size(1)
    f, _ = _counting()
    cf = f.get_concrete_function(tf.TensorSpec([2]))
    f(tf.ones([3]))  # drops the [2] trace from the cache
    assert np.array_equal(cf(tf.ones([2])).numpy(), [2.0, 2.0])


def test_no_limit_and_bad_values(cache_size):
    cache_size(None)
    f, traces = _counting()
    for n in range(1, 200):
        f(tf.ones([n]))
    assert len(f._list_all_concrete_functions_for_serialization()) == 199
    for bad in (0, -1, 2.5, True, "8"):
        with pytest.raises(ValueError, match="positive int or None"):
            tf.config.experimental.set_function_cache_size(bad)


def test_experimental_clear_cache():
    f, traces = _counting()
    f(tf.ones([2]))
    f(tf.ones([2]))
    f.experimental_clear_cache()
    assert f._list_all_concrete_functions_for_serialization() == []
    f(tf.ones([2]))
    assert traces == [2, 2]
    assert f.experimental_get_tracing_count() == 2


def test_a_cached_trace_keeps_its_plan_and_a_frozen_graph():
    f = tf.function(lambda x: tf.tanh(x) * 2.0 + 1.0)
    cf = f.get_concrete_function(tf.TensorSpec([3]))
    assert cf._graph_store.frozen  # calls need only the plan
    assert "_optimized" not in cf.__dict__
    assert all(isinstance(info, NodeInfo) for info in cf.plan.line_nodes.values())
    assert not hasattr(cf.plan, "graph")
    x = tf.constant([0.5, 1.0, 2.0])
    assert np.allclose(f(x).numpy(), np.tanh(x.numpy()) * 2 + 1)
    assert cf._graph_store.frozen  # calling does not thaw
    assert "Tanh" in str(cf.graph) or "tanh" in str(cf.graph)  # thawed on demand for inspection
    assert not cf._graph_store.frozen and cf.graph is cf.graph
    with tf.GradientTape() as tape:  # gradients through the function read the graph
        tape.watch(x)
        y = f(x)
    assert np.allclose(tape.gradient(y, x).numpy(), 2.0 / np.cosh(x.numpy()) ** 2)


def _records(graph):
    return [(n.id, n.op, n.name, n.inputs, n.outputs, n.control, n.meta) for n in graph.nodes()]


def test_a_thawed_graph_equals_the_traced_one():
    v = tf.Variable([1.0, 2.0])
    table = tf.constant([[1.0, 2.0], [3.0, 4.0]])

    @tf.function
    def f(x, n):
        y = x * v + table[0]
        if tf.reduce_sum(y) > 0:
            y = y * 2.0
        for i in tf.range(n):
            y = y + tf.cast(i, tf.float32)
        v.assign_add(y)
        return {"y": y, "rows": [table[1], x]}

    cf = f.get_concrete_function(tf.TensorSpec([2]), tf.TensorSpec([], tf.int32))
    assert cf._graph_store.frozen
    fg = cf.graph  # thawed
    store = GraphStore(fg)
    store.freeze()
    again = store.get()
    assert again is not fg and str(again) == str(fg)
    assert _records(again.ir) == _records(fg.ir)
    for a, b in zip(again.ir.nodes(), fg.ir.nodes()):
        assert a.attrs.keys() == b.attrs.keys()
        for key, value in a.attrs.items():
            if isinstance(value, np.ndarray):
                assert value is b.attrs[key]  # constants are shared, not copied
            elif hasattr(value, "nodes"):  # branch and loop bodies: written out by value
                assert _records(value) == _records(b.attrs[key])
    assert list(again.variables.values()) == [v] and again.variables[v._unique_id] is v
    assert again.ir.inputs == fg.ir.inputs and again.ir.outputs == fg.ir.outputs
    assert [t.graph for t in again.inputs] == [again, again]
    # the thawed graph still runs as the trace: through a tape (its gradient) and inlined
    x = tf.constant([1.0, -0.5])
    with tf.GradientTape() as tape:
        tape.watch(x)
        out = f(x, tf.constant(2))
    y = x.numpy() * np.array([1.0, 2.0]) + np.array([1.0, 2.0])  # sum > 0: doubled
    assert np.allclose(out["y"].numpy(), y * 2.0 + 0.0 + 1.0)
    assert np.allclose(tape.gradient(out["y"], x).numpy(), [2.0, 4.0])


def test_the_optimized_graph_is_made_again_under_the_trace_switches():
    def g(x):
        return tf.exp(x) * 3.0 - 1.0

    old = tf.config.optimizer.get_experimental_options()
    try:
        tf.config.optimizer.set_experimental_options({"elementwise_fusion": False})
        cf = tf.function(g).get_concrete_function(tf.TensorSpec([None]))
        tf.config.optimizer.set_experimental_options({"elementwise_fusion": True})
        ops = [n.op for n in cf.optimized_graph.nodes()]
        assert "fused_elementwise" not in ops  # as lowered, not as the switches are now
        assert cf.optimization_report.nodes_after == len(cf.optimized_graph)
        fused = tf.function(g).get_concrete_function(tf.TensorSpec([None]))
        assert "fused_elementwise" in [n.op for n in fused.optimized_graph.nodes()]
        # the plan's error lines name the nodes of the graph it was lowered from
        lowered = {n.name for n in fused.optimized_graph.nodes()}
        assert {info.name for info in fused.plan.line_nodes.values()} <= lowered
    finally:
        tf.config.optimizer.set_experimental_options(old)


def test_memory_per_cached_trace_stays_small():
    """A regression guard for the memory probe's figure (bench/memory_probe.py: about 9 KB
    per trace of its 20-op chain); a trace that kept its graphs again costs over 30 KB."""
    import logging

    from bench.memory_probe import kb_per_trace

    logger = logging.getLogger("tfunc")
    level = logger.level
    logger.setLevel(logging.ERROR)
    try:
        assert kb_per_trace(40) < 16
    finally:
        logger.setLevel(level)


def test_generated_source_is_released_with_its_function():
    def uniquely_named_function_for_the_release_test(x):
        return tf.sin(x) * 3.0 + tf.cos(x)

    f = tf.function(uniquely_named_function_for_the_release_test)
    cf = f.get_concrete_function(tf.TensorSpec([4]))
    filename = cf.plan.filename
    assert filename in linecache.cache
    del f, cf
    gc.collect()
    assert filename not in linecache.cache
    assert filename not in plan_source.LINE_STEPS
    assert all(name != filename for _, name in plan_source._compiled.values())


def test_variable_arguments_after_their_trace_was_dropped(cache_size):
    cache_size(1)

    @tf.function
    def bump(v):
        v.assign(v * 2.0)
        return v.read_value()

    a, b = tf.Variable([1.0, 2.0]), tf.Variable([1.0, 2.0, 3.0])
    assert bump(a).numpy().tolist() == [2.0, 4.0]
    assert bump(b).numpy().tolist() == [2.0, 4.0, 6.0]  # drops a's trace
    assert bump(a).numpy().tolist() == [4.0, 8.0]  # traced again, bound to a
    assert bump.experimental_get_tracing_count() == 3


def test_a_repeated_tensor_call_is_answered_from_the_fast_cache(monkeypatch):
    # the call path keys tensor-only arguments inline; its key must be the one the slow path
    # stored, or every call would silently bind its arguments again
    f = tf.function(lambda a, b: a * b + 1.0)
    x, y = tf.constant([1.0, 2.0]), tf.constant([3.0, 4.0])
    f(x, y)
    f(x, y)

    def refuse(*args, **kwargs):
        raise AssertionError("the call left the fast path")

    monkeypatch.setattr(f, "_call_slow", refuse)
    np.testing.assert_array_equal(f(x, y).numpy(), [4.0, 9.0])
    np.testing.assert_array_equal(f(y, x).numpy(), [4.0, 9.0])


@pytest.mark.parametrize("limit, compressed", [(0, True), (10**9, False)])
def test_a_frozen_graph_thaws_equal_compressed_or_not(monkeypatch, limit, compressed):
    from tfunc.tracing import frozen

    monkeypatch.setattr(frozen, "COMPRESS_MIN", limit)
    fg = tf.function(lambda x: tf.tanh(x) * 2.0 + 1.0).get_concrete_function(tf.TensorSpec([3])).graph
    store = GraphStore(fg)
    store.freeze()
    assert store.frozen and store._compressed is compressed
    again = store.get()
    assert again is not fg and str(again) == str(fg) and _records(again.ir) == _records(fg.ir)
