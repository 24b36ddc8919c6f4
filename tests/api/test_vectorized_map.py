"""tf.vectorized_map: TensorFlow 2.21's results, nested structures, dtypes and static shapes
(tfunc runs fn per element, as TensorFlow's while_loop fallback)."""

import collections

import numpy as np
import pytest

import tfunc as tf

P = collections.namedtuple("P", "a b")
X = np.arange(12.0, dtype=np.float32).reshape(3, 4)


def _run(fn, traced, *args):
    return (tf.function(fn) if traced else fn)(*args)


@pytest.mark.parametrize("traced", [False, True])
def test_structure_dtypes_and_values_of_fns_own_choosing(traced):
    def run(x):
        return tf.vectorized_map(lambda t: {"s": tf.reduce_sum(t), "i": tf.cast(t, tf.int32), "p": P(t * 2, 1.0)}, x)

    out = _run(run, traced, tf.constant(X))
    # TensorFlow: {'s': float32 [3], 'i': int32 [3, 4], 'p': P(a=float32 [3, 4], b=float32 [3])}
    assert set(out) == {"s", "i", "p"} and isinstance(out["p"], P)
    np.testing.assert_array_equal(out["s"].numpy(), X.sum(1))
    assert out["i"].dtype == tf.int32 and out["i"].shape == (3, 4)
    np.testing.assert_array_equal(out["p"].a.numpy(), X * 2)
    assert out["p"].b.dtype == tf.float32
    np.testing.assert_array_equal(out["p"].b.numpy(), [1.0, 1.0, 1.0])


@pytest.mark.parametrize("traced", [False, True])
def test_nested_elements_and_constant_outputs(traced):
    def run(x):
        return (
            tf.vectorized_map(lambda a: a[0] + a[1], (x, tf.ones([3, 1]))),
            tf.vectorized_map(lambda t: tf.constant(5), x),
            tf.vectorized_map(lambda t: t * 2, [x]),
            tf.vectorized_map(lambda t: (t, [t]), x),
            tf.vectorized_map(lambda t: t, {"a": x, "b": tf.ones([3], tf.int64)}),
        )

    pair, five, listed, nested, keyed = _run(run, traced, tf.constant(X))
    np.testing.assert_array_equal(pair.numpy(), X + 1)
    assert five.dtype == tf.int32 and five.numpy().tolist() == [5, 5, 5]
    assert isinstance(listed, list) and listed[0].shape == (3, 4)
    assert isinstance(nested, tuple) and isinstance(nested[1], list)
    assert keyed["b"].dtype == tf.int64 and keyed["b"].numpy().tolist() == [1, 1, 1]


def test_static_shapes_and_no_elements():
    seen = {}

    @tf.function(input_signature=[tf.TensorSpec([None, 4])])
    def f(x):
        out = tf.vectorized_map(lambda t: (tf.reduce_sum(t), t[:2]), x)
        seen["shapes"] = [o.shape.as_list() for o in out]
        return out

    s, head = f(tf.constant(X))
    assert seen["shapes"] == [[None], [None, 2]]  # TensorFlow's
    np.testing.assert_array_equal(head.numpy(), X[:, :2])
    s, head = f(tf.zeros([0, 4]))
    assert s.shape == (0,) and head.shape == (0, 2)
    eager = tf.vectorized_map(lambda t: (tf.reduce_sum(t), t[:2]), tf.zeros([0, 4]))
    assert eager[0].shape == (0,) and eager[1].shape == (0, 2)
    known = tf.function(lambda x: tf.vectorized_map(lambda t: t[:2] * 3, x))
    assert known.get_concrete_function(tf.TensorSpec([3, 4])).structured_outputs.shape == (3, 2)


@pytest.mark.parametrize("traced", [False, True])
def test_gradients(traced):
    def grad(x):
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = tf.reduce_sum(tf.vectorized_map(lambda v: tf.sin(v) * v, x))
        return tape.gradient(y, x)

    np.testing.assert_allclose(_run(grad, traced, tf.constant(X)).numpy(), np.sin(X) + X * np.cos(X), rtol=1e-5)


def test_fallback_arguments_accepted():
    out = tf.vectorized_map(lambda t: t + 1, tf.constant(X), fallback_to_while_loop=False, warn=False)
    np.testing.assert_array_equal(out.numpy(), X + 1)
