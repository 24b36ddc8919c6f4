"""Threads arriving at once with a new cache key: one trace, which the others wait for and
reuse (barriers make them arrive together; the traced body sleeps so they overlap)."""

import threading
import time

import numpy as np
import pytest

import tfunc as tf

THREADS = 8


def _run_together(target, args_per_thread):
    barrier = threading.Barrier(len(args_per_thread))
    results, errors = [None] * len(args_per_thread), []

    def work(i, args):
        try:
            barrier.wait()
            results[i] = target(*args)
        except BaseException as e:  # noqa: BLE001 - reported by the test
            errors.append(e)

    threads = [threading.Thread(target=work, args=(i, a)) for i, a in enumerate(args_per_thread)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert not errors, errors
    return results


def _slow_function(**options):
    traces = []

    @tf.function(**options)
    def f(x, k=1):
        traces.append(x.shape)
        time.sleep(0.05)  # while this trace runs, the other threads arrive
        return x * 2.0 + k

    return f, traces


def test_same_new_shape_traces_once():
    f, traces = _slow_function()
    out = _run_together(f, [(tf.ones([3]),)] * THREADS)
    assert len(traces) == 1
    assert f.experimental_get_tracing_count() == 1
    assert all(np.array_equal(o.numpy(), [3.0, 3.0, 3.0]) for o in out)


def test_two_new_shapes_trace_once_each():
    f, traces = _slow_function()
    args = [(tf.ones([2]),), (tf.ones([5]),)] * (THREADS // 2)
    out = _run_together(f, args)
    assert sorted(tuple(s) for s in traces) == [(2,), (5,)]
    assert [o.shape for o in out] == [(2,), (5,)] * (THREADS // 2)


def test_python_arguments_trace_once_per_value():
    f, traces = _slow_function()
    _run_together(f, [(tf.ones([2]), k % 2) for k in range(THREADS)])
    assert len(traces) == 2


@pytest.mark.parametrize("options", [{"reduce_retracing": True}, {"input_signature": [tf.TensorSpec([None])]}])
def test_general_traces_once(options):
    f, traces = _slow_function(**options)
    out = _run_together(f, [(tf.ones([n]),) for n in range(1, THREADS + 1)])
    assert len(traces) <= 2 if "reduce_retracing" in options else len(traces) == 1
    assert [o.shape for o in out] == [(n,) for n in range(1, THREADS + 1)]


def test_get_concrete_function_and_calls_together():
    f, traces = _slow_function()
    spec = tf.TensorSpec([4], tf.float32)
    calls = [(lambda: f.get_concrete_function(spec),)] * (THREADS // 2) + [(lambda: f(tf.ones([4])),)] * (THREADS // 2)
    _run_together(lambda g: g(), calls)
    assert len(traces) == 1
