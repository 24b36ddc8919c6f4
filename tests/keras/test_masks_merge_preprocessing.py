"""Masks through merge layers and non-masking layers, Discretization of NaN, dtypes under mixed
precision, LayerNormalization's config, and which layers take the mask path of a call.

Expected values were recorded from Keras 3.15 / TensorFlow 2.21 (printed by
``fixtures/make_merge_mask_values.py``) or follow from a formula."""

import warnings

import numpy as np
import pytest

import tfunc as tf
from tfunc.keras.layers.base import get_keras_mask, set_keras_mask

K = tf.keras

X1 = np.array([[[1.0, 2.0], [3.0, -4.0], [-5.0, 6.0], [7.0, 8.0]]], "float32")
X2 = np.array([[[-2.0, 0.5], [4.0, 4.0], [9.0, -1.0], [-3.0, 2.0]]], "float32")
M1 = np.array([[True, False, True, False]])
M2 = np.array([[True, True, False, False]])
BOTH_MASK = [[True, True, True, False]]

# Keras 3.15: (layer, which inputs carry a mask) -> (output, output mask)
MERGE_CASES = {
    ("Multiply", "both"): ([[[-2.0, 1.0], [4.0, 4.0], [-5.0, 6.0], [0.0, 0.0]]], BOTH_MASK),
    ("Multiply", "first"): ([[[-2.0, 1.0], [4.0, 4.0], [-45.0, -6.0], [-3.0, 2.0]]], None),
    ("Multiply", "second"): ([[[-2.0, 1.0], [12.0, -16.0], [-5.0, 6.0], [7.0, 8.0]]], None),
    ("Minimum", "both"): ([[[-2.0, 0.5], [4.0, 4.0], [-5.0, 6.0], [7.0, 8.0]]], BOTH_MASK),
    ("Minimum", "first"): ([[[-2.0, 0.5], [4.0, 4.0], [-5.0, -1.0], [-3.0, 2.0]]], None),
    ("Minimum", "second"): ([[[-2.0, 0.5], [3.0, -4.0], [-5.0, 6.0], [7.0, 8.0]]], None),
    ("Maximum", "both"): ([[[1.0, 2.0], [4.0, 4.0], [-5.0, 6.0], [7.0, 8.0]]], BOTH_MASK),
    ("Maximum", "first"): ([[[1.0, 2.0], [4.0, 4.0], [9.0, 6.0], [-3.0, 2.0]]], None),
    ("Maximum", "second"): ([[[1.0, 2.0], [4.0, 4.0], [-5.0, 6.0], [7.0, 8.0]]], None),
    # Add, Subtract, Average ignore the masks in their values
    ("Add", "both"): ([[[-1.0, 2.5], [7.0, 0.0], [4.0, 5.0], [4.0, 10.0]]], BOTH_MASK),
    ("Subtract", "first"): ([[[3.0, 1.5], [-1.0, -8.0], [-14.0, 7.0], [10.0, 6.0]]], None),
    ("Average", "second"): ([[[-0.5, 1.25], [3.5, 0.0], [2.0, 2.5], [2.0, 5.0]]], None),
}


def _merge(cls, case, a, b):
    if case in ("both", "first"):
        set_keras_mask(a, tf.constant(M1))
    if case in ("both", "second"):
        set_keras_mask(b, tf.constant(M2))
    out = getattr(K.layers, cls)()([a, b])
    mask = get_keras_mask(out)
    return out, (tf.zeros([0], tf.bool) if mask is None else mask)


@pytest.mark.parametrize("cls,case", sorted(MERGE_CASES))
def test_merge_layers_use_input_masks_as_keras(cls, case):
    want, want_mask = MERGE_CASES[(cls, case)]
    eager = _merge(cls, case, tf.constant(X1), tf.constant(X2))
    traced = tf.function(lambda a, b: _merge(cls, case, a, b))(tf.constant(X1), tf.constant(X2))
    for out, mask in (eager, traced):
        np.testing.assert_array_equal(out.numpy(), want)
        np.testing.assert_array_equal(mask.numpy(), np.zeros([0], bool) if want_mask is None else want_mask)


def test_merge_keeps_masks_of_inputs_it_casts():
    # float64 inputs are cast to float32 by the layer; Keras keeps their masks through the cast
    a, b = tf.constant(X1.astype("float64")), tf.constant(X2.astype("float64"))
    out, mask = _merge("Multiply", "both", a, b)
    assert out.dtype == tf.float32
    np.testing.assert_array_equal(out.numpy(), MERGE_CASES[("Multiply", "both")][0])
    np.testing.assert_array_equal(mask.numpy(), BOTH_MASK)


def test_merge_masks_in_functional_model():
    i1, i2 = K.Input((4, 2)), K.Input((4, 2))
    out = K.layers.Minimum()([K.layers.Masking()(i1), K.layers.Masking()(i2)])
    model = K.Model([i1, i2], out)
    x = np.array([[[1.0, 2.0], [0.0, 0.0], [3.0, -1.0], [0.0, 0.0]]], "float32")
    y = np.array([[[5.0, -4.0], [7.0, 8.0], [0.0, 0.0], [0.0, 0.0]]], "float32")
    # Keras 3.15: a padded step takes the other input's value; one padded in both keeps x's zeros
    want = [[[1.0, -4.0], [7.0, 8.0], [3.0, -1.0], [0.0, 0.0]]]
    np.testing.assert_array_equal(np.asarray(model.predict([x, y], verbose=0)), want)
    np.testing.assert_array_equal(tf.function(model)([x, y]).numpy(), want)


