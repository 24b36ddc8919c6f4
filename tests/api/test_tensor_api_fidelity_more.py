"""More of the Tensor API as TensorFlow 2.21 has it: complex powers, casts of IndexedSlices,
``shape``/``size`` out_type, ``dtype_hint`` on NumPy input, out-of-range float casts.
Expected values are TensorFlow 2.21's, as noted beside each case."""

from __future__ import annotations

import numpy as np
import pytest

import tfunc as tf

# --- complex ** x ------------------------------------------------------------------------

_BASES = [1 + 0j, 2 + 1j, 0j, -1 + 0j, 1 + 2j]


@pytest.mark.parametrize("dtype", [tf.complex64, tf.complex128])
def test_complex_power_by_a_number(dtype):
    # TF 2.21 gives a ** 2 = [1, 3+4j, 0, 1+1.75e-07j (complex64), -3+4j] and
    # a ** -1 = [1, 0.4-0.2j, inf+nanj, -1+8.7e-08j (complex64), 0.2-0.4j]
    a = tf.constant(_BASES, dtype)
    tol = 1e-6 if dtype == tf.complex64 else 1e-12
    np.testing.assert_allclose((a**2).numpy(), [1, 3 + 4j, 0, 1, -3 + 4j], atol=tol, rtol=tol)
    inv = (a**-1).numpy()
    np.testing.assert_allclose(inv[[0, 1, 3, 4]], [1, 0.4 - 0.2j, -1, 0.2 - 0.4j], atol=tol, rtol=tol)
    assert np.isinf(inv[2].real) and np.isnan(inv[2].imag)


def test_complex_power_is_cpow_not_numpy_power():
    # TF 2.21 (exp(y log x)): (-1+0j) ** 2 = 1+1.7484555e-07j in complex64, 0j ** 0j = nan+nanj
    a = tf.constant([-1 + 0j], tf.complex64)
    assert (a**2).numpy()[0] == np.complex64(1 + 1.7484555e-07j)
    z = tf.pow(tf.constant(0j, tf.complex128), tf.constant(0j, tf.complex128)).numpy()
    assert np.isnan(z.real) and np.isnan(z.imag)


def test_complex_power_by_a_tensor():
    # TF 2.21 gives [1, 1.4553467+0.34356076j, 0, -4.37e-08+1j, 0.22914016+0.2381701j]
    a = tf.constant(_BASES, tf.complex64)
    y = tf.constant([2, 0.5, 2, 0.5, 1j], tf.complex64)
    want = [1, 1.4553467 + 0.34356076j, 0, 1j, 0.22914016 + 0.2381701j]
    np.testing.assert_allclose(tf.pow(a, y).numpy(), want, atol=1e-6, rtol=1e-6)
    np.testing.assert_allclose((a**y).numpy(), want, atol=1e-6, rtol=1e-6)


# --- tf.cast(IndexedSlices) --------------------------------------------------------------


def test_cast_indexed_slices_without_dense_shape():
    # TF 2.21 gives IndexedSlices(values=[[1, 2]] int32, indices=[0], dense_shape=None)
    s = tf.IndexedSlices(tf.constant([[1.5, 2.0]]), tf.constant([0]))
    r = tf.cast(s, tf.int32)
    assert isinstance(r, tf.IndexedSlices)
    assert r.values.dtype == tf.int32 and r.values.numpy().tolist() == [[1, 2]]
    assert r.indices.numpy().tolist() == [0] and r.dense_shape is None


def test_cast_indexed_slices_with_dense_shape_stays_sparse():
    # TF 2.21 gives an IndexedSlices with dense_shape [3, 2], not the dense tensor
    s = tf.IndexedSlices(tf.constant([[1.5, 2.0]]), tf.constant([0]), tf.constant([3, 2]))
    r = tf.cast(s, tf.int32)
    assert isinstance(r, tf.IndexedSlices)
    assert r.values.numpy().tolist() == [[1, 2]] and r.dense_shape.numpy().tolist() == [3, 2]


def test_cast_indexed_slices_in_a_function():
    # TF 2.21 gives IndexedSlices(values=[[1.5, 2.]] float64, indices=[0])
    @tf.function
    def f(v, i):
        r = tf.cast(tf.IndexedSlices(v, i), tf.float64)
        return r.values, r.indices

    v, i = f(tf.constant([[1.5, 2.0]]), tf.constant([0]))
    assert v.dtype == tf.float64 and v.numpy().tolist() == [[1.5, 2.0]] and i.numpy().tolist() == [0]


