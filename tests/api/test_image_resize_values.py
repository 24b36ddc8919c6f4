"""tf.image.resize reads only the pixels it samples (NaN and inf stay local, nearest copies
exactly) and checks its arguments as TensorFlow 2.21 does; expected values from TensorFlow."""

import numpy as np
import pytest

import tfunc as tf

NAN, INF = float("nan"), float("inf")


def _both(fn, *args):
    """``fn(*args)`` eagerly and inside tf.function, as NumPy arrays."""
    return [fn(*args).numpy(), tf.function(fn)(*args).numpy()]


def _row(values, dtype=np.float32):
    return np.asarray(values, dtype).reshape(1, 1, -1, 1)


def test_nearest_copies_the_sampled_pixels_only():
    y = _row([NAN, 0.0, 1.0, 2.0])
    for got in _both(lambda a: tf.image.resize(a, [1, 3], method="nearest"), y):
        np.testing.assert_array_equal(got.ravel(), [NAN, 1.0, 2.0])


def test_nearest_is_exact_for_int64_beyond_float64():
    big = _row([2**60 + 1, 3], np.int64)
    for got in _both(lambda a: tf.image.resize(a, [1, 4], method="nearest"), big):
        assert got.dtype == np.int64 and got.ravel().tolist() == [2**60 + 1, 2**60 + 1, 3, 3]


def test_bilinear_inf_reaches_only_its_neighbours():
    x = _row([INF, 0.0, 1.0])
    # TensorFlow mixes a + (b - a) * t: inf - inf = NaN next to the inf, the rest untouched
    for got in _both(lambda a: tf.image.resize(a, [1, 5]), x):
        np.testing.assert_allclose(got.ravel(), [NAN, NAN, 0.0, 0.6, 1.0], rtol=1e-6)
    for got in _both(lambda a: tf.image.resize(a, [1, 3]), x):  # same size: a copy
        np.testing.assert_array_equal(got.ravel(), [INF, 0.0, 1.0])
    for got in _both(lambda a: tf.image.resize(a, [2, 3]), x):  # the width is resampled in place
        np.testing.assert_array_equal(got.ravel(), [NAN, 0.0, 1.0, NAN, 0.0, 1.0])


@pytest.mark.parametrize(
    "method, nan_at",
    [
        ("bilinear", [(r, c) for r in range(1, 5) for c in range(3, 7)]),  # the outputs tapping (1, 2)
        ("nearest", [(2, 4), (2, 5), (3, 4), (3, 5)]),
    ],
)
def test_one_nan_pixel_stays_local_in_2d(method, nan_at):
    x = np.zeros((1, 4, 4, 1), np.float32)
    x[0, 1, 2, 0] = NAN
    for got in _both(lambda a: tf.image.resize(a, [8, 8], method=method), x):
        assert np.argwhere(np.isnan(got[0, :, :, 0])).tolist() == [list(p) for p in nan_at]
        assert np.all(got[~np.isnan(got)] == 0.0)


@pytest.mark.parametrize(
    "method, dy, expected",
    [
        ("bilinear", [1, 2, 3, 4, 5], [2.1999998, 5.3999996, 7.4000006]),
        ("bilinear", [0, 0, 0, INF, 0], [0.0, NAN, NAN]),  # TensorFlow's 0 * inf in the height taps
        ("bilinear", [0, 0, INF, 0, 0], [0.0, NAN, 0.0]),
        ("nearest", [1, 2, 3, 4, 5], [3.0, 3.0, 9.0]),
        ("nearest", [0, 0, 0, INF, 0], [0.0, 0.0, INF]),
    ],
)
def test_gradient_sums_only_the_outputs_each_pixel_feeds(method, dy, expected):
    x = tf.constant(_row([1.0, 2.0, 3.0]))
    weights = tf.constant(_row(dy))

    def grad(x):
        with tf.GradientTape() as tape:
            tape.watch(x)
            loss = tf.reduce_sum(tf.image.resize(x, [1, 5], method=method) * weights)
        return tape.gradient(loss, x)

    for got in _both(grad, x):
        np.testing.assert_allclose(got.ravel(), expected, rtol=1e-6)


@pytest.mark.parametrize(
    "size, error, match",
    [
        ([4, 4, 4], ValueError, "2 elements"),
        ([[4, 4]], ValueError, "2 elements"),
        (4, ValueError, "2 elements"),
        ([4.0, 4.0], ValueError, "int32"),
        ([-4, 4], ValueError, "must be >= 0"),
        ([0, 3], tf.errors.InvalidArgumentError, "must be positive"),
        ([3, 0], tf.errors.InvalidArgumentError, "must be positive"),
    ],
)
def test_size_is_checked_as_tensorflow_does(size, error, match):
    img = np.ones((1, 5, 7, 3), np.float32)
    for method in ("bilinear", "nearest"):
        with pytest.raises(error, match=match):
            tf.image.resize(img, size, method=method)
        with pytest.raises(error, match=match):
            tf.function(lambda a, m=method: tf.image.resize(a, size, method=m))(img)


@pytest.mark.parametrize("dtype", [np.bool_, np.uint32, np.uint64, np.complex64])
def test_dtypes_tensorflow_has_no_kernel_for_are_refused(dtype):
    img = np.ones((1, 2, 2, 1), dtype)
    for method in ("bilinear", "nearest"):
        # TensorFlow: InvalidArgumentError eagerly, TypeError while tracing; tfunc's error is both
        with pytest.raises(tf.errors.InvalidArgumentError, match="images"):
            tf.image.resize(img, [3, 3], method=method)
        with pytest.raises(TypeError, match="images"):
            tf.function(lambda a, m=method: tf.image.resize(a, [3, 3], method=m))(img)


@pytest.mark.parametrize("method", ["BILINEAR", "Nearest", "nearest_neighbor", "foo"])
def test_only_the_lowercase_method_names_are_accepted(method):
    with pytest.raises(ValueError, match="Resize method is not implemented"):
        tf.image.resize(np.ones((1, 2, 2, 1), np.float32), [3, 3], method=method)


def test_empty_images_are_refused_empty_batches_are_not():
    for method in ("bilinear", "nearest"):
        with pytest.raises(tf.errors.InvalidArgumentError, match="non-zero size"):
            tf.image.resize(np.zeros((1, 0, 3, 1), np.float32), [4, 4], method=method)
        f = tf.function(lambda a, m=method: tf.image.resize(a, [4, 4], method=m))
        with pytest.raises(tf.errors.InvalidArgumentError, match="non-zero size"):
            f(np.zeros((1, 3, 0, 1), np.float32))
        for got in _both(lambda a, m=method: tf.image.resize(a, [2, 3], method=m), np.zeros((0, 5, 7, 3), np.float32)):
            assert got.shape == (0, 2, 3, 3)


def test_image_size_known_only_at_run_time():
    f = tf.function(
        lambda a: tf.image.resize(a, [1, 5]), input_signature=[tf.TensorSpec([None, None, None, 1], tf.float32)]
    )
    np.testing.assert_allclose(f(_row([INF, 0.0, 1.0])).numpy().ravel(), [NAN, NAN, 0.0, 0.6, 1.0], rtol=1e-6)
    with pytest.raises(tf.errors.InvalidArgumentError, match="non-zero size"):
        f(np.zeros((1, 1, 0, 1), np.float32))
