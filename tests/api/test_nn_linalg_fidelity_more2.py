"""tf.nn and tf.linalg traced with dimensions (or ranks) known only at run time, checked
against TensorFlow 2.21 (the expected values were computed by TensorFlow)."""

import numpy as np
import pytest

import tfunc as tf

F = tf.float32


def traced(fn, *shapes, extra=()):
    """``fn`` as a tf.function whose float32 inputs have the given (partly unknown) shapes."""
    return tf.function(fn, input_signature=[tf.TensorSpec(s, F) for s in shapes] + list(extra))


X = np.array([[3.0, 1, 4, 1, 5], [9, 2, 6, 5, 3]], np.float32)
K = tf.TensorSpec([], tf.int32)


def test_top_k_with_a_run_time_k_and_an_unknown_row_length():
    out = traced(tf.nn.top_k, [None, None], extra=[K])(X, 3)  # TF 2.21
    np.testing.assert_array_equal(out.values.numpy(), [[5, 4, 3], [9, 6, 5]])
    np.testing.assert_array_equal(out.indices.numpy(), [[4, 2, 0], [0, 2, 3]])
    out = traced(tf.nn.top_k, None, extra=[K])(X.reshape(2, 1, 5), 2)  # unknown rank: TF 2.21
    np.testing.assert_array_equal(out.values.numpy(), [[[5, 4]], [[9, 6]]])
    np.testing.assert_array_equal(out.indices.numpy(), [[[4, 2]], [[0, 2]]])


def test_top_k_gradient_with_unknown_rank():
    def grad(x, k):
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = tf.reduce_sum(tf.nn.top_k(x, k).values * tf.constant([2.0, 1.0]))
        return tape.gradient(y, x)

    got = traced(grad, None, extra=[K])(X, 2)  # TF 2.21
    np.testing.assert_array_equal(got.numpy(), [[0, 0, 1, 0, 2], [2, 0, 1, 0, 0]])


A3 = np.arange(24, dtype=np.float32).reshape(2, 3, 4) / 10


def test_tensordot_of_unknown_rank_inputs():
    b = np.arange(20, dtype=np.float32).reshape(4, 5) / 10
    np.testing.assert_allclose(
        traced(lambda a, b: tf.tensordot(a, b, 1), None, None)(A3, b).numpy().sum(), 138.6, rtol=1e-6
    )
    b2 = np.arange(15, dtype=np.float32).reshape(3, 5) / 10
    got = traced(lambda a, b: tf.tensordot(a, b, [[1], [0]]), None, None)(A3, b2).numpy()
    assert got.shape == (2, 4, 5)  # TF 2.21: [0, 0] 1.0 .. 1.48, [1, 3] 3.25 .. 5.53
    np.testing.assert_allclose(got[0, 0], [1.0, 1.12, 1.24, 1.36, 1.48], rtol=1e-5)
    np.testing.assert_allclose(got[1, 3], [3.25, 3.82, 4.39, 4.96, 5.53], rtol=1e-5)
    got = traced(lambda a, b: tf.tensordot(a, b, [[-1, 0], [0, 1]]), None, None)(A3, np.ones((4, 2, 3), np.float32))
    np.testing.assert_allclose(got.numpy(), [[6.0] * 3, [9.2] * 3, [12.4] * 3], rtol=1e-5)  # TF 2.21


def test_tensordot_gradient_of_unknown_rank_inputs():
    b2 = np.arange(15, dtype=np.float32).reshape(3, 5) / 10

    def grad(a, b):
        with tf.GradientTape() as tape:
            tape.watch(a)
            y = tf.reduce_sum(tf.tensordot(a, b, [[1], [0]]) ** 2)
        return tape.gradient(y, a)

    got = traced(grad, None, None)(A3, b2).numpy()  # TF 2.21
    np.testing.assert_allclose(got[0, 0], [2.72, 3.2, 3.68, 4.16], rtol=1e-5)
    np.testing.assert_allclose(got[1, 2], [46.08, 48.66, 51.24, 53.82], rtol=1e-5)


