"""Gradients of TensorArrays written in graph loops (nested loops, ``ta.write(ta.size(), v)``)
and of functions holding a loop over a dataset, with the tape outside the tf.function (its
gradient replays the graph), inside it, and eagerly.  Expected values: TensorFlow 2.21's."""

import numpy as np
import pytest

import tfunc as tf


def _grads(f, x):
    """dy/dx of ``f`` three ways: eagerly, a tf.function under an outer tape, and a tape
    inside a tf.function; each as (y, dy/dx or None)."""
    out = {}
    with tf.GradientTape() as t:
        t.watch(x)
        y = f(x)
    out["eager"] = y, t.gradient(y, x)
    with tf.GradientTape() as t:
        t.watch(x)
        y = tf.function(f)(x)
    out["tape outside"] = y, t.gradient(y, x)

    @tf.function
    def inside(x):
        with tf.GradientTape() as t:
            t.watch(x)
            y = f(x)
        g = t.gradient(y, x)
        return (y, g) if g is not None else (y,)

    res = inside(x)
    out["tape inside"] = res[0], res[1] if len(res) > 1 else None
    return {k: (v[0].numpy(), None if v[1] is None else v[1].numpy()) for k, v in out.items()}


def _check(f, x, y, g, ways=("eager", "tape outside", "tape inside")):
    got = _grads(f, x)
    for way in ways:
        np.testing.assert_allclose(got[way][0], y, rtol=1e-6, err_msg=way)
        if g is None:
            assert got[way][1] is None, way
        else:
            np.testing.assert_allclose(got[way][1], g, rtol=1e-6, err_msg=way)


# --- TensorArrays written in nested graph loops ----------------------------------------------


def test_tensor_array_written_in_nested_loops():
    def f(x):
        ta = tf.TensorArray(tf.float32, size=4)
        k = 0
        for _i in tf.range(2):
            for _j in tf.range(2):
                ta = ta.write(k, x * 2.0)
                k += 1
        return tf.reduce_sum(ta.stack())

    _check(f, tf.constant(1.0), 8.0, 8.0)


@pytest.mark.parametrize("by_size", [True, False])
def test_tensor_array_written_in_a_while_inside_a_range_loop(by_size):
    def f(x):
        ta = tf.TensorArray(tf.float32, size=0, dynamic_size=True)
        s = tf.reduce_sum(x)
        k = tf.constant(0)
        for _i in tf.range(2):
            w = tf.constant(0)
            while w < 2:
                w += 1
                ta = ta.write(ta.size() if by_size else k, s)
                k += 1
                s = s * 2.0
            s = x[0] * 1.0
        return tf.reduce_sum(ta.stack())

    _check(f, tf.constant([1.0, 2.0, 3.0]), 21.0, [6.0, 3.0, 3.0])


def test_tensor_array_written_in_three_nested_loops():
    def f(x):
        ta = tf.TensorArray(tf.float32, size=8)
        k = 0
        for _i in tf.range(2):
            for _j in tf.range(2):
                for _m in tf.range(2):
                    ta = ta.write(k, x * tf.cast(k + 1, tf.float32))
                    k += 1
        return tf.reduce_sum(ta.stack())

    _check(f, tf.constant(1.5), 54.0, 36.0)


def test_tensor_array_from_a_nested_loop_with_kept_values_then_a_branch():
    # the inner loop keeps its sizes for the gradient; the branch after it takes the array
    # as the inner loop's kept output
    def f(x):
        ta = tf.TensorArray(tf.float32, size=0, dynamic_size=True)
        for _i in tf.range(2):
            for _j in tf.range(2):
                ta = ta.write(ta.size(), x * 2.0)
            if x > 0:
                ta = ta.write(ta.size(), x * 3.0)
        return tf.reduce_sum(ta.stack())

    _check(f, tf.constant(1.5), 21.0, 14.0)


def test_tensor_array_through_two_nested_loops_in_a_row():
    def f(x):
        ta = tf.TensorArray(tf.float32, size=0, dynamic_size=True)
        for _i in tf.range(2):
            for _j in tf.range(2):
                ta = ta.write(ta.size(), x * 2.0)
            for _j in tf.range(2):
                ta = ta.write(ta.size(), x * 5.0)
        return tf.reduce_sum(ta.stack())

    _check(f, tf.constant(1.5), 42.0, 28.0)


# --- ta.write(ta.size(), v) in a graph loop: the size each iteration saw ----------------------


def test_write_at_size_in_a_range_loop():
    def f(x):
        ta = tf.TensorArray(tf.float32, size=0, dynamic_size=True)
        for _i in tf.range(3):
            ta = ta.write(ta.size(), x * 0.5)
        return tf.reduce_sum(ta.stack())

    _check(f, tf.constant(2.0), 3.0, 1.5)


def test_write_at_size_in_a_loop_over_a_tensor():
    def f(x):
        s = tf.reduce_sum(x) * 0.1
        ta = tf.TensorArray(tf.float32, size=0, dynamic_size=True, element_shape=[])
        for _r in x:
            ta = ta.write(ta.size(), s * 0.5)
        return tf.reduce_sum(ta.stack())

    _check(f, tf.constant([1.0, 2.0, 3.0, 4.0]), 2.0, [0.2] * 4)


# --- a loop over a dataset: no gradient flows through it (TensorFlow's ReduceDataset) ---------
# (eagerly the loop is a Python loop over the elements, differentiated like any code)


def test_dataset_loop_beside_the_gradient_path():
    def f(x):
        k = tf.constant(0, tf.int64)
        for e in tf.data.Dataset.range(3):
            k += e
        return x * 2.0 + tf.cast(k, tf.float32)

    _check(f, tf.constant(1.0), 5.0, 2.0)


def test_dataset_loop_on_the_gradient_path_passes_none():
    def through(x):
        v = x * 0.5
        for _e in tf.data.Dataset.range(2):
            v = v * 0.5 + 1.0
        return v

    def mixed(x):
        return through(x) + x * 3.0

    x = tf.constant(1.0)
    _check(through, x, 1.625, None, ways=("tape outside", "tape inside"))
    _check(mixed, x, 4.625, 3.0, ways=("tape outside", "tape inside"))
    _check(through, x, 1.625, 0.125, ways=("eager",))


def test_dataset_loop_under_two_tapes_outside():
    # the outer tape differentiates the inner gradient: the function is replayed eagerly,
    # the dataset loop (with its break test) included
    @tf.function
    def f(x):
        k = tf.constant(0, tf.int64)
        for e in tf.data.Dataset.range(10):
            if k > 2:
                break
            k += e
        return x * x * 2.0 + tf.cast(k, tf.float32)

    x = tf.constant(1.5)
    with tf.GradientTape() as t1:
        t1.watch(x)
        with tf.GradientTape() as t2:
            t2.watch(x)
            y = f(x)
        g = t2.gradient(y, x)
    assert y.numpy() == 7.5
    assert g.numpy() == 6.0
    assert t1.gradient(g, x).numpy() == 4.0
