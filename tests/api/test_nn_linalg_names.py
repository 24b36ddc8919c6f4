"""tf.nn and tf.linalg names that TensorFlow 2.21 has and tfunc lacked: atrous convolutions,
``tf.nn.space_to_batch``, ``tf.nn.experimental.stateless_dropout``, the tridiagonal and banded
solves, ``sqrtm`` and ``conjugate_gradient``.  Expected values were computed with TensorFlow
2.21; each is checked eagerly and inside tf.function, with gradients where TensorFlow has them."""

import functools

import numpy as np
import pytest

import tfunc as tf


def both(fn, *args):
    """``fn(*args)`` eagerly and traced, as NumPy arrays."""
    return [np.asarray(r.numpy()) for r in (fn(*args), tf.function(fn)(*args))]


X5 = np.arange(1, 26, dtype=np.float32).reshape(1, 5, 5, 1)
W2 = np.array([[1, -1], [2, 0.5]], np.float32).reshape(2, 2, 1, 1)


def test_atrous_conv2d_spreads_the_filter_taps_rate_apart():
    # TF 2.21 gives these for tf.nn.atrous_conv2d(X5, W2, 2, "SAME").
    want = [
        [3.5, 16.0, 18.5, 21.0, 18.0],
        [4.0, 26.5, 29.0, 31.5, 32.0],
        [1.5, 39.0, 41.5, 44.0, 47.0],
        [-1.0, 51.5, 54.0, 56.5, 62.0],
        [-17.0, -2.0, -2.0, -2.0, 19.0],
    ]
    for got in both(lambda x: tf.nn.atrous_conv2d(x, W2, 2, "SAME"), tf.constant(X5)):
        np.testing.assert_allclose(got[0, :, :, 0], want)


def test_atrous_conv2d_gradient():
    x = tf.Variable(X5)
    with tf.GradientTape() as tape:
        loss = tf.reduce_sum(tf.nn.atrous_conv2d(x, W2, 2, "SAME") ** 2)
    # TF 2.21 gives this gradient.
    want = [
        [53.0, 50.0, 10.0, 6.0, -63.0],
        [142.0, 157.5, 110.0, 101.5, -67.0],
        [209.0, 230.0, 162.5, 173.0, -81.5],
        [152.0, 197.5, 215.0, 271.5, 48.0],
        [206.0, 215.0, 277.5, 302.0, 56.5],
    ]
    np.testing.assert_allclose(tape.gradient(loss, x).numpy()[0, :, :, 0], want)


def test_atrous_conv2d_transpose_valid():
    v = np.arange(1, 10, dtype=np.float32).reshape(1, 3, 3, 1)
    # TF 2.21 gives these for tf.nn.atrous_conv2d_transpose(v, W2, [1, 5, 5, 1], 2, "VALID").
    want = [
        [1.0, 2.0, 2.0, -2.0, -3.0],
        [4.0, 5.0, 2.0, -5.0, -6.0],
        [9.0, 12.0, 8.5, -7.0, -7.5],
        [8.0, 10.0, 14.0, 2.5, 3.0],
        [14.0, 16.0, 21.5, 4.0, 4.5],
    ]
    for got in both(lambda a: tf.nn.atrous_conv2d_transpose(a, W2, [1, 5, 5, 1], 2, "VALID"), tf.constant(v)):
        np.testing.assert_allclose(got[0, :, :, 0], want)


def test_atrous_conv2d_refuses_a_rate_below_one():
    with pytest.raises(ValueError, match="rate"):
        tf.nn.atrous_conv2d(X5, W2, 0, "SAME")


def test_nn_space_to_batch_is_tf_space_to_batch():
    x = np.arange(16, dtype=np.float32).reshape(1, 4, 4, 1)
    got = tf.nn.space_to_batch(x, [2, 2], [[0, 0], [0, 0]]).numpy()
    np.testing.assert_array_equal(got, tf.space_to_batch(x, [2, 2], [[0, 0], [0, 0]]).numpy())
    assert got.shape == (4, 2, 2, 1)


XD = np.arange(1, 11, dtype=np.float32).reshape(2, 5)


def test_stateless_dropout_mask_is_tensorflows():
    # TF 2.21 gives these for tf.nn.experimental.stateless_dropout(XD, 0.5, seed=[1, 2]).
    want = [[2.0, 0.0, 6.0, 0.0, 0.0], [12.0, 0.0, 0.0, 0.0, 0.0]]
    for got in both(lambda x: tf.nn.experimental.stateless_dropout(x, 0.5, seed=[1, 2]), tf.constant(XD)):
        np.testing.assert_array_equal(got, want)


