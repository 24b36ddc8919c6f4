"""Keras 3.15's image augmentation layers (RandomGrayscale ... AugMix, RandAugment, Pipeline):
configs, deterministic outputs (pinned random factors, and Keras's ``transform_images`` with a
fixed transformation) against Keras's, eagerly and inside tf.function; the random draws'
statistics; models, tf.data and ``.keras`` archives.

Keras's values are in fixtures/image_augmentation_values.{json,npz} and the archives
fixtures/augmentation_*.keras, written from fixtures/augmentation_cases.py by
fixtures/make_image_augmentation_values.py (whose ``--verify`` loads tfunc's archives in Keras)."""

import json
import os
import random

import numpy as np
import pytest

import tfunc as tf
from tfunc.keras.layers import image_augmentation as aug
from tfunc.keras.layers import image_mixing as mix

from .fixtures import augmentation_cases as cases

FIXTURES = os.path.join(os.path.dirname(__file__), "fixtures")
with open(os.path.join(FIXTURES, "image_augmentation_values.json")) as _f:
    KERAS = json.load(_f)
ARRAYS = np.load(os.path.join(FIXTURES, "image_augmentation_values.npz"))
AUDIO = ("mel", "stft")  # (test_audio_preprocessing_layers.py)
IMG, U8 = cases.IMG, cases.U8
L = tf.keras.layers


def _check(got, name, section="values"):
    assert got.dtype.name == KERAS[section][name]
    np.testing.assert_allclose(got.numpy(), ARRAYS[f"{section}/{name}"], rtol=1e-4, atol=2e-3)


def config_matches_keras(name):
    """``CONFIGS[name]``'s config equals Keras's (its automatic names aside) and reloads."""
    layer = cases.CONFIGS[name](tf.keras)
    got, want = json.loads(json.dumps(layer.get_config())), dict(KERAS["configs"][name])
    if not layer.name.isalpha():  # the case names no layer: the counts of automatic names differ
        got.pop("name"), want.pop("name")
    assert got == want
    if name == "shear_args":  # its x_factor (-0.3, 0.3) fails its own check, in Keras too
        with pytest.raises(ValueError, match="x_factor"):
            type(layer).from_config(layer.get_config())
        return
    again = type(layer).from_config(layer.get_config())
    assert again.get_config() == layer.get_config()


@pytest.mark.parametrize("name", sorted(n for n in cases.CONFIGS if not n.startswith(AUDIO)))
def test_configs_match_keras(name):
    config_matches_keras(name)


@pytest.mark.parametrize("name", sorted(n for n in cases.VALUES if not n.startswith(AUDIO)))
def test_outputs_match_keras(name):
    make, x, kwargs = cases.VALUES[name]
    layer = make(tf.keras)
    _check(layer(x, **kwargs), name)
    _check(tf.function(lambda a: layer(a, **kwargs))(x), name)


def _transform(name, x, t):
    """tfunc's counterpart of Keras's ``transform_images(x, t)`` for ``TRANSFORMS[name]``."""
    col = lambda v: tf.constant(np.asarray(v, np.float32).reshape(-1, 1, 1, 1))  # noqa: E731
    if name.startswith("shear"):
        layer = cases.TRANSFORMS[name][0](tf.keras)
        s = tf.constant(t["shear_factor"])
        return mix.shear(x, s[:, 0], s[:, 1], layer.interpolation, layer.fill_mode, layer.fill_value)
    if name == "perspective":
        warped = mix.perspective(x, tf.constant(t["start_points"]), tf.constant(t["end_points"]), "bilinear", 0.0)
        return tf.where(t["apply_perspective"][:, None, None, None], warped, x)
    if name == "hue":
        return aug.hue_shift(x, tf.reshape(tf.constant(t["factor"]), [-1, 1, 1]), (0, 255))
    if name == "saturation":
        return aug.saturate(x, tf.reshape(tf.constant(t["factor"]), [-1, 1, 1]), (0, 255))  # (the multipliers)
    if name == "sharpness":
        return aug.sharpen(x, col(t["factor"] * 2), (0, 255))
    if name == "posterization":
        return aug.posterize(x, col(t["shift_factor"]), (0, 255))
    if name == "solarization":
        return aug.solarize(x, col(t["additions"]), col(t["thresholds"]), (0, 255))
    return aug.degenerate(x, col(t["factor"]), (0, 255))  # color_degeneration


