"""GradientTape and ForwardAccumulator edge cases checked against TensorFlow 2.21: eager
calls of concrete functions, jacobians of empty and non-tensor targets, the non-persistent
tape's rules, and gradients under input signatures of unknown rank."""

import numpy as np
import pytest

import tfunc as tf


@pytest.fixture
def cube():
    @tf.function
    def f(x):
        return x**3

    return f


def test_concrete_function_call_is_recorded_by_tape(cube):
    cf = cube.get_concrete_function(tf.TensorSpec([None], tf.float32))
    x = tf.constant([1.0, 2.0])
    with tf.GradientTape() as t:
        t.watch(x)
        y = cf(x)
    np.testing.assert_allclose(t.gradient(y, x).numpy(), [3.0, 12.0])  # TF 2.21 gives [3, 12] (was None)


def test_concrete_function_from_tensor_and_other_shape_are_recorded(cube):
    x = tf.constant([1.0, 2.0])
    cf = cube.get_concrete_function(x)
    with tf.GradientTape() as t:
        t.watch(x)
        y = cf(x)
    np.testing.assert_allclose(t.gradient(y, x).numpy(), [3.0, 12.0])  # TF 2.21 gives [3, 12]
    x3 = tf.constant([1.0, 2.0, 3.0])  # another shape than the trace's: the graph runs op by op
    with tf.GradientTape() as t:
        t.watch(x3)
        y = cf(x3)
    np.testing.assert_allclose(t.gradient(y, x3).numpy(), [3.0, 12.0, 27.0])  # TF 2.21 gives [3, 12, 27]


def test_concrete_function_captured_variable_is_watched():
    v = tf.Variable([1.0, 3.0])

    @tf.function
    def g(x):
        return tf.reduce_sum(x * v)

    cf = g.get_concrete_function(tf.TensorSpec([2], tf.float32))
    with tf.GradientTape() as t:
        y = cf(tf.constant([1.0, 2.0]))
    np.testing.assert_allclose(t.gradient(y, v).numpy(), [1.0, 2.0])  # TF 2.21 gives [1, 2]
    assert t.watched_variables() == (v,)  # TF 2.21 watches v (was ())


def test_concrete_function_call_is_seen_by_forward_accumulator_and_second_order(cube):
    cf = cube.get_concrete_function(tf.TensorSpec([2], tf.float32))
    x = tf.constant([1.0, 3.0])
    with tf.autodiff.ForwardAccumulator(x, tf.ones_like(x)) as acc:
        y = cf(x)
    np.testing.assert_allclose(acc.jvp(y).numpy(), [3.0, 27.0])  # TF 2.21 gives [3, 27] (was None)
    with tf.GradientTape() as outer:
        outer.watch(x)
        with tf.GradientTape() as inner:
            inner.watch(x)
            y = cf(x)
        g = inner.gradient(y, x)
    np.testing.assert_allclose(outer.gradient(g, x).numpy(), [6.0, 18.0])  # TF 2.21 gives 6x


def test_concrete_function_keyword_call_with_structured_output():
    @tf.function
    def h(a, b):
        return {"s": a * b, "d": a - b}

    spec = tf.TensorSpec([2], tf.float32)
    cf = h.get_concrete_function(spec, spec)
    x = tf.constant([1.0, 2.0])
    with tf.GradientTape() as t:
        t.watch(x)
        out = cf(x, b=2 * x)
    np.testing.assert_allclose(t.gradient(out, x).numpy(), [3.0, 7.0])  # TF 2.21 gives [3, 7]


def _taped(fn, x, persistent=False):
    with tf.GradientTape(persistent=persistent) as t:
        t.watch(x)
        y = fn(x)
    return t, y


@pytest.mark.parametrize("traced", [False, True])
def test_jacobian_of_empty_target_is_empty_not_none(traced):
    def run():
        x = tf.zeros((0, 2))
        t, y = _taped(lambda x: x * 2.0, x)
        v = tf.constant([1.0, 2.0])
        u, z = _taped(lambda v: tf.zeros((0,)) * v[0], v)
        return t.jacobian(y, x), u.jacobian(z, v)

    j, k = tf.function(run)() if traced else run()
    assert j.shape == (0, 2, 0, 2) and j.dtype == tf.float32  # TF 2.21 gives shape (0, 2, 0, 2) (was None)
    assert k.shape == (0, 2)  # TF 2.21 gives shape (0, 2)


def test_jacobian_of_empty_unconnected_target_is_none():
    x = tf.constant([1.0, 2.0])
    t, _ = _taped(lambda x: x, x)
    assert t.jacobian(tf.zeros((0, 3)), x) is None  # TF 2.21 gives None


@pytest.mark.parametrize("target", [lambda y: [y], lambda y: (y,), lambda y: 1.0])
def test_jacobian_refuses_a_target_that_is_not_a_tensor(target):
    x = tf.constant([1.0, 2.0])
    t, y = _taped(lambda x: x * x, x)
    with pytest.raises(AttributeError, match="has no attribute 'shape'"):  # TF 2.21 raises this (was None)
        t.jacobian(target(y), x)
    u, z = _taped(lambda x: x * x, tf.ones((2, 2)))
    with pytest.raises(AttributeError, match="has no attribute 'shape'"):
        u.batch_jacobian(target(z), tf.ones((2, 2)))


@pytest.mark.parametrize(
    "first, second",
    [("jacobian", "jacobian"), ("jacobian", "gradient"), ("gradient", "jacobian"), ("batch_jacobian", "jacobian")],
)
def test_non_persistent_tape_gives_one_set_of_gradients_or_jacobians(first, second):
    x = tf.ones((2, 2))
    t, y = _taped(lambda x: x * x, x)
    getattr(t, first)(y, x)
    with pytest.raises(RuntimeError, match="non-persistent GradientTape can only be used"):  # as TF 2.21
        getattr(t, second)(y, x)


