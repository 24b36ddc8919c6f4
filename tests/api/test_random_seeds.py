"""tf.random.set_seed's documented contract (TensorFlow's docstring), eagerly and in functions.

Values differ from TensorFlow's (another generator); which draws are equal, repeat or stay
independent must not."""

import numpy as np
import pytest

import tfunc as tf
from tfunc.api import random_ops


@pytest.fixture(autouse=True)
def _keep_global_seed():
    """These tests set the global seed; other tests see it as it was."""
    seed = random_ops.get_global_seed()
    yield
    random_ops.set_seed(seed)


def _np(ts):
    return [t.numpy() for t in ts]


def test_identical_seeded_ops_in_one_function_draw_equal_values_per_call():
    @tf.function
    def foo():
        return tf.random.uniform([3], seed=1), tf.random.uniform([3], seed=1)

    a1, b1 = _np(foo())  # (A1, A1)
    a2, b2 = _np(foo())  # (A2, A2)
    np.testing.assert_array_equal(a1, b1)
    np.testing.assert_array_equal(a2, b2)
    assert not np.array_equal(a1, a2)


def test_unseeded_ops_in_a_function_follow_one_sequence_like_a_fresh_program():
    tf.random.set_seed(1234)

    def body():
        return tf.random.uniform([3]), tf.random.uniform([3])

    f, g = tf.function(body), tf.function(body)
    f1, f2 = _np(f())
    g1, g2 = _np(g())  # tf.function acts like a re-run of the program: (A1, A2) again
    assert not np.array_equal(f1, f2)
    np.testing.assert_array_equal(f1, g1)
    np.testing.assert_array_equal(f2, g2)
    f3, f4 = _np(f())  # (A3, A4)
    assert not np.array_equal(f3, f1) and not np.array_equal(f4, f2)


def test_set_seed_restarts_functions_traced_before():
    tf.random.set_seed(7)
    g = tf.function(lambda: (tf.random.uniform([2]), tf.random.normal([2], seed=4)))
    first, second = _np(g()), _np(g())
    tf.random.set_seed(7)
    for want, got in zip(first + second, _np(g()) + _np(g())):
        np.testing.assert_array_equal(got, want)


def test_eager_ops_and_functions_keep_separate_streams():
    tf.random.set_seed(3)
    h = tf.function(lambda: tf.random.normal([2], seed=5))
    h1, h2 = h().numpy(), h().numpy()
    tf.random.set_seed(3)
    e1 = tf.random.normal([2], seed=5).numpy()  # an eager op with the same seeds
    np.testing.assert_array_equal(h().numpy(), h1)
    e2 = tf.random.normal([2], seed=5).numpy()
    np.testing.assert_array_equal(h().numpy(), h2)
    assert not np.array_equal(e1, e2)  # the eager op continues its own sequence
    # an eager op's unseeded sequence is not moved by tracing a function
    tf.random.set_seed(3)
    u1, u2 = tf.random.uniform([2]).numpy(), tf.random.uniform([2]).numpy()
    tf.random.set_seed(3)
    np.testing.assert_array_equal(tf.random.uniform([2]).numpy(), u1)
    tf.function(lambda: tf.random.uniform([2]))()
    np.testing.assert_array_equal(tf.random.uniform([2]).numpy(), u2)


def test_eager_ops_of_different_kinds_with_one_seed_are_independent():
    tf.random.set_seed(5)
    n1 = tf.random.normal([2], seed=1).numpy()
    tf.random.set_seed(5)
    tf.random.uniform([2], seed=1)
    tf.random.truncated_normal([2], seed=1)
    tf.random.uniform([2], seed=1, dtype=tf.float64)
    np.testing.assert_array_equal(tf.random.normal([2], seed=1).numpy(), n1)
    # the same kind continues one sequence whatever the shape, as TensorFlow's cached kernel
    tf.random.set_seed(5)
    u = tf.random.uniform([3], seed=1).numpy()
    tf.random.set_seed(5)
    tf.random.uniform([5], seed=1)
    assert not np.array_equal(tf.random.uniform([3], seed=1).numpy(), u)


def test_an_unseeded_op_does_not_replay_an_op_seeded_one():
    tf.random.set_seed(1)
    a = tf.random.uniform([4]).numpy()  # the first op seed the counter gives
    tf.random.set_seed(1)
    assert not np.array_equal(tf.random.uniform([4], seed=0).numpy(), a)
