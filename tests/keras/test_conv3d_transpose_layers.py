"""Conv3D, Conv3DTranspose, Conv1DTranspose, grouped and channels-first convolutions and the 3-D
pooling layers against Keras 3.15: a model using all of them saved by Keras (with its outputs
and the weights after two SGD steps of ``fit``) loads here with Keras's outputs and trains to
Keras's weights, eagerly and inside ``tf.function``; tfunc's archive of it holds what Keras
writes.

NOTE: TensorFlow 2.21 computes a wrong bias gradient for a channels-first convolution whose
output's last axis is as long as its filters (Keras's bias add, broadcast from ``(filters,)``,
meets the last axis); the model here avoids that shape, so Keras's fit is the right reference.

The fixture (``conv3d_model.keras`` and ``conv3d_model.npz``) is written by Keras 3::

    python tests/keras/test_conv3d_transpose_layers.py
"""

import json
import os
import zipfile

import numpy as np
import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
ARCHIVE = os.path.join(HERE, "fixtures", "conv3d_model.keras")
RECORD = os.path.join(HERE, "fixtures", "conv3d_model.npz")


NEW_LAYERS = ("c3", "mp3", "c3t", "c3cf", "ap3", "c3tcf", "gap3", "gmp3", "c1", "c1t", "c2cf", "c1tcf")


def build(keras):
    """Two inputs: a 3-D volume through the 3-D layers, a sequence through the 1-D ones."""
    L = keras.layers
    vol = keras.Input((6, 5, 6, 4), name="vol")
    v = L.Conv3D(4, (3, 2, 3), padding="same", groups=2, activation="relu", name="c3")(vol)
    v = L.MaxPooling3D(2, padding="same", name="mp3")(v)  # (3, 3, 3, 4)
    v = L.Conv3DTranspose(3, 2, strides=(2, 1, 2), name="c3t")(v)  # (6, 4, 6, 3)
    v = L.Conv3D(3, 2, data_format="channels_first", name="c3cf")(v)  # channels 6 -> (3, 3, 5, 2)
    v = L.AveragePooling3D((1, 2, 2), strides=1, padding="same", data_format="channels_first", name="ap3")(v)
    v = L.Conv3DTranspose(2, 2, strides=2, data_format="channels_first", name="c3tcf")(v)
    v1 = L.GlobalAveragePooling3D(name="gap3")(v)
    v2 = L.GlobalMaxPooling3D(data_format="channels_first", name="gmp3")(v)
    seq = keras.Input((7, 4), name="seq")
    s = L.Conv1D(6, 3, padding="causal", groups=2, dilation_rate=2, name="c1")(seq)
    s = L.Conv1DTranspose(3, 3, strides=2, padding="same", name="c1t")(s)  # (14, 3)
    s = L.Conv2D(4, (2, 3), groups=1, data_format="channels_first", name="c2cf")(L.Reshape((2, 7, 3))(s))
    s = L.Conv1DTranspose(2, 2, strides=3, output_padding=1, data_format="channels_first", name="c1tcf")(
        L.Reshape((4, 6))(s)
    )
    out = L.Dense(2, name="head")(L.Concatenate()([v1, v2, L.Flatten()(s)]))
    return keras.Model([vol, seq], out)


def _inputs(rng):
    return {
        "vol": rng.normal(size=(3, 6, 5, 6, 4)).astype(np.float32),
        "seq": rng.normal(size=(3, 7, 4)).astype(np.float32),
    }


def make():
    import keras

    rng = np.random.default_rng(0)
    model = build(keras)
    x = _inputs(rng)
    y = rng.normal(size=(3, 2)).astype(np.float32)
    record = {**x, "target": y, "out": keras.ops.convert_to_numpy(model(x))}
    model.save(ARCHIVE)
    model.compile(optimizer=keras.optimizers.SGD(0.05), loss="mse")
    model.fit(x, y, batch_size=3, epochs=2, shuffle=False, verbose=0)
    for w in model.weights:
        record[f"fit/{w.path}"] = keras.ops.convert_to_numpy(w)
    np.savez(RECORD, **record)
    print("wrote", ARCHIVE, RECORD)