# --- tf.shape / tf.size out_type ---------------------------------------------------------


@pytest.mark.parametrize("out_type", [tf.float32, tf.int16, tf.bool, tf.uint64])
def test_shape_out_type_other_than_int32_int64_refused_eagerly(out_type):
    # TF 2.21 raises InvalidArgumentError: "Value for attr 'out_type' of float is not in the
    # list of allowed values: int32, int64"
    with pytest.raises(tf.errors.InvalidArgumentError, match="out_type"):
        tf.shape(tf.ones([2, 3]), out_type=out_type)


def test_shape_and_size_out_type_none_is_int32():
    # TF 2.21 gives int32 [2 3] and int32 6
    x = tf.ones([2, 3])
    assert tf.shape(x, out_type=None).dtype == tf.int32
    assert tf.size(x, out_type=None).dtype == tf.int32


def test_size_out_type_eagerly_casts_the_count():
    # TF 2.21 gives 6.0 float32, True bool, -112 int8 and 144 uint8 (400 wrapped)
    x = tf.ones([2, 3])
    assert tf.size(x, out_type=tf.float32).numpy() == np.float32(6.0)
    assert tf.size(x, out_type=tf.bool).numpy() is np.True_
    assert tf.size(tf.ones([20, 20]), out_type=tf.int8).numpy() == -112
    assert tf.size(tf.ones([20, 20]), out_type=tf.uint8).numpy() == 144


def test_shape_and_size_out_type_while_tracing_a_known_shape():
    # TF 2.21 gives float32 [2. 3.] and float32 6.0 (constants), TypeError for bool
    x = tf.ones([2, 3])
    assert tf.function(lambda x: tf.shape(x, out_type=tf.float32))(x).numpy().tolist() == [2.0, 3.0]
    assert tf.function(lambda x: tf.size(x, out_type=tf.float32))(x).numpy() == np.float32(6.0)
    with pytest.raises(TypeError):
        tf.function(lambda x: tf.size(x, out_type=tf.bool))(x)


@pytest.mark.parametrize("fn", [tf.shape, tf.size])
def test_shape_and_size_float_out_type_while_tracing_an_unknown_shape(fn):
    # TF 2.21 raises TypeError: "Value passed to parameter 'out_type' has DataType float32 not
    # in list of allowed values: int32, int64"
    g = tf.function(lambda x: fn(x, out_type=tf.float32), input_signature=[tf.TensorSpec([None, 3])])
    with pytest.raises(TypeError, match="out_type"):
        g(tf.ones([2, 3]))


# --- float -> integer casts out of range (TensorFlow's CPU kernels, x86) --------------------


def test_cast_float_above_uint64_range_gives_two_to_the_63():
    # TF 2.21 gives 2**63 for 1e20, inf, 2**64 and NaN; 1.8e19 and -1 as NumPy
    assert int(tf.cast(1e20, tf.uint64).numpy()) == 2**63
    for dtype in (tf.float32, tf.float64):
        x = tf.constant([1e20, np.inf, 2.0**64, np.nan, -1.0, 1.8e19], dtype)
        got = tf.cast(x, tf.uint64).numpy().tolist()
        want_last = 18000000404716257280 if dtype == tf.float32 else 18000000000000000000
        assert got == [2**63, 2**63, 2**63, 2**63, 2**64 - 1, want_last]


def test_cast_float_out_of_int_range_gives_the_lowest_int():
    # TF 2.21 gives INT_MIN for 1e20, -inf, inf, NaN and 5e9 (int32)
    x = tf.constant([1e20, -np.inf, np.inf, np.nan, 5e9])
    assert tf.cast(x, tf.int64).numpy().tolist() == [-(2**63)] * 4 + [5000000000]
    assert tf.cast(x, tf.int32).numpy().tolist() == [-(2**31)] * 5


# --- dtype_hint on NumPy input, where TensorFlow's op passes it ---------------------------


def test_image_box_ops_take_numpy_float64_boxes():
    # TF 2.21 gives float32 results; tfunc refused float64 boxes / int64 box indices
    img = np.zeros([1, 4, 4, 3], np.float32)
    boxes = np.array([[0.0, 0.0, 1.0, 1.0]])
    assert tf.image.crop_and_resize(img, boxes, np.array([0], np.int64), [2, 2]).dtype == tf.float32
    drawn = tf.image.draw_bounding_boxes(img, boxes[None] / 2, np.array([[1.0, 0, 0, 1]]))
    assert drawn.dtype == tf.float32
