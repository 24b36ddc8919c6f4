"""Pooling and convolution with ``strides=None`` (TensorFlow's ``_get_sequence``: stride 1 on
every axis) and grouped convolutions (input channels a multiple of the filter's input depth,
which TensorFlow 2.21's CPU Conv2D accepts); expected values from NumPy formulas."""

import numpy as np
import pytest
from numpy.lib.stride_tricks import sliding_window_view

import tfunc as tf

RNG = np.random.default_rng(14)


def _both(fn, *args):
    """``fn``'s result eagerly and inside a tf.function, as NumPy arrays."""
    return [np.asarray(fn(*args)), np.asarray(tf.function(fn)(*args))]


def _pool_ref(x, k, reduce):
    """Stride-1 'VALID' pooling of a (batch, *spatial, channels) array with window ``k`` per axis."""
    spatial = tuple(range(1, x.ndim - 1))
    windows = sliding_window_view(x, k, axis=spatial)  # (n, *out, c, *k)
    return reduce(windows, axis=tuple(range(x.ndim, windows.ndim)))


X5 = RNG.standard_normal((1, 5, 4, 6, 2)).astype(np.float32)
X4, X3 = X5[0], X5[0, 0]

POOLS = {
    "max_pool3d": (lambda x: tf.nn.max_pool3d(x, 2, None, "VALID"), X5, np.max),
    "avg_pool3d": (lambda x: tf.nn.avg_pool3d(x, 2, None, "VALID"), X5, np.mean),
    "max_pool2d": (lambda x: tf.nn.max_pool2d(x, 2, None, "VALID"), X4, np.max),
    "avg_pool2d": (lambda x: tf.nn.avg_pool2d(x, 2, None, "VALID"), X4, np.mean),
    "max_pool1d": (lambda x: tf.nn.max_pool1d(x, 2, None, "VALID"), X3, np.max),
    "avg_pool1d": (lambda x: tf.nn.avg_pool1d(x, 2, None, "VALID"), X3, np.mean),
    "max_pool_5d": (lambda x: tf.nn.max_pool(x, 2, None, "VALID"), X5, np.max),
    "avg_pool_5d": (lambda x: tf.nn.avg_pool(x, 2, None, "VALID"), X5, np.mean),
    "max_pool_4d": (lambda x: tf.nn.max_pool(x, 2, None, "VALID"), X4, np.max),
    "avg_pool_4d": (lambda x: tf.nn.avg_pool(x, 2, None, "VALID"), X4, np.mean),
    "max_pool_3d": (lambda x: tf.nn.max_pool(x, 2, None, "VALID"), X3, np.max),
    "avg_pool_3d": (lambda x: tf.nn.avg_pool(x, 2, None, "VALID"), X3, np.mean),
    "max_pool_with_argmax": (lambda x: tf.nn.max_pool_with_argmax(x, 2, None, "VALID")[0], X4, np.max),
    "pool": (lambda x: tf.nn.pool(x, [2, 2], "MAX", None, "VALID"), X4, np.max),
}


@pytest.mark.parametrize("name", sorted(POOLS))
def test_pooling_with_strides_none_moves_the_window_by_one(name):
    fn, x, reduce = POOLS[name]
    want = _pool_ref(x, (2,) * (x.ndim - 2), reduce)
    for got in _both(fn, tf.constant(x)):
        np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-6)


def test_pooling_with_ksize_none_is_a_window_of_one():
    for got in _both(lambda x: tf.nn.max_pool2d(x, None, 1, "VALID"), tf.constant(X4)):
        np.testing.assert_array_equal(got, X4)


