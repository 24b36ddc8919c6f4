"""``keras.ops`` as Keras 3.15 on TensorFlow 2.21 computes it, on cases where tfunc differed:
Python ints beyond int32, squeeze of unknown dims, logaddexp of two -inf, hypot's range,
multi_hot along axis 0, variables as tensors, saturate_cast to bool, scan without outputs,
ops that needed static shapes, dtypes the kernels lack, and the errors for bad inputs.

Expected values are TensorFlow 2.21 / Keras 3.15's, recorded from it."""

import numpy as np
import pytest

import tfunc as tf
import tfunc.keras as keras
from tfunc.keras import ops


def _both(fn, *args):
    """``fn(*args)`` eagerly and inside ``tf.function``."""
    return [fn(*args), tf.function(fn)(*args)]


def _check(got, dtype, expected):
    assert got.dtype.name == dtype
    np.testing.assert_allclose(got.numpy(), expected, rtol=1e-6)


# --- convert_to_tensor --------------------------------------------------------------------------


@pytest.mark.parametrize(
    "value,dtype",
    [
        (2**40, "int64"),  # TF 2.21 gives int64 1099511627776 (tfunc gave int32 0)
        ([2**40, 1], "int64"),
        ([[1], [2**40]], "int64"),
        (-(2**31) - 1, "int64"),
        (2**31 - 1, "int32"),
        ([2**63 - 1], "int64"),
        (1 + 2j, "complex128"),
    ],
)
def test_convert_to_tensor_python_ints_beyond_int32_are_int64(value, dtype):
    for t in _both(lambda: ops.convert_to_tensor(value)):
        assert t.dtype.name == dtype
        np.testing.assert_array_equal(t.numpy(), np.asarray(value))


@pytest.mark.parametrize("value", [1e40, -1e40, 3.5e38, [1.0, 1e40]])
def test_convert_to_tensor_refuses_finite_floats_beyond_float32(value):
    # TF 2.21: ValueError "Can't convert Python sequence with a value out of range ..." (tfunc gave inf)
    with pytest.raises(ValueError, match="out of range"):
        ops.convert_to_tensor(value)
    assert np.isinf(ops.convert_to_tensor(float("inf")).numpy())  # inf itself converts


def test_convert_to_tensor_refuses_bools_mixed_with_numbers():
    # TF 2.21: ValueError "Can't convert Python sequence with mixed types to Tensor." (tfunc gave [1 2])
    with pytest.raises((TypeError, ValueError), match="mix"):
        ops.convert_to_tensor([True, 2])


# --- squeeze ------------------------------------------------------------------------------------


@pytest.mark.parametrize("spec", [[None, None, None], [None, 3, None]])
def test_squeeze_of_unknown_dims_squeezes_at_run_time(spec):
    # TF 2.21: shape (3,) (tfunc kept (1, 3, 1))
    f = tf.function(lambda a: ops.squeeze(a), input_signature=[tf.TensorSpec(spec)])
    assert f(tf.zeros((1, 3, 1))).shape == (3,)
    assert f(tf.zeros((2, 3, 1))).shape == (2, 3)


def test_squeeze_of_keras_tensor_keeps_unknown_dims():
    # Keras 3.15: ops.squeeze(keras.Input((None, 1, 3))).shape == (None, None, 3)
    assert tuple(ops.squeeze(keras.Input((None, 1, 3))).shape) == (None, None, 3)


# --- elementwise --------------------------------------------------------------------------------


def test_logaddexp_of_two_infinities():
    # TF 2.21: [-inf, 0, inf, nan] (tfunc gave nan for -inf, -inf and inf, inf)
    a, b = [-np.inf, -np.inf, np.inf, 1.0], [-np.inf, 0.0, np.inf, np.nan]
    for got in _both(lambda: ops.logaddexp(ops.convert_to_tensor(a), ops.convert_to_tensor(b))):
        _check(got, "float32", [-np.inf, 0.0, np.inf, np.nan])


