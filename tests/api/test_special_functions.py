"""tf.math special functions (lgamma, digamma, erfinv, ndtri) and the tf.math / top-level
breadth added with them (acosh, xlog1py, reciprocal_no_nan, realdiv, polyval, monotonicity
tests, zero_fraction, unsorted_segment_sqrt_n, invert_permutation), eagerly and inside
tf.function.  Expected values are TensorFlow 2.21's (printed by its own functions)."""

import math

import numpy as np
import pytest

import tfunc as tf

INF, NAN = np.inf, np.nan
X = [
    -INF,
    -3.0,
    -2.5,
    -1.0,
    -0.5,
    0.0,
    1e-300,
    1e-8,
    0.5,
    1.0,
    1.4616321449683622,
    2.0,
    3.5,
    7.25,
    1e3,
    1e10,
    1e300,
    INF,
    NAN,
]
# (TensorFlow's float64 erfinv loses digits near 0 and 1: 1e-12 and 1 - 1e-9 are checked
# analytically below instead)
Y = [-1.5, -1.0, -0.999999, -0.5, 0.0, 0.3, 0.9, 1.0, NAN]
P = [-0.1, 0.0, 1e-300, 1e-20, 0.0029, 0.01, 0.3, 0.5, 0.9, 0.999999, 1.0, 1.1, NAN]
X32 = [-2.5, -1.0, 0.0, 1e-08, 0.5, 1.0, 2.0, 3.5, 7.25, 1000.0, INF]
LGAMMA_64 = [
    INF,
    INF,
    -0.05624371649767407,
    INF,
    1.2655121234846454,
    INF,
    690.7755278982137,
    18.42068073818021,
    0.5723649429247001,
    0.0,
    -0.12148629053584961,
    0.0,
    1.2009736023470743,
    7.0521854507385395,
    5905.220423209181,
    220258509288.81058,
    6.897755278982137e302,
    INF,
    NAN,
]
DIGAMMA_64 = [
    NAN,
    NAN,
    1.1031566406452433,
    NAN,
    0.03648997397857645,
    NAN,
    -9.999999999999999e299,
    -100000000.57721566,
    -1.9635100260214227,
    -0.5772156649015323,
    -4.440892098500626e-16,
    0.42278433509846747,
    1.1031566406452433,
    1.9104535268837362,
    6.907255195648812,
    23.025850929890456,
    690.7755278982137,
    INF,
    NAN,
]
ERFINV_64 = [
    NAN,
    -INF,
    -3.4589107372754997,
    -0.4769362762044699,
    0.0,
    0.27246271472675443,
    1.1630871536766738,
    INF,
    NAN,
]
NDTRI_64 = [
    NAN,
    -INF,
    -37.0470962993612,
    -9.262340089798409,
    -2.758879034547144,
    -2.3263478740408408,
    -0.5244005127080409,
    0.0,
    1.2815515655446004,
    4.753424308817087,
    INF,
    NAN,
    NAN,
]
LGAMMA_32 = [
    -0.056243713945150375,
    INF,
    INF,
    18.42068099975586,
    0.5723649263381958,
    0.0,
    0.0,
    1.200973629951477,
    7.052185535430908,
    5905.22021484375,
    INF,
]
DIGAMMA_32 = [
    1.1031568050384521,
    NAN,
    NAN,
    -100000000.0,
    -1.9635107517242432,
    -0.5772159099578857,
    0.4227842092514038,
    1.1031568050384521,
    1.91045343875885,
    6.907255172729492,
    INF,
]
LGAMMA_16 = [-0.056243896484375, INF, INF, INF, 0.572265625, 0.0, 0.0, 1.201171875, 7.05078125, 5904.0, INF]
GRAD_LGAMMA = [-3.502524222200133, 0.7031566406452434, 0.7031566406452434, 1.8727843350984674]
GRAD_DIGAMMA = [12.245364546107734, 0.4903577561002349, 9.379246644989124, 0.15354517795933756]
GRAD_ERFINV = [1.516363217333765, 0.9545203588405493, 1.2628624281411844, 24.450876473746423]
GRAD_NDTRI = [37.52043615729513, 2.876103659264292, 2.588376669140744, 37.52043615729513]
GRAD_ACOSH = [0.8944271909999159, 0.5773502691896258, 0.10050378152592121, 0.001000000500000375]


def _both(fn, *args):
    """fn(*args) eagerly and inside tf.function, as NumPy arrays."""
    return fn(*args).numpy(), tf.function(fn)(*args).numpy()