# --- the tests (tfunc) ----------------------------------------------------------------------------------


@pytest.fixture
def record():
    return np.load(RECORD)


def _x(record):
    return {"vol": record["vol"], "seq": record["seq"]}


def test_a_keras_archive_of_the_new_layers_loads_with_keras_outputs(record):
    import tfunc as tf

    model = tf.keras.models.load_model(ARCHIVE)
    np.testing.assert_allclose(model(_x(record)).numpy(), record["out"], rtol=1e-4, atol=1e-5)
    traced = tf.function(lambda vol, seq: model({"vol": vol, "seq": seq}))
    np.testing.assert_allclose(traced(record["vol"], record["seq"]).numpy(), record["out"], rtol=1e-4, atol=1e-5)


def test_fit_trains_the_new_layers_to_the_weights_keras_reaches(record):
    import tfunc as tf

    model = tf.keras.models.load_model(ARCHIVE)
    model.compile(optimizer=tf.keras.optimizers.SGD(0.05), loss="mse")
    model.fit(_x(record), record["target"], batch_size=3, epochs=2, shuffle=False, verbose=0)
    for w in model.weights:
        path = w.path
        np.testing.assert_allclose(w.numpy(), record[f"fit/{path}"], rtol=1e-4, atol=1e-5, err_msg=path)


def _keras_layer_configs():
    """Each layer's config as Keras wrote it in the archive."""
    with zipfile.ZipFile(ARCHIVE) as z:
        model = json.loads(z.read("config.json"))
    return {layer["config"]["name"]: layer["config"] for layer in model["config"]["layers"]}


def _comparable(config):
    """A config as JSON holds it; initializers by class (tfunc's GlorotUniform does not list
    Keras 3.15's input_axes and output_axes, which are None here), the dtype policy by name."""
    config = json.loads(json.dumps(config))
    for key, value in config.items():
        if key.endswith("_initializer") and isinstance(value, dict):
            config[key] = value["class_name"]
        if key == "dtype" and isinstance(value, dict):
            config[key] = value["config"]["name"]
    return config


def test_tfunc_writes_the_configs_and_weights_keras_writes(record, tmp_path):
    import tfunc as tf

    theirs = tf.keras.models.load_model(ARCHIVE)
    ours = build(tf.keras)
    ours.set_weights(theirs.get_weights())
    assert [w.name for w in ours.weights] == [w.name for w in theirs.weights]
    keras_configs = _keras_layer_configs()
    for name in NEW_LAYERS:
        assert _comparable(ours.get_layer(name).get_config()) == _comparable(keras_configs[name]), name
    ours.save(tmp_path / "m.keras")
    again = tf.keras.models.load_model(tmp_path / "m.keras")
    np.testing.assert_allclose(again(_x(record)).numpy(), record["out"], rtol=1e-4, atol=1e-5)


def test_groups_and_data_format_are_checked_as_keras_checks_them():
    import tfunc as tf

    L = tf.keras.layers
    with pytest.raises(ValueError, match="filters must be evenly divisible by the number of groups"):
        L.Conv2D(3, 3, groups=2)
    with pytest.raises(ValueError, match="input channels must be evenly divisible"):
        L.Conv3D(4, 2, groups=2)(np.ones((1, 3, 3, 3, 3), np.float32))
    with pytest.raises(ValueError, match="data_format"):
        L.Conv3DTranspose(2, 2, data_format="NDHWC")
    layer = L.Conv1D(4, 3, groups=2)
    layer(np.ones((1, 5, 6), np.float32))
    assert tuple(layer.kernel.shape) == (3, 3, 4)  # (kernel_size, in_channels / groups, filters), as Keras
    assert L.Conv3DTranspose(2, 3, 2, "same", "channels_first").data_format == "channels_first"  # Keras's order


if __name__ == "__main__":
    make()
