"""Values TensorFlow 2.21 gives where NumPy's own conventions differ: half-precision
accumulation, integer means, float floor division, dtype inference of mixed Python ints.
Each case runs eagerly and in a traced function."""

import numpy as np
import pytest

import tfunc as tf


def both(f, *args):
    """``f(*args)`` eagerly and through tf.function, as NumPy values (float64 for half floats)."""
    out = []
    for g in (f, tf.function(f)):
        r = g(*args)
        out.append(np.asarray(r.numpy()).astype(np.float64) if r.dtype in (tf.bfloat16, tf.float16) else r.numpy())
    return out


@pytest.mark.parametrize("dtype", [tf.bfloat16, tf.float16])
def test_half_float_reductions_accumulate_in_float32(dtype):
    x = tf.cast(tf.ones([1000]), dtype)
    for got in both(tf.reduce_sum, x):
        assert got == 1000.0  # a bfloat16 accumulator sticks at 256
    for got in both(tf.reduce_mean, x):
        assert got == 1.0
    for got in both(tf.reduce_logsumexp, x):
        assert abs(got - (1 + np.log(1000))) < 0.05
    for got in both(lambda t: tf.nn.softmax(t)[0], x):
        assert abs(got - 1e-3) < 1e-5
    for got in both(lambda t: tf.reduce_sum(t, axis=0, keepdims=True), tf.reshape(x, [1000, 1])):
        assert got.tolist() == [[1000.0]]


@pytest.mark.parametrize("dtype", [tf.bfloat16, tf.float16])
def test_half_float_sigmoid_keeps_small_values(dtype):
    x = tf.constant([-8.0, -10.0, -12.0, 0.0, 12.0], dtype)
    want = 1 / (1 + np.exp(-np.array([-8.0, -10.0, -12.0, 0.0, 12.0])))
    for got in both(tf.sigmoid, x):
        np.testing.assert_allclose(got, want, rtol=1e-2)  # 0.5 tanh(x/2) + 0.5 gives 0 here


def test_integer_mean_sums_in_64_bits_and_truncates():
    assert both(tf.reduce_mean, tf.constant([100, 100], tf.int8)) == [100, 100]
    assert both(tf.reduce_mean, tf.constant([-7, 2])) == [-2, -2]
    assert both(tf.reduce_mean, tf.constant([2**53 + 1] * 2, tf.int64)) == [2**53 + 1] * 2
    assert both(tf.reduce_mean, tf.constant([2**62] * 4, tf.int64)) == [0, 0]  # wraps, as TensorFlow
    assert both(tf.reduce_mean, tf.constant([200, 100], tf.uint8)) == [150, 150]
    assert both(tf.reduce_mean, tf.zeros([0], tf.int32)) == [0, 0]