def test_hypot_neither_overflows_nor_underflows():
    # TF 2.21: [5e-30, 5e30, 0, 5, inf] (tfunc gave 0 and inf for the first two)
    a, b = [3e-30, 3e30, 0.0, 3.0, -3.0], [4e-30, 4e30, 0.0, 4.0, np.inf]
    for got in _both(lambda: ops.hypot(ops.convert_to_tensor(a), ops.convert_to_tensor(b))):
        _check(got, "float32", [5e-30, 5e30, 0.0, 5.0, np.inf])


def test_hypot_gradient_at_origin_is_zero():
    # TF 2.21: d/dx hypot(x, 0) at x = 0 is 0 (tfunc gave nan)
    x = tf.constant([0.0, 3.0])
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = ops.sum(ops.hypot(x, tf.constant([0.0, 4.0])))
    np.testing.assert_allclose(tape.gradient(y, x).numpy(), [0.0, 0.6], rtol=1e-6)


@pytest.mark.parametrize(
    "x1,x2,dtype,expected",
    [
        (np.array([2, 3], "uint8"), 2, "uint8", [4, 9]),  # TF 2.21 (tfunc: UnsupportedDTypeError 'pow')
        (np.array([2, 3], "uint8"), np.array([2, 3], "uint16"), "uint16", [4, 27]),
        (np.array([70000, 3], "uint32"), np.array([2, 2], "uint32"), "uint32", [605032704, 9]),
        (np.array([2, 3], "uint8"), np.array([True, False]), "uint8", [2, 1]),
        (np.array([300, 3], "uint16"), 2, "uint16", [24464, 9]),
    ],
)
def test_power_of_unsigned_integers(x1, x2, dtype, expected):
    c = ops.convert_to_tensor
    for got in _both(lambda: ops.power(c(x1), x2 if isinstance(x2, int) else c(x2))):
        _check(got, dtype, expected)


@pytest.mark.parametrize(
    "x1,x2,dtype,expected",
    [
        (np.array([-7, 7], "int16"), np.array([2, -2], "int16"), "int16", [-1, 1]),  # TF 2.21
        (np.array([-7, 7, -128], "int8"), np.array([2, -2, 3], "int8"), "int8", [-1, 1, -1]),
        (np.array([7, 200], "uint8"), np.array([2, 3], "uint8"), "uint8", [1, 2]),
        (np.array([-7.5, 7.5, -0.0], "float32"), np.array([2.0, -2.0, 1.0], "float32"), "float32", [-1.5, 1.5, 0.0]),
        (np.array([True, False]), np.array(True), "int32", [0, 0]),
    ],
)
def test_fmod_of_small_and_unsigned_integers(x1, x2, dtype, expected):
    c = ops.convert_to_tensor
    for got in _both(lambda: ops.fmod(c(x1), c(x2))):
        _check(got, dtype, expected)
        if dtype == "float32":
            assert not np.signbit(got.numpy()[2])  # TF 2.21: fmod(-0.0, 1.0) is 0.0, not -0.0


def test_mod_of_bools_is_int32():
    # TF 2.21: int32 [0 0] (tfunc: UnsupportedDTypeError 'floormod' ... bool)
    for got in _both(lambda: ops.mod(ops.convert_to_tensor([True, False]), True)):
        _check(got, "int32", [0, 0])


@pytest.mark.parametrize(
    "x,expected",
    [
        (np.array([[3, 1], [0, 2]]), [0, 1, 2, 3]),  # TF 2.21 (tfunc: TypeError int(None))
        (np.array([[True, False], [False, True]]), [False, False, True, True]),
        (np.array(3.0, "float32"), [3.0]),
    ],
)
def test_sort_with_axis_none_sorts_flattened(x, expected):
    for got in _both(lambda: ops.sort(ops.convert_to_tensor(x), axis=None)):
        assert got.dtype.name == x.dtype.name
        np.testing.assert_array_equal(got.numpy(), expected)