X_PAD = np.array([[[1.0, 2.0], [0.0, 0.0], [3.0, -1.0]]], "float32")


def _reshape_same(x):
    masked = K.layers.Masking()(x)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # Keras's "this layer does not support masking" warning
        out = K.layers.Reshape((3, 2))(masked)
    return masked, out


def test_reshape_to_same_shape_drops_the_mask():
    def masks(x):
        masked, out = _reshape_same(x)
        return get_keras_mask(masked), tf.constant(get_keras_mask(out) is None)

    for kept, dropped in (masks(tf.constant(X_PAD)), tf.function(masks)(tf.constant(X_PAD))):
        np.testing.assert_array_equal(kept.numpy(), [[True, False, True]])  # the input keeps its mask
        assert bool(dropped.numpy())


def test_reshape_drops_the_mask_in_a_model():
    i = K.Input((3, 2))
    h = _reshape_same(i)[1]
    assert get_keras_mask(h) is None
    rnn = K.layers.SimpleRNN(2, return_sequences=True)
    model = K.Model(i, rnn(h))
    rnn.set_weights(
        [
            np.array([[0.5, -0.25], [0.1, 0.3]], "float32"),
            np.array([[0.2, 0.0], [-0.4, 0.6]], "float32"),
            np.array([0.05, -0.1], "float32"),
        ]
    )
    # Keras 3.15: the RNN sees no mask, so it steps over the padded step too
    want = [[[0.63514894, 0.24491869], [0.07889798, 0.04691675], [0.89510059, -0.80821139]]]
    np.testing.assert_allclose(np.asarray(model.predict(X_PAD, verbose=0)), want, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(tf.function(model)(X_PAD).numpy(), want, rtol=1e-5, atol=1e-6)


def test_discretization_puts_nan_in_the_last_bucket():
    values = np.array([np.nan, -np.inf, np.inf, 0.0, 1.0, 0.5], "float32")
    want = [2, 0, 2, 1, 2, 1]  # TensorFlow's Bucketize (Keras 3.15 on TensorFlow)
    layer = K.layers.Discretization(bin_boundaries=[0.0, 1.0])
    np.testing.assert_array_equal(layer(values).numpy(), want)
    np.testing.assert_array_equal(tf.function(layer)(values).numpy(), want)
    hot = K.layers.Discretization(bin_boundaries=[0.0, 1.0], output_mode="one_hot")
    np.testing.assert_array_equal(tf.function(hot)(values[:1]).numpy(), [[0.0, 0.0, 1.0]])


def test_mixed_precision_output_dtypes():
    for mode in ("one_hot", "multi_hot", "count"):
        layer = K.layers.CategoryEncoding(4, output_mode=mode, dtype="mixed_float16")
        ids = np.array([[1, 2]])
        assert layer(ids).dtype == tf.float32  # Keras 3.15 encodes in the layer's dtype
        assert tf.function(layer)(ids).dtype == tf.float32
    crop = K.layers.CenterCrop(6, 6, dtype="mixed_float16")
    small, large = np.ones((1, 4, 5, 3), "float32"), np.ones((1, 8, 8, 3), "float32")
    for fn in (crop, tf.function(crop)):
        resized = fn(small)  # Keras 3.15: smart_resize's float32
        assert resized.dtype == tf.float32
        np.testing.assert_allclose(resized.numpy(), np.ones((1, 6, 6, 3)))  # resizing ones gives ones
        assert fn(large).dtype == tf.float16  # a plain crop stays in the compute dtype


@pytest.mark.parametrize(
    "axis,before,after",
    [(-1, -1, [-1]), ([2, 1], [2, 1], [1, 2]), ((1,), [1], [1]), (2, 2, [2])],
)
def test_layer_normalization_axis_config(axis, before, after):
    layer = K.layers.LayerNormalization(axis=axis)
    assert layer.get_config()["axis"] == before  # Keras 3.15's config, before and after build
    layer(np.ones((2, 3, 4), "float32"))
    assert layer.get_config()["axis"] == after
    rebuilt = K.layers.LayerNormalization.from_config(layer.get_config())
    x = np.random.default_rng(0).normal(size=(2, 3, 4)).astype("float32")
    np.testing.assert_allclose(tf.function(rebuilt)(x).numpy(), layer(x).numpy(), rtol=1e-6, atol=1e-6)


def test_only_mask_making_layers_take_the_mask_path():
    class MakesMask(K.layers.Layer):
        def compute_mask(self, inputs, previous_mask):
            return tf.reduce_any(tf.not_equal(inputs, 0), axis=-1)

    makers = [K.layers.Embedding(5, 2, mask_zero=True), K.layers.Masking(), K.layers.Lambda(lambda x: x, mask=1)]
    carriers = [
        K.layers.Add(),
        K.layers.Concatenate(),
        K.layers.GlobalAveragePooling1D(),
        K.layers.LSTM(2),
        K.layers.Bidirectional(K.layers.LSTM(2)),
        K.layers.Attention(),
        K.layers.Embedding(5, 2),
        K.layers.Lambda(lambda x: x),
    ]
    assert all(layer._tfunc_makes_masks for layer in makers + [MakesMask()])
    assert not any(layer._tfunc_makes_masks for layer in carriers)

    # a user's compute_mask that makes a mask from none still runs (eagerly, traced, in a model)
    def made(x):
        return get_keras_mask(MakesMask()(x))

    for mask in (made(tf.constant(X_PAD)), tf.function(made)(tf.constant(X_PAD))):
        np.testing.assert_array_equal(mask.numpy(), [[True, False, True]])
    i = K.Input((3, 2))
    assert get_keras_mask(MakesMask()(i)) is not None
