"""ConvLSTM1D / ConvLSTM2D / ConvLSTM3D against Keras 3.15: weights set to the same values give
TensorFlow 2.21's outputs (expected values computed there), eagerly, in ``fit`` and inside a
``tf.function`` with a time axis known only at run time."""

import numpy as np
import pytest

import tfunc as tf

keras = tf.keras


def _weights(layer):
    """Deterministic weights, the same that produced the expected values in Keras."""
    return [
        np.cos(np.arange(np.prod(w.shape)) * 0.7 + i).reshape(w.shape).astype("float32") * 0.5
        for i, w in enumerate(layer.get_weights())
    ]


X2 = np.sin(np.arange(27) * 0.9).reshape(1, 3, 3, 3, 1).astype("float32")


def _layer(cls, x, **kwargs):
    layer = cls(**kwargs)
    layer(x)
    layer.set_weights(_weights(layer))
    return layer


def test_conv_lstm2d_weights_names_and_outputs():
    layer = _layer(keras.layers.ConvLSTM2D, X2, filters=1, kernel_size=2, padding="same")
    # Keras 3.15: 'conv_lstm2d/conv_lstm_cell/kernel' (2, 2, 1, 4), recurrent_kernel (2, 2, 1, 4), bias (4,)
    assert layer.name.startswith("conv_lstm2d")
    assert [w.path.split("/", 1)[1] for w in layer.weights] == [
        "conv_lstm_cell/kernel",
        "conv_lstm_cell/recurrent_kernel",
        "conv_lstm_cell/bias",
    ]
    assert [tuple(w.shape) for w in layer.weights] == [(2, 2, 1, 4), (2, 2, 1, 4), (4,)]
    # TF 2.21 gives:
    expected = [-0.133453, -0.135412, -0.089647, -0.113236, -0.109558, -0.125346, -0.122918, -0.120516, -0.120751]
    np.testing.assert_allclose(np.asarray(layer(X2)).ravel(), expected, atol=2e-5)


def test_conv_lstm2d_mask_keeps_the_states():
    layer = _layer(keras.layers.ConvLSTM2D, X2, filters=1, kernel_size=2, padding="same")
    # TF 2.21 gives:
    expected = [-0.114708, -0.111155, -0.098419, -0.108462, -0.113903, -0.116208, -0.100049, -0.098911, -0.111253]
    out = layer(X2, mask=np.array([[True, False, True]]))
    np.testing.assert_allclose(np.asarray(out).ravel(), expected, atol=2e-5)


def test_conv_lstm2d_in_a_function_with_an_unknown_time_axis():
    layer = _layer(
        keras.layers.ConvLSTM2D, X2, filters=1, kernel_size=2, padding="same", return_sequences=True, go_backwards=True
    )
    fn = tf.function(lambda z: layer(z), input_signature=[tf.TensorSpec([None, None, 3, 3, 1], tf.float32)])
    out = np.asarray(fn(X2))
    assert out.shape == (1, 3, 3, 3, 1)
    # TF 2.21 gives:
    np.testing.assert_allclose(out[:, :, 0, 0, 0].ravel(), [-0.098581, -0.127212, -0.117795], atol=2e-5)


def test_conv_lstm2d_dropout_draws_keras_masks():
    layer = _layer(
        keras.layers.ConvLSTM2D,
        X2,
        filters=1,
        kernel_size=2,
        padding="same",
        dropout=0.5,
        recurrent_dropout=0.5,
        seed=3,
    )
    # TF 2.21 gives (four masks per gate for the inputs, then four for the states):
    expected = [-0.135008, -0.111999, -0.015776, -0.039449, -0.051512, -0.07803, -0.133066, -0.036667, -0.094208]
    np.testing.assert_allclose(np.asarray(layer(X2, training=True)).ravel(), expected, atol=2e-5)


def test_conv_lstm2d_stateful_carries_the_states():
    layer = _layer(keras.layers.ConvLSTM2D, X2, filters=1, kernel_size=2, stateful=True)
    layer.reset_state()
    layer(X2)
    # TF 2.21 gives:
    np.testing.assert_allclose(np.asarray(layer(X2)).ravel(), [-0.13948, -0.133506, -0.122043, -0.11272], atol=2e-5)


