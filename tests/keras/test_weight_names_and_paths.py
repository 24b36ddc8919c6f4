"""Keras 3's weight names and paths: ``name`` is the name given (``'kernel'``), ``path`` the
name scopes the weight was made in (``'mha/query/kernel'``); values from Keras 3.15 on TF 2.21."""

import numpy as np
import pytest

import tfunc as tf

keras = tf.keras


def _names_and_paths(weights):
    return [(w.name, w.path) for w in weights]


def test_a_layer_and_a_sequential_model():
    d = keras.layers.Dense(2, name="dd")
    d(np.ones((1, 3)))
    assert _names_and_paths(d.weights) == [("kernel", "dd/kernel"), ("bias", "dd/bias")]
    s = keras.Sequential([keras.layers.Dense(2, name="a"), keras.layers.Dense(1, name="b")], name="seq")
    s.build((None, 3))
    assert [w.path for w in s.weights] == ["seq/a/kernel", "seq/a/bias", "seq/b/kernel", "seq/b/bias"]
    inp = keras.Input((3,))
    model = keras.Model(inp, keras.layers.Dense(2, name="top")(inp))
    assert [w.path for w in model.weights] == ["top/kernel", "top/bias"]  # built outside any scope


def test_sublayers_are_under_their_parents_path():
    q = np.ones((1, 2, 4), "float32")
    mha = keras.layers.MultiHeadAttention(2, 3, name="mha")
    mha(q, q)
    assert len({w.path for w in mha.weights}) == len(mha.weights) == 8
    assert _names_and_paths(mha.weights[:2]) == [("kernel", "mha/query/kernel"), ("bias", "mha/query/bias")]
    b = keras.layers.Bidirectional(keras.layers.GRU(2, name="gru"), name="bi")  # (auto names count up)
    b(q)
    assert [w.path for w in b.weights[:2]] == [
        "bi/forward_gru/gru_cell/kernel",
        "bi/forward_gru/gru_cell/recurrent_kernel",
    ]

    class Outer(keras.layers.Layer):
        def build(self, shape):
            self.inner = keras.layers.Dense(3, name="inner")
            self.inner.build(shape)
            self.w = self.add_weight(shape=(1,), name="w")

        def call(self, x):
            return self.inner(x) * self.w

    outer = Outer(name="outer")
    outer(np.ones((1, 2)))
    assert [w.path for w in outer.weights] == ["outer/w", "outer/inner/kernel", "outer/inner/bias"]


def test_variables_scopes_and_errors():
    assert _names_and_paths([keras.Variable(1.0), keras.Variable(1.0, name="x")]) == [
        ("variable", "variable"),
        ("x", "x"),
    ]
    with keras.name_scope("block"):
        with keras.name_scope("sub"):
            v = keras.Variable(1.0, name="w")
    assert v.path == "block/sub/w" and v.name == "w"
    with pytest.raises(ValueError, match="cannot contain character `/`"):
        keras.Variable(1.0, name="a/b")
    d = keras.layers.Dense(2, name="dd")
    d.build((None, 3))
    assert repr(d.bias) == "<Variable path=dd/bias, shape=(2,), dtype=float32, value=[0. 0.]>"
