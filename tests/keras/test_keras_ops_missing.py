"""keras.ops functions of Keras 3.15 tfunc lacked: eig, lu_factor, jvp, nextafter, rearrange,
vectorize (expected values from Keras 3.15 on TensorFlow 2.21, or analytic)."""

import numpy as np
import pytest

import tfunc as tf
from tfunc import keras
from tfunc.keras import ops


def _run(fn, traced, *args):
    return (tf.function(fn) if traced else fn)(*args)


@pytest.mark.parametrize("traced", [False, True])
def test_eig(traced):
    a = np.array([[2.0, 1.0], [0.0, 3.0]], np.float32)
    w, v = _run(ops.eig, traced, tf.constant(a))
    assert w.dtype == tf.complex64 and v.dtype == tf.complex64
    np.testing.assert_allclose(w.numpy(), [2, 3])  # Keras's
    np.testing.assert_allclose(v.numpy(), [[1, 0.70710677], [0, 0.70710677]], rtol=1e-6)
    assert ops.linalg.eig is ops.eig
    with pytest.raises(ValueError, match="Expected a square matrix"):
        ops.eig(np.zeros((2, 3)))


@pytest.mark.parametrize("traced", [False, True])
def test_lu_factor(traced):
    lu, p = _run(ops.lu_factor, traced, tf.constant([[1.0, 2.0], [3.0, 4.0]], tf.float64))
    np.testing.assert_allclose(lu.numpy(), [[3, 4], [1 / 3, 2 / 3]])  # Keras's
    assert p.dtype == tf.int32 and p.numpy().tolist() == [1, 0]
    assert ops.linalg.lu_factor is ops.lu_factor
    with pytest.raises(ValueError, match="only supported for square matrices"):
        ops.lu_factor(np.zeros((2, 3)))
    with pytest.raises(ValueError, match="rank >= 2"):
        ops.lu_factor(np.zeros((3,)))


@pytest.mark.parametrize("traced", [False, True])
def test_jvp(traced):
    def run(a, t):
        return ops.jvp(lambda x: ops.sin(x) * x, (a,), (t,))

    a, t = np.float32([1.0, 2.0]), np.float32([1.0, 0.5])
    out, tangent = _run(run, traced, tf.constant(a), tf.constant(t))
    np.testing.assert_allclose(out.numpy(), np.sin(a) * a, rtol=1e-6)
    np.testing.assert_allclose(tangent.numpy(), (np.cos(a) * a + np.sin(a)) * t, rtol=1e-5)
    primal, tangent, aux = ops.jvp(
        lambda x, y: (x * y, 7.0),
        (tf.constant([1.0, 2.0]), tf.constant([3.0, 4.0])),
        (np.float32([1, 0]), np.float32([0, 1])),
        True,
    )
    assert primal.numpy().tolist() == [3, 8] and tangent.numpy().tolist() == [3, 2] and aux == 7.0


@pytest.mark.parametrize("traced", [False, True])
def test_nextafter_as_keras_tensorflow_backend(traced):
    # Keras computes in float64 and casts back: a float32 step rounds away
    assert _run(ops.nextafter, traced, tf.constant(1.0), tf.constant(2.0)).numpy() == np.float32(1.0)
    r = _run(ops.nextafter, traced, tf.constant(1.0, tf.float64), tf.constant(2.0, tf.float64))
    assert r.dtype == tf.float64 and r.numpy() == np.nextafter(1.0, 2.0)
    assert ops.nextafter(1, 2).dtype == tf.float32 and ops.numpy.nextafter is ops.nextafter


@pytest.mark.parametrize("traced", [False, True])
def test_rearrange(traced):
    x = np.arange(48.0).reshape(2, 4, 6)

    def run(t):
        return (
            ops.rearrange(t, "b h w -> w (b h)"),
            ops.rearrange(t, "b (h1 h) w -> (b h1) w h", h1=2),
            ops.rearrange(t, "b h (w w1) -> b w (h w1)", w1=3),
        )

    merged, split, depth = _run(run, traced, tf.constant(x))
    np.testing.assert_array_equal(merged.numpy(), x.transpose(2, 0, 1).reshape(6, 8))
    np.testing.assert_array_equal(split.numpy(), x.reshape(2, 2, 2, 6).transpose(0, 1, 3, 2).reshape(4, 6, 2))
    np.testing.assert_array_equal(depth.numpy(), x.reshape(2, 4, 2, 3).transpose(0, 2, 1, 3).reshape(2, 2, 12))
    # on a functional model's tensor: Keras's static shape, the batch size unknown
    assert ops.rearrange(keras.Input((2, 12)), "b t w -> b w t").shape == (None, 12, 2)


@pytest.mark.parametrize("traced", [False, True])
def test_vectorize(traced):
    x = np.arange(12.0, dtype=np.float32).reshape(3, 4)
    rowsum = ops.vectorize(lambda v: ops.sum(v), signature="(n)->()")
    elementwise = ops.vectorize(lambda v: v * 2 + 1)
    matvec = ops.vectorize(lambda m, v: ops.matmul(m, v), signature="(m,n),(n)->(m)")

    def run(t):
        return rowsum(t), rowsum(t[0]), elementwise(t), matvec(ops.stack([t[:, :3]] * 2), t[0, :3])

    sums, one, doubled, products = _run(run, traced, tf.constant(x))
    np.testing.assert_array_equal(sums.numpy(), x.sum(1))
    assert one.numpy() == 6.0  # Keras's (no mapped axis)
    np.testing.assert_array_equal(doubled.numpy(), x * 2 + 1)
    np.testing.assert_allclose(products.numpy(), np.stack([x[:, :3] @ x[0, :3]] * 2))
    assert ops.numpy.vectorize is ops.vectorize
    with pytest.raises(ValueError, match="does not have enough dimensions"):
        matvec(x[0], x[0])
    with pytest.raises(ValueError, match="does not match core dimensions"):
        ops.vectorize(lambda v: v, signature="(n)->()")(x)
