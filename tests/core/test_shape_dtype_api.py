"""TensorShape and DType methods as TensorFlow 2.21 has them (expected values are
TensorFlow 2.21's, as noted beside each case)."""

from __future__ import annotations

import numpy as np
import pytest

import tfunc as tf

S = tf.TensorShape


def test_tensor_shape_concatenates_with_plus():
    # TF 2.21: TensorShape([1, 2]) each time; an unknown shape makes the result unknown
    assert S([1]) + S([2]) == S([1, 2])
    assert S([1]) + [2] == S([1, 2])
    assert [1] + S([2]) == S([1, 2])
    assert (1,) + S([2]) == S([1, 2])
    assert (S(None) + [2]).rank is None
    assert ([2] + S(None)).rank is None


def test_tensor_shape_rank_checks():
    # TF 2.21: the shape itself, or ValueError "Shape (1, 2) must have rank at least 3" etc.
    s = S([1, 2])
    assert s.with_rank_at_least(1) is s and s.with_rank_at_most(2) is s
    assert S(None).with_rank_at_least(2).rank is None
    with pytest.raises(ValueError, match=r"Shape \(1, 2\) must have rank at least 3"):
        s.with_rank_at_least(3)
    with pytest.raises(ValueError, match=r"Shape \(1, 2\) must have rank at most 1"):
        s.with_rank_at_most(1)
    s.assert_has_rank(2)
    S(None).assert_has_rank(1)
    with pytest.raises(ValueError, match=r"Shape \(1, 2\) must have rank 1"):
        s.assert_has_rank(1)
    s.assert_same_rank([3, 4])
    S([1]).assert_same_rank(None)
    with pytest.raises(ValueError, match=r"Shapes \(1, 2\) and \(3,\) must have the same rank"):
        s.assert_same_rank([3])
    s.assert_is_fully_defined()
    with pytest.raises(ValueError, match=r"Shape \(1, None\) is not fully defined"):
        S([1, None]).assert_is_fully_defined()
    with pytest.raises(ValueError, match="Shape <unknown> is not fully defined"):
        S(None).assert_is_fully_defined()


def test_dtype_is_compatible_with():
    # TF 2.21: True, False, True, True; TypeError for a name that is no dtype
    assert tf.float32.is_compatible_with(tf.float32)
    assert not tf.float32.is_compatible_with(tf.float64)
    assert tf.float32.is_compatible_with("float32")
    assert tf.float32.is_compatible_with(np.float32)
    with pytest.raises(TypeError):
        tf.float32.is_compatible_with("foo")


def test_dtype_limits():
    # TF 2.21: (0, 1), (0, 127), (0, 255), (0, True), (0, 2**63 - 1); ValueError for float16,
    # bfloat16, string, complex64
    assert tf.float32.limits == (0, 1)
    assert tf.int8.limits == (0, 127)
    assert tf.uint8.limits == (0, 255)
    assert tf.bool.limits == (0, True)
    assert tf.int64.limits == (0, 2**63 - 1)
    for dtype in (tf.float16, tf.bfloat16, tf.string, tf.complex64):
        with pytest.raises(ValueError, match="does not have defined limits"):
            _ = dtype.limits


def test_dtype_enum_and_flags():
    # TF 2.21: the DataType enum values; as_dtype(1) is float32, as_dtype(9) int64; not quantized
    names = ["float32", "float64", "int32", "uint8", "int16", "int8", "string", "complex64", "int64", "bool"]
    names += ["bfloat16", "uint16", "complex128", "float16", "uint32", "uint64"]
    enums = [getattr(tf, n).as_datatype_enum for n in names]
    assert enums == [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 14, 17, 18, 19, 22, 23]
    assert tf.as_dtype(1) is tf.float32 and tf.as_dtype(9) is tf.int64
    with pytest.raises(TypeError):
        tf.as_dtype(1000)
    assert not tf.float32.is_quantized
    assert tf.float32.is_numpy_compatible and tf.string.is_numpy_compatible


def test_dtype_most_specific_common_supertype():
    # TF 2.21: tf.float32, None, tf.float32
    assert tf.float32.most_specific_common_supertype([tf.float32]) is tf.float32
    assert tf.float32.most_specific_common_supertype([tf.float64]) is None
    assert tf.float32.most_specific_common_supertype([]) is tf.float32


def test_dtypes_module_has_cast_and_complex():
    # TF 2.21: tf.dtypes.cast([1.7], int32) is [1]; tf.dtypes.complex([1.], [2.]) is [1+2j]
    assert tf.dtypes.cast(tf.constant([1.7]), tf.int32).numpy().tolist() == [1]
    z = tf.dtypes.complex(tf.constant([1.0]), tf.constant([2.0]))
    assert z.dtype == tf.complex64 and z.numpy().tolist() == [1 + 2j]


def test_negative_dimension_is_refused():
    # TF 2.21: ValueError "Dimension -1 must be >= 0" for TensorShape and TensorSpec alike
    with pytest.raises(ValueError, match="Dimension -1 must be >= 0"):
        S([-1, 2])
    with pytest.raises(ValueError, match="Dimension -1 must be >= 0"):
        tf.TensorSpec([-1, 2])
    assert tf.reshape(tf.zeros([2, 3]), [-1]).shape == S([6])  # an op's shape argument reads -1


def test_negative_dimensions_are_refused_whatever_integer_type_holds_them():
    for dims in ([-1, 2], [np.int64(-1), 2], np.array([-1, 2])):
        with pytest.raises(ValueError, match="Dimension -1 must be >= 0"):
            tf.TensorShape(dims)
    with pytest.raises(ValueError, match="Dimension -1 must be >= 0"):
        tf.TensorSpec([np.int32(-1)])
    assert tf.reshape(tf.zeros([4]), np.array([-1, 2])).shape == (2, 2)  # an op's -1 still means "the rest"
