"""tf.saved_model.save of a Keras model serves its call, as TensorFlow's serving_default."""

import numpy as np

import tfunc as tf
from tfunc import keras


def _check(model, x, tmp_path, shape):
    want = model(x).numpy()
    tf.saved_model.save(model, str(tmp_path))
    loaded = tf.saved_model.load(str(tmp_path))
    assert list(loaded.signatures) == ["serving_default"]
    sig = loaded.signatures["serving_default"]
    (out,) = sig(tf.constant(x)).values()
    np.testing.assert_allclose(out.numpy(), want, rtol=1e-6)
    assert model._default_save_signature.input_signature[0].shape.as_list() == shape


def test_a_model_with_an_input_serves_any_batch(tmp_path):
    model = keras.Sequential([keras.Input(shape=(4,)), keras.layers.Dense(3, activation="relu"), keras.layers.Dense(1)])
    _check(model, np.random.default_rng(0).normal(size=(5, 4)).astype(np.float32), tmp_path, [None, 4])


def test_a_model_built_by_a_call_serves_that_shape(tmp_path):
    model = keras.Sequential([keras.layers.Dense(2)])
    _check(model, np.ones([2, 4], np.float32), tmp_path, [2, 4])


def test_an_unbuilt_model_has_no_signature(tmp_path):
    assert keras.Sequential([keras.layers.Dense(2)])._default_save_signature is None
