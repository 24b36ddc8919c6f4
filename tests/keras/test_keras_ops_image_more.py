"""keras.ops.image's extract_patches (2-D and 3-D), extract_patches_3d, perspective_transform,
scale_and_translate, elastic_transform, sobel_edges, ssim and resize's 'bicubic', 'area',
'lanczos3' and 'lanczos5' (with antialias) against Keras 3.15 on its TensorFlow backend (values
recorded in ``fixtures/keras_ops_image_more_values.npz`` by
``fixtures/make_keras_ops_image_more_values.py``), eagerly and inside ``tf.function``; the
Resizing layer's new interpolations; argument checks; functional models."""

import json
import os

import numpy as np
import pytest

import tfunc as tf
from tfunc import keras
from tfunc.api import random_ops

from .fixtures.make_keras_ops_image_more_values import CASES, inputs, noise_for

image = keras.ops.image
RECORD_PATH = os.path.join(os.path.dirname(os.path.abspath(__file__)), "fixtures", "keras_ops_image_more_values.npz")


def _load():
    with np.load(RECORD_PATH) as f:
        values, index = f["values"], json.loads(str(f["index"]))
    return {
        key: values[offset : offset + int(np.prod(shape))].reshape(shape).astype(dtype)
        for key, (offset, shape, dtype) in index.items()
    }


RECORD = _load()
DATA = inputs()


@pytest.fixture
def fixed_noise(monkeypatch):
    """elastic_transform's noise replaced by the recorded one (as the generator did in Keras)."""

    def stateless_normal(shape, seed, mean=0.0, stddev=1.0, dtype=tf.float32, **kwargs):
        return tf.cast(noise_for(DATA, shape), dtype) * stddev + mean

    monkeypatch.setattr(random_ops, "stateless_normal", stateless_normal)


def test_fixture_inputs_are_the_recorded_ones():
    for key, value in DATA.items():
        np.testing.assert_array_equal(RECORD[key], value)


@pytest.mark.parametrize("traced", [False, True], ids=["eager", "traced"])
@pytest.mark.parametrize("name", sorted(CASES))
def test_matches_keras(name, traced, fixed_noise):
    fn = CASES[name]
    got = tf.function(lambda: fn(image, DATA))() if traced else fn(image, DATA)
    want = RECORD[name]
    assert tuple(got.shape) == want.shape
    assert got.dtype.name == want.dtype.name
    np.testing.assert_allclose(got.numpy(), want, rtol=1e-5, atol=1e-5)


def test_elastic_transform_is_deterministic_given_a_seed():
    x = DATA["x"]
    a, b = image.elastic_transform(x, seed=11), image.elastic_transform(x, seed=11)
    assert a.shape == x.shape and a.dtype == tf.float32
    np.testing.assert_array_equal(a.numpy(), b.numpy())
    assert not np.allclose(a.numpy(), image.elastic_transform(x, seed=12).numpy())
    assert not np.allclose(a.numpy(), x)
    # no displacement: every pixel read at its own place (Keras gives the image back too)
    for fill_mode in ("reflect", "constant", "wrap", "nearest"):
        same = image.elastic_transform(x, alpha=0.0, seed=11, fill_mode=fill_mode)
        np.testing.assert_array_equal(same.numpy(), x)
    x64 = x[0].astype("float64")
    np.testing.assert_array_equal(image.elastic_transform(x64, alpha=0.0, interpolation="nearest").numpy(), x64)


