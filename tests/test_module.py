"""tfunc.Module: variable and submodule tracking, name scopes, traced methods."""

import pytest

import tfunc as tf


class Dense(tf.Module):
    def __init__(self, n_in, n_out, name=None):
        super().__init__(name=name)
        self.w = tf.Variable(tf.ones([n_in, n_out]), name="w")
        self.b = tf.Variable(tf.zeros([n_out]), name="b", trainable=False)

    @tf.function
    def __call__(self, x):
        return tf.matmul(x, self.w) + self.b


class MLP(tf.Module):
    def __init__(self):
        super().__init__()
        self.layers = [Dense(2, 3, name="first"), Dense(3, 1, name="second")]
        self.extra = {"scale": tf.Variable(2.0, name="scale")}

    @tf.function
    def __call__(self, x):
        for layer in self.layers:
            x = layer(x)
        return x * self.extra["scale"]


def test_tracking_of_variables_and_submodules():
    m = MLP()
    assert m.name == "mlp" and m.layers[0].name == "first"
    assert len(m.variables) == 5 and len(m.trainable_variables) == 3
    assert [s.name for s in m.submodules] == ["first", "second"]
    assert {v.name for v in m.layers[0].variables} == {"w:0", "b:0"}
    with m.name_scope as scope:
        assert scope == "mlp/"


def test_traced_methods_and_variables_seen_by_reference():
    m = MLP()
    x = tf.ones([1, 2])
    assert float(m(x)[0, 0]) == 12.0
    m.extra["scale"].assign(1.0)
    assert float(m(x)[0, 0]) == 6.0
    assert MLP.__call__.__get__(m).experimental_get_tracing_count() == 1


def test_gradients_over_module_variables():
    m = MLP()
    x = tf.ones([1, 2])
    with tf.GradientTape() as tape:
        y = tf.reduce_sum(m(x))
    grads = tape.gradient(y, m.trainable_variables)
    assert all(g is not None for g in grads) and len(grads) == 3


class _Leaf(tf.Module):
    def __init__(self, value, child=None):
        super().__init__()
        self.w = tf.Variable(float(value))
        if child is not None:
            self.c = child


def test_variable_order_matches_tensorflow():
    """A module's own variables (attributes by name, dict keys sorted naturally) come before
    its submodules', each submodule walked in full in turn. Expected orders from TF 2.21."""
    m = tf.Module()
    m.a = _Leaf(1)
    m.b = tf.Variable(2.0)
    m.d = {2: tf.Variable(5.0), 10: tf.Variable(6.0)}
    assert [float(v) for v in m.trainable_variables] == [2.0, 5.0, 6.0, 1.0]
    nested = tf.Module()
    nested.x, nested.y, nested.z = _Leaf(1, _Leaf(2)), _Leaf(3, _Leaf(4)), tf.Variable(5.0)
    assert [float(v) for v in nested.variables] == [5.0, 1.0, 2.0, 3.0, 4.0]
    assert [float(s.w) for s in nested.submodules] == [1.0, 3.0, 2.0, 4.0]

    @tf.function
    def stacked():
        return tf.stack([v.read_value() for v in m.variables])

    assert stacked().numpy().tolist() == [2.0, 5.0, 6.0, 1.0]


def test_unsortable_dict_keys_are_refused():
    m = tf.Module()
    m.d = {1: tf.Variable(1.0), "a": tf.Variable(2.0)}
    with pytest.raises(ValueError, match="Error processing property 'd'"):
        _ = m.variables
