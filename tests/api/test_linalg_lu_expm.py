"""tf.linalg.lu, lu_solve, lu_reconstruct, lu_matrix_inverse and expm: TensorFlow 2.21's values
(literals), eagerly and inside tf.function, with its static shapes, errors and gradients."""

import numpy as np
import pytest

import tfunc as tf

A = np.array(
    [
        [[2.0, -1, 0, 3], [1, 4, -2, 0], [-3, 1, 1, 2], [0, 2, 5, -1]],
        [[1.0, 2, 0, 0], [0, 1, 2, 0], [0, 0, 1, 2], [2, 0, 0, 1]],
    ]
)
# TensorFlow 2.21: tf.linalg.lu(A)
LU = np.array(
    [
        [
            [-3.0, 1.0, 1.0, 2.0],
            [-1 / 3, 13 / 3, -5 / 3, 2 / 3],
            [0.0, 0.46153846153846156, 5.769230769230769, -1.3076923076923077],
            [-2 / 3, -0.07692307692307694, 0.09333333333333331, 4.506666666666666],
        ],
        [[2.0, 0, 0, 1], [0.5, 2, 0, -0.5], [0, 0.5, 2, 0.25], [0, 0, 0.5, 1.875]],
    ]
)
P = np.array([[2, 1, 3, 0], [3, 0, 1, 2]], np.int32)


def eager_and_traced(fn, *args):
    return [fn(*args), tf.function(fn)(*args)]


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_lu_tf_values(dtype):
    for lu, p in eager_and_traced(lambda a: tuple(tf.linalg.lu(a)), A.astype(dtype)):
        np.testing.assert_allclose(lu, LU, rtol=1e-6 if dtype == np.float32 else 1e-12, atol=1e-7)
        np.testing.assert_array_equal(p, P)
        assert lu.dtype == dtype and p.dtype == np.int32


def test_lu_namedtuple_index_type_and_complex():
    r = tf.linalg.lu(A[0], output_idx_type=tf.int64)
    assert r._fields == ("lu", "p") and r.p.dtype == tf.int64
    c = (A[0] + 1j * A[1]).astype(np.complex64)
    want = np.array(  # TensorFlow 2.21
        [
            [-3.0, 1.0, 1 + 1j, 2 + 2j],
            [-1 / 3, 13 / 3 + 1j, -5 / 3 + 7j / 3, 2 / 3 + 2j / 3],
            [-2j / 3, 0.4719101 + 0.044943828j, 5.224719 - 0.35955042j, -2.6179776 + 1.9887643j],
            [-2 / 3 - 1j / 3, 0.044943813 + 0.5280899j, 0.28922573 + 0.35968864j, 5.4612865 + 1.9844325j],
        ]
    )
    for lu, p in eager_and_traced(lambda a: tuple(tf.linalg.lu(a)), c):
        np.testing.assert_allclose(lu, want, rtol=1e-5, atol=1e-6)
        np.testing.assert_array_equal(p, [2, 1, 3, 0])


def test_lu_ties_keep_the_first_row_and_empty():
    # |1| == |-1|: no swap (TensorFlow 2.21: lu [[1, 2], [-1, 5]], p [0, 1])
    for lu, p in eager_and_traced(lambda a: tuple(tf.linalg.lu(a)), np.array([[1.0, 2], [-1, 3]], np.float32)):
        np.testing.assert_array_equal(lu, [[1, 2], [-1, 5]])
        np.testing.assert_array_equal(p, [0, 1])
    lu, p = tf.linalg.lu(np.zeros((0, 0), np.float32))
    assert lu.shape == (0, 0) and p.shape == (0,)


def test_lu_random_batch_factors_its_input():
    a = np.random.default_rng(3).normal(size=(3, 2, 6, 6))
    for lu, p in eager_and_traced(lambda x: tuple(tf.linalg.lu(x)), a):
        lu, p = np.asarray(lu), np.asarray(p)
        low = np.tril(lu, -1) + np.eye(6)
        np.testing.assert_allclose(low @ np.triu(lu), np.take_along_axis(a, p[..., None], axis=-2), atol=1e-12)
        assert (np.abs(np.tril(lu, -1)) <= 1).all()  # partial pivoting: |L| <= 1


def test_lu_errors():
    with pytest.raises(tf.errors.InvalidArgumentError):  # TensorFlow: "Input is not invertible."
        tf.linalg.lu(np.array([[1.0, 2], [2, 4]], np.float32))
    with pytest.raises(tf.errors.InvalidArgumentError):  # "Input matrix must be square."
        tf.linalg.lu(np.zeros((2, 3), np.float32))
    with pytest.raises(tf.errors.InvalidArgumentError):  # "Input tensor must have rank >= 2"
        tf.linalg.lu(np.zeros((3,), np.float32))
    with pytest.raises(tf.errors.InvalidArgumentError):
        tf.linalg.lu(np.eye(2, dtype=np.int32))  # T: double, float, half, complex64, complex128
    with pytest.raises(tf.errors.InvalidArgumentError):
        tf.function(lambda a: tf.linalg.lu(a))(np.zeros((3, 3)))