def test_float_floordiv_is_floor_of_the_quotient():
    x = tf.constant([np.inf, -np.inf, np.inf, 1.0, -7.0])
    y = tf.constant([2.0, 2.0, -0.5, 0.1, 2.0])
    for got in both(lambda a, b: a // b, x, y):
        assert got.tolist() == [np.inf, -np.inf, -np.inf, 10.0, -4.0]
    for got in both(tf.math.floordiv, tf.constant([1.0], tf.float64), tf.constant([0.1], tf.float64)):
        assert got.tolist() == [10.0]
    with np.errstate(all="raise"):  # inf % y is NaN without a NumPy warning
        assert np.isnan(tf.math.floormod(tf.constant(np.inf), tf.constant(2.0)).numpy())
    with pytest.raises(tf.errors.InvalidArgumentError, match="division by zero"):
        tf.constant([1]) // tf.constant([0])


def test_mixed_python_ints_infer_int64():
    t = tf.constant([2**40 + 1, 3])
    assert t.dtype == tf.int64 and t.numpy().tolist() == [2**40 + 1, 3]
    assert tf.reduce_sum([2**40 + 1, 3]).numpy() == 2**40 + 4
    assert tf.constant([1, 2.5]).dtype == tf.float32


def test_unsorted_segment_mean_of_integers_divides_exactly():
    data, ids = tf.constant([3, 4, 4]), tf.constant([0, 0, 1])
    for got in both(lambda d, i: tf.math.unsorted_segment_mean(d, i, 2), data, ids):
        assert got.dtype == np.float64 and got.tolist() == [3.5, 4.0]
    rows = tf.math.unsorted_segment_mean(tf.constant([[3, 4], [4, 5], [1, 1]]), tf.constant([0, 0, 1]), 3)
    assert rows.numpy().tolist() == [[3.5, 4.5], [1.0, 1.0], [0.0, 0.0]]
    assert tf.math.unsorted_segment_mean(tf.constant([3.0, 4.0]), tf.constant([0, 0]), 1).dtype == tf.float32


def test_sigmoid_cross_entropy_gradient_at_zero_logits():
    labels = tf.constant([0.0, 1.0, 0.3])

    def grad(z):
        with tf.GradientTape() as tape:
            tape.watch(z)
            loss = tf.nn.sigmoid_cross_entropy_with_logits(labels=labels, logits=z)
        return tape.gradient(loss, z)

    for got in both(grad, tf.zeros(3)):  # sigmoid(0) - labels; relu and abs at 0 lost the 0.5
        np.testing.assert_allclose(got, [0.5, -0.5, 0.2], rtol=1e-6)
    for got in both(grad, tf.constant([-2.0, 0.5, 3.0])):
        np.testing.assert_allclose(got, 1 / (1 + np.exp(-np.array([-2.0, 0.5, 3.0]))) - [0.0, 1.0, 0.3], rtol=1e-6)
    with pytest.raises(ValueError, match="same shape"):
        tf.nn.sigmoid_cross_entropy_with_logits(labels=tf.ones([4, 1]), logits=tf.ones([4, 5]))


def test_cholesky_reads_only_the_lower_triangle():
    for got in both(tf.linalg.cholesky, tf.constant([[4.0, 0.0], [2.0, 3.0]])):
        np.testing.assert_allclose(got, [[2.0, 0.0], [1.0, np.sqrt(2.0)]], rtol=1e-6)
    for got in both(tf.linalg.cholesky, tf.constant([[4.0, 100.0], [1.0, 4.0]])):  # the 100 is never read
        np.testing.assert_allclose(got, [[2.0, 0.0], [0.5, np.sqrt(3.75)]], rtol=1e-6)
    z = tf.constant([[4.0 + 0j, 99.0 + 9j], [1.0 - 1j, 3.0 + 0j]], tf.complex128)
    lower = tf.linalg.cholesky(z).numpy()
    np.testing.assert_allclose(lower @ lower.conj().T, [[4.0, 1.0 + 1j], [1.0 - 1j, 3.0]], atol=1e-12)


@pytest.mark.parametrize("dtype", [tf.float64, tf.float16, tf.int32, tf.uint8])
def test_bilinear_resize_returns_float32_nearest_keeps_the_dtype(dtype):
    images = tf.cast(tf.reshape(tf.range(16), [1, 4, 4, 1]), dtype)
    for f in (tf.image.resize, tf.function(tf.image.resize)):
        assert f(images, [6, 6]).dtype == tf.float32
        assert f(images, [6, 6], method="nearest").dtype == dtype


def test_mean_edge_cases_as_tensorflow():
    assert both(tf.reduce_mean, tf.constant([-(2**63), 0], tf.int64)) == [-(2**62)] * 2  # |-2**63| overflowed
    assert both(tf.reduce_mean, tf.constant([-(2**63)], tf.int64)) == [-(2**63)] * 2
    with np.errstate(all="raise"):  # the half mean divides the rounded sum (inf past 65504), quietly
        assert both(tf.reduce_mean, tf.fill([5000], tf.constant(30.0, tf.float16))) == [np.inf] * 2


NAN = float("nan")


@pytest.mark.parametrize("dtype", [tf.float32, tf.float64, tf.float16, tf.bfloat16])
def test_argmax_and_argmin_pass_over_nan(dtype):
    # TensorFlow 2.21's values: NaN never wins, an all-NaN slice gives 0; NumPy returns the first NaN
    cases = {
        (NAN, 1.0, 3.0): (2, 1),
        (1.0, NAN, 3.0): (2, 0),
        (NAN, NAN): (0, 0),
        (3.0, NAN, 1.0): (0, 2),
        (NAN, -np.inf): (0, 1),
        (1.0, NAN, 1.0): (0, 0),
    }
    for values, (hi, lo) in cases.items():
        x = tf.constant(values, dtype)
        assert [int(g) for g in both(tf.argmax, x)] == [hi, hi], values
        assert [int(g) for g in both(tf.argmin, x)] == [lo, lo], values
    m = tf.constant([[NAN, 1.0], [2.0, NAN]], dtype)
    for axis in (0, 1):
        assert [g.tolist() for g in both(lambda t, a=axis: tf.argmax(t, axis=a), m)] == [[1, 0], [1, 0]]


def test_unique_keeps_each_nan_apart():
    for got in both(lambda t: tf.unique(t).idx, tf.constant([NAN, 2.0, NAN, 2.0])):
        assert got.tolist() == [0, 1, 2, 1]  # TensorFlow: NaN != NaN, so three distinct values
    assert np.isnan(tf.unique(tf.constant([NAN, NAN])).y.numpy()).tolist() == [True, True]


def test_ieee_special_values_do_not_warn():
    # in a fresh interpreter, as a user's script runs (pytest resets warning filters per test)
    import subprocess
    import sys

    script = """
import warnings
import numpy as np
import tfunc as tf

z = tf.constant([0.0, -1.0, 1e30])
fused = tf.function(lambda t: tf.math.log(t) * 2 + tf.sqrt(t) / t)
with warnings.catch_warnings(record=True) as seen:
    eager = [tf.math.log(z), 1 / z, tf.sqrt(z), z * z]
    traced = fused(z)
    tf.function(lambda a, b: a / b)(z, z)  # a one-op plan (not fused)
    user = np.log(np.zeros(1))  # the user's own NumPy code still warns
assert np.isneginf(eager[0].numpy()[0]) and np.isnan(traced.numpy()[0]) and np.isneginf(user[0])
print([str(w.message) for w in seen])
"""
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "['divide by zero encountered in log']", out.stdout + out.stderr


def test_python_types_as_dtypes():
    # TensorFlow reads the Python type float as float32 (NumPy: float64) and refuses int
    for make in (
        lambda: tf.cast(tf.constant([1, 2]), float),
        lambda: tf.function(lambda t: tf.cast(t, float))(tf.constant([1, 2])),
        lambda: tf.constant(1, dtype=float),
        lambda: tf.zeros([2], dtype=float),
        lambda: tf.Variable(1.0, dtype=float),
    ):
        assert make().dtype == tf.float32
    assert tf.float32.__eq__(float) and tf.float64.__ne__(float)  # tf.float32 == float
    assert tf.as_dtype(bool) is tf.bool
    for t in (int, complex, str, bytes):
        with pytest.raises(TypeError, match="Python type"):
            tf.as_dtype(t)


def test_half_float_limits_and_complex_to_bool():
    assert float(tf.bfloat16.max) == 3.3895313892515355e38 and float(tf.bfloat16.min) == -3.3895313892515355e38
    assert float(tf.float16.max) == 65504.0
    z = tf.constant([0j, 1j, 2 + 0j], tf.complex64)
    for got in both(lambda t: tf.cast(t, tf.bool), z):
        assert got.tolist() == [False, False, True]  # TensorFlow: only the real part counts


def test_unique_of_bfloat16_with_nan_merges_equal_values():
    x = tf.constant([2.0, NAN, 1.0, 2.0, 1.0], tf.bfloat16)
    for got in both(lambda t: tf.unique(t).idx, x):
        assert got.tolist() == [0, 1, 2, 0, 2]  # TensorFlow's; NumPy's bfloat16 sort split the 2s
