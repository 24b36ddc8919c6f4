"""The Tensor / Variable / Module API surface as TensorFlow 2.21 has it: conversion and dtype
inference, ``is_tensor``, ``get_static_value``, name scopes, indexing.  Expected values are
TensorFlow 2.21's, as noted beside each case."""

from __future__ import annotations

import numpy as np
import pytest

import tfunc as tf
from tfunc.api.context_ops import get_current_name_scope, tuple_
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


# --- creation, formatting, nest -----------------------------------------------------------


def test_ones_of_strings_is_refused():
    # TF 2.21: TypeError "Cannot convert 1 to EagerTensor of dtype string" (zeros gives b'')
    with pytest.raises(TypeError, match="dtype string"):
        tf.ones([2], tf.string)
    assert tf.zeros([2], tf.string).numpy().tolist() == [b"", b""]


def test_format_of_a_tensor_formats_its_numpy_value():
    # TF 2.21: '[1 2]', "b'ab'", "[b'ab' b'c']", '[[1 2]\n [3 4]]', '3.50'; a spec on an array
    # is NumPy's TypeError
    assert f"{tf.constant([1, 2])}" == "[1 2]"
    assert f"{tf.constant('ab')}" == "b'ab'"
    assert f"{tf.constant(['ab', 'c'])}" == "[b'ab' b'c']"
    assert f"{tf.constant([[1, 2], [3, 4]])}" == "[[1 2]\n [3 4]]"
    assert f"{tf.constant(3.5):.2f}" == "3.50"
    with pytest.raises(TypeError, match="unsupported format string"):
        format(tf.constant([1.5]), ".2f")


def test_nest_expands_indexed_slices():
    # TF 2.21: [values, indices, dense_shape] ([values, indices] without a dense_shape); packing
    # rebuilds an IndexedSlices
    s = tf.IndexedSlices(tf.constant([[1.0]]), tf.constant([0]), tf.constant([2, 1]))
    flat = tf.nest.flatten(s, expand_composites=True)
    assert [x.numpy().tolist() for x in flat] == [[[1.0]], [0], [2, 1]]
    assert tf.nest.flatten(s) == [s]
    no_shape = tf.IndexedSlices(tf.constant([[1.0]]), tf.constant([0]))
    assert len(tf.nest.flatten(no_shape, expand_composites=True)) == 2
    parts = [tf.constant([[5.0]]), tf.constant([1]), tf.constant([3, 1])]
    r = tf.nest.pack_sequence_as(s, parts, expand_composites=True)
    assert isinstance(r, tf.IndexedSlices) and r.indices.numpy().tolist() == [1]


# --- indexing -------------------------------------------------------------------------------


def test_index_with_a_variable():
    # TF 2.21: 2, [2 3 4], [0 1], eagerly and in tf.function; a vector variable is refused
    x, i = tf.range(5), tf.Variable(2)
    assert int(x[i]) == 2
    assert x[i:].numpy().tolist() == [2, 3, 4]
    assert x[:i].numpy().tolist() == [0, 1]
    assert tf.function(lambda: x[i:])().numpy().tolist() == [2, 3, 4]
    with pytest.raises(TypeError, match="scalar"):
        x[tf.Variable([1])]


def test_a_list_key_is_read_as_a_tuple():
    # TF 2.21: y[[0, 1]] is y[0, 1] = [4 5 6 7]; y[[]] is y; a nested list is refused
    y = tf.reshape(tf.range(24), [2, 3, 4])
    assert y[[0, 1]].numpy().tolist() == [4, 5, 6, 7]
    assert tf.function(lambda: y[[0, 1]])().numpy().tolist() == [4, 5, 6, 7]
    assert y[[0, slice(1, None)]].shape == (2, 4)
    assert y[[]].shape == (2, 3, 4)
    with pytest.raises(TypeError):
        y[[0, [1]]]


# --- Variable methods -----------------------------------------------------------------------


def test_variable_sparse_read_and_gather_nd():
    # TF 2.21: [[5, 6], [1, 2]], [2, 5]; the same inside tf.function
    v = tf.Variable([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])
    assert v.sparse_read([2, 0]).numpy().tolist() == [[5.0, 6.0], [1.0, 2.0]]
    assert v.gather_nd([[0, 1], [2, 0]]).numpy().tolist() == [2.0, 5.0]
    assert tf.function(lambda: v.sparse_read([1]))().numpy().tolist() == [[3.0, 4.0]]


