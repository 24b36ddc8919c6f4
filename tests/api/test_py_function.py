"""``tf.py_function`` called, wrapped and used as a decorator."""

import tfunc as tf


def test_py_function_as_a_decorator_runs_python_every_call():
    calls = []

    @tf.py_function(Tout=tf.float32)
    def double(x):
        calls.append(float(x))
        return x * 2

    assert float(double(tf.constant(3.0))) == 6.0

    @tf.function
    def f(x):
        return double(x) + 1.0

    assert float(f(tf.constant(1.0))) == 3.0 and float(f(tf.constant(2.0))) == 5.0
    assert calls == [3.0, 1.0, 2.0]


def test_py_function_without_inputs_wraps_the_function():
    halve = tf.py_function(lambda x: x / 2, Tout=tf.float32)
    assert float(halve(tf.constant(5.0))) == 2.5
    assert float(tf.py_function(lambda a, b: a - b, [tf.constant(5.0), tf.constant(2.0)], tf.float32)) == 3.0


def test_numpy_function_stops_gradients_and_py_function_passes_them():
    x = tf.constant([1.0, 2.0])

    def grads(x):
        with tf.GradientTape(persistent=True) as tape:
            tape.watch(x)
            a = tf.numpy_function(lambda v: v * 3.0, [x], tf.float32)
            b = tf.py_function(lambda v: v * 3.0, [x], tf.float32)
        return tape.gradient(a, x), tape.gradient(b, x)

    for ga, gb in (grads(x), tf.function(grads)(x)):
        assert ga is None  # TensorFlow's PyFunc has no gradient: None, not zeros
        assert gb.numpy().tolist() == [3.0, 3.0]
