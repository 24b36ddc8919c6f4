"""depthwise_conv2d, conv2d_transpose, moments and batch_normalization against TensorFlow's
documented results and definitions."""

import numpy as np
import pytest

import tfunc as tf


def test_depthwise_conv2d_as_documented():
    x = np.array([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]], dtype=np.float32).reshape((1, 3, 2, 1))
    kernel = np.array([[1.0, 2.0], [3.0, 4]], dtype=np.float32).reshape((2, 1, 1, 2))
    out = tf.nn.depthwise_conv2d(x, kernel, strides=[1, 1, 1, 1], padding="VALID").numpy()
    np.testing.assert_array_equal(out, [[[[10.0, 14.0], [14.0, 20.0]], [[18.0, 26.0], [22.0, 32.0]]]])
    out = tf.nn.depthwise_conv2d(x, kernel, strides=[1, 1, 1, 1], padding=[[0, 0], [1, 0], [1, 0], [0, 0]])
    expected = [[[[0, 0], [3, 4], [6, 8]], [[0, 0], [10, 14], [14, 20]], [[0, 0], [18, 26], [22, 32]]]]
    np.testing.assert_array_equal(out.numpy(), expected)


def test_conv2d_transpose_is_the_gradient_of_conv2d():
    rng = np.random.default_rng(0)
    x = tf.constant(rng.normal(size=(2, 7, 6, 3)))
    f = tf.constant(rng.normal(size=(3, 3, 3, 4)))
    for strides, padding in [(1, "SAME"), (2, "SAME"), (2, "VALID")]:
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = tf.nn.conv2d(x, f, strides=strides, padding=padding)
            dy = tf.constant(rng.normal(size=y.shape.as_list()))
            loss = tf.reduce_sum(y * dy)
        expected = tape.gradient(loss, x)
        got = tf.nn.conv2d_transpose(dy, f, output_shape=[2, 7, 6, 3], strides=strides, padding=padding)
        np.testing.assert_allclose(got.numpy(), expected.numpy(), rtol=1e-10)
    with pytest.raises(tf.errors.InvalidArgumentError, match="gives"):
        tf.nn.conv2d_transpose(tf.ones([1, 3, 3, 4]), tf.ones([3, 3, 3, 4]), [1, 9, 9, 3], strides=1)


def test_moments_and_batch_normalization():
    rng = np.random.default_rng(1)
    x = rng.normal(size=(8, 5, 3)).astype(np.float32)
    mean, var = tf.nn.moments(tf.constant(x), axes=[0, 1])
    np.testing.assert_allclose(mean.numpy(), x.mean(axis=(0, 1)), rtol=1e-5)
    np.testing.assert_allclose(var.numpy(), x.var(axis=(0, 1)), rtol=1e-5)
    assert mean.shape == (3,)
    m2, _ = tf.nn.moments(tf.constant(x), axes=[0], keepdims=True)
    assert m2.shape == (1, 5, 3)
    scale, offset = np.float32(2.0), np.float32(0.5)
    y = tf.nn.batch_normalization(tf.constant(x), mean, var, offset, scale, 1e-3)
    np.testing.assert_allclose(
        y.numpy(), scale * (x - x.mean((0, 1))) / np.sqrt(x.var((0, 1)) + 1e-3) + offset, rtol=1e-4, atol=1e-5
    )
    half_mean, half_var = tf.nn.moments(tf.constant(x, tf.float16), axes=[0, 1])
    assert half_mean.dtype is tf.float16 and half_var.dtype is tf.float16


def test_conv2d_transpose_output_shape_with_a_run_time_batch_size():
    x, w = tf.random.normal([2, 3, 3, 2], seed=1), tf.random.normal([3, 3, 4, 2], seed=2)
    expected = tf.nn.conv2d_transpose(x, w, [2, 6, 6, 4], 2, "SAME").numpy()

    def up(x, w):
        return tf.nn.conv2d_transpose(x, w, tf.stack([tf.shape(x)[0], 6, 6, 4]), 2, "SAME")

    f = tf.function(up, input_signature=[tf.TensorSpec([None, 3, 3, 2]), tf.TensorSpec([3, 3, 4, 2])])
    assert f.get_concrete_function().structured_outputs.shape.as_list() == [None, 6, 6, 4]
    np.testing.assert_allclose(f(x, w).numpy(), expected, rtol=1e-6)

    def up_h(x, w):
        return tf.nn.conv2d_transpose(x, w, tf.stack([2, tf.shape(x)[1] * 2, 6, 4]), 2)

    np.testing.assert_allclose(tf.function(up_h)(x, w).numpy(), expected, rtol=1e-6)  # 3 * 2 known
    # a height known only at run time computes too (through the convolution's input gradient)
    cf = tf.function(up_h).get_concrete_function(tf.TensorSpec([2, None, 3, 2]), tf.TensorSpec([3, 3, 4, 2]))
    np.testing.assert_allclose(cf(x, w).numpy(), expected, rtol=1e-6)