def test_elastic_transform_warp_against_numpy(fixed_noise):
    """The math with the noise fixed: noise * sigma blurred by the normalized Gaussian of sigma
    (size 6 sigma | 1, zero padded), each pixel read bilinearly at its grid point plus alpha
    times that field (the same field for both directions), reflected at the edges."""
    x, alpha, sigma = DATA["x"].astype(np.float64), 3.0, 1.5
    got = image.elastic_transform(DATA["x"], alpha=alpha, sigma=sigma, seed=3).numpy()
    n, h, w, c = x.shape
    size = 6 * int(sigma) | 1
    t = np.arange(size) - (size - 1) / 2
    g = np.exp(-0.5 * (t / sigma) ** 2)
    g /= g.sum()
    noise = np.pad(noise_for(DATA, (n, h, w)) * sigma, ((0, 0), (size // 2,) * 2, (size // 2,) * 2))
    field = np.zeros((n, h, w))
    for i in range(size):
        for j in range(size):
            field += g[i] * g[j] * noise[:, i : i + h, j : j + w]
    rows, cols = np.meshgrid(np.arange(h), np.arange(w), indexing="ij")

    def reflect(i, size):  # ... c b a | a b c | c b a ...
        i = np.abs(i) % (2 * size)
        return np.where(i < size, i, 2 * size - i - 1)

    want = np.zeros_like(x)
    for b in range(n):
        y, xx = rows + alpha * field[b], cols + alpha * field[b]
        y0, x0 = np.floor(y).astype(int), np.floor(xx).astype(int)
        for dy_, wy in ((0, 1 - (y - y0)), (1, y - y0)):
            for dx_, wx in ((0, 1 - (xx - x0)), (1, xx - x0)):
                picked = x[b, reflect(y0 + dy_, h), reflect(x0 + dx_, w)]
                want[b] += (wy * wx)[..., None] * picked
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-5)


def test_resize_gradient_through_keras_op():
    x = tf.constant(DATA["x"])
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = tf.reduce_sum(image.resize(x, (4, 6), interpolation="lanczos3", antialias=True))
    # every output distributes weights summing to one over the inputs
    np.testing.assert_allclose(tape.gradient(y, x).numpy().sum(), 2 * 4 * 6 * 3, rtol=1e-5)


def test_resizing_layer_takes_keras_interpolations():
    layer = keras.layers.Resizing(4, 6, interpolation="lanczos3", antialias=True)
    np.testing.assert_allclose(layer(DATA["x"]).numpy(), RECORD["resize_lanczos3_antialias"], rtol=1e-5, atol=1e-5)
    config = layer.get_config()
    assert (config["interpolation"], config["antialias"]) == ("lanczos3", True)
    again = keras.layers.Resizing.from_config(config)
    np.testing.assert_allclose(again(DATA["x"]).numpy(), RECORD["resize_lanczos3_antialias"], rtol=1e-5, atol=1e-5)
    uint8 = keras.layers.Resizing(5, 14, interpolation="lanczos3")(DATA["xu"])
    np.testing.assert_array_equal(uint8.numpy(), RECORD["resize_uint8_lanczos3"])
    with pytest.raises(ValueError, match="interpolation"):
        keras.layers.Resizing(2, 2, interpolation="gaussian")  # tf.image.resize's, not Keras's


def test_argument_checks_are_keras():
    x, sp = DATA["x"], DATA["sp"]
    with pytest.raises(TypeError, match="Expected an int or a tuple"):
        image.extract_patches(x, "3")
    with pytest.raises(ValueError, match="tuple of length 2 or 3"):
        image.extract_patches(x, (1, 2, 3, 4))
    with pytest.raises(ValueError, match="Invalid `strides`"):
        image.extract_patches_3d(DATA["v"], 2, strides=(1, 2))
    with pytest.raises(ValueError, match="Invalid start_points shape"):
        image.perspective_transform(x, sp[:3], sp)
    with pytest.raises(ValueError, match="same shape"):
        image.perspective_transform(x, sp, np.stack([sp, sp]))
    with pytest.raises(ValueError, match="interpolation"):
        image.perspective_transform(x, sp, sp, interpolation="bicubic")
    with pytest.raises(ValueError, match="method"):
        image.scale_and_translate(x, (2, 4, 4, 3), [1.0, 1.0], [0.0, 0.0], (1, 2), "gaussian")
    with pytest.raises(ValueError, match="fill_mode"):
        image.elastic_transform(x, fill_mode="mirror")
    with pytest.raises(ValueError, match="interpolation"):
        image.elastic_transform(x, interpolation="bicubic")
    with pytest.raises(ValueError, match="image1 rank"):
        image.ssim(x[0, 0], x[0, 0])
    with pytest.raises(ValueError, match="interpolation"):
        image.resize(x, (2, 2), interpolation="gaussian")


def test_keras_tensors_record_operations():
    inputs = keras.Input((9, 11, 3))
    x = DATA["x"]
    for fn, name, shape in (
        (lambda t: image.extract_patches(t, (2, 3)), "ExtractPatches", (None, 4, 3, 18)),
        (lambda t: image.perspective_transform(t, DATA["sp"], DATA["ep"]), "PerspectiveTransform", (None, 9, 11, 3)),
        (lambda t: image.resize(t, (4, 6), interpolation="bicubic"), "Resize", (None, 4, 6, 3)),
    ):
        outputs = fn(inputs)
        model = keras.Model(inputs, outputs)
        assert tuple(outputs.shape) == shape
        assert model.get_config()["layers"][1]["class_name"] == name
        np.testing.assert_allclose(model(x).numpy(), fn(x).numpy(), rtol=1e-6, atol=1e-6)
