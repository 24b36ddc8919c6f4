"""Keras takes any layer or model name without "/" ("3_layer_mlp" in the serialization guide);
tf.Module keeps TensorFlow's Python-identifier rule."""

import numpy as np
import pytest

import tfunc as tf
from tfunc import keras


@pytest.mark.parametrize("name", ["3_layer_mlp", "a b", "my-layer", "é"])
def test_layer_and_model_names_that_are_not_identifiers(name):
    inp = keras.Input((2,), name=name + "_in")
    dense = keras.layers.Dense(1, kernel_initializer="ones", name=name + "_d")
    m = keras.Model(inp, dense(inp), name=name)
    assert m.name == name and [layer.name for layer in m.layers] == [name + "_in", name + "_d"]
    x = np.ones((1, 2), np.float32)
    np.testing.assert_allclose(m.predict(x, verbose=0), [[2.0]])
    np.testing.assert_allclose(tf.function(m)(x), [[2.0]])


def test_subclassed_model_name_that_is_not_an_identifier():
    class Sub(keras.Model):
        def __init__(self):
            super().__init__(name="1 sub")
            self.d = keras.layers.Dense(1, kernel_initializer="ones", name="0-x")

        def call(self, x):
            return self.d(x)

    s = Sub()
    assert s.name == "1 sub" and s.d.name == "0-x"
    np.testing.assert_allclose(s(np.ones((1, 2), np.float32)), [[2.0]])


def test_names_keras_and_tf_module_refuse():
    for bad in ("a/b", 5):
        with pytest.raises(ValueError, match="cannot contain character `/`"):
            keras.layers.Dense(1, name=bad)
    with pytest.raises(ValueError, match="not a valid module name"):
        tf.Module(name="3_layer_mlp")
