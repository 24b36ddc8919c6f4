"""AutoGraph converts what TensorFlow's converts: objects with a Python __call__ (tf.Module
sub-modules), functools.partial; a tf.Variable can start a loop variable; while_loop returns
loop_vars' containers. Expected values: TensorFlow 2.21's."""

import functools

import tfunc as tf


class Sign(tf.Module):
    def __call__(self, x):
        if x > 0:  # a tensor condition: converted to a cond
            return x * 2
        return -x


class Outer(tf.Module):
    def __init__(self):
        super().__init__()
        self.inner = Sign()

    @tf.function
    def __call__(self, x):
        return self.inner(x)


def test_a_sub_module_called_from_a_function_is_converted():
    assert int(Outer()(tf.constant(-3))) == 3 and int(Outer()(tf.constant(4))) == 8
    assert int(tf.function(Sign())(tf.constant(-3))) == 3


def _larger(x, k):
    if x > k:
        return x
    return k


def test_a_partial_is_converted():
    g = functools.partial(_larger, k=tf.constant(5))

    @tf.function
    def f(x):
        return g(x)

    assert [int(f(tf.constant(v))) for v in (3, 7)] == [5, 7]
    assert int(tf.function(g)(tf.constant(7))) == 7


def test_a_variable_starts_a_loop_variable():
    v = tf.Variable(1.0)

    @tf.function
    def f(n):
        w = v
        for _ in tf.range(n):
            w = w * 2.0
        return w

    assert float(f(tf.constant(3))) == 8.0 and float(v) == 1.0


def test_while_loop_returns_loop_vars_containers():
    out = tf.function(
        lambda: tf.while_loop(lambda a: a[0] < 3, lambda a: [(a[0] + 1, a[1])], [[tf.constant(0), tf.constant(1.0)]])
    )()
    assert type(out) is list and type(out[0]) is list and int(out[0][0]) == 3


def test_methods_calling_zero_argument_super_are_converted():
    # TensorFlow converts them: super() reaches the parent's method, whose tensor `if` is converted too
    class Base(tf.Module):
        def step(self, x):
            if x > 0:
                return x * 2.0
            return -x

    class Child(Base):
        @tf.function
        def step(self, x):
            y = super().step(x)
            for i in tf.range(3):
                y += tf.cast(i, tf.float32)
            return y

    class Doubling(Base):
        def step(self, x):
            y = super().step(x)
            while y < 10.0:
                y = y * 2.0
            return y

    child = Child()
    assert float(child.step(tf.constant(2.0))) == 7.0 and float(child.step(tf.constant(-1.0))) == 4.0
    assert float(tf.function(Doubling().step)(tf.constant(3.0))) == 12.0