def test_stateless_dropout_noise_shape_and_gradient():
    got = tf.nn.experimental.stateless_dropout(XD, 0.5, seed=[3, 4], noise_shape=[2, 1]).numpy()
    np.testing.assert_array_equal(got, [[0.0] * 5, [12.0, 14.0, 16.0, 18.0, 20.0]])  # TF 2.21 gives this
    x = tf.Variable(XD)
    with tf.GradientTape() as tape:
        loss = tf.reduce_sum(tf.nn.experimental.stateless_dropout(x, 0.5, seed=[1, 2]))
    want = [[2.0, 0.0, 2.0, 0.0, 0.0], [2.0, 0.0, 0.0, 0.0, 0.0]]  # TF 2.21 gives this
    np.testing.assert_array_equal(tape.gradient(loss, x).numpy(), want)


def test_stateless_dropout_refuses_integer_input():
    with pytest.raises(ValueError, match="floating point"):
        tf.nn.experimental.stateless_dropout(np.arange(4), 0.5, seed=[1, 2])


D3 = np.array([[1.0, 2.0, 3.0, 0.0], [4.0, 5.0, 6.0, 7.0], [0.0, 1.0, 1.0, 2.0]], np.float32)
R42 = np.array([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0], [7.0, 8.0]], np.float32)
# TF 2.21 gives this for tf.linalg.tridiagonal_solve(D3, R42).
TS_WANT = [[0.13694265, 0.3566879], [0.45222935, 0.5732484], [0.30095536, 0.38853496], [0.9140128, 1.0318472]]


def _dense(compact):
    """The dense matrix of a compact [3, M] tridiagonal, by hand."""
    return np.diag(compact[1]) + np.diag(compact[0, :-1], 1) + np.diag(compact[2, 1:], -1)


def test_tridiagonal_solve_in_each_diagonals_format():
    sequence = (D3[0, :-1], D3[1], D3[2, 1:])
    for fmt, diagonals in (("compact", D3), ("sequence", sequence), ("matrix", _dense(D3))):
        solve = functools.partial(tf.linalg.tridiagonal_solve, diagonals, diagonals_format=fmt)
        for got in both(lambda r, solve=solve: solve(rhs=r), tf.constant(R42)):
            np.testing.assert_allclose(got, TS_WANT, rtol=1e-5)
    vector = tf.linalg.tridiagonal_solve(D3, R42[:, 0], partial_pivoting=False).numpy()
    np.testing.assert_allclose(vector, np.array(TS_WANT)[:, 0], rtol=1e-5)
    transposed = tf.linalg.tridiagonal_solve(D3, R42.T, transpose_rhs=True).numpy()
    np.testing.assert_allclose(transposed, TS_WANT, rtol=1e-5)


def test_tridiagonal_solve_gradient():
    d = tf.Variable(D3)
    with tf.GradientTape() as tape:
        loss = tf.reduce_sum(tf.linalg.tridiagonal_solve(d, R42))
    want = [  # TF 2.21 gives this (zeros at the two unused corners)
        [-0.22044507, -0.09661647, -0.16422066, 0.0],
        [-0.10611485, -0.1436975, -0.05818947, -0.20759973],
        [0.0, -0.06917115, -0.0865451, -0.07356028],
    ]
    np.testing.assert_allclose(tape.gradient(loss, d).numpy(), want, rtol=1e-5, atol=1e-7)


def test_tridiagonal_solve_refuses_a_bad_format():
    with pytest.raises(ValueError, match="diagonals_format"):
        tf.linalg.tridiagonal_solve(D3, R42, diagonals_format="banded")


def test_tridiagonal_matmul():
    want = [[7.0, 12.0], [26.0, 34.0], [54.0, 64.0], [59.0, 68.0]]  # TF 2.21 gives this
    for got in both(lambda r: tf.linalg.tridiagonal_matmul(D3, r), tf.constant(R42)):
        np.testing.assert_allclose(got, want)
    np.testing.assert_allclose(tf.linalg.tridiagonal_matmul(_dense(D3), R42, diagonals_format="matrix").numpy(), want)


def test_banded_triangular_solve_lower_and_upper_adjoint():
    # TF 2.21 gives the same x for both: the upper bands' adjoint is the lower matrix.
    want = [[0.5, 1.0], [0.8333333, 1.0], [1.0416666, 1.25], [1.1916667, 1.35]]
    lower = np.array([[2.0, 3.0, 4.0, 5.0], [0.0, 1.0, 1.0, 1.0]], np.float32)  # diagonal, subdiagonal
    upper = np.array([[1.0, 1.0, 1.0, 0.0], [2.0, 3.0, 4.0, 5.0]], np.float32)  # superdiagonal, diagonal
    for got in both(lambda b: tf.linalg.banded_triangular_solve(b, R42), tf.constant(lower)):
        np.testing.assert_allclose(got, want, rtol=1e-6)
    got = tf.linalg.banded_triangular_solve(upper, R42, lower=False, adjoint=True).numpy()
    np.testing.assert_allclose(got, want, rtol=1e-6)


