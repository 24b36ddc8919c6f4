"""tf.math.zeta, tf.math.polygamma and digamma's higher derivatives, against TensorFlow 2.21
(values printed by its Zeta and Polygamma kernels) and closed forms, eagerly and traced."""

import math

import numpy as np
import pytest

import tfunc as tf

# zeta(x, q): the special values (x == 1, x < 1, q = 0 or a negative integer, negative q with
# non-integer x), tiny and huge q, the direct sum's early exit (x = 50) and the tail (q = 30)
ZX = [1.0, 0.5, 2.0, 3.0, 2.0, 3.0, 2.5, 2.0, 2.5, 4.0, 2.0, 1.5, 50.0, 2.0, 1.1, 3.7, 2.0, 6.0, 1.5]
ZQ = [1.0, 1.0, 0.0, 0.0, -2.0, -3.0, -2.0, -2.5, -2.5, -1.0, 1e-3, 1e10, 1.0, 0.3, 0.05, 7.25, -100.5, 2.0, 30.0]
ZETA_TF64 = [math.inf, math.nan, math.inf, math.nan, math.inf, math.nan, math.nan, 9.539246644989124, math.nan]
ZETA_TF64 += [math.inf, 1000001.6425331959, 2.00000000005e-05, 1.0000000000000009, 12.245364546107734]
ZETA_TF64 += [37.487557571597456, 0.0021163958059607626, 9.859703491870086, 0.017343061984449137, 0.3682166281870004]

# polygamma(a, x): digamma at a == 0, NaN for non-integer or negative a, poles and negative x
PA = [0.0, 1.0, 2.0, 1.5, -1.0, 3.0, 1.0, 2.0, 4.0, 10.0, 1.0, 5.0, 0.0]
PX = [2.5, 2.5, 0.7, 2.0, 2.0, -1.5, 0.0, -2.0, 1e-3, 3.0, -0.5, 12.5, -0.5]
POLYGAMMA_TF64 = [0.7031566406452434, 0.4903577561002349, -6.434992874190923, math.nan, math.nan]
POLYGAMMA_TF64 += [194.59427621918758, math.inf, math.nan, -2.4000000000000024e16, -21.43660662871304]
POLYGAMMA_TF64 += [8.934802200544679, 9.562271597107641e-05, 0.03648997397857645]


def _both(fn, *args):
    """fn(*args) eagerly and inside tf.function."""
    return [fn(*args), tf.function(fn)(*args)]


@pytest.mark.parametrize("dtype, rtol", [(tf.float64, 1e-13), (tf.float32, 1e-6)])
def test_zeta_matches_tensorflow(dtype, rtol):
    x, q = tf.constant(ZX, dtype), tf.constant(ZQ, dtype)
    # TensorFlow's float32 kernel sums only 9 terms before its tail, wrong for q < -9 (it
    # gives -0.0099 at q = -100.5): the float64 value is the correct one, compared here
    for z in _both(tf.math.zeta, x, q):
        assert z.dtype == dtype
        np.testing.assert_allclose(z.numpy(), np.array(ZETA_TF64, dtype.as_numpy_dtype), rtol=rtol)


@pytest.mark.parametrize("dtype, rtol", [(tf.float64, 1e-13), (tf.float32, 1e-6)])
def test_polygamma_matches_tensorflow(dtype, rtol):
    a, x = tf.constant(PA, dtype), tf.constant(PX, dtype)
    for p in _both(tf.math.polygamma, a, x):
        assert p.dtype == dtype
        np.testing.assert_allclose(p.numpy(), np.array(POLYGAMMA_TF64, dtype.as_numpy_dtype), rtol=rtol)


