"""Variables read inside staged loops and branches: gradients reach them, and a read never
misses a write made earlier in the loop or branch (directly, by a nested function, or by a
py_function)."""

import numpy as np
import pytest

import tfunc as tf


def _loop_sum(w, x):
    s = tf.constant(0.0)
    for _ in tf.range(3):
        s += x * w
    return s


def test_a_variable_read_in_a_loop_body_gets_its_gradient():
    w, x = tf.Variable(2.0), tf.constant(3.0)
    with tf.GradientTape() as tape:
        eager = _loop_sum(w, x)
    expected = tape.gradient(eager, w)
    assert float(expected) == 9.0

    f = tf.function(_loop_sum)
    with tf.GradientTape() as tape:
        y = f(w, x)
    assert float(y) == 18.0 and float(tape.gradient(y, w)) == 9.0  # a tape outside the function

    @tf.function
    def inner(x):
        with tf.GradientTape() as tape:
            y = _loop_sum(w, x)
        return tape.gradient(y, w)

    assert float(inner(x)) == 9.0  # a tape inside


def test_a_while_condition_reading_a_variable_and_a_dense_layer_in_a_loop():
    limit = tf.Variable(5.0)
    layer = tf.keras.layers.Dense(2)
    x = tf.constant([[1.0, -2.0]])
    layer(x)

    @tf.function
    def f(x):
        h, n = x, tf.constant(0.0)
        while n < limit:  # a variable in the condition
            h = tf.tanh(layer(h))
            n += 1.0
        return tf.reduce_sum(h)

    def eager(x):
        h = x
        for _ in range(5):
            h = tf.tanh(layer(h))
        return tf.reduce_sum(h)

    with tf.GradientTape() as tape:
        y = f(x)
    grads = tape.gradient(y, layer.trainable_variables)
    with tf.GradientTape() as tape:
        y_ref = eager(x)
    refs = tape.gradient(y_ref, layer.trainable_variables)
    np.testing.assert_allclose(float(y), float(y_ref), rtol=1e-6)
    for g, r in zip(grads, refs):
        assert g is not None
        np.testing.assert_allclose(g.numpy(), r.numpy(), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("how", ["assign", "nested function", "py_function"])
def test_reads_in_a_loop_see_the_loop_s_own_writes(how):
    w = tf.Variable(1.0)

    @tf.function
    def bump():
        w.assign_add(1.0)

    def write():
        if how == "assign":
            w.assign_add(1.0)
        elif how == "nested function":
            bump()
        else:
            tf.py_function(lambda: w.assign_add(1.0) and 0.0, [], tf.float32)

    @tf.function
    def f():
        s = tf.constant(0.0)
        for _ in tf.range(3):
            s += w  # 1, 2, 3 (each iteration sees the previous one's write)
            write()
        return s

    assert float(f()) == 6.0 and float(w) == 4.0


@pytest.mark.parametrize("how", ["nested function", "py_function"])
def test_a_branch_reads_a_write_made_earlier_in_it(how):
    w = tf.Variable(1.0)

    @tf.function
    def bump():
        w.assign_add(1.0)

    @tf.function
    def f(x):
        if x > 0:
            if how == "nested function":
                bump()
            else:
                tf.py_function(lambda: w.assign_add(1.0) and 0.0, [], tf.float32)
            y = w * 1.0
        else:
            y = w * 0.0
        return y

    assert float(f(tf.constant(1.0))) == 2.0


def test_reads_after_writes_in_branches_and_loops_reach_the_variable():
    # TensorFlow 2.21's values: a read inside a branch or loop body after a write there is a read
    # of the variable for a tape outside (tfunc gave the other branch's 0, or None)
    x = tf.Variable(1.0)

    @tf.function
    def f(p):
        with tf.GradientTape() as tape:
            y = tf.cond(p, lambda: (x.assign(3.0), x * x)[1], lambda: x * 2.0)
        return y, tape.gradient(y, x)

    y, g = f(tf.constant(True))
    assert float(y) == 9.0 and float(g) == 6.0  # (the loop case: test_control_flow_stash.py)


def test_a_tape_inside_a_loop_body_or_branch_sees_variables_read_there():
    # a training step inside `for step in tf.range(n)`: TensorFlow 2.21 gives 12 and 6 (tfunc gave None)
    w = tf.Variable(3.0)

    @tf.function
    def loop(n):
        g = tf.constant(0.0)
        for _ in tf.range(n):
            with tf.GradientTape() as tape:
                loss = w * w
            g += tape.gradient(loss, w)
        return g

    @tf.function
    def branch(p):
        def step():
            with tf.GradientTape() as tape:
                loss = w * w
            return tape.gradient(loss, w)

        return tf.cond(p, step, lambda: tf.constant(0.0))

    assert float(loop(tf.constant(2))) == 12.0 and float(branch(tf.constant(True))) == 6.0
    v = tf.Variable(1.0)
    opt = tf.keras.optimizers.SGD(0.1)

    @tf.function
    def train(n):
        for _ in tf.range(n):
            with tf.GradientTape() as tape:
                loss = (v - 3.0) ** 2
            opt.apply_gradients([(tape.gradient(loss, v), v)])
        return v.read_value()

    np.testing.assert_allclose(float(train(tf.constant(3))), 3.0 - 2.0 * 0.8**3, rtol=1e-6)