TALL = np.array([[1.0, 2], [3, 4], [5, 7]], np.float32)
RHS = np.array([[1.0], [2], [2]], np.float32)


def test_lstsq_with_matrices_of_unknown_size():
    lstsq = traced(tf.linalg.lstsq, [None, None], [None, None])
    np.testing.assert_allclose(lstsq(TALL, RHS).numpy(), [[-0.2142857], [0.5]], atol=1e-5)  # TF 2.21
    want = [[0.9285681], [-0.21428442], [0.14285743]]  # TF 2.21 (the wide branch, chosen at run time)
    np.testing.assert_allclose(lstsq(TALL.T, RHS[:2]).numpy(), want, atol=1e-5)
    ridge = traced(lambda a, b: tf.linalg.lstsq(a, b, l2_regularizer=0.5), None, None)
    want = [[0.23396155], [0.03773594], [0.17358473]]  # TF 2.21
    np.testing.assert_allclose(ridge(TALL.T, RHS[:2]).numpy(), want, atol=1e-5)


def test_pinv_and_matrix_rank_with_matrices_of_unknown_size():
    pinv = traced(tf.linalg.pinv, [None, None])(TALL).numpy()
    want = [[-2.0714295, 0.78571308, 0.14285785], [1.5000006, -0.49999917, 0.0]]  # TF 2.21
    np.testing.assert_allclose(pinv, want, atol=1e-5)
    deficient = np.array([[1.0, 2, 3], [2, 4, 6], [1, 0, 1e-7]], np.float32)
    assert traced(tf.linalg.matrix_rank, [None, None])(deficient).numpy() == 2  # TF 2.21
    np.testing.assert_allclose(
        traced(tf.linalg.pinv, None)(deficient).numpy()[1], [0.030769236, 0.061538462, -0.15384617], rtol=1e-5
    )  # TF 2.21


def test_lstsq_fast_false_is_the_minimum_norm_solution():
    a = np.array([[1.0, 2, 3], [2, 4, 6], [1, 0, 1], [0, 1, 1]], np.float32)  # rank 2
    b = np.array([[1.0, 2], [0, 1], [3, 1], [1, 1]], np.float32)
    want = [[1.6666670, 0.33333403], [-1.2564104, -0.08974418], [0.41025633, 0.24358982]]  # TF 2.21
    for l2 in (0.0, 0.5):  # TF ignores l2_regularizer with fast=False
        np.testing.assert_allclose(tf.linalg.lstsq(a, b, l2_regularizer=l2, fast=False).numpy(), want, atol=1e-5)
    want = [[0.11538462, 0.07692307], [0.23076922, 0.15384616], [1.0897439, 0.94871795], [-0.48717955, -0.43589747]]
    np.testing.assert_allclose(tf.linalg.lstsq(a.T, b[:3], fast=False).numpy(), want, atol=1e-5)  # TF 2.21
    square = tf.constant([[1.0, 1], [1, 1]])
    got = tf.function(lambda a, b: tf.linalg.lstsq(a, b, fast=False))(square, tf.constant([[1.0], [3]]))
    np.testing.assert_allclose(got.numpy(), [[1.0], [1.0]], atol=1e-6)  # TF 2.21


M = np.arange(12, dtype=np.float32).reshape(3, 4)


