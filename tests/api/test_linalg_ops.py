"""tf.linalg, einsum, norm and the norm clips against TensorFlow's documented results and
NumPy's linear algebra."""

import numpy as np
import pytest

import tfunc as tf

RNG = np.random.default_rng(11)


def _mat(*shape):
    return RNG.normal(size=shape)


def test_einsum_forms_as_documented():
    a, b = _mat(2, 3), _mat(3, 5)
    np.testing.assert_allclose(tf.einsum("ij,jk->ik", a, b).numpy(), a @ b)
    np.testing.assert_allclose(tf.einsum("ij->ji", a).numpy(), a.T)
    m = _mat(4, 4)
    np.testing.assert_allclose(tf.einsum("ii", m).numpy(), np.trace(m))  # implicit output: the trace
    u, v = _mat(3), _mat(5)
    np.testing.assert_allclose(tf.einsum("i,j->ij", u, v).numpy(), np.outer(u, v))
    x, y = _mat(2, 2, 3), _mat(3, 4)
    np.testing.assert_allclose(tf.einsum("...ij,jk->...ik", x, y).numpy(), x @ y)
    np.testing.assert_allclose(tf.einsum("ij,jk", a, b).numpy(), a @ b)  # implicit: 'ik'
    with pytest.raises(tf.errors.InvalidArgumentError, match="size 3 in one place and 4"):
        tf.einsum("ij,jk->ik", _mat(2, 3), _mat(4, 2))
    with pytest.raises(tf.errors.InvalidArgumentError, match="does not appear"):
        tf.einsum("ij->iz", a)


def test_einsum_gradients_with_summed_and_repeated_letters():
    m = tf.constant(_mat(3, 3))
    w = tf.constant(_mat(3, 4))
    with tf.GradientTape(persistent=True) as tape:
        tape.watch([m, w])
        trace = tf.einsum("ii->", m)
        rowsum = tf.reduce_sum(tf.einsum("ij->i", w) * tf.constant([1.0, 2.0, 3.0], tf.float64))
    np.testing.assert_allclose(tape.gradient(trace, m).numpy(), np.eye(3))
    np.testing.assert_allclose(tape.gradient(rowsum, w).numpy(), np.repeat([[1.0], [2.0], [3.0]], 4, axis=1))


def test_factorizations_reconstruct_their_input():
    a = _mat(2, 5, 3)
    s, u, v = tf.linalg.svd(a)
    np.testing.assert_allclose((u.numpy() * s.numpy()[:, None, :]) @ np.swapaxes(v.numpy(), -1, -2), a, atol=1e-10)
    np.testing.assert_allclose(tf.linalg.svd(a, compute_uv=False).numpy(), np.linalg.svd(a, compute_uv=False))
    q, r = tf.linalg.qr(a)
    np.testing.assert_allclose(q.numpy() @ r.numpy(), a, atol=1e-10)
    assert np.allclose(np.tril(r.numpy(), -1), 0)
    spd = a[0].T @ a[0] + 3 * np.eye(3)
    chol = tf.linalg.cholesky(spd).numpy()
    np.testing.assert_allclose(chol @ chol.T, spd, atol=1e-10)
    np.testing.assert_allclose(tf.linalg.logdet(spd).numpy(), np.log(np.linalg.det(spd)))


def test_inverse_determinant_and_solves():
    a = _mat(3, 3) + 4 * np.eye(3)
    b = _mat(3, 2)
    np.testing.assert_allclose(tf.linalg.inv(a).numpy(), np.linalg.inv(a))
    np.testing.assert_allclose(tf.linalg.inv(a, adjoint=True).numpy(), np.linalg.inv(a.T))
    assert float(tf.linalg.det(tf.constant([[1.0, 2.0], [3.0, 4.0]]))) == pytest.approx(-2.0)
    np.testing.assert_allclose(tf.linalg.solve(a, b).numpy(), np.linalg.solve(a, b))
    np.testing.assert_allclose(tf.linalg.solve(a, b, adjoint=True).numpy(), np.linalg.solve(a.T, b))
    lower = tf.linalg.triangular_solve(a, b, lower=True).numpy()
    np.testing.assert_allclose(np.tril(a) @ lower, b, atol=1e-12)  # only the lower triangle is read
    with pytest.raises(tf.errors.InvalidArgumentError, match="not invertible"):
        tf.linalg.inv(tf.zeros([2, 2]))
    with pytest.raises(tf.errors.InvalidArgumentError, match="square"):
        tf.linalg.det(tf.ones([2, 3]))


def test_band_part_and_diagonals_as_documented():
    x = tf.constant([[0, 1, 2, 3], [-1, 0, 1, 2], [-2, -1, 0, 1], [-3, -2, -1, 0]])
    assert tf.linalg.band_part(x, 1, -1).numpy().tolist() == [
        [0, 1, 2, 3],
        [-1, 0, 1, 2],
        [0, -1, 0, 1],
        [0, 0, -1, 0],
    ]
    assert tf.linalg.band_part(x, 2, 1).numpy().tolist() == [
        [0, 1, 0, 0],
        [-1, 0, 1, 0],
        [-2, -1, 0, 1],
        [0, -2, -1, 0],
    ]
    assert tf.linalg.diag_part(x).numpy().tolist() == [0, 0, 0, 0]
    assert tf.linalg.diag([1, 2]).numpy().tolist() == [[1, 0], [0, 2]]
    assert tf.linalg.set_diag(tf.zeros([2, 2], tf.int32), [5, 6]).numpy().tolist() == [[5, 0], [0, 6]]
    assert int(tf.linalg.trace(tf.constant([[1, 2], [3, 4]]))) == 5
    c = tf.constant([[1 + 1j, 2 + 2j]])
    assert tf.linalg.adjoint(c).numpy().tolist() == [[1 - 1j], [2 - 2j]]