def test_closed_forms_and_broadcasting():
    pi = math.pi
    x = tf.constant([[2.0], [4.0]], tf.float64)
    q = tf.constant([1.0, 0.5, 2.0], tf.float64)
    # zeta(s, 1) = zeta(s), zeta(s, 1/2) = (2^s - 1) zeta(s), zeta(s, 2) = zeta(s) - 1
    z2, z4 = pi**2 / 6, pi**4 / 90
    want = [[z2, 3 * z2, z2 - 1], [z4, 15 * z4, z4 - 1]]
    for z in _both(tf.math.zeta, x, q):
        assert z.shape == (2, 3)
        np.testing.assert_allclose(z.numpy(), want, rtol=1e-14)
    # polygamma(1, 1/2) = pi^2 / 2, polygamma(2, 1) = -2 zeta(3), polygamma(0, x) = digamma(x)
    for p in _both(tf.math.polygamma, tf.constant([1.0, 2.0], tf.float64), tf.constant([0.5, 1.0], tf.float64)):
        np.testing.assert_allclose(p.numpy(), [pi**2 / 2, -2 * 1.2020569031595942], rtol=1e-14)
    xs = tf.constant([0.3, 1.0, 2.5, -1.5, 10.0], tf.float64)
    np.testing.assert_allclose(tf.math.polygamma(0.0, xs).numpy(), tf.math.digamma(xs).numpy(), rtol=1e-15)


def test_dtypes_are_float32_and_float64_only():
    for fn in (tf.math.zeta, tf.math.polygamma):
        for dt in (tf.int32, tf.float16):
            with pytest.raises((TypeError, ValueError, tf.errors.InvalidArgumentError)):
                fn(tf.constant([2], dt), tf.constant([1], dt))


def _derivatives(x):
    """digamma's first three derivatives (nested tapes)."""
    with tf.GradientTape() as t3:
        t3.watch(x)
        with tf.GradientTape() as t2:
            t2.watch(x)
            with tf.GradientTape() as t1:
                t1.watch(x)
                y = tf.math.digamma(x)
            g1 = t1.gradient(y, x)
        g2 = t2.gradient(g1, x)
    return g1, g2, t3.gradient(g2, x)


def test_digamma_second_and_third_derivatives():
    # TensorFlow: polygamma(1, x), polygamma(2, x), polygamma(3, x)
    want = [
        [2.8340491566946113, 0.4903577561002349, 9.379246644989124],
        [-6.434992874190923, -0.23620405164172736, -0.23620405164172825],
        [25.879149678427744, 0.2239058488172521, 194.59427621918758],
    ]
    x = tf.constant([0.7, 2.5, -1.5], tf.float64)
    for gs in _both(_derivatives, x):
        for g, w in zip(gs, want):
            np.testing.assert_allclose(g.numpy(), w, rtol=1e-13)
    g2 = _derivatives(tf.constant([0.7, 2.5, -1.5], tf.float32))[1]
    np.testing.assert_allclose(g2.numpy(), [-6.434993267059326, -0.23620404303073883, -0.23620441555976868], rtol=2e-6)


def _zeta_and_polygamma_grads(s, q):
    with tf.GradientTape(persistent=True) as t:
        t.watch([s, q])
        z = tf.math.zeta(s, q)
        p = tf.math.polygamma(s - 1.0, q)  # orders 1 and 2
    return t.gradient(z, s), t.gradient(z, q), t.gradient(p, s), t.gradient(p, q)


def test_zeta_and_polygamma_gradients():
    # TensorFlow: None for zeta's x and polygamma's order; -x zeta(x + 1, q) and
    # polygamma(a + 1, x), summed over the broadcast axis
    s = tf.constant([2.0, 3.0], tf.float64)
    q = tf.constant([[1.5], [2.5]], tf.float64)
    for gs, gq, ga, gx in _both(_zeta_and_polygamma_grads, s, q):
        assert gs is None and ga is None
        np.testing.assert_allclose(gq.numpy(), [[-1.5333421612355385], [-0.3481569760503534]], rtol=1e-13)
        np.testing.assert_allclose(gx.numpy(), [[0.5802943897681166], [-0.012298202824475274]], rtol=1e-13)