def test_diag_part_of_a_band_with_matrices_of_unknown_size():
    got = traced(lambda m: tf.linalg.diag_part(m, k=(-1, 1)), [None, None])
    assert got.get_concrete_function().structured_outputs.shape.as_list() == [3, None]  # TF 2.21
    np.testing.assert_array_equal(got(M).numpy(), [[1, 6, 11], [0, 5, 10], [4, 9, 0]])  # TF 2.21
    got = traced(lambda m: tf.linalg.diag_part(m, k=(-2, 0), align="LEFT_LEFT", padding_value=-1), None)
    want = [[0, 5, 10], [4, 9, -1], [8, -1, -1]]  # TF 2.21
    np.testing.assert_array_equal(
        got(np.stack([M, -M])).numpy(), [want, [[-v if v != -1 else v for v in r] for r in want]]
    )
    np.testing.assert_array_equal(traced(lambda m: tf.linalg.diag_part(m, k=-1), [None, None])(M.T).numpy(), [1, 6, 11])
    with pytest.raises(tf.errors.InvalidArgumentError, match="outside"):
        traced(lambda m: tf.linalg.diag_part(m, k=5), [None, None])(M)


def test_softmax_cross_entropy_along_axis_0_of_unknown_rank():
    labels = np.array([[0.2, 0.5, 0.1], [0.8, 0.2, 0.3]], np.float32)  # columns need not sum to one
    logits = np.array([[1.0, 2, 3], [0.5, -1, 2]], np.float32)

    def loss_and_grads(y, x):
        with tf.GradientTape() as tape:
            tape.watch([y, x])
            loss = tf.nn.softmax_cross_entropy_with_logits(y, x, axis=0)
            total = tf.reduce_sum(loss * tf.constant([1.0, 2.0, 3.0]))
        return (loss, *tape.gradient(total, [y, x]))

    loss, d_labels, d_logits = traced(loss_and_grads, None, None)(labels, logits)  # TF 2.21
    np.testing.assert_allclose(loss.numpy(), [0.87407696, 0.63401115, 0.42530468], rtol=1e-5)
    np.testing.assert_allclose(
        d_labels.numpy(), [[0.47407699, 0.09717466, 0.939785], [0.97407699, 6.0971746, 3.939785]], rtol=1e-5
    )
    want = [[0.42245936, 0.90514827, 1.8931757], [-0.42245933, -0.30514824, -0.09317574]]
    np.testing.assert_allclose(d_logits.numpy(), want, rtol=1e-5, atol=1e-6)


# TF 2.21, for a TensorSpec(None) input signature
WANT_DET_GRAD = [
    [17.410107, -4.6740007, 3.610401],
    [-4.674001, 7.540502, -1.7527003],
    [3.610401, -1.7527002, 10.040603],
]
WANT_CHOL_GRAD = [
    [0.26030889, 0.26514488, 0.29809248],
    [0.26514488, 0.20567471, 0.18967998],
    [0.29809248, 0.18967998, 0.28130800],
]


def spd():
    r = np.array([[1.0, 0.5, -0.2], [0.3, 2.0, 0.1], [-0.4, 0.2, 1.5]], np.float32)
    return r @ r.T + np.eye(3, dtype=np.float32)


@pytest.mark.parametrize("op", ["det", "cholesky"])
def test_det_and_cholesky_gradients_with_unknown_rank(op):
    fn = getattr(tf.linalg, op)

    def grad(a):
        with tf.GradientTape() as tape:
            tape.watch(a)
            y = tf.reduce_sum(fn(a))
        return tape.gradient(y, a)

    got = traced(grad, None)(spd()).numpy()
    assert np.allclose(got, traced(grad, [None, None])(spd()).numpy(), rtol=1e-5)
    want = {"det": WANT_DET_GRAD, "cholesky": WANT_CHOL_GRAD}[op]
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-6)


def test_triangular_solve_with_a_zero_on_the_diagonal_divides_by_it():
    a = np.array([[2.0, 0, 0], [1, 0, 0], [3, 1, 4]], np.float32)
    b = np.array([[2.0, 1], [1, -1], [3, 0]], np.float32)
    forward = [[1.0, 0.5], [np.nan, -np.inf], [np.nan, np.inf]]  # TF 2.21: no invertibility check
    backward = [[-np.inf, np.inf], [np.inf, -np.inf], [0.75, 0.0]]  # TF 2.21
    solve = tf.function(tf.linalg.triangular_solve)
    for lower, adjoint, want in [(True, False, forward), (True, True, backward), (False, False, backward)]:
        m = a if lower else a.T
        for got in (tf.linalg.triangular_solve(m, b, lower=lower, adjoint=adjoint), solve(m, b, lower, adjoint)):
            np.testing.assert_array_equal(got.numpy(), want)