A3 = np.array([[4.0, 1.0, 0.0], [2.0, 5.0, 1.0], [0.0, 1.0, 3.0]], np.float32)


def test_sqrtm_of_a_non_symmetric_matrix():
    want = [  # TF 2.21 gives this
        [1.9705715, 0.24112114, -0.01689112],
        [0.48224184, 2.194801, 0.25801203],
        [-0.03378224, 0.25801232, 1.7125596],
    ]
    for got in both(tf.linalg.sqrtm, tf.constant(A3)):
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)
    rotation = tf.linalg.sqrtm(tf.constant([[0.0, -1.0], [1.0, 0.0]], tf.float64)).numpy()
    np.testing.assert_allclose(rotation, np.array([[1.0, -1.0], [1.0, 1.0]]) / np.sqrt(2), rtol=1e-12)


def test_sqrtm_gradient_and_no_principal_root():
    a = tf.Variable(A3)
    with tf.GradientTape() as tape:
        loss = tf.reduce_sum(tf.linalg.sqrtm(a) * np.arange(9, dtype=np.float32).reshape(3, 3))
    want = [  # TF 2.21 gives this
        [-0.06760272, 0.15391365, 0.4112695],
        [0.5953033, 0.6911077, 1.0708033],
        [1.5041395, 1.4179165, 2.165075],
    ]
    np.testing.assert_allclose(tape.gradient(loss, a).numpy(), want, rtol=1e-4, atol=1e-5)
    # TF 2.21 gives all NaN for a matrix with a negative eigenvalue
    assert np.isnan(tf.linalg.sqrtm(np.array([[-4.0, 0.0], [0.0, 1.0]], np.float32)).numpy()).all()


S3 = np.array([[4.0, 1.0, 0.0], [1.0, 3.0, 1.0], [0.0, 1.0, 2.0]], np.float32)


def test_conjugate_gradient_state_after_two_steps():
    state = tf.linalg.experimental.conjugate_gradient(S3, tf.constant([1.0, 2.0, 3.0]), max_iter=2)
    assert type(state).__name__ == "CGState" and state._fields == ("i", "x", "r", "p", "gamma")
    # TF 2.21 gives this for a LinearOperatorFullMatrix(S3) (self-adjoint, positive definite).
    assert int(state.i) == 2
    np.testing.assert_allclose(state.x.numpy(), [0.04923077, 0.32923084, 1.3015385], rtol=1e-5)
    np.testing.assert_allclose(state.r.numpy(), [0.47384596, -0.33846164, 0.06769234], rtol=1e-4)
    np.testing.assert_allclose(state.p.numpy(), [0.35928977, -0.4530178, 0.2968047], rtol=1e-4)
    np.testing.assert_allclose(float(state.gamma), 0.34366852, rtol=1e-5)


def test_conjugate_gradient_converges_inside_a_function():
    state = tf.function(lambda b: tf.linalg.experimental.conjugate_gradient(S3, b))(tf.constant([1.0, 2.0, 3.0]))
    assert int(state.i) == 3  # TF 2.21 gives 3 steps and this x
    np.testing.assert_allclose(state.x.numpy(), [0.22222215, 0.11111115, 1.4444444], rtol=1e-5)


X34 = np.arange(12, dtype=np.float32).reshape(3, 4)


def test_band_part_refuses_a_band_wider_than_the_matrix():
    # TF 2.21: "num_lower must be negative or less or equal to number of rows (3) got: 10"
    with pytest.raises(tf.errors.InvalidArgumentError, match="num_lower"):
        tf.linalg.band_part(X34, 10, 0)
    with pytest.raises(tf.errors.InvalidArgumentError, match="num_upper"):
        tf.linalg.band_part(X34, 1, 5)
    np.testing.assert_array_equal(tf.linalg.band_part(X34, 3, 4).numpy(), X34)  # the widest TF takes


def test_norm_refuses_fro_as_a_vector_norm():
    # TF 2.21: "'ord' must be a supported vector norm, got fro" for axis None or an int
    for axis in (None, 1):
        with pytest.raises(ValueError, match="fro"):
            tf.norm(X34, ord="fro", axis=axis)
    np.testing.assert_allclose(tf.norm(X34, ord="fro", axis=[0, 1]).numpy(), 22.494444, rtol=1e-6)


def test_cross_does_not_broadcast():
    # TF 2.21: "Both inputs must be of same shape: [2,3] vs. [3]"
    with pytest.raises(tf.errors.InvalidArgumentError, match="same shape"):
        tf.linalg.cross(tf.ones((2, 3)), tf.ones((3,)))


def test_pinv_and_matrix_rank_refuse_complex_input():
    z = tf.complex(tf.eye(2), tf.eye(2))
    # TF 2.21: "Input `a` must have `float`-like `dtype` (saw complex64)."
    for fn in (tf.linalg.pinv, tf.linalg.matrix_rank):
        with pytest.raises(TypeError, match="float"):
            fn(z)
