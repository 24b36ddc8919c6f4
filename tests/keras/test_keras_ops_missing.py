"""keras.ops functions of Keras 3.15 tfunc lacked: eig, lu_factor, jvp, nextafter, rearrange, fold,
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


def _col2im_reference(cols, output_size, k, d, p, s):
    """PyTorch's Fold written as loops: every block element added to its padded cell."""
    n, ckk, _ = cols.shape
    c = ckk // (k[0] * k[1])
    hp, wp = output_size[0] + 2 * p[0], output_size[1] + 2 * p[1]
    bh, bw = (hp - d[0] * (k[0] - 1) - 1) // s[0] + 1, (wp - d[1] * (k[1] - 1) - 1) // s[1] + 1
    out = np.zeros((n, c, hp, wp), cols.dtype)
    blocks = cols.reshape(n, c, k[0], k[1], bh * bw)
    for i in range(k[0]):
        for j in range(k[1]):
            for b in range(bh * bw):
                r, q = (b // bw) * s[0] + i * d[0], (b % bw) * s[1] + j * d[1]
                out[:, :, r, q] += blocks[:, :, i, j, b]
    return out[:, :, p[0] : p[0] + output_size[0], p[1] : p[1] + output_size[1]]


FOLD_CASES = [
    ((2, 3, 5, 7), (2, 2), (1, 1), (0, 0), (1, 1)),
    ((1, 2, 6, 5), (2, 3), (1, 2), (1, 2), (2, 1)),
    ((2, 1, 4, 4), (3, 3), (1, 1), (1, 1), (1, 1)),
    ((1, 2, 7, 7), (3, 3), (2, 2), (0, 0), (2, 2)),
]


@pytest.mark.parametrize("shape, k, d, p, s", FOLD_CASES)
def test_fold_is_col2im_and_the_adjoint_of_unfold(shape, k, d, p, s):
    ops = tf.keras.ops
    rng = np.random.default_rng(3)
    kw = dict(kernel_size=k, dilation=d, padding=p, stride=s)
    length = ops.unfold(np.zeros(shape, np.float32), **kw).shape[2]
    cols = rng.standard_normal((shape[0], shape[1] * k[0] * k[1], length)).astype(np.float32)
    want = _col2im_reference(cols, shape[2:], k, d, p, s)
    np.testing.assert_allclose(ops.fold(cols, shape[2:], **kw).numpy(), want, rtol=1e-5, atol=1e-5)
    traced = tf.function(lambda c: ops.fold(c, shape[2:], **kw))
    np.testing.assert_allclose(traced(cols).numpy(), want, rtol=1e-5, atol=1e-5)
    # the adjoint: the gradient of <fold(cols), w> with respect to cols is unfold(w)
    w = rng.standard_normal(shape).astype(np.float32)
    c = tf.constant(cols)
    with tf.GradientTape() as tape:
        tape.watch(c)
        y = tf.reduce_sum(ops.fold(c, shape[2:], **kw) * w)
    np.testing.assert_allclose(tape.gradient(y, c).numpy(), ops.unfold(w, **kw).numpy(), rtol=1e-5, atol=1e-5)


def test_fold_refuses_a_block_count_that_does_not_fit():
    with pytest.raises(ValueError, match="number of blocks"):
        tf.keras.ops.fold(np.zeros((1, 4, 5), np.float32), (4, 4), kernel_size=2, stride=2)


def test_rearrange_axis_lengths_reach_a_functional_model_and_its_archive(tmp_path):
    i = keras.Input((6, 4))
    model = keras.Model(i, ops.rearrange(i, "b (h w) c -> b h w c", h=3))
    assert model.output_shape == (None, 3, 2, 4)
    x = np.random.default_rng(0).standard_normal((2, 6, 4)).astype(np.float32)
    np.testing.assert_array_equal(model(x).numpy(), x.reshape(2, 3, 2, 4))
    model.save(tmp_path / "m.keras")
    np.testing.assert_array_equal(keras.models.load_model(tmp_path / "m.keras")(x).numpy(), x.reshape(2, 3, 2, 4))