# --- nn -----------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "x,axis,expected",
    [
        # TF 2.21 / Keras 3.15: one_hot along `axis`, then reduced over axis 1 (tfunc gave the second rows swapped)
        ([[0, 2], [1, 1]], 0, [[1, 0], [1, 1], [0, 1], [0, 0]]),
        ([[[0, 2], [1, 1]]], 1, [[[1, 1], [1, 1]]]),  # shape (1, 2, 2); tfunc gave (1, 4, 2)
        ([[[0, 2], [1, 1]]], -1, [[[1, 1, 0, 0], [0, 1, 1, 0]]]),
        ([0, 2], -1, [1, 0, 1, 0]),
    ],
)
def test_multi_hot_reduces_over_the_sample_axis(x, axis, expected):
    for got in _both(lambda: ops.multi_hot(ops.convert_to_tensor(x), 4, axis=axis)):
        _check(got, "float32", expected)


def test_multi_hot_of_bools():
    # TF 2.21: [[T F T F] [F T F F]] (tfunc: reduce_max refused bool)
    for got in _both(lambda: ops.multi_hot(ops.convert_to_tensor([[0, 2], [1, 1]]), 4, dtype="bool")):
        assert got.dtype.name == "bool"
        np.testing.assert_array_equal(got.numpy(), [[True, False, True, False], [False, True, False, False]])


def test_one_hot_of_float_indices():
    # TF 2.21: indices cast to int64 (1.7 -> 1, -1 -> no class) (tfunc: one_hot refused float32)
    expected = [[1, 0, 0], [0, 0, 1], [0, 1, 0], [0, 0, 0]]
    for got in _both(lambda: ops.one_hot(ops.convert_to_tensor([0.0, 2.0, 1.7, -1.0]), 3)):
        _check(got, "float32", expected)


def test_moments_synchronized_on_one_device():
    # TF 2.21: the ordinary moments (tfunc raised NotImplementedError)
    x = np.arange(12.0, dtype="float32").reshape(3, 4)
    for mean, var in _both(lambda: ops.moments(ops.convert_to_tensor(x), axes=[1], keepdims=True, synchronized=True)):
        np.testing.assert_allclose(mean.numpy(), [[1.5], [5.5], [9.5]])
        np.testing.assert_allclose(var.numpy(), [[1.25], [1.25], [1.25]])


# --- core ---------------------------------------------------------------------------------------


def test_is_tensor_of_variables():
    # TF 2.21: ops.is_tensor(keras.Variable(...)) is True (tfunc gave False)
    assert ops.is_tensor(keras.Variable(np.ones(2, "float32")))
    assert ops.is_tensor(tf.Variable(1.0))
    assert not ops.is_tensor(np.ones(2))


@pytest.mark.parametrize(
    "x,expected",
    [
        # TF 2.21 / Keras 3.15 clamps to [0, 1] first (tfunc gave [T T F T T])
        (np.array([-2.5, -0.5, 0.0, 0.3, 2.0], "float32"), [False, False, False, True, True]),
        (np.array([-2, 0, 3], "int8"), [False, False, True]),
    ],
)
def test_saturate_cast_to_bool(x, expected):
    for got in _both(lambda: ops.saturate_cast(ops.convert_to_tensor(x), "bool")):
        assert got.dtype.name == "bool"
        np.testing.assert_array_equal(got.numpy(), expected)


