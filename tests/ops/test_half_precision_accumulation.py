"""float16/bfloat16 average pooling and depthwise/separable convolutions add up in float32 and
round once, as TensorFlow's kernels do (adding 600 bfloat16 ones in bfloat16 stops at 256)."""

import numpy as np
import pytest

import tfunc as tf
from tfunc.ops import pooling

HALVES = [tf.float16, tf.bfloat16]


def _eager_and_traced(fn):
    return [fn(), tf.function(fn)()]


def _check(fn, expected, dtype):
    for out in _eager_and_traced(fn):
        assert out.dtype is dtype
        np.testing.assert_array_equal(np.asarray(tf.cast(out, tf.float32)), expected)


@pytest.mark.parametrize("dtype", HALVES)
def test_depthwise_and_separable_conv2d_sum_600_ones(dtype):
    x = tf.ones([1, 1, 600, 1], dtype)
    f = tf.ones([1, 600, 1, 1], dtype)
    expected = np.full((1, 1, 1, 1), 600.0, np.float32)
    _check(lambda: tf.nn.depthwise_conv2d(x, f, [1, 1, 1, 1], "VALID"), expected, dtype)
    point = tf.ones([1, 1, 1, 1], dtype)
    _check(lambda: tf.nn.separable_conv2d(x, f, point, [1, 1, 1, 1], "VALID"), expected, dtype)


def test_avg_pool3d_and_pool_avg_of_bfloat16_ones():
    x = tf.ones([1, 1, 1, 600, 1], tf.bfloat16)
    _check(lambda: tf.nn.avg_pool3d(x, [1, 1, 600], 1, "VALID"), np.ones((1, 1, 1, 1, 1), np.float32), tf.bfloat16)
    _check(
        lambda: tf.nn.pool(x, [1, 1, 600], "AVG", padding="VALID"), np.ones((1, 1, 1, 1, 1), np.float32), tf.bfloat16
    )


@pytest.mark.parametrize("dtype", HALVES)
def test_portable_avg_pool2d_kernel_rounds_once(dtype):
    """The portable kernel (the one CuPy runs): a 64x64 window of ones averages to 1, and a window
    of bfloat16(0.3) to itself (the exact mean), padded windows too."""
    np_dtype = dtype.as_numpy_dtype
    ones = np.ones((1, 64, 64, 1), np_dtype)
    out = pooling._avg_pool_impl(np, ones, (64, 64), (64, 64), "VALID")
    assert out.dtype == np_dtype and float(out[0, 0, 0, 0]) == 1.0
    x = np.full((1, 5, 5, 1), 0.3, np_dtype)
    out = pooling._avg_pool_impl(np, x, (3, 3), (1, 1), "SAME")
    np.testing.assert_array_equal(out.astype(np.float32), np.full((1, 5, 5, 1), np.float32(x[0, 0, 0, 0])))


@pytest.mark.parametrize("dtype", HALVES)
def test_avg_pool2d_and_1d_of_half_ones(dtype):
    x = tf.ones([1, 64, 64, 1], dtype)
    _check(lambda: tf.nn.avg_pool2d(x, 64, 64, "VALID"), np.ones((1, 1, 1, 1), np.float32), dtype)
    x1 = tf.ones([1, 600, 1], dtype)
    _check(lambda: tf.nn.avg_pool1d(x1, 600, 600, "VALID"), np.ones((1, 1, 1), np.float32), dtype)


def test_bfloat16_reduce_mean_divides_in_float32():
    # 5000 copies of bfloat16(60000) = 59904: the exact mean is that value; rounding the float32
    # sum to bfloat16 before dividing gave 60160
    x = tf.fill([5000], tf.constant(60000.0, tf.bfloat16))
    _check(lambda: tf.reduce_mean(x), np.float32(59904.0), tf.bfloat16)
    y = tf.fill([2, 5000], tf.constant(60000.0, tf.bfloat16))
    _check(lambda: tf.reduce_mean(y, axis=1), np.full(2, 59904.0, np.float32), tf.bfloat16)