@pytest.mark.parametrize("name", sorted(cases.TRANSFORMS))
def test_transformations_match_keras(name):
    _, x, t = cases.TRANSFORMS[name]
    x = tf.constant(x)
    _check(_transform(name, x, t), name, "transforms")
    _check(tf.function(lambda a: _transform(name, a, t))(x), name, "transforms")


# every image layer, with its random factors wide open (and value_range (0, 255))
RANDOM = {
    "RandomGrayscale": lambda: L.RandomGrayscale(seed=1),
    "RandomHue": lambda: L.RandomHue(0.5, seed=1),
    "RandomSaturation": lambda: L.RandomSaturation(0.5, seed=1),
    "RandomSharpness": lambda: L.RandomSharpness(0.8, seed=1),
    "RandomPosterization": lambda: L.RandomPosterization(4, seed=1),
    "RandomColorDegeneration": lambda: L.RandomColorDegeneration(0.8, seed=1),
    "RandomInvert": lambda: L.RandomInvert(seed=1),
    "RandomGaussianBlur": lambda: L.RandomGaussianBlur(seed=1),
    "RandomErasing": lambda: L.RandomErasing(seed=1),
    "RandomColorJitter": lambda: L.RandomColorJitter(
        brightness_factor=0.2, contrast_factor=0.3, saturation_factor=0.3, hue_factor=0.2, seed=1
    ),
    "Solarization": lambda: L.Solarization(0.5, 0.5, seed=1),
    "Equalization": lambda: L.Equalization(),
    "RandomShear": lambda: L.RandomShear(0.3, 0.3, seed=1),
    "RandomPerspective": lambda: L.RandomPerspective(seed=1),
    "MixUp": lambda: L.MixUp(seed=1),
    "CutMix": lambda: L.CutMix(seed=1),
    "AugMix": lambda: L.AugMix(seed=1),
    "RandAugment": lambda: L.RandAugment(seed=1),
    "Pipeline": lambda: L.Pipeline([L.RandomInvert(seed=1), L.RandomGrayscale(seed=2)]),
}


@pytest.mark.parametrize("name", sorted(RANDOM))
def test_inference_is_the_identity_in_the_compute_dtype(name):
    layer = RANDOM[name]()
    for x in (IMG, IMG[0], U8):
        want = x.astype(np.float32)
        np.testing.assert_array_equal(layer(x, training=False).numpy(), want)
        np.testing.assert_array_equal(tf.function(lambda a: layer(a, training=False))(x).numpy(), want)
    model = tf.keras.Sequential([tf.keras.Input((5, 6, 3)), RANDOM[name]()])
    np.testing.assert_array_equal(model.predict(IMG, verbose=0), IMG)


@pytest.mark.parametrize("data_format", ["channels_last", "channels_first"])
@pytest.mark.parametrize("name", sorted(set(RANDOM) - {"Pipeline"}))
def test_training_outputs_keep_shape_and_range_and_repeat_with_the_seed(name, data_format):
    x = IMG if data_format == "channels_last" else cases.CF
    outs = []
    for _ in range(2):
        random.seed(3)  # AugMix picks its operations in Python, as Keras
        made = [RANDOM[name]() for _ in range(3)]  # the same seed: the same draws, as Keras's
        for layer in made:
            layer.data_format = data_format
        traced = tf.function(lambda a, layer=made[1]: layer(a))
        outs.append([made[0](x).numpy(), traced(x).numpy(), made[2](x[0]).numpy()])
    eager, traced, single = outs[0]
    assert eager.shape == x.shape and traced.shape == x.shape and single.shape == x[0].shape
    for a, b in zip(*outs):
        np.testing.assert_array_equal(a, b)  # a seeded layer's draws repeat in a new layer
    if name not in ("RandomSaturation", "RandomErasing", "RandomGaussianBlur"):  # (may leave [0, 255])
        assert eager.min() >= -1e-3 and eager.max() <= 255 + 1e-3
    layer = RANDOM[name]()
    layer.data_format = data_format
    draws = [layer(x).numpy() for _ in range(4)]
    if name not in ("Equalization",):  # random: the calls differ
        assert any(not np.array_equal(draws[0], d) for d in draws[1:])


