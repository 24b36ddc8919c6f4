"""Gradient tapes around and inside ``tf.function`` calls, as TensorFlow's backprop tests use
them: variables passed in or captured, read inside tensor conditionals, returned unchanged;
persistent tapes; higher-order gradients."""

import pytest

import tfunc as tf


def test_variable_argument_read_in_a_tensor_conditional():
    @tf.function
    def f(v, x):
        if x > 0:
            y = v * 3.0
        else:
            y = v * 5.0
        return y

    v = tf.Variable(2.0)
    for x, expected in ((1.0, 3.0), (-1.0, 5.0)):
        with tf.GradientTape() as tape:
            y = f(v, tf.constant(x))
        assert float(tape.gradient(y, v)) == expected


def test_captured_variable_read_in_a_tensor_conditional_and_written_in_the_branch():
    w = tf.Variable(3.0)

    @tf.function
    def f(x):
        if x > 0:
            y = w * w  # read before the write: the value when the cond starts
            w.assign(10.0)
            y = y + w  # read after the write: inside the branch
        else:
            y = w
        return y

    with tf.GradientTape() as tape:
        y = f(tf.constant(1.0))
    assert float(y) == 19.0
    # TensorFlow 2.21's 7.0: 2w from the read before the write, 1 from the read after it (the
    # value written does not depend on w, but a read is a read)
    assert float(tape.gradient(y, w)) == 7.0
    w.assign(3.0)
    with tf.GradientTape() as tape:
        y = f(tf.constant(-1.0))
    assert float(tape.gradient(y, w)) == 1.0


@pytest.mark.parametrize("flag", [True, False])
def test_variable_returned_through_a_python_conditional(flag):
    v = tf.Variable(2.0)

    @tf.function
    def f(c):
        if c:
            return v
        return v * 2.0

    with tf.GradientTape() as tape:
        y = f(flag)
    assert float(tape.gradient(y, v)) == (1.0 if flag else 2.0)
    # eagerly too: the variable itself is the result (once None here, while 1.0 in a function)
    x = tf.constant(1.0 if flag else -1.0)
    with tf.GradientTape() as tape:
        tape.watch(x)
        r = v if x > 0.0 else v**2
    assert float(tape.gradient(r, v)) == (1.0 if flag else 4.0)


def test_persistent_tape_around_a_function():
    @tf.function
    def f(x):
        return x * x, tf.sin(x)

    x = tf.constant(2.0)
    with tf.GradientTape(persistent=True) as tape:
        tape.watch(x)
        a, b = f(x)
    assert float(tape.gradient(a, x)) == 4.0
    assert abs(float(tape.gradient(b, x)) - float(tf.cos(x))) < 1e-6
    assert float(tape.gradient([a, b], x)) == pytest.approx(4.0 + float(tf.cos(x)), rel=1e-6)


def test_higher_order_gradients_through_functions():
    @tf.function
    def cube(t):
        return t * t * t

    x = tf.Variable(3.0)
    with tf.GradientTape(persistent=True) as outer:
        with tf.GradientTape(persistent=True) as inner:
            y = cube(x)
        dy = inner.gradient(y, x)
    assert float(dy) == 27.0 and float(outer.gradient(dy, x)) == 18.0

    z = tf.constant(2.0)
    with tf.GradientTape() as outer:
        outer.watch(z)
        with tf.GradientTape() as inner:
            inner.watch(z)
            y = cube(z)
        dy = inner.gradient(y, z)
    assert float(outer.gradient(dy, z)) == 12.0

    @tf.function
    def second_derivative(t):
        with tf.GradientTape() as t2:
            t2.watch(t)
            with tf.GradientTape() as t1:
                t1.watch(t)
                y = cube(t)
            d = t1.gradient(y, t)
        return t2.gradient(d, t)

    assert float(second_derivative(tf.constant(2.0))) == 12.0


def test_watched_variables_of_a_tape_around_a_function():
    a, b = tf.Variable(1.0), tf.Variable(2.0, trainable=False)

    @tf.function
    def f(x):
        return a * x + b

    with tf.GradientTape() as tape:
        y = f(tf.constant(3.0))
    assert [v.numpy() for v in tape.watched_variables()] == [1.0]
    grads = tape.gradient(y, [a, b])
    assert float(grads[0]) == 3.0 and grads[1] is None


def test_tape_around_the_first_call_of_a_function_that_creates_a_variable_from_its_argument():
    # the variable's value comes from this very call; as in TensorFlow no gradient reaches its
    # initial value, so d(v * x)/dx is v (6), not 4x (12)
    class Scaled(tf.Module):
        def __init__(self):
            self.v = None

        @tf.function
        def __call__(self, x):
            if self.v is None:
                self.v = tf.Variable(x * 2.0)
            return self.v * x

    m, x = Scaled(), tf.constant(3.0)
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = m(x)
    assert float(y) == 18.0 and float(tape.gradient(y, x)) == 6.0
    assert float(m.v) == 6.0 and float(m(tf.constant(1.0))) == 6.0  # the variable was initialized once
    with tf.GradientTape() as tape:
        y = m(tf.constant(2.0))
    assert float(tape.gradient(y, m.v)) == 2.0  # later calls differentiate through it
