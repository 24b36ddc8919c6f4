"""tf.linalg breadth: slogdet, eigh, eigvalsh (with TensorFlow's gradients), cross, normalize,
pinv, matrix_rank, lstsq, cholesky_solve, tensor_diag(_part), eagerly and inside tf.function.
Expected values are TensorFlow 2.21's (printed by its own functions) or analytic."""

import numpy as np

import tfunc as tf

SYM = np.array([[4.0, 1, 2], [1, 5, 1], [2, 1, 6]])
NONSYM = np.array([[4.0, 1, 2], [9, 5, 1], [7, 3, 6]])
RECT = np.array([[1.0, 2, 3], [2, 4, 6], [1, 0, 1], [0, 1, 1]])


def _both(fn, *args):
    """fn(*args) eagerly and inside tf.function, as nests of NumPy arrays."""
    out = []
    for f in (fn, tf.function(fn)):
        r = f(*args)
        out.append(tuple(t.numpy() for t in r) if isinstance(r, tuple) else r.numpy())
    return out


def test_slogdet_including_a_singular_matrix():
    a = tf.constant([[[1.0, 2], [3, 4]], [[1, 2], [2, 4]], [[2, 0], [0, 3]]], tf.float64)
    for sign, logabs in _both(tf.linalg.slogdet, a):
        np.testing.assert_array_equal(sign, [-1.0, 0.0, 1.0])
        np.testing.assert_allclose(logabs, [0.6931471805599455, -np.inf, 1.791759469228055], rtol=1e-15)


def test_eigh_reads_the_lower_triangle():
    for e in _both(tf.linalg.eigvalsh, tf.constant(NONSYM)):
        np.testing.assert_allclose(e, [-5.533238076192646, 2.73082633110895, 17.802411745083702], rtol=1e-14)
    for e, v in _both(tf.linalg.eigh, tf.constant(SYM)):
        np.testing.assert_allclose(e, [2.7075984147753784, 4.397295069297089, 7.89510651592753], rtol=1e-14)
        np.testing.assert_allclose(SYM @ v, v * e, atol=1e-13)  # the defining property
        np.testing.assert_allclose(v.T @ v, np.eye(3), atol=1e-14)


def _grads(x):
    with tf.GradientTape(persistent=True) as tape:
        tape.watch(x)
        e, v = tf.linalg.eigh(x)
        # |v| makes the loss independent of each eigenvector's sign
        loss = tf.reduce_sum(e * [1.0, 2, 3]) + tf.reduce_sum(tf.abs(v[:, 0]) * [1.0, -1, 2])
        values = tf.reduce_sum(tf.linalg.eigvalsh(x) * [1.0, 2, 3])
        _, logabs = tf.linalg.slogdet(x)
    return tape.gradient(loss, x), tape.gradient(values, x), tape.gradient(logabs, x)


def test_gradients_match_tensorflow():
    expected = (
        [
            [1.6150095717769202, 0, 0],
            [-0.03882829913996977, 2.303411915640227, 0],
            [1.9800579412264006, 0.7996515770333903, 2.081578512582854],
        ],
        [
            [1.500282121924839, 0, 0],
            [0.7242228139046545, 2.157264538426095, 0],
            [1.56639403162888, 0.4883260062655138, 2.342453339649066],
        ],
        [
            [0.30851063829787234, -0.04255319148936171, -0.09574468085106383],
            [-0.0425531914893617, 0.2127659574468085, -0.021276595744680847],
            [-0.09574468085106383, -0.021276595744680847, 0.20212765957446807],
        ],
    )
    for got in _both(_grads, tf.constant(SYM)):
        for g, want in zip(got, expected):
            np.testing.assert_allclose(g, want, rtol=1e-12, atol=1e-14)


def test_cross_normalize_cholesky_solve():
    for c in _both(tf.linalg.cross, tf.constant([[1.0, 2, 3]]), tf.constant([[4.0, 5, 6]])):
        np.testing.assert_array_equal(c, [[-3.0, 6.0, -3.0]])
    x = tf.constant([[3.0, 4], [6, 8]])
    for n, norm in _both(lambda x: tf.linalg.normalize(x, axis=1), x):
        np.testing.assert_allclose(n, [[0.6, 0.8], [0.6, 0.8]], rtol=1e-6)
        np.testing.assert_allclose(norm, [[5.0], [10.0]], rtol=1e-6)
    n, norm = tf.linalg.normalize(x)
    assert norm.shape == (1, 1) and abs(norm.numpy()[0, 0] - 11.180339813232422) < 1e-5
    chol = np.linalg.cholesky(np.array([[4.0, 2], [2, 3]]))
    for s in _both(tf.linalg.cholesky_solve, tf.constant(chol), tf.constant([[1.0], [2]], tf.float64)):
        np.testing.assert_allclose(s, [[-0.125], [0.75]], rtol=1e-14)


def test_pinv_matrix_rank_lstsq():
    for p in _both(tf.linalg.pinv, tf.constant(RECT)):
        np.testing.assert_allclose(p, np.linalg.pinv(RECT), atol=1e-14)
    for r in _both(tf.linalg.matrix_rank, tf.constant(RECT)):
        assert r == 2 and r.dtype == np.int32
    b = tf.constant([[1.0], [2], [3], [4]], tf.float64)
    for x in _both(tf.linalg.lstsq, tf.constant(RECT[:, 1:]), b):
        np.testing.assert_allclose(x, [[-0.923076923076927], [1.0769230769230795]], rtol=1e-12)
    wide = tf.constant(RECT.T[:2])
    for x in _both(lambda a, b: tf.linalg.lstsq(a, b, l2_regularizer=0.1), wide, tf.constant([[1.0], [2]], tf.float64)):
        want = [[0.19157088122605362], [0.38314176245210724], [0.038314176245210836], [0.0766283524904214]]
        np.testing.assert_allclose(x, want, rtol=1e-12)
    # fast=False: the minimum-norm solution (TF 2.21's values)
    want = [[0.1923076923076923], [0.3846153846153847], [0.03846153846153831], [0.07692307692307698]]
    got = tf.linalg.lstsq(wide, tf.constant([[1.0], [2]], tf.float64), fast=False)
    np.testing.assert_allclose(got.numpy(), want, rtol=1e-12)


def test_tensor_diag_and_its_part():
    d = tf.constant([[1, 2], [3, 4]])
    for t in _both(tf.linalg.tensor_diag, d):
        assert t.shape == (2, 2, 2, 2)
        want = np.zeros((2, 2, 2, 2), np.int32)
        for i in range(2):
            for j in range(2):
                want[i, j, i, j] = d.numpy()[i, j]
        np.testing.assert_array_equal(t, want)
    for p in _both(lambda d: tf.linalg.tensor_diag_part(tf.linalg.tensor_diag(d)), d):
        np.testing.assert_array_equal(p, [[1, 2], [3, 4]])