@pytest.mark.parametrize(
    "fn, points, expected",
    [
        (tf.math.lgamma, X, LGAMMA_64),
        (tf.math.digamma, X, DIGAMMA_64),
        (tf.math.erfinv, Y, ERFINV_64),
        (tf.math.ndtri, P, NDTRI_64),
    ],
    ids=["lgamma", "digamma", "erfinv", "ndtri"],
)
def test_special_functions_float64_match_tensorflow_with_poles_and_infinities(fn, points, expected):
    for got in _both(fn, tf.constant(points, tf.float64)):
        assert got.dtype == np.float64
        # 2e-15 relative; the roots (lgamma at 1 and 2, digamma at 1.4616) within 1e-15 absolute
        np.testing.assert_allclose(got, expected, rtol=2e-15, atol=1e-15, equal_nan=True)


@pytest.mark.parametrize(
    "fn, dtype, expected",
    [
        (tf.math.lgamma, tf.float32, LGAMMA_32),
        (tf.math.digamma, tf.float32, DIGAMMA_32),
        (tf.math.lgamma, tf.float16, LGAMMA_16),
    ],
    ids=["lgamma32", "digamma32", "lgamma16"],
)
def test_special_functions_narrow_floats(fn, dtype, expected):
    for got in _both(fn, tf.constant(X32, dtype)):
        assert got.dtype == dtype.as_numpy_dtype
        np.testing.assert_allclose(
            got.astype(np.float64), expected, rtol=1e-6 if dtype == tf.float32 else 1e-3, equal_nan=True
        )


def test_erfinv_and_ndtri_keep_relative_accuracy_in_the_tails():
    # analytic: erfinv(y) ~ sqrt(pi) / 2 * y for tiny y; ndtri(1 - p) = -ndtri(p)
    y = tf.constant([1e-300, -1e-20], tf.float64)
    np.testing.assert_allclose(tf.math.erfinv(y).numpy(), np.sqrt(np.pi) / 2 * y.numpy(), rtol=1e-15)
    # erfc(erfinv(y)) = 1 - y, checked with Python's own erfc
    y = np.array([0.999999999, 0.9999999999999, -0.99])
    x = tf.math.erfinv(tf.constant(y)).numpy()
    np.testing.assert_allclose([math.erfc(abs(v)) for v in x], 1 - np.abs(y), rtol=1e-14)
    p = np.array([1e-10, 0.02, 0.3])
    np.testing.assert_allclose(tf.math.ndtri(1 - p).numpy(), -tf.math.ndtri(p).numpy(), rtol=1e-6)


def test_special_functions_reject_integers_and_erfinv_half_floats():
    with pytest.raises((TypeError, tf.errors.InvalidArgumentError)):
        tf.math.lgamma(tf.constant([1, 2]))
    with pytest.raises((TypeError, tf.errors.InvalidArgumentError)):
        tf.math.erfinv(tf.constant([0.5], tf.float16))  # TensorFlow's CPU has no such kernel


@pytest.mark.parametrize(
    "fn, points, expected",
    [
        (tf.math.lgamma, [0.3, 2.5, -1.5, 7.0], GRAD_LGAMMA),
        (tf.math.digamma, [0.3, 2.5, -1.5, 7.0], GRAD_DIGAMMA),
        (tf.math.erfinv, [-0.7, 0.3, 0.6, 0.99], GRAD_ERFINV),
        (tf.math.ndtri, [0.01, 0.3, 0.6, 0.99], GRAD_NDTRI),
        (tf.math.acosh, [1.5, 2.0, 10.0, 1e3], GRAD_ACOSH),
    ],
    ids=["lgamma", "digamma", "erfinv", "ndtri", "acosh"],
)
def test_gradients_match_tensorflow(fn, points, expected):
    x = tf.constant(points, tf.float64)

    def grad(x):
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = fn(x)
        return tape.gradient(y, x)

    for got in _both(grad, x):
        np.testing.assert_allclose(got, expected, rtol=1e-12)


def test_acosh_and_top_level_reexports():
    for got in _both(tf.math.acosh, tf.constant([0.5, 1.0, 2.0, INF], tf.float64)):
        np.testing.assert_allclose(got, [NAN, 0.0, 1.3169578969248166, INF], rtol=1e-15, equal_nan=True)
    assert tf.acosh is tf.math.acosh and tf.tan is tf.math.tan
    assert tf.scalar_mul is tf.math.scalar_mul and tf.realdiv is tf.math.realdiv
    assert tf.invert_permutation is tf.math.invert_permutation and tf.math.softsign is tf.nn.softsign


