"""tf.function and control-flow behaviour checked against TensorFlow 2.21: enumerate/zip
over datasets in converted loops, int()/float() of tensors, eager while_loop results, and
NumPy scalars from .numpy()."""

import numpy as np
import pytest

import tfunc as tf


def test_enumerate_and_zip_over_datasets_are_staged():
    @tf.function
    def enumerated():
        s = tf.constant(0, tf.int64)
        for i, x in enumerate(tf.data.Dataset.range(3, 6)):
            s += i * x
        return s

    @tf.function
    def zipped():
        s = tf.constant(0, tf.int64)
        for a, b in zip(tf.data.Dataset.range(3), tf.data.Dataset.range(5, 10)):
            s += a * b
        return s

    assert enumerated().numpy() == 0 * 3 + 1 * 4 + 2 * 5  # TensorFlow: 14
    assert zipped().numpy() == 0 * 5 + 1 * 6 + 2 * 7  # TensorFlow: 20

    @tf.function
    def plain():  # enumerate/zip of Python values stay Python's
        return list(zip([1, 2], [3, 4])), list(enumerate("ab", 1))

    pairs, numbered = plain()
    assert [(int(a), int(b)) for a, b in pairs] == [(1, 3), (2, 4)]
    assert [(int(i), c.numpy()) for i, c in numbered] == [(1, b"a"), (2, b"b")]


def test_a_python_loop_over_a_traced_dataset_is_an_error_not_a_hang():
    def count(ds):
        n = 0
        for _ in ds:
            n += 1
        return n

    with pytest.raises(tf.errors.OperatorNotAllowedInGraphError, match="never ends"):
        tf.function(count, autograph=False)(tf.data.Dataset.range(3))
    assert tf.function(count)(tf.data.Dataset.range(3)).numpy() == 3


def test_int_and_float_of_tensors_in_converted_code_cast():
    @tf.function
    def f(x):
        return int(x) + 1, float(x > 0), int(3.7), float("2.5")

    a, b, c, d = f(tf.constant(-3.5))
    assert a.dtype == tf.int32 and a.numpy() == -2  # cast truncates toward zero
    assert b.dtype == tf.float32 and b.numpy() == 0.0
    assert c == 3 and d == 2.5  # Python values stay Python's


def test_eager_while_loop_returns_tensors_and_checks_the_structure():
    i, s = tf.while_loop(lambda i, s: i < 4, lambda i, s: (i + 1, s + 2), (0, 1.5))
    assert i.dtype == tf.int32 and i.numpy() == 4 and s.dtype == tf.float32 and s.numpy() == 9.5
    i, s = tf.while_loop(lambda i, s: i < 0, lambda i, s: (i + 1, s + 2), (0, np.float32(1.5)))
    assert isinstance(i, tf.Tensor) and s.dtype == tf.float32  # no iteration: still tensors
    with pytest.raises(ValueError, match="structure of loop_vars"):
        tf.while_loop(lambda i, j: i < 4, lambda i, j: i + 1, (0, 1))


def test_numpy_of_a_scalar_is_a_numpy_scalar():
    for t in (tf.constant(3), tf.Variable(3), tf.constant(2.5, tf.float64)):
        v = t.numpy()
        assert isinstance(v, np.generic) and not isinstance(v, np.ndarray)
        assert {v: 1}[v] == 1  # hashable, as TensorFlow's
    assert tf.constant(3).numpy().dtype == np.int32
    assert tf.constant("ab").numpy() == b"ab"
    assert isinstance(tf.constant([3]).numpy(), np.ndarray)
