"""Gradients the op fuzzer found missing or failing: concat, reduce_prod and einsum with sizes
known only at run time, pad's gradient with respect to its constant, and svd's clear refusal
of unknown matrix dimensions (as TensorFlow)."""

import numpy as np
import pytest

import tfunc as tf


def test_concat_gradient_with_sizes_known_at_run_time():
    @tf.function(input_signature=[tf.TensorSpec([None, 2]), tf.TensorSpec([None, 2])])
    def grads(a, b):
        with tf.GradientTape() as tape:
            tape.watch([a, b])
            y = tf.concat([a, b], axis=0) * tf.constant([[1.0, 2.0]])
        return tape.gradient(y, [a, b])

    ga, gb = grads(tf.ones([1, 2]), tf.ones([3, 2]))
    assert ga.shape == (1, 2) and gb.shape == (3, 2)
    assert np.array_equal(gb.numpy(), np.tile([1.0, 2.0], (3, 1)))


def test_pad_gradient_with_respect_to_the_constant():
    # d/dc of sum(dy * pad(x, c)) is the sum of dy over the padded border (TensorFlow gives None)
    x = tf.ones([2, 3])
    c = tf.constant(0.5)
    dy = tf.reshape(tf.range(20, dtype=tf.float32), [4, 5])
    with tf.GradientTape() as tape:
        tape.watch(c)
        y = tf.reduce_sum(tf.pad(x, [[1, 1], [0, 2]], constant_values=c) * dy)
    inner = dy.numpy()[1:3, 0:3].sum()
    assert float(tape.gradient(y, c)) == dy.numpy().sum() - inner
    with tf.GradientTape() as tape:
        tape.watch(c)
        y = tf.reduce_sum(tf.pad(x, [[0, 0], [0, 0]], constant_values=c))
    assert float(tape.gradient(y, c)) == 0.0


def test_reduce_prod_gradient_with_sizes_known_at_run_time():
    @tf.function(input_signature=[tf.TensorSpec([None, None])])
    def grads(x):
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = tf.reduce_prod(x, axis=1)
        return tape.gradient(y, x)

    x = np.array([[1.0, 2.0, 3.0], [0.0, 4.0, 5.0]], np.float32)
    assert np.array_equal(grads(tf.constant(x)).numpy(), [[6.0, 3.0, 2.0], [20.0, 0.0, 0.0]])
    assert grads(tf.zeros([0, 3])).shape == (0, 3)
    assert np.array_equal(grads(tf.ones([2, 0])).numpy(), np.ones([2, 0]))


def test_einsum_gradient_with_sizes_known_at_run_time():
    @tf.function(input_signature=[tf.TensorSpec([None]), tf.TensorSpec([None, None])])
    def grads(a, m):
        with tf.GradientTape() as tape:
            tape.watch([a, m])
            outer = tf.einsum("i,j->ij", a, tf.constant([1.0, 2.0]))  # j summed out of nothing: ones
            diag = tf.einsum("ii->", m)  # a diagonal: an identity of run-time size
            y = tf.reduce_sum(outer) + diag
        return tape.gradient(y, [a, m])

    ga, gm = grads(tf.ones([3]), tf.ones([2, 2]))
    assert ga.numpy().tolist() == [3.0, 3.0, 3.0]
    assert gm.numpy().tolist() == [[1.0, 0.0], [0.0, 1.0]]


def test_svd_gradient_needs_the_matrix_dimensions_while_tracing():
    @tf.function(input_signature=[tf.TensorSpec([None, None])])
    def grads(a):
        with tf.GradientTape() as tape:
            tape.watch(a)
            s, u, v = tf.linalg.svd(a)
            y = tf.reduce_sum(u)
        return tape.gradient(y, a)

    with pytest.raises(NotImplementedError, match="unknown inner matrix shape"):
        grads(tf.ones([3, 2]))


def test_qr_gradient_needs_the_matrix_dimensions_while_tracing():
    @tf.function(input_signature=[tf.TensorSpec([None, None], tf.float64)])
    def grads(a):
        with tf.GradientTape() as tape:
            tape.watch(a)
            q, r = tf.linalg.qr(a)
            y = tf.reduce_sum(r)
        return tape.gradient(y, a)

    with pytest.raises(NotImplementedError, match="dynamic shapes"):
        grads(tf.ones([3, 2], tf.float64))


def test_jacobian_of_a_target_whose_size_is_known_only_at_run_time():
    w = tf.Variable([[1.0, 2.0], [3.0, 4.0]])

    @tf.function(input_signature=[tf.TensorSpec([None, 2], tf.float32)])
    def jac(x):
        with tf.GradientTape(persistent=True) as tape:  # two jacobians: TF needs persistent
            tape.watch(x)
            y = tf.matmul(x * x, w)
        jx, jw, none = tape.jacobian(y, [x, w, tf.constant(1.0)])
        return jx, jw, tape.jacobian(y, tf.constant(1.0), unconnected_gradients="zero"), none is None

    x = np.array([[1.0, 2.0], [3.0, -1.0], [0.5, 0.0]], np.float32)
    jx, jw, zero, none = jac(x)
    with tf.GradientTape(persistent=True) as tape:  # eager, static shapes: the reference
        xt = tf.constant(x)
        tape.watch(xt)
        y = tf.matmul(xt * xt, w)
    np.testing.assert_allclose(jx.numpy(), tape.jacobian(y, xt).numpy())
    np.testing.assert_allclose(jw.numpy(), tape.jacobian(y, w).numpy())
    assert jx.shape == (3, 2, 3, 2) and zero.numpy().shape == (3, 2) and not zero.numpy().any() and none