def test_xlog1py_values_and_gradients():
    x = tf.constant([0.0, 1.0, 2.0, 0.0])
    y = tf.constant([3.0, -0.5, 4.0, -1.0])

    def value_and_grads(x, y):
        with tf.GradientTape(persistent=True) as tape:
            tape.watch([x, y])
            z = tf.math.xlog1py(x, y)
        return z, tape.gradient(z, x), tape.gradient(z, y)

    for fn in (value_and_grads, tf.function(value_and_grads)):
        z, gx, gy = (t.numpy() for t in fn(x, y))
        np.testing.assert_allclose(z, [0.0, -0.6931471824645996, 3.2188758850097656, 0.0], rtol=1e-6)
        np.testing.assert_allclose(gx, [0.0, -0.6931471824645996, 1.6094379425048828, 0.0], rtol=1e-6)
        np.testing.assert_allclose(gy, [0.0, 2.0, 0.4000000059604645, 0.0], rtol=1e-6)


def test_reciprocal_no_nan_and_realdiv():
    for got in _both(tf.math.reciprocal_no_nan, tf.constant([0.0, 2.0, INF])):
        np.testing.assert_array_equal(got, [0.0, 0.5, 0.0])
    for got in _both(lambda a: tf.realdiv(a, 3.0), tf.constant([1.0, 2.0])):
        np.testing.assert_allclose(got, [1 / 3, 2 / 3], rtol=1e-7)
    with pytest.raises(tf.errors.NotFoundError):  # TensorFlow's RealDiv has no integer kernel
        tf.realdiv(tf.constant([1, 2]), 3)


def test_polyval():
    x = tf.constant([0.0, 1.0, 2.0])
    for got in _both(lambda x: tf.math.polyval([1.0, 2.0, 3.0], x), x):
        np.testing.assert_array_equal(got, [3.0, 6.0, 11.0])  # x^2 + 2x + 3
    assert tf.math.polyval([], tf.constant(2.0)).numpy() == 0.0
    np.testing.assert_array_equal(tf.math.polyval([tf.constant([1.0, 2.0]), 3.0], 2.0).numpy(), [5.0, 7.0])


def test_monotonicity_tests_and_zero_fraction():
    cases = [
        (tf.math.is_non_decreasing, [1, 1, 2], True),
        (tf.math.is_non_decreasing, [2, 1], False),
        (tf.math.is_strictly_increasing, [1, 1, 2], False),
        (tf.math.is_strictly_increasing, [[1, 2], [3, 4]], True),  # flattened
        (tf.math.is_strictly_increasing, [5], True),
    ]
    for fn, x, want in cases:
        assert [bool(v) for v in _both(fn, tf.constant(x))] == [want, want], (fn.__name__, x)
    for got in _both(tf.math.zero_fraction, tf.constant([1, 0, 0, 3])):
        assert got == np.float32(0.5) and got.dtype == np.float32
    assert np.isnan(tf.math.zero_fraction(tf.zeros([0])).numpy())
    assert tf.math.zero_fraction(tf.constant([True, False])).numpy() == 0.5


def test_unsorted_segment_sqrt_n():
    data = tf.constant([[1.0, 2], [3, 4], [5, 6], [7, 8]], tf.float64)
    ids = tf.constant([0, 2, 0, -1])  # the negative id is dropped; segment 1 is empty
    for got in _both(lambda d, i: tf.math.unsorted_segment_sqrt_n(d, i, 3), data, ids):
        np.testing.assert_allclose(got, [[4.242640687119285, 5.65685424949238], [0.0, 0.0], [3.0, 4.0]], rtol=1e-15)


def test_invert_permutation():
    for dtype in (tf.int32, tf.int64):
        for got in _both(tf.math.invert_permutation, tf.constant([3, 4, 0, 2, 1], dtype)):
            np.testing.assert_array_equal(got, [2, 4, 3, 0, 1])
            assert got.dtype == dtype.as_numpy_dtype
    with pytest.raises(tf.errors.InvalidArgumentError, match="0 is duplicated"):
        tf.math.invert_permutation(tf.constant([0, 0, 1]))
    with pytest.raises(tf.errors.InvalidArgumentError, match="not between"):
        tf.function(tf.math.invert_permutation)(tf.constant([0, 3, 1]))