@pytest.mark.parametrize(
    "ord,axis",
    [
        ("euclidean", None),
        (1, None),
        (np.inf, None),
        (3, 0),
        (2, 1),
        ("fro", (0, 1)),
        (1, (0, 1)),
        (np.inf, (0, 1)),
        (2, (0, 1)),
        ("euclidean", (1, 0)),
    ],
)
def test_norm_matches_numpy(ord, axis):
    x = _mat(3, 4)
    got = tf.norm(x, ord=ord, axis=axis).numpy()
    if axis is None:
        want = np.linalg.norm(x.reshape(-1), ord=2 if ord == "euclidean" else ord)
    elif isinstance(axis, tuple):
        want = np.linalg.norm(x if axis == (0, 1) else x.T, ord="fro" if ord in ("fro", "euclidean") else ord)
    else:
        want = np.linalg.norm(x, ord=ord, axis=axis)
    np.testing.assert_allclose(got, want, rtol=1e-12)
    kept = tf.linalg.norm(x, ord=ord, axis=axis, keepdims=True)
    assert kept.shape.rank == 2


def test_norm_errors_and_documented_value():
    assert float(tf.norm([3.0, 4.0])) == 5.0
    with pytest.raises(ValueError, match="ord"):
        tf.norm([1.0], ord=-1)
    with pytest.raises(ValueError, match="matrix norms support"):
        tf.norm(tf.ones([2, 2]), ord=3, axis=[0, 1])


def test_clip_by_norm_as_documented():
    some_nums = tf.constant([[1, 2, 3, 4, 5]], dtype=tf.float32)
    np.testing.assert_allclose(
        tf.clip_by_norm(some_nums, 2.0).numpy(), [[0.26967996, 0.5393599, 0.80903983, 1.0787199, 1.3483998]], rtol=1e-6
    )
    np.testing.assert_array_equal(tf.clip_by_norm(some_nums, 100.0).numpy(), some_nums.numpy())
    per_row = tf.clip_by_norm(tf.constant([[3.0, 4.0], [0.3, 0.4]]), 1.0, axes=[1]).numpy()
    np.testing.assert_allclose(per_row, [[0.6, 0.8], [0.3, 0.4]], rtol=1e-6)
    zero = tf.zeros([3])
    with tf.GradientTape() as tape:
        tape.watch(zero)
        y = tf.reduce_sum(tf.clip_by_norm(zero, 1.0))
    assert not np.isnan(tape.gradient(y, zero).numpy()).any()


def test_clip_by_global_norm_scales_every_tensor_by_one_factor():
    a, b = tf.constant([3.0, 4.0]), tf.constant([[12.0]])
    (ca, none, cb), norm = tf.clip_by_global_norm([a, None, b], 6.5)
    assert none is None and float(norm) == 13.0
    np.testing.assert_allclose(ca.numpy(), [1.5, 2.0])
    np.testing.assert_allclose(cb.numpy(), [[6.0]])
    (same,), _ = tf.clip_by_global_norm([a], 10.0)
    np.testing.assert_allclose(same.numpy(), a.numpy())
    (nan,), _ = tf.clip_by_global_norm([tf.constant([np.inf, 1.0])], 1.0)
    assert np.isnan(nan.numpy()).all()
    assert float(tf.linalg.global_norm([a, b])) == 13.0


def test_linalg_inside_a_function_with_gradients():
    a = tf.constant(_mat(3, 3) + 4 * np.eye(3))

    @tf.function
    def f(a):
        with tf.GradientTape() as tape:
            tape.watch(a)
            y = tf.linalg.det(a) + tf.reduce_sum(tf.linalg.inv(a))
        return tape.gradient(y, a)

    inv = np.linalg.inv(a.numpy())
    expected = np.linalg.det(a.numpy()) * inv.T - inv.T @ np.ones((3, 3)) @ inv.T
    np.testing.assert_allclose(f(a).numpy(), expected, rtol=1e-10)


def test_einsum_refuses_mismatched_labels_known_only_at_run_time():
    sig = [tf.TensorSpec([None, None, None])] * 2
    f = tf.function(lambda a, b: tf.einsum("bij,bjk->bik", a, b), input_signature=sig)
    with pytest.raises(tf.errors.InvalidArgumentError, match="subscript 'b'"):
        f(tf.ones([1, 3, 4]), tf.ones([3, 4, 5]))  # NumPy would broadcast the 1 to (3, 3, 5)
    assert f(tf.ones([3, 3, 4]), tf.ones([3, 4, 5])).shape == (3, 3, 5)
