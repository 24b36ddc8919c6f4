"""Converting Python values as TensorFlow 2.21 does: ints past int64 (uint64 values from 2**63,
2**64 and beyond into floating tensors), and Python or NumPy values in the list input of
``tf.concat``/``tf.stack``, which take the dtype of the tensors beside them."""

import numpy as np
import pytest

import tfunc as tf


def _eager_and_traced(fn):
    return [fn(), tf.function(fn)()]


def _check(fn, expected, dtype):
    for out in _eager_and_traced(fn):
        assert out.dtype is dtype
        assert np.asarray(out).tolist() == expected


def test_uint64_lists_past_int64():
    _check(lambda: tf.constant([2**63, 1], tf.uint64), [2**63, 1], tf.uint64)
    _check(lambda: tf.constant([2**64 - 1, 0], tf.uint64), [2**64 - 1, 0], tf.uint64)
    _check(lambda: tf.constant([0, 0], tf.uint64) + [2**63, 1], [2**63, 1], tf.uint64)
    v = tf.Variable([2**63, 1], dtype=tf.uint64)
    assert v.numpy().tolist() == [2**63, 1]


def test_floats_from_ints_past_64_bits():
    _check(lambda: tf.constant([0.5, 2**64], tf.float64), [0.5, 2.0**64], tf.float64)
    _check(lambda: tf.constant([0.5, 2**64]), [0.5, 2.0**64], tf.float32)
    _check(lambda: tf.constant(2**64, tf.float32), 2.0**64, tf.float32)
    _check(lambda: tf.constant([2**70], tf.float32), [2.0**70], tf.float32)
    _check(lambda: tf.constant([2**200], tf.float32), [float("inf")], tf.float32)  # as TF: overflows


@pytest.mark.parametrize(
    "value,dtype",
    [([2**63, 1], tf.int64), ([2**63, 1], tf.int8), ([2**64, 1], tf.uint64), ([2**1100], tf.float64)],
)
def test_out_of_range_ints_are_refused(value, dtype):
    with pytest.raises(ValueError, match="out-of-range integer"):
        tf.constant(value, dtype)


def test_concat_and_stack_convert_python_values_to_the_tensors_dtype():
    half = tf.constant([1.5], tf.float16)
    _check(lambda: tf.concat([half, [1.0, 2.0]], 0), [1.5, 1.0, 2.0], tf.float16)
    _check(lambda: tf.concat([[1.0, 2.0], half], 0), [1.0, 2.0, 1.5], tf.float16)
    _check(lambda: tf.concat([tf.constant([1], tf.int8), [1, 300]], 0), [1, 1, 44], tf.int8)  # wraps, as TF
    _check(lambda: tf.concat([tf.constant([1.5]), [2, 3]], 0), [1.5, 2.0, 3.0], tf.float32)
    _check(lambda: tf.concat([tf.constant([1.0]), np.array([2.5])], 0), [1.0, 2.5], tf.float32)
    _check(lambda: tf.stack([tf.constant(1.5, tf.float16), 2.0]), [1.5, 2.0], tf.float16)
    _check(lambda: tf.stack([3, tf.constant(1, tf.uint8)]), [3, 1], tf.uint8)
    with pytest.raises(TypeError):  # a float into an int32 tensor, refused as by TF
        tf.concat([tf.constant([1]), [2.5]], 0)
