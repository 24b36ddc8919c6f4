"""The garbage collector's automatic passes wait while a function is traced
(``function/gc_pause.py``) and run again afterwards, whatever happened in between."""

import gc
import os
import sys
import threading

import pytest

import tfunc as tf
from tfunc.function.gc_pause import PAUSED_THRESHOLD


@pytest.fixture(autouse=True)
def collector_on():
    was, thresholds = gc.isenabled(), gc.get_threshold()
    gc.enable()
    yield thresholds
    gc.set_threshold(*thresholds)
    if not was:
        gc.disable()


def paused() -> bool:
    return gc.get_threshold()[0] == PAUSED_THRESHOLD


def test_paused_while_tracing_and_running_after(collector_on):
    seen = []

    @tf.function
    def f(x):
        seen.append(paused())
        return x + 1.0

    f(tf.constant(1.0))
    f(tf.constant([1.0, 2.0]))  # a retrace
    f(tf.constant(3.0))  # no trace
    assert seen == [True, True]
    assert gc.get_threshold() == collector_on and gc.isenabled()


def test_a_collector_the_program_turned_off_is_not_touched(collector_on):
    gc.disable()
    seen = []
    f = tf.function(lambda x: seen.append(paused()) or x * 2.0)
    f(tf.constant(1.0))
    assert seen == [False] and not gc.isenabled() and gc.get_threshold() == collector_on


def test_switching_the_collector_inside_a_trace_is_kept():
    @tf.function
    def f(x):
        gc.disable()
        return x + 1.0

    f(tf.constant(1.0))
    assert not gc.isenabled()  # the program's own choice survives the trace's end


def test_a_threshold_the_program_sets_inside_a_trace_is_kept():
    @tf.function
    def f(x):
        gc.set_threshold(555, 7, 7)
        return x + 1.0

    f(tf.constant(1.0))
    assert gc.get_threshold() == (555, 7, 7)


def test_restarted_after_a_trace_that_raises(collector_on):
    @tf.function
    def f(x):
        raise RuntimeError("user error while tracing")

    with pytest.raises(RuntimeError, match="user error while tracing"):
        f(tf.constant(1.0))
    assert gc.get_threshold() == collector_on


def test_nested_traces_end_the_pause_once_the_outer_one_ends(collector_on):
    inner_seen, outer_seen = [], []

    @tf.function
    def inner(x):
        inner_seen.append(paused())
        return x * 2.0

    @tf.function
    def outer(x):
        y = inner(x)
        outer_seen.append(paused())  # the inner trace has ended
        return y + 1.0

    assert float(outer(tf.constant(1.0))) == 3.0
    assert inner_seen == [True] and outer_seen == [True]
    assert gc.get_threshold() == collector_on


def test_threads_tracing_at_once_end_the_pause(collector_on):
    start = threading.Barrier(2)
    seen = []

    def work(n):
        @tf.function
        def f(x):
            seen.append(paused())
            return x + float(n)

        start.wait()
        for k in range(1, 6):
            f(tf.ones([k]))

    threads = [threading.Thread(target=work, args=(n,)) for n in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert seen and all(seen)
    assert gc.get_threshold() == collector_on


@pytest.mark.skipif(not hasattr(os, "fork") or sys.platform == "darwin", reason="needs fork")
def test_a_child_forked_during_another_threads_trace_is_not_left_paused(collector_on):
    inside, release = threading.Event(), threading.Event()

    @tf.function
    def f(x):
        inside.set()
        release.wait(10)
        return x + 1.0

    t = threading.Thread(target=f, args=(tf.constant(1.0),))
    t.start()
    try:
        assert inside.wait(10) and paused()
        pid = os.fork()
        if pid == 0:  # the child: only this thread exists, and no trace runs on it
            os._exit(0 if gc.get_threshold() == collector_on else 1)
        _, status = os.waitpid(pid, 0)
    finally:
        release.set()
        t.join()
    assert os.waitstatus_to_exitcode(status) == 0
    assert gc.get_threshold() == collector_on
