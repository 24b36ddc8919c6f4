"""``keras.ops`` functions as Keras 3.15's TensorFlow backend has them, on the cases where they
differed: ctc_decode's padded output, angle of real -0.0 and NaN, digitize's unsorted bins, gcd/lcm
of unsigned integers, soft_shrink of integers, nanmedian of empty arrays, nanmean/nanmedian with
``axis=()``, associative_scan over an empty axis, and the integer inputs Keras refuses.

Expected values are Keras 3.15's (recorded from it) or analytic; each runs eagerly and inside
``tf.function``."""

import numpy as np
import pytest

import tfunc as tf
from tfunc.keras import ops


def _both(fn, *args):
    """``fn(*args)`` eagerly and traced (the arguments as the function's inputs)."""
    return [fn(*args), tf.function(fn)(*args)]


# --- ctc_decode ---------------------------------------------------------------------------------

LOGITS = np.random.default_rng(0).normal(size=(2, 6, 5)).astype(np.float32)
LENGTHS = np.array([6, 4], np.int32)

# Keras 3.15: keras.ops.ctc_decode(LOGITS, LENGTHS, **kwargs) -> (decoded, scores)
CTC_CASES = [
    ({}, [[[2, 1, 4, 1, 4, -1], [3, 4, 1, 2, -1, -1]]], [[-4.6149], [-5.5085]]),
    ({"merge_repeated": False}, [[[2, 1, 1, 4, 1, 4], [3, 4, 1, 2, -1, -1]]], [[-4.6149], [-5.5085]]),
    ({"mask_index": 2}, [[[1, 4, 1, 4, -1, -1], [3, 4, 1, -1, -1, -1]]], [[-4.6149], [-5.5085]]),
    ({"mask_index": None}, [[[2, 1, 1, -1, -1, -1], [3, 1, 2, -1, -1, -1]]], [[-4.6149], [-5.5085]]),
    (
        {"strategy": "beam_search", "top_paths": 3, "beam_width": 5},
        [
            [[2, 1, 4, 1, -1, -1], [4, 1, 2, -1, -1, -1]],
            [[2, 1, 4, -1, -1, -1], [4, 2, -1, -1, -1, -1]],
            [[2, 1, 4, 1, 4, -1], [3, 4, 1, 2, -1, -1]],
        ],
        [[-4.0766, -4.2161, -4.5395], [-3.7782, -3.8483, -3.9310]],
    ),
    (
        {"strategy": "beam_search", "mask_index": 2, "top_paths": 2},
        [[[1, 3, 4, -1, -1, -1], [4, 1, -1, -1, -1, -1]], [[1, 4, -1, -1, -1, -1], [4, 3, -1, -1, -1, -1]]],
        [[-4.1105, -4.2732], [-2.7325, -2.7894]],
    ),
]


@pytest.mark.parametrize("kwargs,decoded,scores", CTC_CASES)
def test_ctc_decode_matches_keras(kwargs, decoded, scores):
    for d, s in _both(lambda x, n: ops.ctc_decode(x, n, **kwargs), LOGITS, LENGTHS):
        assert d.dtype == tf.int32 and s.dtype == tf.float32
        np.testing.assert_array_equal(d.numpy(), decoded)
        np.testing.assert_allclose(s.numpy(), scores, atol=1e-4)


def test_ctc_decode_with_unknown_batch_and_steps():
    spec = [tf.TensorSpec([None, None, 5], tf.float32), tf.TensorSpec([None], tf.int32)]
    fn = tf.function(lambda x, n: ops.ctc_decode(x, n), input_signature=spec)
    d, _ = fn(LOGITS, LENGTHS)
    np.testing.assert_array_equal(d.numpy(), CTC_CASES[0][1])


# --- elementwise --------------------------------------------------------------------------------


def test_angle_of_reals_is_tensorflows_where_negative_pi():
    x = np.array([-0.0, np.nan, -1.0, 2.0, -np.inf], np.float32)
    for out in _both(ops.angle, x):  # Keras 3.15: [0, 0, pi, 0, pi]
        np.testing.assert_allclose(out.numpy(), [0.0, 0.0, np.pi, 0.0, np.pi], rtol=1e-6)


@pytest.mark.parametrize("dtype", [np.uint8, np.uint16, np.uint32])
def test_gcd_lcm_of_unsigned_integers(dtype):
    a, b = np.array([4, 6, 9, 0], dtype), np.array([6, 4, 3, 5], dtype)
    for g in _both(ops.gcd, a, b):
        assert g.dtype == tf.as_dtype(dtype)
        np.testing.assert_array_equal(g.numpy(), np.gcd(a, b))
    for m in _both(ops.lcm, a, b):
        assert m.dtype == tf.as_dtype(dtype)
        np.testing.assert_array_equal(m.numpy(), np.lcm(a, b))


