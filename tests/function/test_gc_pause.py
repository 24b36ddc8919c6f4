"""The garbage collector waits while a function is traced (``function/gc_pause.py``) and
is running again afterwards, whatever happened in between."""

import gc
import threading

import pytest

import tfunc as tf


@pytest.fixture(autouse=True)
def collector_on():
    was = gc.isenabled()
    gc.enable()
    yield
    if not was:
        gc.disable()


def test_paused_while_tracing_and_running_after():
    seen = []

    @tf.function
    def f(x):
        seen.append(gc.isenabled())
        return x + 1.0

    f(tf.constant(1.0))
    f(tf.constant([1.0, 2.0]))  # a retrace
    f(tf.constant(3.0))  # no trace
    assert seen == [False, False]
    assert gc.isenabled()


def test_a_collector_the_program_turned_off_stays_off():
    gc.disable()
    f = tf.function(lambda x: x * 2.0)
    f(tf.constant(1.0))
    assert not gc.isenabled()


def test_restarted_after_a_trace_that_raises():
    @tf.function
    def f(x):
        raise RuntimeError("user error while tracing")

    with pytest.raises(RuntimeError, match="user error while tracing"):
        f(tf.constant(1.0))
    assert gc.isenabled()


def test_nested_traces_restart_it_once_the_outer_one_ends():
    inner_seen, outer_seen = [], []

    @tf.function
    def inner(x):
        inner_seen.append(gc.isenabled())
        return x * 2.0

    @tf.function
    def outer(x):
        y = inner(x)
        outer_seen.append(gc.isenabled())  # the inner trace has ended
        return y + 1.0

    assert float(outer(tf.constant(1.0))) == 3.0
    assert inner_seen == [False] and outer_seen == [False]
    assert gc.isenabled()


def test_threads_tracing_at_once_leave_it_running():
    start = threading.Barrier(2)
    seen = []

    def work(n):
        @tf.function
        def f(x):
            seen.append(gc.isenabled())
            return x + float(n)

        start.wait()
        for k in range(1, 6):
            f(tf.ones([k]))

    threads = [threading.Thread(target=work, args=(n,)) for n in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert seen and not any(seen)
    assert gc.isenabled()
