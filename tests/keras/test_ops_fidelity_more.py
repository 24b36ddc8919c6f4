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
