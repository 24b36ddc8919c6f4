"""The Tensor / Variable / Module API surface as TensorFlow 2.21 has it: conversion and dtype
inference, ``is_tensor``, ``get_static_value``, name scopes, indexing.  Expected values are
TensorFlow 2.21's, as noted beside each case."""

from __future__ import annotations

import numpy as np
import pytest

import tfunc as tf
from tfunc.api.context_ops import get_current_name_scope
from tfunc.eager.convert import convert_to_tensor_v2
from tfunc.tracing.symbolic import get_static_value

# --- tf.is_tensor ------------------------------------------------------------------------


def test_is_tensor_counts_variables_and_indexed_slices():
    # TF 2.21 gives True for both, False for NumPy arrays and Python numbers
    assert tf.is_tensor(tf.Variable(1.0))
    assert tf.is_tensor(tf.IndexedSlices(tf.constant([1.0]), tf.constant([0])))
    assert not tf.is_tensor(np.ones(2))
    assert not tf.is_tensor(1)


# --- tf.get_static_value -----------------------------------------------------------------


def test_get_static_value_returns_non_tensors_as_they_are():
    # TF 2.21 gives 3, [1, 2], the same array, the same TensorShape
    assert get_static_value(3) == 3
    assert get_static_value([1, 2]) == [1, 2]
    arr = np.array([1, 2])
    assert get_static_value(arr) is arr
    assert get_static_value(tf.TensorShape([1, 2])) == tf.TensorShape([1, 2])


def test_get_static_value_of_tensors_and_variables():
    # TF 2.21: a variable gives None; a 0-d tensor gives np.float32(1.0); partial= is accepted
    assert get_static_value(tf.Variable([1.0])) is None
    scalar = get_static_value(tf.constant(1.0))
    assert type(scalar) is np.float32 and scalar == 1.0
    np.testing.assert_array_equal(get_static_value(tf.constant([1, 2]), partial=True), [1, 2])


# --- convert_to_tensor(dtype_hint=) with NumPy values ------------------------------------


@pytest.mark.parametrize(
    "value, hint, dtype, expected",
    [
        (np.array([1, 2]), tf.float32, tf.float32, [1.0, 2.0]),  # TF 2.21: float32 [1. 2.]
        (np.array([1.5]), tf.float32, tf.float32, [1.5]),
        (np.int64(3), tf.float32, tf.float32, 3.0),
        (np.array([True]), tf.int32, tf.int32, [1]),
        (np.array([1.5]), tf.int32, tf.int32, [1]),  # TF truncates under an int32 hint
        (np.array([1.5]), tf.string, tf.float64, [1.5]),  # a string hint is ignored
        (np.array(["a"]), tf.float32, tf.string, [b"a"]),
    ],
)
def test_dtype_hint_applies_to_numpy_values(value, hint, dtype, expected):
    t = convert_to_tensor_v2(value, dtype_hint=hint)
    assert t.dtype == dtype
    assert t.numpy().tolist() == expected


def test_dtype_hint_applies_to_numpy_values_in_a_function():
    # TF 2.21: float32 [1. 2.] inside tf.function too
    t = tf.function(lambda: convert_to_tensor_v2(np.array([1, 2]), dtype_hint=tf.float32))()
    assert t.dtype == tf.float32 and t.numpy().tolist() == [1.0, 2.0]


# --- dtype inference: NumPy integers in lists, range ------------------------------------


def test_numpy_integers_in_a_list_are_read_as_python_ints():
    # TF 2.21: int32, int32, int32; int64 past the int32 range
    b = np.array([3, 4])
    assert tf.constant([b[0], b[1]]).dtype == tf.int32
    assert tf.stack([b[0], b[1]]).dtype == tf.int32
    assert tf.constant([np.int8(1)]).dtype == tf.int32
    assert tf.constant([np.array([1, 2], np.int8), [3, 4]]).dtype == tf.int32
    assert tf.constant([np.uint32(2**31)]).dtype == tf.int64
    assert tf.function(lambda: tf.constant([b[0], b[1]]))().dtype == tf.int32


def test_constant_of_range():
    # TF 2.21: int32 [0 1 2]; int64 past int32; float32 [] when empty; [[0 1] [0 1]]
    assert tf.constant(range(3)).numpy().tolist() == [0, 1, 2]
    assert tf.constant(range(3)).dtype == tf.int32
    assert tf.convert_to_tensor(range(3)).dtype == tf.int32
    assert tf.constant(range(2**40, 2**40 + 2)).dtype == tf.int64
    assert tf.constant(range(0)).dtype == tf.float32
    assert tf.constant([range(2), range(2)]).numpy().tolist() == [[0, 1], [0, 1]]
    assert tf.constant(range(3), dtype=tf.float32).numpy().tolist() == [0.0, 1.0, 2.0]


# --- name scopes ------------------------------------------------------------------------


def test_name_scope_ending_in_slash_is_absolute():
    # TF 2.21: 'b/' (get_current_name_scope 'b'), '' at the top, 'a/x/y/'
    with tf.name_scope("a"):
        with tf.name_scope("b/") as s:
            assert s == "b/" and get_current_name_scope() == "b"
        with tf.name_scope("") as s:
            assert s == ""
        with tf.name_scope("x/y") as s:
            assert s == "a/x/y/"


def test_module_name_scope_names_variables():
    # TF 2.21: 'mm/v:0', 'mm/Variable:0'; a module made in 'outer' has scope 'outer/mm/'
    m = tf.Module(name="mm")
    with m.name_scope as s:
        assert s == "mm/"
        v = tf.Variable(1.0, name="v")
        w = tf.Variable(1.0)
    assert (v.name, w.name) == ("mm/v:0", "mm/Variable:0")
    with tf.name_scope("outer"):
        m2 = tf.Module(name="mm")
    assert m2.name_scope.name == "outer/mm/"
    with tf.name_scope("zz"), m2.name_scope:
        assert tf.Variable(1.0, name="q").name == "outer/mm/q:0"


def test_with_name_scope_names_variables():
    # TF 2.21: 'mm/v:0'
    class M(tf.Module):
        @tf.Module.with_name_scope
        def __call__(self, x):
            self.v = tf.Variable(x, name="v")
            return self.v

    assert M(name="mm")(1.0).name == "mm/v:0"
