"""Keras layers' shapes, arguments and errors as Keras 3.15's (expected values: TF 2.21 /
Keras 3.15 on the same calls)."""

import numpy as np
import pytest

import tfunc as tf

keras = tf.keras
L = keras.layers


def _tuple(shape):
    return tuple(shape.as_list()) if hasattr(shape, "as_list") else tuple(_tuple(s) for s in shape)


def test_compute_output_shape_keeps_unknown_dimensions():
    # TF 2.21 gives (None, None, 6) and (None, None, 4) (the fallback made the time axis 1)
    shape = L.Bidirectional(L.GRU(3, return_sequences=True)).compute_output_shape((None, None, 4))
    assert _tuple(shape) == (None, None, 6)
    assert _tuple(L.Lambda(lambda z: z[:, :5]).compute_output_shape((None, None, 4))) == (None, None, 4)


def test_compute_output_shape_lists_returned_states():
    # TF 2.21 gives ((2, 3), (2, 3), (2, 3)), ((None, None, 3), (None, 3)) and five shapes
    assert _tuple(L.LSTM(3, return_state=True).compute_output_shape((2, 5, 4))) == ((2, 3),) * 3
    gru = L.GRU(3, return_sequences=True, return_state=True)
    assert _tuple(gru.compute_output_shape((None, None, 4))) == ((None, None, 3), (None, 3))
    bi = L.Bidirectional(L.LSTM(3, return_state=True)).compute_output_shape((2, 5, 4))
    assert _tuple(bi) == ((2, 6),) + ((2, 3),) * 4


def test_compute_output_shape_of_a_user_layer_without_one_raises():
    class Doubler(L.Layer):
        def call(self, x):
            return x * 2

    # TF 2.21 raises NotImplementedError (the fallback made up (None, 1, 4))
    with pytest.raises(NotImplementedError, match="compute_output_shape"):
        Doubler().compute_output_shape((None, None, 4))
    assert Doubler()(np.ones((1, 2), np.float32)).shape == (1, 2)


def test_merge_compute_output_shape_expands_a_lower_rank_input():
    # TF 2.21 gives (2, 3, 4), (2, 1, 4) and (2, 3, 4) (the shapes raised IncompatibleShapesError)
    assert _tuple(L.Add().compute_output_shape([(2, 3, 4), (2, 4)])) == (2, 3, 4)
    assert _tuple(L.Maximum().compute_output_shape([(2, 1, 4), (2, 4)])) == (2, 1, 4)
    assert _tuple(L.Multiply().compute_output_shape([(None, 4), (2, 3, 1)])) == (2, 3, 4)


def test_masking_an_integer_input():
    x = np.array([[[0, 0], [1, 2], [0, 0]]], np.int32)
    out = L.Masking()(x)
    # TF 2.21 gives int32 [[[0,0],[1,2],[0,0]]] with the mask [[False, True, False]] (tfunc raised TypeError)
    assert out.dtype == tf.int32
    np.testing.assert_array_equal(out.numpy(), x)
    np.testing.assert_array_equal(out._keras_mask.numpy(), [[False, True, False]])


@pytest.mark.parametrize("units", [2.5, "3", 3.0])
def test_dense_refuses_units_that_are_not_integers(units):
    # TF 2.21 raises ValueError ... expected a positive integer (tfunc truncated 2.5 to 2)
    with pytest.raises(ValueError, match="expected a positive integer"):
        L.Dense(units)


@pytest.mark.parametrize(
    "cls, shape, kwargs, expected_shape, expected_sum",
    [
        # Keras 3.15 on TF 2.21, weights from RandomState(1), input from RandomState(0)
        ("Conv2DTranspose", (None, None, 3), dict(strides=2, padding="same"), (2, 10, 10, 4), 1432.009765625),
        (
            "Conv2DTranspose",
            (None, None, 3),
            dict(strides=3, padding="valid", output_padding=1),
            (2, 16, 16, 4),
            2090.5342,
        ),
        ("Conv1DTranspose", (None, 3), dict(strides=2, padding="valid"), (2, 11, 4), 125.49379),
        ("Conv3DTranspose", (None, 4, None, 2), dict(strides=(1, 2, 2), padding="same"), (2, 5, 8, 10, 4), 8868.2363),
    ],
)
def test_transposed_convolutions_take_sizes_known_only_at_run_time(cls, shape, kwargs, expected_shape, expected_sum):
    inp = keras.Input(shape)
    layer = getattr(keras.layers, cls)(4, 3, **kwargs)
    model = keras.Model(inp, layer(inp))
    x = np.random.RandomState(0).rand(2, *[5 if d is None else d for d in shape]).astype("float32")
    layer.set_weights([np.random.RandomState(1).rand(*v.shape).astype("float32") for v in layer.weights])
    y = model(x).numpy()
    assert y.shape == expected_shape
    np.testing.assert_allclose(y.sum(), expected_sum, rtol=1e-5)
    np.testing.assert_allclose(model.predict(x, verbose=0), y, atol=1e-5)


@pytest.mark.parametrize(
    "interpolation, expected_sum",
    [
        # Keras 3.15 on TF 2.21: UpSampling2D((2, 3)) of RandomState(0).rand(2, 3, 5, 2) in a model on
        # Input((None, None, 2))
        ("bilinear", 185.9087677001953),
        ("nearest", 185.9087677001953),
        ("bicubic", 186.2465362548828),
        ("lanczos3", 186.18374633789062),
        ("lanczos5", 186.0013885498047),
        ("area", 185.9087677001953),
    ],
)
def test_upsampling2d_every_keras_interpolation_on_run_time_sizes(interpolation, expected_sum):
    inp = keras.Input((None, None, 2))
    model = keras.Model(inp, keras.layers.UpSampling2D((2, 3), interpolation=interpolation)(inp))
    assert model.output.shape == (None, None, None, 2)
    x = np.random.RandomState(0).rand(2, 3, 5, 2).astype("float32")
    y = model(x).numpy()
    assert y.shape == (2, 6, 15, 2)
    np.testing.assert_allclose(y.sum(), expected_sum, rtol=1e-6)
    np.testing.assert_array_equal(model.predict(x, verbose=0), y)


def test_einsum_dense_keeps_a_none_of_output_shape_in_the_symbolic_shape():
    # Keras 3.15: (None, None, 2, 5) on Input((6, 3)); a real call has the real size
    layer = keras.layers.EinsumDense("abc,cde->abde", output_shape=(None, 2, 5))
    assert layer(keras.Input((6, 3))).shape == (None, None, 2, 5)
    assert layer(np.ones((2, 6, 3), "float32")).shape == (2, 6, 2, 5)
