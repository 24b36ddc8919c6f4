"""``tf.autodiff.ForwardAccumulator``: Jacobian-vector products against the Jacobian computed
by reverse mode and against analytic derivatives, eagerly and inside a function."""

import numpy as np
import pytest

import tfunc as tf

RNG = np.random.default_rng(11)


def _programs():
    return {
        "elementwise": lambda x: tf.sin(x) * x + tf.exp(-x * x),
        "reduction": lambda x: tf.reduce_logsumexp(x, axis=-1) * tf.reduce_mean(x),
        "matmul": lambda x: tf.matmul(tf.matmul(x, tf.transpose(x)), x) + tf.nn.softmax(x),
        "broadcast": lambda x: tf.tanh(x[:, :1] - x) / (1.0 + tf.square(x)),
    }


@pytest.mark.parametrize("mode", ["eager", "function"])
@pytest.mark.parametrize("name", sorted(_programs()))
def test_jvp_is_the_jacobian_times_the_tangent(mode, name):
    f = _programs()[name]
    x = tf.constant(RNG.standard_normal((3, 4)).astype(np.float64))
    t = tf.constant(RNG.standard_normal((3, 4)).astype(np.float64))

    def jvp(x, t):
        with tf.autodiff.ForwardAccumulator(x, t) as acc:
            y = f(x)
        return y, acc.jvp(y)

    y, got = jvp(x, t) if mode == "eager" else tf.function(jvp)(x, t)
    with tf.GradientTape() as tape:
        tape.watch(x)
        y_ref = f(x)
    jac = tape.jacobian(y_ref, x).numpy().reshape(int(np.prod(y_ref.shape)), -1)
    want = (jac @ t.numpy().reshape(-1)).reshape(y_ref.shape)
    np.testing.assert_allclose(got.numpy(), want, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(y.numpy(), y_ref.numpy())


def test_primals_unconnected_results_variables_and_structures():
    x, t = tf.constant([1.0, 2.0, 3.0]), tf.constant([1.0, 0.0, 2.0])
    v = tf.Variable([1.0, 2.0])
    with tf.autodiff.ForwardAccumulator([x, v], [t, tf.constant([1.0, -1.0])]) as acc:
        y = tf.sin(x) * x
        w = tf.constant(3.0) * 2.0
        q = v * v
        ints = tf.cast(x, tf.int32)
    xs = np.array([1.0, 2.0, 3.0])
    np.testing.assert_allclose(acc.jvp(y).numpy(), (np.cos(xs) * xs + np.sin(xs)) * [1, 0, 2], rtol=1e-6)
    assert acc.jvp(x) is t  # a primal's own tangent
    assert acc.jvp(w) is None and float(acc.jvp(w, unconnected_gradients=tf.UnconnectedGradients.ZERO)) == 0.0
    assert acc.jvp(ints) is None
    assert acc.jvp(q).numpy().tolist() == [2.0, -4.0]
    nested = acc.jvp({"a": [y, q]})
    assert nested["a"][1].numpy().tolist() == [2.0, -4.0]


def test_hessian_vector_products_both_ways():
    x, t = tf.constant([1.0, 2.0, 3.0]), tf.constant([1.0, 0.0, 2.0])
    want = [6.0, 0.0, 36.0]  # d2/dx2 sum(x^3) = diag(6x), times t
    with tf.GradientTape() as tape:  # reverse over forward
        tape.watch(x)
        with tf.autodiff.ForwardAccumulator(x, t) as acc:
            y = tf.reduce_sum(x**3)
        j = acc.jvp(y)
    assert tape.gradient(j, x).numpy().tolist() == want
    with tf.autodiff.ForwardAccumulator(x, t) as acc:  # forward over reverse
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = tf.reduce_sum(x**3)
        g = tape.gradient(y, x)
    assert acc.jvp(g).numpy().tolist() == want


def test_bad_primals_and_tangents_are_refused():
    x = tf.constant([1.0, 2.0, 3.0])
    with pytest.raises(ValueError, match="tangent of shape"):
        tf.autodiff.ForwardAccumulator(x, tf.constant([1.0, 2.0]))
    with pytest.raises(ValueError, match="same structure"):
        tf.autodiff.ForwardAccumulator([x, x * 2], [x])
    with pytest.raises(ValueError, match="primal multiple times"):
        tf.autodiff.ForwardAccumulator([x, x], [x, x])
    with pytest.raises((TypeError, ValueError), match="int32"):
        tf.autodiff.ForwardAccumulator(x, tf.constant([1, 2, 3]))


def test_several_primals_reaching_one_target():
    x, y = tf.constant([1.0, 2.0]), tf.constant([3.0, 4.0])
    with tf.autodiff.ForwardAccumulator((x, y), (tf.constant([1.0, 0.0]), tf.constant([0.0, 1.0]))) as acc:
        z = x * y
    assert acc.jvp(z).numpy().tolist() == [3.0, 2.0]  # d(xy) = y dx + x dy, as TensorFlow