BATCH = np.random.RandomState(1).uniform(0, 255, size=(64, 4, 5, 3)).astype(np.float32)


def _per_image(out, options):
    """For each image, which of ``options`` (arrays like ``out``) it equals."""
    return np.stack([np.all(np.isclose(out, o, atol=1e-3), axis=(1, 2, 3)) for o in options])


@pytest.mark.parametrize("traced", [False, True])
def test_the_coin_flipping_layers_apply_with_their_probability(traced):
    gray = np.repeat(BATCH @ np.float32([0.2989, 0.5870, 0.1140]), 3).reshape(BATCH.shape)
    for layer, changed in (
        (L.RandomGrayscale(0.5, seed=3), gray),
        (L.RandomInvert(0.5, seed=3), 255 - BATCH),  # p uniform in [0, 0.5]: 1/4 on average
        (L.RandomGaussianBlur((0.5, 0.5), sigma=(0.5, 0.5), seed=3), None),
    ):
        call = tf.function(lambda a, layer=layer: layer(a)) if traced else layer
        out = call(BATCH).numpy()
        same, hit = _per_image(out, [BATCH, BATCH if changed is None else changed])
        if changed is None:
            hit = ~same
        assert np.all(same | hit)
        low, high = (4, 28) if isinstance(layer, L.RandomInvert) else (16, 48)
        assert low < hit.sum() < high, (layer.name, hit.sum())


def test_random_erasing_fills_one_box_per_image():
    out = L.RandomErasing((1.0, 1.0), scale=(0.1, 0.5), fill_value=-5.0, seed=2)(BATCH).numpy()
    for img in out:
        rows, cols = np.nonzero(np.all(img == 0.0, axis=-1))  # -5 clipped to value_range
        assert rows.size > 0
        box = img[rows.min() : rows.max() + 1, cols.min() : cols.max() + 1]
        assert np.all(box == 0.0) and rows.size == box.shape[0] * box.shape[1]


def test_random_posterization_keeps_the_high_bits():
    out = L.RandomPosterization((2, 5), seed=1)(BATCH).numpy()
    v = np.floor(BATCH)
    options = [np.floor(v / 2.0**s) * 2.0**s for s in (6, 5, 4)]  # 2, 3 or 4 bits: [low, high)
    assert np.all(np.any(_per_image(out, options), axis=0))


def test_random_hue_and_saturation_draw_per_image():
    x = np.broadcast_to(BATCH[:1], BATCH.shape)
    for layer in (L.RandomHue(0.5, seed=1), L.RandomSaturation(0.5, seed=1), L.RandomShear(0.5, 0.5, seed=1)):
        out = layer(x).numpy()
        assert len({o.tobytes() for o in out}) > 25, layer.name  # (saturation: f < 0 greys them all alike)


@pytest.mark.parametrize("traced", [False, True])
def test_mix_up_mixes_images_and_labels_alike(traced):
    labels = np.eye(64, dtype=np.float32)  # each image its own class: the labels give the weights
    layer = L.MixUp(alpha=0.5, seed=4)
    call = tf.function(layer) if traced else layer
    out = call({"images": BATCH, "labels": labels})
    images, mixed = out["images"].numpy(), out["labels"].numpy()
    np.testing.assert_allclose(mixed.sum(axis=1), 1.0, rtol=1e-5)
    np.testing.assert_allclose(images, np.einsum("ij,jhwc->ihwc", mixed, BATCH), rtol=1e-3, atol=1e-2)
    w = np.diag(mixed)
    assert 0 < w.std() and 0 <= w.min() and w.max() <= 1