def test_batch_jacobian_with_a_run_time_batch_size():
    @tf.function(input_signature=[tf.TensorSpec([None, 2], tf.float32)])
    def bjac(x):
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = tf.stack([x[:, 0] * x[:, 1], x[:, 0] ** 2, tf.sin(x[:, 1])], axis=1)
        return tape.batch_jacobian(y, x)

    x = np.array([[1.0, 2.0], [3.0, -1.0]], np.float32)
    want = np.array([[[b, a], [2 * a, 0], [0, np.cos(b)]] for a, b in x])
    np.testing.assert_allclose(bjac(x).numpy(), want, rtol=1e-6)
    with tf.GradientTape() as tape:
        tape.watch(v := tf.constant([1.0, 2.0]))
        y = v * v
    with pytest.raises(ValueError, match="rank at least 2"):
        tape.batch_jacobian(y, v)


def test_tile_broadcast_to_split_and_concat_with_dimensions_known_only_at_run_time():
    x = np.arange(6, dtype=np.float32).reshape(2, 3) / 10 + 0.1

    def grad_of(fn, spec):
        @tf.function(input_signature=[spec])
        def g(t):
            with tf.GradientTape() as tape:
                tape.watch(t)
                y = fn(t)
                loss = tf.reduce_sum(y * y)
            return y, tape.gradient(loss, t)

        return [v.numpy() for v in g(x)]

    y, g = grad_of(lambda t: tf.tile(t, [2, 1]), tf.TensorSpec([None, 3]))
    np.testing.assert_allclose(y, np.tile(x, (2, 1)))
    np.testing.assert_allclose(g, 4 * x, rtol=1e-6)  # each element appears twice: d/dx 2x^2
    y, g = grad_of(lambda t: tf.tile(t, [1, 2]), tf.TensorSpec(None))
    np.testing.assert_allclose(g, 4 * x, rtol=1e-6)
    y, g = grad_of(lambda t: tf.broadcast_to(t[:, :1], [2, 3]), tf.TensorSpec([None, None]))
    np.testing.assert_allclose(y, np.broadcast_to(x[:, :1], (2, 3)))
    np.testing.assert_allclose(g[:, 0], 6 * x[:, 0], rtol=1e-6)
    y, g = grad_of(lambda t: tf.concat(tf.split(t, 2, axis=0)[::-1], axis=1), tf.TensorSpec([None, 3]))
    np.testing.assert_allclose(y, np.concatenate([x[1:], x[:1]], axis=1))
    np.testing.assert_allclose(g, 2 * x, rtol=1e-6)
    y, g = grad_of(lambda t: tf.concat([tf.squeeze(t), tf.squeeze(t) * 2.0], axis=-1), tf.TensorSpec([None, None]))
    np.testing.assert_allclose(g, 2 * x + 8 * x, rtol=1e-6)  # squeeze: a rank unknown while tracing
    with pytest.raises(tf.errors.InvalidArgumentError, match="cannot be split into 4 equal parts"):
        tf.function(lambda t: tf.split(t, 4, axis=0), input_signature=[tf.TensorSpec([None, 3])])(x)


def test_split_with_a_minus_one_size_on_a_run_time_dimension_and_its_gradient():
    f = tf.function(lambda t: tf.split(t, [1, -1], axis=0), input_signature=[tf.TensorSpec([None, 3])])
    x = tf.reshape(tf.range(9.0), [3, 3])
    first, rest = f(x)
    assert first.shape == (1, 3) and rest.shape == (2, 3)
    np.testing.assert_array_equal(rest.numpy(), x.numpy()[1:])

    @tf.function(input_signature=[tf.TensorSpec([None, 3])])
    def grad(t):
        with tf.GradientTape() as tape:
            tape.watch(t)
            y = tf.reduce_sum(tf.split(t, [1, -1], axis=0)[1] * 2.0)
        return tape.gradient(y, t)

    np.testing.assert_array_equal(grad(x).numpy(), [[0, 0, 0], [2, 2, 2], [2, 2, 2]])


def test_a_second_order_gradient_through_a_traced_while_loop_is_refused_clearly():
    # (eagerly it works: 6 and 12, TensorFlow's values)
    def second(x):
        with tf.GradientTape() as outer:
            outer.watch(x)
            with tf.GradientTape() as inner:
                inner.watch(x)
                y = tf.while_loop(lambda i, a: i < 3, lambda i, a: (i + 1, a * x), [0, tf.ones_like(x)])[1]
            gx = inner.gradient(y, x)
        return outer.gradient(gx, x)

    assert second(tf.constant([1.0, 2.0])).numpy().tolist() == [6.0, 12.0]
    with pytest.raises(NotImplementedError, match="second-order gradient"):
        tf.function(second)(tf.constant([1.0, 2.0]))