@pytest.mark.parametrize(
    "init,xs,length,carry,ys",
    [
        # TF 2.21 / Keras 3.15: ys of a step returning None are zeros shaped as the carry (tfunc gave None)
        (0.0, [1.0, 2.0, 3.0], None, 6.0, [0.0, 0.0, 0.0]),
        ([0.0, 0.0], np.ones((3, 2), "float32"), None, [3.0, 3.0], np.zeros((3, 2))),
        (0, None, 4, 4, [0, 0, 0, 0]),
    ],
)
def test_scan_without_outputs_gives_zeros(init, xs, length, carry, ys):
    init = ops.convert_to_tensor(init)
    xs = None if xs is None else ops.convert_to_tensor(xs)
    step = (lambda c, x: (c + 1, None)) if xs is None else (lambda c, x: (c + x, None))
    for got_carry, got_ys in _both(lambda: ops.scan(step, init, xs, length=length)):
        np.testing.assert_allclose(got_carry.numpy(), carry)
        assert got_ys.dtype == init.dtype
        np.testing.assert_array_equal(got_ys.numpy(), ys)


SEG_DATA = np.random.default_rng(0).random((6, 3)).astype("float32")
SEG_IDS = np.array([0, 0, 1, 1, 2, 2])


@pytest.mark.parametrize("op,reduce", [(ops.segment_sum, np.sum), (ops.segment_max, np.max)])
def test_segments_without_num_segments_inside_function(op, reduce):
    # TF 2.21: shape (3, 3) inside tf.function (tfunc: OperatorNotAllowedInGraphError)
    expected = np.stack([reduce(SEG_DATA[SEG_IDS == i], axis=0) for i in range(3)])
    for got in _both(lambda: op(SEG_DATA, SEG_IDS)):
        np.testing.assert_allclose(got.numpy(), expected, rtol=1e-6)


def test_solve_with_a_vector_rhs():
    # TF 2.21: [0.5 0.5] and, batched, [[0.5 0.5]] * 3 (tfunc: matrix_solve refused a rank-1 rhs)
    a = np.eye(2, dtype="float32") * 2
    for got in _both(lambda: ops.solve(a, np.ones(2, "float32"))):
        _check(got, "float32", [0.5, 0.5])
    for got in _both(lambda: ops.solve(np.stack([a] * 3), np.ones((3, 2), "float32"))):
        _check(got, "float32", np.full((3, 2), 0.5))


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_erfinv_of_half_precision(dtype):
    # TF 2.21: float16 [-0.4771 0 0.2725 1.1631], bfloat16 [-0.4766 0 0.2734 1.1562] (tfunc: erfinv refused them)
    x = ops.cast(ops.convert_to_tensor([-0.5, 0.0, 0.3, 0.9]), dtype)
    for got in _both(lambda: ops.erfinv(x)):
        assert got.dtype.name == dtype
        np.testing.assert_allclose(got.numpy().astype("float32"), [-0.4769, 0.0, 0.2725, 1.1631], atol=8e-3)


def test_qr_of_float16():
    # TF 2.21: q [[-0.5996 -0.7998] [-0.7998 0.6001]], r [[-5 -2.1992] [0 0.4004]] (tfunc: qr refused float16)
    x = ops.convert_to_tensor(np.array([[3.0, 1.0], [4.0, 2.0]], "float16"))
    for q, r in _both(lambda: ops.qr(x)):
        assert q.dtype.name == r.dtype.name == "float16"
        np.testing.assert_allclose(q.numpy(), [[-0.5996, -0.7998], [-0.7998, 0.6001]], atol=1e-3)
        np.testing.assert_allclose(r.numpy(), [[-5.0, -2.1992], [0.0, 0.4004]], atol=1e-3)


NORM_M = np.array([[1.0, -2.0, 0.5], [3.0, 4.0, -1.0], [0.0, 1.0, 2.0]], "float32")