def test_variable_scatter_nd_max_and_min():
    # TF 2.21: [[10, 2], [3, 4], [5, 6]] then [[-1, 2], [3, 4], [5, 6]]
    v = tf.Variable([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])
    v.scatter_nd_max([[0, 0], [1, 1]], [10.0, 0.0])
    assert v.numpy().tolist() == [[10.0, 2.0], [3.0, 4.0], [5.0, 6.0]]
    v.scatter_nd_min([[0, 0], [2, 1]], [-1.0, 100.0])
    assert v.numpy().tolist() == [[-1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]


def test_variable_set_shape():
    # TF 2.21: (None, 2) refined to (3, 2); an incompatible shape is a ValueError
    w = tf.Variable(tf.ones([3, 2]), shape=tf.TensorShape([None, 2]))
    w.set_shape([3, 2])
    assert w.shape == tf.TensorShape([3, 2])
    with pytest.raises(ValueError, match="not compatible"):
        w.set_shape([2, 2])


def test_variable_count_up_to():
    # TF 2.21: 0, then 1, then OutOfRangeError "Reached limit of 2"; a float variable is refused
    c = tf.Variable(0)
    assert int(c.count_up_to(2)) == 0 and int(c.count_up_to(2)) == 1
    with pytest.raises(tf.errors.OutOfRangeError, match="Reached limit of 2"):
        c.count_up_to(2)
    assert int(c) == 2
    with pytest.raises(tf.errors.InvalidArgumentError):
        tf.Variable(0.0).count_up_to(2)


# --- Python conversions, None, specs, tf.tuple --------------------------------------------


def test_python_number_conversions_need_a_0d_tensor():
    # TF 2.21: int/float of shape (1,) and [..][t] with t of shape (1,) raise TypeError;
    # bool of an empty tensor is False, of [1] True
    with pytest.raises(TypeError, match="0-dimensional"):
        int(tf.constant([2]))
    with pytest.raises(TypeError, match="0-dimensional"):
        float(tf.constant([2.0]))
    with pytest.raises(TypeError, match="0-dimensional"):
        [10, 20, 30][tf.constant([1])]
    assert [10, 20, 30][tf.constant(1)] == 20
    assert bool(tf.constant([])) is False
    assert bool(tf.constant([1])) is True


def test_none_is_a_value_error():
    # TF 2.21: ValueError "Attempt to convert a value (None) with an unsupported type ..."
    for convert in (lambda: tf.convert_to_tensor(None), lambda: tf.constant(1) + None, lambda: tf.constant(1) < None):
        with pytest.raises(ValueError, match=r"Attempt to convert a value \(None\)"):
            convert()


def test_tensor_spec_takes_tensors_only():
    # TF 2.21: is_compatible_with gives False for a NumPy array and a variable; from_tensor of
    # either raises ValueError
    spec = tf.TensorSpec([2], tf.float32)
    assert spec.is_compatible_with(tf.constant([1.0, 2.0]))
    assert not spec.is_compatible_with(np.zeros(2, np.float32))
    assert not tf.TensorSpec([], tf.float32).is_compatible_with(tf.Variable(1.0))
    for value in (tf.Variable(1.0), np.zeros(2)):
        with pytest.raises(ValueError, match="should be a tf.Tensor"):
            tf.TensorSpec.from_tensor(value)


def test_tensor_spec_common_supertype_keeps_names():
    # TF 2.21: None for different names; TensorSpec((None,), float32, 'a') for the same name;
    # most_specific_compatible_type of unnamed specs is TensorSpec((None,), float32, None)
    a, b = tf.TensorSpec([2], name="a"), tf.TensorSpec([3], name="b")
    assert a.most_specific_common_supertype([b]) is None
    assert a.most_specific_common_supertype([tf.TensorSpec([3], name="a")]) == tf.TensorSpec([None], name="a")
    assert tf.TensorSpec([2]).most_specific_compatible_type(tf.TensorSpec([3])) == tf.TensorSpec([None])


def test_tuple_returns_the_tensors():
    # TF 2.21: [1, 2.0], the tensors themselves, eagerly and in tf.function
    out = tuple_([tf.constant(1), tf.constant(2.0)])
    assert [t.numpy().tolist() for t in out] == [1, 2.0]
    traced = tf.function(lambda: tuple_([tf.constant(1), None]))()
    assert int(traced[0]) == 1 and traced[1] is None


def test_constant_of_a_tensor_does_not_cast():
    # TF 2.21: TypeError "Expected tensor [1 2] with dtype tf.float32, but got dtype tf.int32.";
    # the same dtype is fine; a variable from a float32 variable with dtype float64 is a ValueError
    with pytest.raises(TypeError, match="Expected tensor"):
        tf.constant(tf.constant([1, 2]), dtype=tf.float32)
    assert tf.constant(tf.constant([1, 2]), dtype=tf.int32).numpy().tolist() == [1, 2]
    with pytest.raises(ValueError, match="Incompatible type conversion"):
        tf.Variable(tf.Variable(1.0), dtype=tf.float64)
    assert tf.Variable(tf.Variable(1.0), dtype=tf.float32).dtype == tf.float32


@pytest.mark.parametrize("dtype", [tf.int8, tf.uint8, tf.uint16, tf.uint32, tf.uint64])
def test_index_tensor_dtype_is_checked(dtype):
    # TF 2.21: int16/int32/int64 index; int8 and the unsigned dtypes are a TypeError
    x = tf.range(5)
    assert int(x[tf.constant(1, tf.int16)]) == 1
    with pytest.raises(TypeError, match="valid indices"):
        x[tf.constant(1, dtype)]
