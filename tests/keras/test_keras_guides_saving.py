"""Serialization guide, "transfer weights between compatible architectures": a `.weights.h5` file
written by a functional model loads into a subclassed model with the same layers, because Keras
retries an object missing at its attribute path under the model's ``layers/<class name>``."""

import warnings

import numpy as np
import pytest

import tfunc as tf
from tfunc import keras
from tfunc.keras import layers

pytest.importorskip("h5py")


def _functional(units=(5, 5, 3)):
    inputs = keras.Input(shape=(6,))
    h = layers.Dense(units[0], activation="relu")(inputs)
    h = layers.Dense(units[1], activation="relu")(h)
    return keras.Model(inputs, layers.Dense(units[2])(h))


class _Sub(keras.Model):
    # attribute names that sort in the reverse order of the layers: only `layers/...` can match
    def __init__(self, units=(5, 5, 3)):
        super().__init__()
        self.c = layers.Dense(units[0], activation="relu")
        self.b = layers.Dense(units[1], activation="relu")
        self.a = layers.Dense(units[2])

    def call(self, x):
        return self.a(self.b(self.c(x)))


def _set_weights(model):
    model.set_weights([np.arange(w.size, dtype=np.float32).reshape(w.shape) / 10.0 for w in model.get_weights()])


def _built_sub(units=(5, 5, 3)):
    model = _Sub(units)
    model(np.ones((1, 6), np.float32))
    return model


X = np.linspace(-1, 1, 12, dtype=np.float32).reshape(2, 6)


def test_functional_file_loads_into_subclassed_model(tmp_path):
    functional = _functional()
    _set_weights(functional)
    path = str(tmp_path / "f.weights.h5")
    functional.save_weights(path)
    sub = _built_sub()
    sub.load_weights(path)
    expected = np.asarray(functional(X))
    np.testing.assert_allclose(expected.ravel()[:3], [0.9, 1.1, 1.3], rtol=1e-5)  # Keras 3.15's values
    np.testing.assert_allclose(sub(X), expected, rtol=1e-6)
    np.testing.assert_allclose(tf.function(sub)(X), expected, rtol=1e-6)


def test_nested_layer_is_retried_with_its_sublayers(tmp_path):
    class Block(layers.Layer):
        def __init__(self, **kwargs):
            super().__init__(**kwargs)
            self.d1 = layers.Dense(3)
            self.d2 = layers.Dense(2)

        def call(self, x):
            return self.d2(self.d1(x))

    class Holder(keras.Model):
        def __init__(self):
            super().__init__()
            self.blk = Block()

        def call(self, x):
            return self.blk(x)

    inp = keras.Input((4,))
    functional = keras.Model(inp, Block()(inp))
    _set_weights(functional)
    path = str(tmp_path / "b.weights.h5")
    functional.save_weights(path)
    holder = Holder()
    x = np.ones((1, 4), np.float32)
    holder(x)
    holder.load_weights(path)
    np.testing.assert_allclose(tf.function(holder)(x), functional(x), rtol=1e-6)


def test_subclassed_file_does_not_load_into_functional_model(tmp_path):
    # a subclassed model saves each layer under its first path (the attribute) only: Keras fails too
    sub = _built_sub()
    path = str(tmp_path / "s.weights.h5")
    sub.save_weights(path)
    functional = _functional()
    before = functional.get_weights()
    with pytest.raises(ValueError, match="A total of 3 objects could not be loaded"):
        functional.load_weights(path)
    for a, b in zip(functional.get_weights(), before):
        np.testing.assert_array_equal(a, b)


def test_mismatch_under_every_path_is_reported_or_skipped(tmp_path):
    functional = _functional()
    _set_weights(functional)
    path = str(tmp_path / "f.weights.h5")
    functional.save_weights(path)
    with pytest.raises(ValueError, match=r"A total of 2 objects could not be loaded(.|\n)*'layers/dense_2'"):
        _built_sub((5, 4, 3)).load_weights(path)
    sub = _built_sub((5, 4, 3))
    before = sub.get_weights()
    with warnings.catch_warnings(record=True):
        warnings.simplefilter("always")
        sub.load_weights(path, skip_mismatch=True)
    # Keras loads the first Dense (matching shapes) and skips the other two
    changed = [not np.array_equal(a, b) for a, b in zip(sub.get_weights(), before)]
    assert changed == [True, True, False, False, False, False]