@pytest.mark.parametrize(
    "dtype,expected",
    [(np.int32, [-2, 0, 1]), (np.int8, [-2, 0, 1]), (np.uint8, [252, 0, 1]), (np.bool_, [True, False, True])],
)
def test_soft_shrink_of_integers_truncates_back_to_their_dtype(dtype, expected):
    x = np.array([-3, 0, 2]).astype(dtype)  # Keras 3.15 on these NumPy inputs
    for out in _both(ops.soft_shrink, x):
        assert out.dtype == tf.as_dtype(dtype)
        np.testing.assert_array_equal(out.numpy(), expected)


@pytest.mark.parametrize(
    "fn", [ops.erf, ops.erfc, ops.erfinv, ops.rsqrt, ops.squareplus, ops.sparse_plus, ops.sparse_sigmoid, ops.sparsemax]
)
@pytest.mark.parametrize("dtype", [np.int32, np.int64, np.uint8, np.bool_])
def test_integer_inputs_are_refused_as_keras_refuses_them(fn, dtype):
    x = np.array([1, 0, 2]).astype(dtype)
    with pytest.raises(tf.errors.InvalidArgumentError):
        fn(x)  # TensorFlow eagerly: InvalidArgumentError
    with pytest.raises(TypeError):
        tf.function(fn)(x)  # while tracing: TypeError


def test_float_inputs_still_work_where_integers_are_refused():
    x = np.array([-3.0, 0.0, 2.0], np.float16)
    for out in _both(ops.squareplus, x):  # (x + sqrt(x^2 + 4)) / 2, float16 kept
        assert out.dtype == tf.float16
        np.testing.assert_allclose(out.numpy(), (x + np.sqrt(x * x + 4)) / 2, rtol=2e-3)
    for out in _both(ops.erfc, x):
        assert out.dtype == tf.float16


# --- digitize -----------------------------------------------------------------------------------


@pytest.mark.parametrize("bins", [[2.0, 1.0, 0.0], [0.0, 2.0, 1.0]])
def test_digitize_refuses_unsorted_bins(bins):
    x = np.array([0.5, 1.5, 3.0], np.float32)
    with pytest.raises(tf.errors.InvalidArgumentError, match="Expected sorted boundaries"):
        ops.digitize(x, bins)
    with pytest.raises(tf.errors.InvalidArgumentError, match="Expected sorted boundaries"):
        tf.function(lambda v: ops.digitize(v, np.array(bins, np.float32)))(x)


def test_digitize_accepts_repeated_bins():
    x = np.array([0.5, 1.5, 3.0], np.float32)
    for out in _both(lambda v: ops.digitize(v, [0.0, 1.0, 1.0, 2.0]), x):  # Keras 3.15: [1, 3, 4]
        np.testing.assert_array_equal(out.numpy(), [1, 3, 4])


# --- NaN-ignoring reductions --------------------------------------------------------------------


def test_nanmedian_of_empty_arrays_is_nan():
    e = np.zeros((0, 3), np.float32)
    for out in _both(ops.nanmedian, e):  # Keras 3.15: nan
        assert out.shape == () and np.isnan(out.numpy())
    for out in _both(lambda v: ops.nanmedian(v, axis=0), e):  # [nan, nan, nan]
        assert out.shape == (3,) and np.isnan(out.numpy()).all()
    for out in _both(lambda v: ops.nanmedian(v, axis=0, keepdims=True), e):
        assert out.shape == (1, 3) and np.isnan(out.numpy()).all()
    out = ops.nanpercentile(e, 50.0, axis=1)
    assert out.shape == (0,)


@pytest.mark.parametrize("fn", [ops.nanmean, ops.nanmedian])
@pytest.mark.parametrize("axis", [(), []])
def test_nanmean_nanmedian_with_no_axes_return_the_input(fn, axis):
    x = np.array([[1, 2], [3, 4]], np.int8)
    for out in _both(lambda v: fn(v, axis=axis, keepdims=True), x):  # Keras 3.15: x itself, int8
        assert out.dtype == tf.int8
        np.testing.assert_array_equal(out.numpy(), x)
    f = np.array([1.0, np.nan], np.float32)
    np.testing.assert_array_equal(fn(f, axis=axis).numpy(), f)


# --- associative_scan ---------------------------------------------------------------------------


@pytest.mark.parametrize("reverse", [False, True])
def test_associative_scan_over_an_empty_axis(reverse):
    z = np.zeros((0, 3), np.float32)
    for out in _both(lambda v: ops.associative_scan(lambda p, q: p + q, v, reverse=reverse), z):
        assert out.shape == (0, 3) and out.dtype == tf.float32
    pair = ops.associative_scan(lambda p, q: (p[0] + q[0], p[1] * q[1]), (z, z.astype(np.float64)))
    assert isinstance(pair, tuple) and [(t.shape, t.dtype) for t in pair] == [
        ((0, 3), tf.float32),
        ((0, 3), tf.float64),
    ]
    out = ops.associative_scan(lambda p, q: p + q, np.zeros((3, 0), np.float32), axis=1)
    assert out.shape == (3, 0)
