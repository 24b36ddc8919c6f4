"""``tf.gradients``, ``tf.hessians``, ``tf.AggregationMethod`` and ``tf.grad_pass_through``:
symbolic gradients of the function being traced, checked against TensorFlow 2.21."""

import numpy as np
import pytest

import tfunc as tf
from tfunc.api.custom_gradient import grad_pass_through
from tfunc.autodiff.graph_gradients import AggregationMethod, gradients, hessians

X = np.array([1.0, 2.0], np.float32)


def _values(results):
    return [None if g is None else tf.convert_to_tensor(g).numpy().tolist() for g in results]


def test_gradients_of_a_traced_function():
    @tf.function
    def f(x):
        return gradients(x * x * 3.0, x)

    assert _values(f(X)) == [[6.0, 12.0]]  # TF 2.21 gives [[6, 12]]


def test_gradients_with_several_targets_grad_ys_and_intermediate_sources():
    @tf.function
    def f(x):
        a, b = x * x, tf.sin(x)
        return gradients([a, b], [x, a], grad_ys=[tf.constant([1.0, 2.0]), None])

    gx, ga = f(X)
    np.testing.assert_allclose(gx.numpy(), [2.5403, 7.5839], rtol=1e-4)  # TF 2.21 gives these
    np.testing.assert_allclose(ga.numpy(), [1.0, 2.0])


def test_gradients_stop_gradients_and_unconnected():
    @tf.function
    def stop(x):
        a = x * 2.0
        b = a * a
        return gradients(a + b, [x, a, b], stop_gradients=[a])

    assert _values(stop(X)) == [None, [5.0, 9.0], [1.0, 1.0]]  # TF 2.21 gives these

    @tf.function
    def unconnected(x):
        z = tf.constant([5.0, 6.0])
        return gradients(x * 2.0, [x, z], unconnected_gradients="zero"), gradients(x * 2.0, [z])

    zero, none = unconnected(X)
    assert _values(zero) == [[2.0, 2.0], [0.0, 0.0]] and none == [None]  # TF 2.21 gives these


def test_gradients_with_respect_to_variables_constants_and_integers():
    v = tf.Variable([1.0, 3.0])

    @tf.function
    def f(x):
        y = tf.reduce_sum(v * x) + v[0] * 2.0
        i = tf.constant(3)
        g = gradients(y, [v, x], aggregation_method=AggregationMethod.ADD_N, name="g")
        return g, gradients(tf.cast(i, tf.float32) * x, [i])

    (gv, gx), gi = f(X)
    assert _values([gv, gx]) == [[3.0, 2.0], [1.0, 3.0]] and gi == [None]  # TF 2.21 gives these
    assert AggregationMethod.DEFAULT == AggregationMethod.ADD_N == 0  # as TF 2.21


def test_gradients_through_control_flow_custom_gradient_and_second_order():
    @tf.function
    def f(x):
        y = tf.cond(x[0] > 0, lambda: x * x, lambda: -x)
        _, w = tf.while_loop(lambda i, a: i < 3, lambda i, a: (i + 1, a * x), [0, tf.ones_like(x)])

        @tf.custom_gradient
        def c(a):
            return a * 2.0, lambda dy: dy * 10.0

        g = gradients(x**3, x)[0]
        return gradients(y, x) + gradients(w, x) + gradients(c(x), x) + gradients(g, x)

    # TF 2.21 gives [2, 4], [3, 12], [10, 10] and [6, 12]
    assert _values(f(X)) == [[2.0, 4.0], [3.0, 12.0], [10.0, 10.0], [6.0, 12.0]]


def test_gradients_inside_a_branch_of_a_tensor_of_the_function():
    @tf.function
    def f(x):
        return tf.cond(x[0] > 0, lambda: gradients(x * x, x)[0], lambda: x)

    assert f(X).numpy().tolist() == [2.0, 4.0]  # TF 2.21 gives [2, 4]


def test_gradients_and_hessians_refuse_eager_execution():
    x = tf.constant(X)
    message = "tf.gradients is not supported when eager execution is enabled"  # TF 2.21's words
    with pytest.raises(RuntimeError, match=message):
        gradients(x * 2.0, x)
    with pytest.raises(RuntimeError, match=message):
        hessians(x * 2.0, x)


def test_hessians():
    @tf.function
    def f(x):
        y = tf.constant([[1.0, 2.0], [3.0, 4.0]])
        z = x[0] ** 3 * x[1] + tf.sin(x[1])
        w = tf.reduce_sum(x * x) * tf.reduce_sum(y * y * x[0])
        return hessians(z, x) + hessians(w, [x, y])

    hz, hx, hy = f(X)
    np.testing.assert_allclose(hz.numpy(), [[12.0, 3.0], [3.0, -0.9093]], atol=1e-4)  # TF 2.21 gives this
    np.testing.assert_allclose(hx.numpy(), [[180.0, 120.0], [120.0, 60.0]])  # TF 2.21 gives this
    assert hy.shape == (2, 2, 2, 2)
    np.testing.assert_allclose(hy.numpy().reshape(4, 4), 10.0 * np.eye(4))  # TF 2.21 gives 10 * identity


def test_grad_pass_through_is_a_straight_through_estimator():
    x = tf.constant([1.2, 2.7])
    with tf.GradientTape() as t:
        t.watch(x)
        y = grad_pass_through(tf.round)(x) * [1.0, 3.0]
    assert y.numpy().tolist() == [1.0, 9.0]
    assert t.gradient(y, x).numpy().tolist() == [1.0, 3.0]  # TF 2.21 gives [1, 3]

    w = tf.Variable(2.0)
    with tf.GradientTape() as t:
        t.watch(x)
        y = grad_pass_through(lambda a: tf.round(a * w))(x)
    gx, gw = t.gradient(y, [x, w])
    assert gx.numpy().tolist() == [1.0, 1.0] and gw is None  # TF 2.21: variables get no gradient
