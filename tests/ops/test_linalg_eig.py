"""tf.linalg.eig / eigvals (general matrices) and tf.math.nextafter, against TensorFlow 2.21's
values and the defining properties (``a @ v == v * e``, unit-norm eigenvectors)."""

import numpy as np
import pytest

import tfunc as tf


def _run(fn, traced, *args):
    return (tf.function(fn) if traced else fn)(*args)


@pytest.mark.parametrize("traced", [False, True])
@pytest.mark.parametrize(
    "dtype, out",
    [("float32", "complex64"), ("float64", "complex128"), ("complex64", "complex64"), ("complex128", "complex128")],
)
def test_eig_decomposes(dtype, out, traced):
    rng = np.random.default_rng(3)
    a = rng.normal(size=(2, 5, 5))
    if dtype.startswith("complex"):
        a = a + 1j * rng.normal(size=(2, 5, 5))
    a = a.astype(dtype)
    e, v = _run(tf.linalg.eig, traced, tf.constant(a))
    w = _run(tf.linalg.eigvals, traced, tf.constant(a))
    assert e.dtype.name == out and v.dtype.name == out and w.dtype.name == out
    assert e.shape == (2, 5) and v.shape == (2, 5, 5)
    e, v, w = e.numpy(), v.numpy(), w.numpy()
    tol = 1e-4 if out == "complex64" else 1e-10
    np.testing.assert_allclose(a @ v, v * e[:, None, :], atol=tol * 10)
    np.testing.assert_allclose(np.linalg.norm(v, axis=-2), 1, atol=tol)
    np.testing.assert_allclose(w, e, atol=tol)
    # the eigenvalues are those of the characteristic polynomial, in some order
    for k in range(2):
        np.testing.assert_allclose(np.sort_complex(e[k]), np.sort_complex(np.roots(np.poly(a[k]))), atol=tol * 100)


@pytest.mark.parametrize("traced", [False, True])
def test_eig_complex_input_ordered_by_modulus_as_tensorflow(traced):
    """TensorFlow (Eigen's ComplexEigenSolver) orders complex input's eigenvalues by modulus;
    for a triangular matrix the eigenvectors are then TensorFlow's too."""
    a = np.array([[3j, 0.5, -0.25j], [0, -1, 0.5], [0, 0, 2]], np.complex64)
    e, v = _run(tf.linalg.eig, traced, tf.constant(a))
    np.testing.assert_array_equal(e.numpy(), np.complex64([-1, 2, 3j]))
    tf_v = [
        [-0.049386486 + 0.14815944j, 0.06937337 - 0.01892001j, 1],
        [0.9877296, 0.16397342, 0],
        [0, 0.9838405, 0],
    ]  # TensorFlow 2.21's
    np.testing.assert_allclose(v.numpy(), np.array(tf_v, np.complex64), atol=1e-6)
    np.testing.assert_array_equal(_run(tf.linalg.eigvals, traced, tf.constant(a)).numpy(), np.complex64([-1, 2, 3j]))


def test_eig_real_triangular_as_tensorflow():
    t = np.array([[2.0, 1.0, 0.5], [0.0, -5.0, 1.0], [0.0, 0.0, 3.0]])
    e, v = tf.linalg.eig(t)
    np.testing.assert_array_equal(e.numpy(), [2, -5, 3])
    tf_v = [
        [1, -0.14142135623730948, 0.5270462766947299],
        [0, 0.9899494936611665, 0.10540925533894598],
        [0, 0, 0.8432740427115678],
    ]
    np.testing.assert_allclose(v.numpy(), tf_v, atol=1e-15)
    assert tf.eig is tf.linalg.eig and tf.eigvals is tf.linalg.eigvals


def test_eig_static_shapes_and_empty():
    seen = {}

    @tf.function(input_signature=[tf.TensorSpec([None, 3, 3], tf.float64)])
    def batch_unknown(x):
        e, v = tf.linalg.eig(x)
        seen["known"] = (e.shape.as_list(), v.shape.as_list())
        return e

    @tf.function(input_signature=[tf.TensorSpec(None, tf.float64)])
    def rank_unknown(x):
        e, v = tf.linalg.eig(x)
        seen["unknown"] = (e.shape.rank, v.shape.rank)
        return e

    x = np.random.default_rng(0).normal(size=(2, 3, 3))
    np.testing.assert_allclose(batch_unknown(x).numpy(), rank_unknown(x).numpy())
    assert seen == {"known": ([None, 3], [None, 3, 3]), "unknown": (None, None)}
    e, v = tf.linalg.eig(tf.zeros((2, 0, 0)))
    assert e.shape == (2, 0) and v.shape == (2, 0, 0) and e.dtype == tf.complex64


@pytest.mark.parametrize("traced", [False, True])
@pytest.mark.parametrize(
    "value, message",
    [
        (np.zeros((2, 3)), "square"),
        (np.zeros((3,)), "rank"),
        (np.array([[np.nan, 1.0], [0.0, 1.0]]), "Eigen decomposition was not successful"),
    ],
)
def test_eig_errors(value, message, traced):
    with pytest.raises(tf.errors.InvalidArgumentError, match=message):
        _run(tf.linalg.eig, traced, tf.constant(value))


@pytest.mark.parametrize("traced", [False, True])
def test_nextafter(traced):
    x1 = tf.constant([1.0, 0.0, -0.0, np.inf, np.nan, 2.0])
    x2 = tf.constant([2.0, -1.0, 1.0, 0.0, 1.0, 2.0])
    got = _run(tf.math.nextafter, traced, x1, x2)
    tiny = np.float32(1.4012985e-45)
    expected = np.array([1.0000001, -tiny, tiny, 3.4028235e38, np.nan, 2.0], np.float32)  # TensorFlow's
    np.testing.assert_array_equal(got.numpy(), expected)
    assert got.dtype == tf.float32
    b = _run(
        tf.math.nextafter, traced, tf.constant([[1.0], [2.0]], tf.float64), tf.constant([0.0, 3.0, 1.0], tf.float64)
    )
    assert b.dtype == tf.float64 and b.shape == (2, 3)
    np.testing.assert_array_equal(b.numpy(), np.nextafter(np.array([[1.0], [2.0]]), np.array([0.0, 3.0, 1.0])))


@pytest.mark.parametrize("dtype", [tf.int32, tf.float16])
def test_nextafter_refuses_other_dtypes(dtype):
    with pytest.raises(tf.errors.InvalidArgumentError):
        tf.math.nextafter(tf.constant([1], dtype), tf.constant([2], dtype))