@pytest.mark.parametrize(
    "x,ord,axis,expected",
    [
        # TF 2.21 / Keras 3.15 (tfunc: ValueError "ord must be positive")
        (np.array([1.0, 2.0, 4.0], "float32"), -1, None, 0.5714),
        (np.array([1.0, 2.0, 4.0], "float32"), -2, None, 0.8729),
        (np.array([1.0, 2.0, 4.0], "float32"), -0.5, None, 0.2053),
        (NORM_M, -1, 1, [0.2857, 0.6316, 0.0]),
        (NORM_M, -1, (0, 1), 3.5),
        (NORM_M, -2, (0, 1), 1.9161),
        (NORM_M, -2, None, 1.9161),
        (NORM_M, -np.inf, (0, 1), 3.0),
    ],
)
def test_norm_of_negative_order(x, ord, axis, expected):
    for got in _both(lambda: ops.norm(x, ord=ord, axis=axis)):
        np.testing.assert_allclose(got.numpy(), expected, atol=1e-4)


@pytest.mark.parametrize(
    "ord,axis,shape", [(-1, (1, 2), (2, 1, 1)), (-np.inf, (2, 0), (1, 3, 1)), (-2, (0, 1), (1, 1, 4))]
)
def test_norm_of_negative_order_keeps_dims(ord, axis, shape):
    # TF 2.21 / Keras 3.15 give these shapes, with NumPy's values
    x = np.arange(24, dtype="float32").reshape(2, 3, 4) - 7
    got = ops.norm(x, ord=ord, axis=axis, keepdims=True)
    assert tuple(got.shape) == shape
    np.testing.assert_allclose(np.squeeze(got.numpy()), np.linalg.norm(x, ord=ord, axis=axis), rtol=1e-5)


# --- bad inputs ---------------------------------------------------------------------------------


@pytest.mark.parametrize("op,name", [(ops.max, "max"), (ops.amax, "max"), (ops.min, "min"), (ops.amin, "min")])
def test_reductions_of_an_empty_tensor_raise_eagerly(op, name):
    # TF 2.21 / Keras 3.15: InvalidArgumentError "Cannot compute the max of an empty tensor." (tfunc gave -inf)
    for x in (np.zeros((0, 3), "float32"), np.zeros((0, 3), "int32")):
        with pytest.raises(tf.errors.InvalidArgumentError, match=f"Cannot compute the {name} of an empty tensor"):
            op(x, axis=0)
    with pytest.raises(tf.errors.InvalidArgumentError):
        op(np.zeros((0, 3), "float32"), axis=1)  # even when the result is empty
    np.testing.assert_array_equal(op(np.zeros((0, 3), "float32"), axis=0, initial=1.0).numpy(), [1.0] * 3)
    traced = tf.function(lambda: ops.max(np.zeros((0, 3), "float32"), axis=0))()  # traced: TF gives -inf
    np.testing.assert_array_equal(traced.numpy(), [-np.inf] * 3)


def test_stack_and_concatenate_of_nothing():
    # TF 2.21: stack([]) is float32 shape (0,); concatenate([]) an error (tfunc: frozenset.intersection TypeError)
    got = ops.stack([])
    assert got.dtype.name == "float32" and tuple(got.shape) == (0,)
    with pytest.raises(ValueError, match="at least one tensor"):
        ops.concatenate([])


@pytest.mark.parametrize(
    "padding, output_padding, shape, expected_sum",
    [  # Keras 3.15 on TF 2.21, traced with unknown spatial sizes
        ("same", None, (2, 10, 8, 6), 1332.003662109375),
        ("valid", None, (2, 11, 9, 6), 1556.162109375),
        ("valid", 1, (2, 12, 10, 6), 1556.162109375),
    ],
)
def test_conv_transpose_with_spatial_sizes_known_only_at_run_time(padding, output_padding, shape, expected_sum):
    x = np.random.RandomState(0).rand(2, 5, 4, 3).astype("float32")
    k = np.random.RandomState(1).rand(3, 3, 6, 3).astype("float32")
    f = tf.function(
        lambda a: keras.ops.conv_transpose(a, k, strides=2, padding=padding, output_padding=output_padding),
        input_signature=[tf.TensorSpec([None, None, None, 3])],
    )
    y = f(x)
    assert y.shape == shape
    np.testing.assert_allclose(float(tf.reduce_sum(y)), expected_sum, rtol=1e-6)
