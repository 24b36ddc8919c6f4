"""Reductions, argmax/argmin and cumulative ops whose axis is a tensor known only when the
graph runs (an argument of the function, or computed from one): against NumPy, with
TensorFlow's static shapes and its error for an axis out of range."""

import numpy as np
import pytest

import tfunc as tf

X = np.random.default_rng(5).normal(size=(2, 3, 4)).astype(np.float32)
S = tf.TensorSpec


def _fn(body, axis_shape=()):
    return tf.function(body, input_signature=[S([None, None, None]), S(axis_shape, tf.int32)])


@pytest.mark.parametrize(
    "name, ref",
    [
        ("reduce_sum", np.sum),
        ("reduce_mean", np.mean),
        ("reduce_max", np.max),
        ("reduce_min", np.min),
        ("reduce_prod", np.prod),
        ("reduce_logsumexp", lambda x, axis, keepdims=False: np.log(np.sum(np.exp(x), axis=axis, keepdims=keepdims))),
    ],
)
@pytest.mark.parametrize("keepdims", [False, True])
def test_reductions_over_a_scalar_run_time_axis(name, ref, keepdims):
    op = getattr(tf, name) if hasattr(tf, name) else getattr(tf.math, name)
    f = _fn(lambda x, a: op(x, axis=a, keepdims=keepdims))
    for axis in (0, 1, 2, -1, -3):
        np.testing.assert_allclose(f(X, axis).numpy(), ref(X, axis=axis, keepdims=keepdims), rtol=1e-5)


def test_static_shapes_follow_tensorflow():
    shapes = {}

    @tf.function(input_signature=[S([None, 3, None]), S([], tf.int32)])
    def f(x, a):
        shapes["drop"] = tf.reduce_sum(x, axis=a).shape.as_list()
        shapes["keep"] = tf.reduce_sum(x, axis=a, keepdims=True).shape.as_list()
        shapes["arg"] = tf.argmax(x, axis=a).shape.as_list()
        shapes["cum"] = tf.cumsum(x, axis=a).shape.as_list()
        return x

    f.get_concrete_function()
    assert shapes == {"drop": [None, None], "keep": [None, None, None], "arg": [None, None], "cum": [None, 3, None]}


def test_a_vector_of_run_time_axes():
    f = _fn(lambda x, a: tf.reduce_max(x, axis=a), [2])
    np.testing.assert_array_equal(f(X, [0, -1]).numpy(), X.max(axis=(0, 2)))
    g = _fn(lambda x, a: tf.reduce_mean(x, axis=a, keepdims=True), [2])
    np.testing.assert_allclose(g(X, [2, 1]).numpy(), X.mean(axis=(1, 2), keepdims=True), rtol=1e-6)
    h = _fn(lambda x, a: tf.reduce_sum(x, axis=a), [0])
    np.testing.assert_array_equal(h(X, np.zeros([0], np.int32)).numpy(), X)  # no axes: nothing reduced


def test_arg_and_cumulative_ops():
    np.testing.assert_array_equal(_fn(lambda x, a: tf.argmin(x, axis=a))(X, 1).numpy(), X.argmin(axis=1))
    np.testing.assert_allclose(
        _fn(lambda x, a: tf.cumsum(x, axis=a, reverse=True))(X, -1).numpy(),
        np.cumsum(X[..., ::-1], axis=-1)[..., ::-1],
        rtol=1e-5,
    )


def test_an_axis_computed_from_the_static_rank_needs_no_branches():
    seen = []

    @tf.function
    def f(x):
        y = tf.reduce_sum(x, axis=tf.rank(x) - 1)
        seen.append(y.shape.as_list())
        return y

    np.testing.assert_allclose(f(tf.constant(X)).numpy(), X.sum(-1), rtol=1e-6)
    assert seen == [[2, 3]]  # folded while tracing: the static shape is exact


def test_gradient_through_a_run_time_axis():
    @tf.function(input_signature=[S([2, 3, 4]), S([], tf.int32)])
    def g(x, a):
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = tf.reduce_sum(tf.reduce_max(x * x, axis=a))
        return tape.gradient(y, x)

    got = g(X, 1).numpy()
    want = np.where(X * X == (X * X).max(axis=1, keepdims=True), 2 * X, 0)
    np.testing.assert_allclose(got, want, rtol=1e-6)


def test_out_of_range_and_bad_axes():
    f = _fn(lambda x, a: tf.reduce_sum(x, axis=a))
    with pytest.raises(tf.errors.InvalidArgumentError, match="axis out of range"):
        f(X, 3)
    with pytest.raises(ValueError, match="known rank"):
        tf.function(
            lambda x, a: tf.reduce_sum(x, axis=a), input_signature=[S(None), S([], tf.int32)]
        ).get_concrete_function()
    with pytest.raises(TypeError, match="integer"):
        tf.reduce_sum(tf.ones([2]), axis=tf.constant(0.0))


def test_composites_take_a_run_time_axis():
    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    cases = [
        (tf.math.reduce_std, lambda v: v.std(axis=1)),
        (tf.math.reduce_variance, lambda v: v.var(axis=1)),
        (tf.math.reduce_euclidean_norm, lambda v: np.sqrt((v * v).sum(axis=1))),
        (tf.math.count_nonzero, lambda v: np.count_nonzero(v, axis=1)),
    ]
    for fn, ref in cases:
        f = tf.function(lambda t, a, fn=fn: fn(t, axis=a), input_signature=[S([2, 3]), S([], tf.int32)])
        np.testing.assert_allclose(f(x, 1).numpy(), ref(x), rtol=1e-6)
    clip = tf.function(lambda t, a: tf.clip_by_norm(t, 1.0, axes=a), input_signature=[S([2, 3]), S([], tf.int32)])
    np.testing.assert_allclose(
        clip(x, 1).numpy(), x / np.maximum(np.linalg.norm(x, axis=1, keepdims=True), 1.0), rtol=1e-6
    )


def test_l2_normalize_takes_a_run_time_axis_and_norm_names_its_python_axes():
    x = np.array([[3.0, 4.0], [6.0, 8.0]], np.float32)
    f = tf.function(lambda t, a: tf.math.l2_normalize(t, axis=a), input_signature=[S([2, 2]), S([], tf.int32)])
    np.testing.assert_allclose(f(x, 1).numpy(), x / np.linalg.norm(x, axis=1, keepdims=True), rtol=1e-6)
    np.testing.assert_allclose(f(x, 0).numpy(), x / np.linalg.norm(x, axis=0, keepdims=True), rtol=1e-6)
    with pytest.raises(ValueError, match="'axis' must be None, an integer, or a tuple"):  # as TensorFlow
        tf.norm(tf.constant(x), axis=tf.constant(1))


def test_repeated_run_time_axes_are_refused_as_tensorflow():
    f = tf.function(lambda t, a: tf.reduce_sum(t, axis=a), input_signature=[S([2, 3]), S([2], tf.int32)])
    x = np.ones((2, 3), np.float32)
    assert f(x, [0, 1]).numpy() == 6.0
    for axes in ([1, 1], [1, -1]):
        with pytest.raises(tf.errors.InvalidArgumentError, match="duplicate dimension"):
            f(x, axes)