def test_lu_static_shapes_in_function():
    shapes = {}

    @tf.function(input_signature=[tf.TensorSpec([None, None, 4], tf.float64)])
    def f(a):
        lu, p = tf.linalg.lu(a)
        x = tf.linalg.lu_solve(lu, p, tf.ones([2, 4, 3], tf.float64))
        rec, inv = tf.linalg.lu_reconstruct(lu, p), tf.linalg.lu_matrix_inverse(lu, p)
        shapes.update(lu=lu.shape.as_list(), p=p.shape.as_list(), rec=rec.shape.as_list(), inv=inv.shape.as_list())
        shapes["x"] = x.shape.as_list()
        return rec, inv

    rec, inv = f(A)
    np.testing.assert_allclose(rec, A, atol=1e-12)
    # TensorFlow 2.21: (None, 4, 4), (None, 4), lu_reconstruct / lu_matrix_inverse (None, 4, 4)
    assert shapes["lu"] == [None, 4, 4] and shapes["p"] == [None, 4]
    assert shapes["rec"] == [None, 4, 4] and shapes["inv"] == [None, 4, 4]
    assert shapes["x"][1:] == [4, 3]


def test_lu_solve_inverse_reconstruct_tf_values():
    rhs = np.array([[1.0, 0], [2, 1], [0, -1], [3, 2]])
    solve = np.array(  # TensorFlow 2.21: lu_solve(lu, p, rhs), rhs's batch broadcast
        [
            [[0.4733727810650888, 0.39644970414201175], [0.5857988165680474, 0.2781065088757396]]
            + [[0.40828402366863903, 0.25443786982248523], [0.21301775147929, -0.17159763313609466]],
            [[1.8, 1.4666666666666668], [-0.4, -0.7333333333333334], [1.2, 0.8666666666666667], [-0.6, -14 / 15]],
        ]
    )
    for got in eager_and_traced(lambda lu, p: tf.linalg.lu_solve(lu, p, rhs), tf.constant(LU), tf.constant(P)):
        np.testing.assert_allclose(got, solve, rtol=1e-12)
    for got in eager_and_traced(lambda lu, p: tf.linalg.lu_matrix_inverse(lu, p), tf.constant(LU), tf.constant(P)):
        np.testing.assert_allclose(got, np.linalg.inv(A), rtol=1e-12, atol=1e-15)
    for got in eager_and_traced(lambda lu, p: tf.linalg.lu_reconstruct(lu, p), tf.constant(LU), tf.constant(P)):
        np.testing.assert_allclose(got, A, atol=1e-12)
    # unbatched, and a batched rhs against one factorization
    for got in eager_and_traced(
        lambda lu, p: tf.linalg.lu_solve(lu, p, np.stack([rhs] * 3)), tf.constant(LU[0]), tf.constant(P[0])
    ):
        np.testing.assert_allclose(got, np.stack([solve[0]] * 3), rtol=1e-12)
    # TensorFlow 2.21's documented example: lu_reconstruct([[2, 1], [.5, 3]], [1, 0])
    np.testing.assert_allclose(tf.linalg.lu_reconstruct([[2.0, 1], [0.5, 3]], [1, 0]), [[1, 3.5], [2, 1]])
    # NumPy float64 factors: TF 2.21's dtype_hint makes them float32
    assert tf.linalg.lu_reconstruct(LU, P).dtype == tf.float32


def test_lu_composites_errors():
    lu, p = tf.linalg.lu(A[0])
    with pytest.raises(ValueError):  # "Input `rhs` must have at least 2 dimensions."
        tf.linalg.lu_solve(lu, p, np.ones(4))
    with pytest.raises(ValueError):  # "`lower_upper.shape[-1]` must equal `rhs.shape[-1]`."
        tf.linalg.lu_solve(lu, p, np.ones((3, 2)))
    with pytest.raises(ValueError):  # "`rank(lower_upper)` must equal `rank(perm) + 1`"
        tf.linalg.lu_reconstruct(lu, [p])
    with pytest.raises(ValueError):  # "`lower_upper` must be square."
        tf.linalg.lu_reconstruct(np.ones((2, 3), np.float32), [0, 1])
    with pytest.raises(tf.errors.InvalidArgumentError):  # not a permutation
        tf.linalg.lu_reconstruct(LU, np.array([[0, 0, 1, 2], [0, 1, 2, 3]], np.int32))