def test_conv_lstm2d_fit_losses():
    keras.utils.set_random_seed(0)
    inp = keras.Input((3, 3, 3, 1))
    model = keras.Model(inp, keras.layers.Flatten()(keras.layers.ConvLSTM2D(1, 2, padding="same")(inp)))
    model.set_weights(_weights(model))
    model.compile(optimizer=keras.optimizers.SGD(0.5), loss="mse")
    history = model.fit(X2, np.ones((1, 9), "float32"), epochs=3, verbose=0)
    # TF 2.21 gives:
    np.testing.assert_allclose(history.history["loss"], [1.2522902, 1.0966285, 0.9658715], rtol=1e-5)


def test_conv_lstm2d_config_and_keras_file_round_trip(tmp_path):
    layer = keras.layers.ConvLSTM2D(1, 2)
    config = layer.get_config()
    # Keras 3.15's config keys
    keras_keys = (
        "name trainable dtype return_sequences return_state go_backwards stateful unroll zero_output_for_mask "
        "filters kernel_size strides padding data_format dilation_rate activation recurrent_activation use_bias "
        "kernel_initializer recurrent_initializer bias_initializer unit_forget_bias kernel_regularizer "
        "recurrent_regularizer bias_regularizer activity_regularizer kernel_constraint recurrent_constraint "
        "bias_constraint dropout recurrent_dropout seed"
    )
    assert set(config) == set(keras_keys.split())
    assert config["kernel_size"] == (2, 2) and config["unit_forget_bias"] is True and config["seed"] is None
    assert "cell" not in config
    inp = keras.Input((3, 3, 3, 1))
    model = keras.Model(inp, keras.layers.ConvLSTM2D(2, 2, return_sequences=True)(inp))
    path = str(tmp_path / "m.keras")
    model.save(path)
    loaded = keras.models.load_model(path)
    np.testing.assert_allclose(np.asarray(loaded(X2)), np.asarray(model(X2)))


def test_conv_lstm1d_strides_and_states():
    x = np.sin(np.arange(20) * 0.7).reshape(1, 2, 5, 2).astype("float32")
    layer = _layer(keras.layers.ConvLSTM1D, x, filters=2, kernel_size=3, strides=2, return_state=True)
    out, h, c = (np.asarray(t).ravel() for t in layer(x))
    # TF 2.21 gives:
    np.testing.assert_allclose(out, [-0.130037, -0.272539, 0.058801, 0.118132], atol=2e-5)
    np.testing.assert_allclose(h, out)
    np.testing.assert_allclose(c, [-0.464944, -0.669454, 0.067267, 0.149664], atol=2e-5)


def test_conv_lstm3d_channels_first():
    x = np.sin(np.arange(24) * 0.7).reshape(1, 2, 1, 2, 2, 3).astype("float32")
    layer = _layer(keras.layers.ConvLSTM3D, x, filters=1, kernel_size=2, padding="same", data_format="channels_first")
    out = np.asarray(layer(x))
    assert out.shape == (1, 1, 2, 2, 3)
    # TF 2.21 gives:
    expected = [
        -0.116103,
        -0.113772,
        -0.105847,
        -0.087953,
        -0.072218,
        -0.097079,
        -0.11701,
        -0.107787,
        -0.103193,
        -0.120076,
        -0.114036,
        -0.115878,
    ]
    np.testing.assert_allclose(out.ravel(), expected, atol=2e-5)


def test_conv_lstm_refuses_strides_with_dilation_and_wrong_ranks():
    with pytest.raises(ValueError, match="dilation_rate"):
        keras.layers.ConvLSTM2D(1, 2, strides=2, dilation_rate=2)
    with pytest.raises(ValueError, match="expected ndim=5"):
        keras.layers.ConvLSTM2D(1, 2)(np.zeros((1, 2, 3, 1), "float32"))