def test_eager_jacobian_without_pfor_needs_a_persistent_tape():
    x = tf.ones((2, 2))
    t, y = _taped(lambda x: x * x, x)
    with pytest.raises(RuntimeError, match="persistent=True to compute the jacobian"):  # as TF 2.21
        t.jacobian(y, x, experimental_use_pfor=False)
    t, y = _taped(lambda x: x * x, x)
    with pytest.raises(RuntimeError, match="persistent=True to compute the batch_jacobian"):
        t.batch_jacobian(y, x, experimental_use_pfor=False)
    t, y = _taped(lambda x: x * x, x, persistent=True)
    j = t.jacobian(y, x, experimental_use_pfor=False)
    assert j.shape == (2, 2, 2, 2)

    @tf.function
    def traced(x):  # in a function TF 2.21 allows it on a non-persistent tape
        t, y = _taped(lambda x: x * x, x)
        return t.jacobian(y, x, experimental_use_pfor=False)

    np.testing.assert_allclose(traced(tf.constant([1.0, 2.0])).numpy(), [[2.0, 0.0], [0.0, 4.0]])


def _unknown_rank_gradient(fn, x):
    """d sum(fn(x))/dx inside a function whose input signature has an unknown rank."""

    @tf.function(input_signature=[tf.TensorSpec(None, tf.float32)])
    def grad(x):
        with tf.GradientTape() as t:
            t.watch(x)
            y = fn(x)
        return t.gradient(y, x)

    return grad(tf.constant(x)).numpy()


_X = np.array([[3.0, 1.0, 2.0], [0.5, 4.0, -1.0]], np.float32)
_X3 = (np.arange(24, dtype=np.float32).reshape(2, 3, 4) - 7) / 10  # holds one zero
_W34 = np.arange(12, dtype=np.float32).reshape(3, 4)


def test_top_k_gradient_with_unknown_rank():
    g = _unknown_rank_gradient(lambda x: tf.math.top_k(x, 2).values * [1.0, 2.0], _X)
    np.testing.assert_allclose(g, [[1, 0, 2], [2, 1, 0]])  # TF 2.21 gives this (was a raw TypeError)
    g = _unknown_rank_gradient(lambda x: tf.math.top_k(x, 3).values * [1.0, 2.0, 3.0], _X3)
    np.testing.assert_allclose(g, np.tile([0.0, 3.0, 2.0, 1.0], (2, 3, 1)))  # TF 2.21 gives this


@pytest.mark.parametrize(
    "fn, expected",
    [  # TF 2.21 gives these (each was a raw TypeError)
        (lambda x: tf.math.unsorted_segment_sum(x, [0, 0], 3), np.ones((2, 3))),
        (lambda x: tf.math.unsorted_segment_mean(x, [1, 1], 2), np.full((2, 3), 0.5)),
        (lambda x: tf.math.unsorted_segment_max(x, [1, 0], 2), np.ones((2, 3))),
        (lambda x: tf.math.unsorted_segment_prod(x, [1, 1], 2), [[0.5, 4.0, -1.0], [3.0, 1.0, 2.0]]),
        (lambda x: tf.math.segment_max(x, [0, 0]), [[1, 0, 1], [0, 1, 0]]),
    ],
)
def test_segment_gradients_with_unknown_rank(fn, expected):
    np.testing.assert_allclose(_unknown_rank_gradient(fn, _X), expected, rtol=1e-6)


def test_segment_gradients_with_unknown_rank_and_two_dimensional_ids():
    g = _unknown_rank_gradient(lambda x: tf.math.unsorted_segment_sum(x, [[0, 1, 0], [1, 1, 2]], 3) * _W34, _X3)
    np.testing.assert_allclose(g, _W34[[[0, 1, 0], [1, 1, 2]]])  # TF 2.21 gives this
    g = _unknown_rank_gradient(lambda x: tf.math.unsorted_segment_mean(x, [[0, 1, 0], [1, 1, -1]], 3) * _W34, _X3)
    expected = _W34[[[0, 1, 0], [1, 1, 0]]] / np.array([[2, 3, 2], [3, 3, np.inf]])[..., None]
    np.testing.assert_allclose(g, expected, rtol=1e-6)  # TF 2.21 gives this (0 for the dropped id -1)


@pytest.mark.parametrize("axis, keepdims", [([0, 2], False), (-1, False), (1, True), ([-3, 1], False)])
def test_reduce_prod_gradient_over_some_axes_with_unknown_rank(axis, keepdims):
    g = _unknown_rank_gradient(lambda x: tf.reduce_prod(x, axis=axis, keepdims=keepdims), _X3)
    reference = tf.constant(_X3)  # TF 2.21 gives the known-rank gradient (it was a ValueError)
    with tf.GradientTape() as t:
        t.watch(reference)
        y = tf.reduce_prod(reference, axis=axis, keepdims=keepdims)
    np.testing.assert_allclose(g, t.gradient(y, reference).numpy(), rtol=1e-5, atol=1e-6)


def test_reduce_sum_gradient_over_mixed_sign_axes_with_unknown_rank():
    g = _unknown_rank_gradient(lambda x: tf.reduce_sum(x, axis=[-3, 1]) * [1.0, 2.0, 3.0, 4.0], _X3)
    np.testing.assert_allclose(g, np.broadcast_to([1.0, 2.0, 3.0, 4.0], (2, 3, 4)))  # TF 2.21 (was an AxisError)