def _conv_ref(x, f, groups=1):
    """Stride-1 'VALID' cross-correlation, channels last, in float64: each of ``groups`` input
    channel groups with its slice of the filters' outputs."""
    spatial = f.ndim - 2
    patches = sliding_window_view(x.astype(np.float64), f.shape[:spatial], axis=tuple(range(1, spatial + 1)))
    fc, oc = f.shape[-2:]
    parts = []
    for g in range(groups):
        p = np.take(patches, range(g * fc, (g + 1) * fc), axis=-spatial - 1)
        w = f[..., g * (oc // groups) : (g + 1) * (oc // groups)].astype(np.float64)
        # p: (n, *out, fc, *k); w: (*k, fc, oc / groups)
        k_axes = tuple(range(p.ndim - spatial, p.ndim))
        parts.append(np.tensordot(p, w, axes=(k_axes + (p.ndim - spatial - 1,), tuple(range(spatial)) + (spatial,))))
    return np.concatenate(parts, -1)


def test_conv_with_strides_none_moves_the_filter_by_one():
    f2 = RNG.standard_normal((2, 3, 2, 3)).astype(np.float32)
    f1 = RNG.standard_normal((3, 2, 3)).astype(np.float32)
    for got in _both(lambda x, f: tf.nn.conv2d(x, f, None, "VALID"), tf.constant(X4), tf.constant(f2)):
        np.testing.assert_allclose(got, _conv_ref(X4, f2), rtol=1e-5, atol=1e-5)
    for got in _both(lambda x, f: tf.nn.conv1d(x, f, None, "VALID"), tf.constant(X3), tf.constant(f1)):
        np.testing.assert_allclose(got, _conv_ref(X3, f1), rtol=1e-5, atol=1e-5)


def test_conv3d_still_needs_strides():
    with pytest.raises(tf.errors.InvalidArgumentError, match="strides"):
        tf.nn.conv3d(X5, np.ones((2, 2, 2, 2, 1), np.float32), None, "VALID")


XG = RNG.standard_normal((2, 5, 6, 6)).astype(np.float32)
GROUPED = {  # name: (fn, input, filter, groups)
    "conv2d": (lambda x, f: tf.nn.conv2d(x, f, 1, "VALID"), XG, RNG.standard_normal((3, 2, 2, 6)), 3),
    "conv1d": (lambda x, f: tf.nn.conv1d(x, f, 1, "VALID"), XG[0], RNG.standard_normal((3, 3, 4)), 2),
    "convolution": (lambda x, f: tf.nn.convolution(x, f, padding="VALID"), XG, RNG.standard_normal((2, 2, 3, 4)), 2),
}


@pytest.mark.parametrize("name", sorted(GROUPED))
def test_grouped_convolution_values_and_gradients(name):
    fn, x, f, groups = GROUPED[name]
    x, f = x.astype(np.float64), f.astype(np.float64)
    want = _conv_ref(x, f, groups)
    w = RNG.standard_normal(want.shape)

    def grads(x, f):
        with tf.GradientTape() as tape:
            tape.watch([x, f])
            y = fn(x, f)
            loss = tf.reduce_sum(y * w)
        return (y, *tape.gradient(loss, [x, f]))

    # the loss is linear in x and in f: unit steps give the exact gradient
    def step_grads(a, other, first):
        out = np.zeros(a.size)
        base = np.sum(_conv_ref(*((a, other) if first else (other, a)), groups) * w)
        for i in range(a.size):
            e = np.zeros(a.size)
            e[i] = 1.0
            b = a + e.reshape(a.shape)
            out[i] = np.sum(_conv_ref(*((b, other) if first else (other, b)), groups) * w) - base
        return out.reshape(a.shape)

    want_dx, want_df = step_grads(x, f, True), step_grads(f, x, False)
    for run in (grads, tf.function(grads)):
        y, dx, df = run(tf.constant(x), tf.constant(f))
        np.testing.assert_allclose(np.asarray(y), want, rtol=1e-9, atol=1e-9)
        np.testing.assert_allclose(np.asarray(dx), want_dx, rtol=1e-7, atol=1e-7)
        np.testing.assert_allclose(np.asarray(df), want_df, rtol=1e-7, atol=1e-7)


def test_grouped_convolution_refuses_outputs_not_divisible_by_the_groups():
    with pytest.raises(tf.errors.InvalidArgumentError, match="evenly divisible by number of groups"):
        tf.nn.conv2d(XG, np.ones((3, 3, 2, 4), np.float32), 1, "SAME")  # 3 groups, 4 outputs
    with pytest.raises(tf.errors.InvalidArgumentError, match="depth"):
        tf.nn.conv2d(XG, np.ones((3, 3, 4, 4), np.float32), 1, "SAME")  # 6 channels, not a multiple of 4


def test_max_pool_skips_nan_and_floors_at_the_lowest_float_as_tensorflows_cpu_kernels():
    x = np.array([np.nan, 1, 2, 3, -np.inf, -np.inf, 5, np.nan], np.float32).reshape(1, 2, 4, 1)
    low = np.finfo(np.float32).min
    for run in (lambda f, *a: f(*a), lambda f, *a: tf.function(f)(*a)):
        # TF 2.21: [1, 5]; 1x1 windows [low, 1, 2, 3, low, low, 5, low]; 1-D [1, 3, low, 5]
        np.testing.assert_array_equal(run(tf.nn.max_pool2d, x, 2, 2, "VALID").numpy().ravel(), [1, 5])
        np.testing.assert_array_equal(
            run(tf.nn.max_pool2d, x, 1, 1, "VALID").numpy().ravel(), [low, 1, 2, 3, low, low, 5, low]
        )
        np.testing.assert_array_equal(
            run(tf.nn.max_pool1d, x.reshape(1, 8, 1), 2, 2, "VALID").numpy().ravel(), [1, 3, low, 5]
        )
    y = np.array([[1, np.nan], [np.nan, np.nan]], np.float32).reshape(1, 2, 2, 1)
    np.testing.assert_array_equal(tf.nn.max_pool2d(y, 2, 1, "SAME").numpy().ravel(), [1, low, low, low])
    np.testing.assert_array_equal(
        tf.nn.max_pool2d(y.astype(np.float64), 2, 1, "SAME").numpy().ravel()[1], np.finfo(np.float64).min
    )