@pytest.mark.parametrize("data_format", ["channels_last", "channels_first"])
def test_cut_mix_pastes_a_box_and_weighs_the_labels_by_its_area(data_format):
    labels = np.eye(64, dtype=np.float32)
    x = BATCH if data_format == "channels_last" else BATCH.transpose(0, 3, 1, 2)
    out = L.CutMix(seed=2, data_format=data_format)({"images": x, "labels": labels})
    images, mixed = out["images"].numpy(), out["labels"].numpy()
    if data_format == "channels_first":
        images = images.transpose(0, 2, 3, 1)
    np.testing.assert_allclose(mixed.sum(axis=1), 1.0, rtol=1e-5)
    for i in range(64):
        others = [j for j in np.nonzero(mixed[i])[0] if j != i]
        own = np.all(images[i] == BATCH[i], axis=-1)
        if others:  # the box's pixels come from one other image
            assert np.all(images[i][~own] == BATCH[others[0]][~own])
        assert abs(own.mean() - mixed[i, i]) < 0.5  # (the weight is the real-valued box area)
    np.testing.assert_array_equal(L.CutMix(seed=1)(IMG[0]).numpy(), IMG[0])  # one image: unchanged


def test_aug_mix_and_rand_augment_stay_in_value_range():
    for layer in (L.AugMix((0, 1), seed=1), L.RandAugment((0, 1), num_ops=3, seed=1)):
        out = layer(BATCH / 255.0).numpy()
        assert out.shape == BATCH.shape and out.min() >= -1e-4 and out.max() <= 1 + 1e-4
        assert not np.allclose(out, BATCH / 255.0)


@pytest.mark.parametrize("name", sorted(RANDOM))
def test_layers_in_models_and_datasets(name):
    model = tf.keras.Sequential(
        [tf.keras.Input((5, 6, 3)), RANDOM[name](), L.Flatten(), L.Dense(2, kernel_initializer="zeros")]
    )
    model.compile("sgd", "mse")
    history = model.fit(IMG / 255.0, np.ones((2, 2), np.float32), epochs=2, batch_size=2, verbose=0)
    assert np.all(np.isfinite(history.history["loss"]))
    assert model.predict(IMG, verbose=0).shape == (2, 2)
    layer = RANDOM[name]()
    out = [b.numpy() for b in tf.data.Dataset.from_tensor_slices(U8).batch(2).map(layer)]
    # Keras's RandomGrayscale keeps integer images integer
    assert out[0].shape == U8.shape and out[0].dtype == (np.uint8 if name == "RandomGrayscale" else np.float32)


def test_keras_archives_load():
    model = tf.keras.models.load_model(os.path.join(FIXTURES, "augmentation_image.keras"))
    np.testing.assert_allclose(model.predict(IMG, verbose=0), ARRAYS["archives/image/predict"], rtol=1e-4, atol=1e-3)
    saved = json.loads(json.dumps(model.get_config()))
    again = tf.keras.Sequential.from_config(model.get_config())
    assert json.loads(json.dumps(again.get_config())) == saved


@pytest.mark.parametrize(
    "make, message",
    [
        (lambda: L.RandomGrayscale(1.5), "factor"),
        (lambda: L.RandomHue(1.5), "factor"),
        (lambda: L.RandomPosterization(9), "factor"),
        (lambda: L.RandomSharpness(0.3, value_range=(0, 1, 2)), "value_range"),
        (lambda: L.RandomGaussianBlur(kernel_size=4), "odd"),
        (lambda: L.RandomErasing(fill_value=(1, 2)), "fill_value"),
        (lambda: L.Solarization(addition_factor=2), "addition_factor"),
        (lambda: L.RandomShear(interpolation="bicubic"), "interpolation"),
        (lambda: L.RandomShear(fill_mode="mirror"), "fill_mode"),
        (lambda: L.RandomPerspective(scale=2.0), "scale"),
        (lambda: L.AutoContrast(data_format="channels_middle"), "data_format"),
    ],
)
def test_bad_arguments_raise(make, message):
    with pytest.raises((ValueError, NotImplementedError), match=message):
        make()


def test_unsupported_inputs_raise():
    with pytest.raises(ValueError, match="takes images only"):
        L.RandomInvert()({"images": IMG, "bounding_boxes": {"boxes": np.zeros((2, 1, 4))}})
    with pytest.raises(ValueError, match="'images' and 'labels' only"):
        L.MixUp()({"images": IMG, "segmentation_masks": IMG})
    with pytest.raises(ValueError, match="rank 3"):
        L.RandomHue(0.2)(IMG[0, 0])
    with pytest.raises(ValueError, match="3 channels"):
        L.RandomColorDegeneration(0.2)(IMG[..., :2])