def test_pool_valid_with_dilations():
    x = (np.arange(2 * 7 * 6 * 2, dtype=np.float32).reshape(2, 7, 6, 2) % 11) - 3
    pool = tf.function(lambda x, kind: tf.nn.pool(x, [2, 3], kind, padding="VALID", dilations=[2, 2]))
    top = pool(x, "MAX").numpy()  # TF 2.21: shape (2, 5, 2, 2), sum 262
    assert top.shape == (2, 5, 2, 2) and top.sum() == 262
    np.testing.assert_array_equal(top[0, :, :, 0], [[7, 7], [6, 6], [7, 7], [6, 6], [7, 7]])
    mean = pool(x, "AVG").numpy()  # TF 2.21: sum 77.66667
    np.testing.assert_allclose(mean.sum(), 77.66667, rtol=1e-6)
    np.testing.assert_allclose(mean[0, :2, :, 0], [[2.0, 2.1666667], [1.1666666, 1.3333334]], rtol=1e-6)
    with pytest.raises(ValueError, match="strides > 1"):  # TF 2.21 refuses strides with dilations
        tf.nn.pool(x, [2, 2], "MAX", strides=[2, 2], padding="VALID", dilations=[2, 2])
    with pytest.raises(ValueError, match="'SAME' padding"):
        tf.nn.pool(x, [2, 2], "MAX", padding="SAME", dilations=[2, 2])


def test_dropout_noise_shape_fills_none_from_the_input():
    # TF 2.21 fills None entries from x's static shape: one mask shared along axis 1
    x = tf.ones([2, 3, 5])
    y = tf.nn.dropout(x, 0.5, noise_shape=[None, 1, 5], seed=1).numpy()
    assert y.shape == (2, 3, 5) and np.all(y[:, 0] == y[:, 1]) and set(np.unique(y).tolist()) <= {0.0, 2.0}
    # a size known only at run time is read in the graph (TensorFlow cannot convert it there)
    f = tf.function(
        lambda a: tf.nn.dropout(a, 0.5, noise_shape=[None, 1, None]), input_signature=[tf.TensorSpec([None, None, 5])]
    )
    z = f(x).numpy()
    assert z.shape == (2, 3, 5) and np.all(z[:, 0] == z[:, 2])


def test_bias_add_channels_first_checks_the_bias():
    with pytest.raises(tf.errors.InvalidArgumentError, match="does not match dimension 1"):
        tf.nn.bias_add(tf.zeros([2, 3, 2]), [1.0], "NCW")  # TF: "Must provide as many biases as the channel dimension"
    with pytest.raises(tf.errors.InvalidArgumentError, match="bias must be 1-D"):
        tf.nn.bias_add(tf.zeros([2, 3, 2]), [[1.0, 2.0, 3.0]], "NCW")
    assert tf.nn.bias_add(tf.zeros([2, 3, 2]), [1.0, 2.0, 3.0], "NCW").numpy()[0, :, 0].tolist() == [1.0, 2.0, 3.0]


def test_max_pool_with_argmax_refuses_two_different_index_dtypes():
    x = tf.ones([1, 2, 2, 1])
    with pytest.raises(ValueError, match="differ"):
        tf.nn.max_pool_with_argmax(x, 2, 2, "VALID", output_dtype=tf.int32, output_argmax_type=tf.int64)
    assert tf.nn.max_pool_with_argmax(x, 2, 2, "VALID", output_argmax_type=tf.int32).argmax.dtype == tf.int32
