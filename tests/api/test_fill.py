"""``tf.fill`` with values and shapes known only in the graph, and its gradient."""

import numpy as np
import pytest

import tfunc as tf


def test_fill_value_computed_in_function():
    @tf.function
    def f(v):
        return tf.fill([2, 3], v * 2.0)

    out = f(tf.constant(1.5))
    assert out.shape == (2, 3) and out.dtype is tf.float32
    np.testing.assert_array_equal(out.numpy(), np.full((2, 3), 3.0, np.float32))


def test_fill_dims_known_only_at_run_time():
    @tf.function(input_signature=[tf.TensorSpec([None], tf.float32), tf.TensorSpec([], tf.int32)])
    def f(x, v):
        return tf.fill(tf.shape(x), v)

    cf = f.get_concrete_function()
    assert cf.structured_outputs.shape.as_list() == [None]
    np.testing.assert_array_equal(f(tf.zeros([4]), tf.constant(7)).numpy(), [7, 7, 7, 7])


@pytest.mark.parametrize("mode", ["eager", "function"])
def test_fill_gradient_is_sum_of_upstream(mode):
    v = tf.constant(1.5)
    w = tf.constant([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])

    def grad(v):
        with tf.GradientTape() as tape:
            tape.watch(v)
            y = tf.reduce_sum(tf.fill([2, 3], v) * w)
        return tape.gradient(y, v)

    g = grad(v) if mode == "eager" else tf.function(grad)(v)
    assert g is not None and float(g) == 21.0


def test_fill_rejects_non_scalar_value():
    with pytest.raises(tf.errors.InvalidArgumentError, match="scalar"):
        tf.fill([], tf.constant([1.0, 2.0]))
    with pytest.raises(tf.errors.InvalidArgumentError, match="scalar"):
        tf.function(lambda v: tf.fill([2], v))(tf.constant([1.0, 2.0]))


def test_fill_rejects_negative_run_time_dims():
    f = tf.function(lambda d: tf.fill(d, 1.0), input_signature=[tf.TensorSpec([2], tf.int32)])
    with pytest.raises(tf.errors.InvalidArgumentError, match="non-negative"):
        f(tf.constant([2, -1]))


def test_zeros_ones_and_fill_with_run_time_dims_keep_the_known_ones():
    @tf.function(input_signature=[tf.TensorSpec([None, 3])])
    def f(x):
        n = tf.shape(x)[0]
        return tf.zeros([n, 4]), tf.ones(tf.shape(x), tf.int32), tf.fill([n, 5], 2.0), tf.zeros_like(x)

    outs = f.get_concrete_function().structured_outputs
    assert [o.shape.as_list() for o in outs] == [[None, 4], [None, 3], [None, 5], [None, 3]]
    got = f(tf.ones([2, 3]))
    assert [g.shape.as_list() for g in got] == [[2, 4], [2, 3], [2, 5], [2, 3]]
    assert got[1].dtype == tf.int32 and got[1].numpy().sum() == 6 and got[2].numpy().sum() == 20
