"""Bounded trace memory: a per-function LRU limit on concrete functions (tfunc.config),
experimental_clear_cache, graphs kept without their networkx views after lowering, and
generated source released with the functions that run it."""

import gc
import linecache

import numpy as np
import pytest

import tfunc as tf
from tfunc.plan import source as plan_source


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


def test_graphs_drop_their_networkx_views_after_lowering():
    f = tf.function(lambda x: tf.tanh(x) * 2.0 + 1.0)
    cf = f.get_concrete_function(tf.TensorSpec([3]))
    assert cf.graph.ir._nx is None and cf.optimized_graph._nx is None
    assert "tanh" in str(cf.graph)  # rebuilt on demand for inspection
    x = tf.constant([0.5, 1.0, 2.0])
    with tf.GradientTape() as tape:  # gradients through the function read the graph again
        tape.watch(x)
        y = f(x)
    assert np.allclose(tape.gradient(y, x).numpy(), 2.0 / np.cosh(x.numpy()) ** 2)


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
