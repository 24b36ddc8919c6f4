"""Gradients through tf.cond and loops recompute their branch or body under a tape: they must
use the forward run's random draws, variable reads and assignments (the stash), not draw,
read or assign again. Expected values: TensorFlow 2.21's, or the forward values themselves."""

import numpy as np
import pytest

import tfunc as tf


def test_dropout_in_a_branch_gets_the_gradient_of_its_own_mask():
    @tf.function
    def f(x, training):
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = tf.cond(training, lambda: tf.nn.dropout(x, 0.5), lambda: x)
        return y, tape.gradient(y, x)

    y, g = f(tf.ones([200]), tf.constant(True))
    assert 0 < (y.numpy() == 0).mean() < 1
    np.testing.assert_array_equal(g.numpy(), y.numpy())  # dy/dx = mask / keep = y for x = 1
    y, g = f(tf.ones([5]), tf.constant(False))
    assert g.numpy().tolist() == [1.0] * 5


def test_dropout_in_a_loop_gets_each_iteration_s_mask():
    @tf.function
    def f(x):
        with tf.GradientTape() as tape:
            tape.watch(x)
            s = tf.zeros_like(x)
            for _ in tf.range(3):
                s += tf.nn.dropout(x, 0.5)
        return s, tape.gradient(s, x)

    s, g = f(tf.ones([300]))
    np.testing.assert_array_equal(g.numpy(), s.numpy())  # the sum of the masks, each scaled by 2
    assert set(np.unique(s.numpy())) <= {0.0, 2.0, 4.0, 6.0} and len(np.unique(s.numpy())) > 2


def test_assignments_in_branches_and_loops_happen_once():
    count, w = tf.Variable(0.0), tf.Variable(2.0)

    @tf.function
    def branch(p):
        with tf.GradientTape() as tape:
            y = tf.cond(p, lambda: (count.assign_add(1.0), w * 3.0)[1], lambda: w)
        return tape.gradient(y, w)

    @tf.function
    def loop():
        with tf.GradientTape() as tape:
            s = 0.0
            for _ in tf.range(3):
                count.assign_add(1.0)
                s += w * w
        return tape.gradient(s, w)

    assert float(branch(tf.constant(True))) == 3.0 and float(count) == 1.0  # was 2: assigned again
    assert float(loop()) == 12.0 and float(count) == 4.0


def test_reads_in_a_loop_body_see_their_iteration_s_value():
    # TensorFlow 2.21: ds/dw sums the values v had when read (1 + 2 + 3), not its value after the loop
    v, w = tf.Variable(1.0), tf.Variable(2.0)

    @tf.function
    def f():
        with tf.GradientTape() as tape:
            s = 0.0
            for _ in tf.range(3):
                s += v * w
                v.assign_add(1.0)
        return s, tape.gradient(s, [v, w])

    s, (gv, gw) = f()
    assert float(s) == 12.0 and float(gv) == 6.0 and float(gw) == 6.0  # gw was 15

    u = tf.Variable(1.0)

    @tf.function
    def doubling(n):
        s = 0.0
        for i in tf.range(n):
            if i > 0:
                u.assign(u * 2.0)
                s += u * u
        return s

    with tf.GradientTape() as tape:
        s = doubling(tf.constant(3))
    assert float(s) == 20.0 and float(tape.gradient(s, u)) == 12.0  # TensorFlow's 12 (was 48)


@pytest.mark.parametrize("training", [True, False])
def test_keras_dropout_with_a_tensor_training_flag(training):
    from tfunc import keras

    layer = keras.layers.Dropout(0.5)

    @tf.function
    def f(x, flag):
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = layer(x, training=flag)
        return y, tape.gradient(y, x)

    y, g = f(tf.ones([100]), tf.constant(training))
    np.testing.assert_array_equal(g.numpy(), y.numpy())


def test_stash_and_unstash_round_trip_values():
    @tf.function
    def f(x):
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = tf.cond(x[0] > 0, lambda: x * tf.random.uniform([3]), lambda: x)
        return y, tape.gradient(y, x)

    y, g = f(tf.constant([1.0, 1.0, 1.0]))
    np.testing.assert_allclose(g.numpy(), y.numpy())  # dy/dx is the draw, which y shows for x = 1


def test_a_tape_outside_the_function_sees_the_same_draws():
    count = tf.Variable(0.0)

    @tf.function
    def f(x, training):
        count.assign_add(1.0)
        y = tf.cond(training, lambda: tf.nn.dropout(x, 0.5), lambda: x)
        s = tf.zeros_like(x)
        for _ in tf.range(2):
            s += tf.nn.dropout(y, 0.5)
        return s

    x = tf.ones([100])
    with tf.GradientTape() as tape:
        tape.watch(x)
        s = f(x, tf.constant(True))
    np.testing.assert_array_equal(tape.gradient(s, x).numpy(), s.numpy())
    assert float(count) == 1.0


def test_nested_conditionals_and_loops_keep_their_draws():
    @tf.function
    def cond_in_loop(x, training):
        with tf.GradientTape() as tape:
            tape.watch(x)
            s = tf.zeros_like(x)
            for _ in tf.range(2):
                s += tf.cond(training, lambda: tf.nn.dropout(x, 0.5), lambda: x)
        return s, tape.gradient(s, x)

    @tf.function
    def cond_in_cond(x, training):
        with tf.GradientTape() as tape:
            tape.watch(x)
            inner = lambda: tf.cond(x[0] > 0, lambda: tf.nn.dropout(x, 0.5), lambda: x)  # noqa: E731
            y = tf.cond(training, inner, lambda: x)
        return y, tape.gradient(y, x)

    @tf.function
    def loop_in_loop(x):
        with tf.GradientTape() as tape:
            tape.watch(x)
            s = tf.zeros_like(x)
            for _ in tf.range(2):
                for _ in tf.range(2):
                    s += tf.nn.dropout(x, 0.5)
        return s, tape.gradient(s, x)

    on, x = tf.constant(True), tf.ones([200])
    for f, args in ((cond_in_loop, (x, on)), (cond_in_cond, (x, on)), (loop_in_loop, (x,))):
        y, g = f(*args)
        np.testing.assert_array_equal(g.numpy(), y.numpy())
        assert len(np.unique(y.numpy())) > 1


def test_second_order_through_a_kept_cond_and_a_loop_condition_that_assigns():
    v = tf.Variable(1.0)

    @tf.function
    def f(x, p):
        with tf.GradientTape() as t2:
            t2.watch(x)
            with tf.GradientTape() as t1:
                t1.watch(x)
                y = tf.cond(p, lambda: (v.assign(2.0), (x * v) ** 3)[1], lambda: x)
            g = t1.gradient(y, x)
        return y, g, t2.gradient(g, x)

    assert [float(t) for t in f(tf.constant(1.0), tf.constant(True))] == [8.0, 24.0, 48.0]  # TensorFlow's
    c = tf.Variable(0.0)

    @tf.function
    def g(x):
        with tf.GradientTape() as tape:
            tape.watch(x)
            s = x
            for _ in tf.range(2):
                s = tf.while_loop(lambda s: c.assign_add(1.0) < 3.0, lambda s: [s * 2.0], [s])[0]
        return s, tape.gradient(s, x)

    s, grad = g(tf.constant(1.0))
    assert float(s) == 4.0 and float(grad) == 4.0 and float(c) == 4.0  # TensorFlow's (the condition ran 4 times)
