"""Keras 3.15's MelSpectrogram and STFTSpectrogram: configs and outputs against Keras's, eagerly
and inside tf.function, in models, tf.data and ``.keras`` archives, and STFTSpectrogram's
trainable kernels through ``fit`` (Keras's weights after two epochs). Keras's values come from
fixtures/make_image_augmentation_values.py (see test_image_augmentation_layers.py)."""

import os

import numpy as np
import pytest

import tfunc as tf

from .fixtures import augmentation_cases as cases
from .test_image_augmentation_layers import ARRAYS, FIXTURES, KERAS, _check, config_matches_keras

L = tf.keras.layers
AUDIO_CASES = ("mel", "stft")


@pytest.mark.parametrize("name", sorted(n for n in cases.CONFIGS if n.startswith(AUDIO_CASES)))
def test_configs_match_keras(name):
    config_matches_keras(name)


@pytest.mark.parametrize("name", sorted(n for n in cases.VALUES if n.startswith(AUDIO_CASES)))
def test_outputs_match_keras(name):
    make, x, kwargs = cases.VALUES[name]
    layer = make(tf.keras)
    _check(layer(x, **kwargs), name)
    _check(tf.function(lambda a: layer(a, **kwargs))(x), name)


def test_stft_kernels_are_trainable_weights_named_as_keras():
    layer = L.STFTSpectrogram("stft", 16, 8)
    layer.build((None, 40, 2))
    short = lambda ws: [w.name for w in ws]  # noqa: E731  (Keras 3's weight names)
    assert short(layer.trainable_weights) == ["real_kernel", "imag_kernel"]
    assert layer.trainable_weights[0].shape == (16, 1, 9)
    real_only = L.STFTSpectrogram("real", 16)
    real_only.build((None, 40, 1))
    assert short(real_only.weights) == ["real_kernel"]


@pytest.mark.parametrize("name", ["stft", "mel"])
def test_keras_archives_load_and_train_as_keras(name):
    model = tf.keras.models.load_model(os.path.join(FIXTURES, f"augmentation_{name}.keras"))
    x = cases.MODEL_INPUTS[name]
    np.testing.assert_allclose(model.predict(x, verbose=0), ARRAYS[f"archives/{name}/predict"], rtol=1e-4, atol=1e-3)
    if "trained" in KERAS["archives"][name]:
        model.compile(tf.keras.optimizers.SGD(0.01), "mse")
        model.fit(x, cases.TARGETS, batch_size=1, epochs=2, shuffle=False, verbose=0)
        for i, w in enumerate(model.weights):
            np.testing.assert_allclose(w.numpy(), ARRAYS[f"archives/{name}/trained/{i}"], rtol=1e-4, atol=1e-5)


def test_layers_in_datasets():
    mel = L.MelSpectrogram(64, 16, num_mel_bins=8)
    out = [b.numpy() for b in tf.data.Dataset.from_tensor_slices(cases.AUDIO).batch(2).map(mel)]
    np.testing.assert_allclose(out[0], mel(cases.AUDIO).numpy(), rtol=1e-5, atol=1e-4)
    stft = L.STFTSpectrogram("magnitude", 16, 8)
    out = [b.numpy() for b in tf.data.Dataset.from_tensor_slices(cases.SIGNALS).batch(2).map(stft)]
    np.testing.assert_allclose(out[0], stft(cases.SIGNALS).numpy(), rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize(
    "make, error, message",
    [
        (lambda: L.MelSpectrogram(fft_length=64, sequence_length=128), ValueError, "fft_length"),
        (lambda: L.STFTSpectrogram(mode="power"), ValueError, "mode"),
        (lambda: L.STFTSpectrogram(frame_length=16, frame_step=32), ValueError, "frame_step"),
        (lambda: L.STFTSpectrogram(frame_length=16, fft_length=8), ValueError, "fft_length"),
        (lambda: L.STFTSpectrogram(scaling="energy"), ValueError, "Scaling"),
        (lambda: L.STFTSpectrogram(padding="causal"), ValueError, "Padding"),
        (lambda: L.STFTSpectrogram(window="blackman"), ValueError, "window"),
    ],
)
def test_bad_arguments_raise(make, error, message):
    with pytest.raises(error, match=message):
        make()


def test_stft_needs_rank_3_float_signals():
    with pytest.raises(ValueError, match="expected ndim=3"):
        L.STFTSpectrogram(frame_length=16)(cases.AUDIO)
    with pytest.raises(TypeError, match="float"):
        L.STFTSpectrogram(frame_length=16)(np.ones((1, 40, 1), np.int32))