def test_lu_has_no_gradient():
    x = tf.constant(A[0])
    with tf.GradientTape() as t:
        t.watch(x)
        y = tf.reduce_sum(tf.linalg.lu(x).lu)
    with pytest.raises(LookupError):  # TensorFlow 2.21: "gradient registry has no entry for: Lu"
        t.gradient(y, x)


M = np.array([[0.1, -0.3, 0.2], [0.4, 0.0, -0.1], [-0.2, 0.5, 0.3]])
# TensorFlow 2.21: expm(M * s) in float64 (float32 agrees within 1e-6 relative)
EXPM = {
    0.5: [
        [1.0311680300804145, -0.13916964790805733, 0.11363395243771522],
        [0.20597001159984538, 0.9790099680155909, -0.04284023375675492],
        [-0.08301823085406176, 0.2754326119510816, 1.1501264558370257],
    ],
    3.0: [
        [0.7250484006749941, -0.1681426418131681, 1.0455224833964751],
        [1.1377574207289198, 0.4108188096782629, 0.10283371040628238],
        [0.3248283640705684, 2.2265331429026745, 2.008892770587476],
    ],
    20.0: [
        [184.26883135330746, 254.7922907942449, 285.5323862545864],
        [105.98162685734343, 143.23957633735202, 162.44462120671994],
        [383.02463561991857, 524.8909377154105, 586.0720040208513],
    ],
}


@pytest.mark.parametrize("scale", sorted(EXPM))
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_expm_tf_values(scale, dtype):
    for got in eager_and_traced(tf.linalg.expm, (M * scale).astype(dtype)):
        np.testing.assert_allclose(got, EXPM[scale], rtol=2e-6 if dtype == np.float32 else 1e-13)
        assert got.dtype == dtype


def test_expm_batch_complex_empty_and_non_finite():
    batch = np.stack([M * s for s in sorted(EXPM)])
    for got in eager_and_traced(tf.linalg.expm, batch):  # each matrix its own degree and squarings
        np.testing.assert_allclose(got, [EXPM[s] for s in sorted(EXPM)], rtol=1e-13)
    want = [  # TensorFlow 2.21: expm(M + 1j * M.T) in complex64
        [1.0887026 + 0.27867392j, -0.31745294 + 0.31037104j, 0.23146321 - 0.2890365j],
        [0.43114734 - 0.32558215j, 0.9813203 + 0.26013193j, -0.23245487 + 0.46066657j],
        [-0.19148639 + 0.07526703j, 0.5988625 - 0.048967965j, 1.2519178 + 0.5914079j],
    ]
    for got in eager_and_traced(tf.linalg.expm, (M + 1j * M.T).astype(np.complex64)):
        np.testing.assert_allclose(got, want, rtol=2e-6)
    assert tf.linalg.expm(np.zeros((2, 0, 0), np.float32)).shape == (2, 0, 0)
    assert tf.linalg.expm(np.zeros((0, 3, 3), np.float32)).shape == (0, 3, 3)
    # a NaN in one matrix makes the whole batch NaN (TensorFlow 2.21)
    bad = np.stack([np.eye(2), [[np.nan, 0], [0, 1]]]).astype(np.float32)
    for got in eager_and_traced(tf.linalg.expm, bad):
        assert np.isnan(got).all()


def test_expm_errors():
    with pytest.raises(ValueError):  # "tf.linalg.expm does not support matrices of type int32"
        tf.linalg.expm(np.eye(2, dtype=np.int32))
    with pytest.raises(tf.errors.InvalidArgumentError):
        tf.linalg.expm(np.zeros((2, 3), np.float32))


@pytest.mark.parametrize("scale", [0.5, 20.0])
def test_expm_gradient_tf_values(scale):
    weights = np.arange(9.0).reshape(3, 3) / 9
    want = {  # TensorFlow 2.21: d sum(expm(x) * weights) / dx at x = M * scale
        0.5: [
            [0.00873789202638342, 0.11800855732510307, 0.2769960097005914],
            [0.42497420891005444, 0.5595327917368781, 0.750966914572918],
            [0.7147403633207358, 0.8762132384901894, 1.1027045984895056],
        ],
        20.0: [
            [260.84627411158624, 168.0881567655831, 567.6238466466034],
            [401.40965371002073, 255.69469034144328, 869.4699305091685],
            [437.5989283943653, 279.18508501660494, 949.0083427861528],
        ],
    }[scale]

    def grad(x):
        with tf.GradientTape() as t:
            t.watch(x)
            y = tf.reduce_sum(tf.linalg.expm(x) * weights)
        return t.gradient(y, x)

    for got in eager_and_traced(grad, tf.constant(M * scale)):
        np.testing.assert_allclose(got, want, rtol=1e-12)
