"""Keras 3.15's preprocessing layers Resizing, CenterCrop, RandomFlip, RandomCrop, RandomContrast,
RandomBrightness, RandomTranslation, RandomRotation, RandomZoom, CategoryEncoding and
Discretization: deterministic outputs and configs against Keras, eagerly and inside tf.function; the
random layers' invariants.

Keras's values are in image_preprocessing_keras_values.py, written by
tests/keras/fixtures/make_image_preprocessing_values.py (run it with TensorFlow 2.21 and Keras 3.15
installed, from the repository root)."""

import json

import numpy as np
import pytest

import tfunc as tf

from .image_preprocessing_keras_values import KERAS

_R = np.random.RandomState(0)
IMG = _R.uniform(0, 255, size=(2, 5, 6, 3)).astype(np.float32)
U8 = _R.randint(0, 256, size=(2, 5, 6, 3)).astype(np.uint8)
IDS = np.array([[0, 1, 1], [3, 2, 7]])
VALUES = _R.normal(size=(3, 4)).astype(np.float32)
SAMPLE = _R.normal(size=1000)

# name -> (layer from the module `keras` (tfunc.keras or Keras), inputs, call keyword arguments)
CASES = {
    "resizing_bilinear": (lambda k: k.layers.Resizing(3, 4), (IMG,), {}),
    "resizing_nearest_uint8": (lambda k: k.layers.Resizing(7, 9, interpolation="nearest"), (U8,), {}),
    "resizing_bilinear_uint8": (lambda k: k.layers.Resizing(4, 3), (U8,), {}),
    "resizing_crop_to_aspect": (lambda k: k.layers.Resizing(4, 4, crop_to_aspect_ratio=True), (IMG,), {}),
    "resizing_pad_to_aspect": (
        lambda k: k.layers.Resizing(8, 4, pad_to_aspect_ratio=True, fill_value=7.0),
        (IMG[0],),
        {},
    ),
    "center_crop": (lambda k: k.layers.CenterCrop(3, 3), (IMG,), {}),
    "center_crop_uint8_3d": (lambda k: k.layers.CenterCrop(4, 5), (U8[0],), {}),
    "center_crop_larger": (lambda k: k.layers.CenterCrop(7, 4), (IMG,), {}),
    "random_crop_larger": (lambda k: k.layers.RandomCrop(7, 4, seed=1), (IMG,), {}),
    "random_crop_same_height": (lambda k: k.layers.RandomCrop(5, 4, seed=1), (IMG,), {}),
    "category_multi_hot": (lambda k: k.layers.CategoryEncoding(5), (IDS,), {}),
    "category_count": (lambda k: k.layers.CategoryEncoding(8, output_mode="count"), (IDS,), {}),
    "category_count_weights": (
        lambda k: k.layers.CategoryEncoding(8, output_mode="count"),
        (IDS,),
        {"count_weights": np.array([[0.5, 1.0, 2.0], [1.0, 3.0, 4.0]], np.float32)},
    ),
    "category_one_hot": (lambda k: k.layers.CategoryEncoding(8, output_mode="one_hot"), (IDS,), {}),
    "category_one_hot_column": (lambda k: k.layers.CategoryEncoding(8, output_mode="one_hot"), (IDS[:, :1],), {}),
    "category_multi_hot_1d": (lambda k: k.layers.CategoryEncoding(8), (IDS[1],), {}),
    "discretization_int": (lambda k: k.layers.Discretization([-0.5, 0.0, 0.7]), (VALUES,), {}),
    "discretization_one_hot": (
        lambda k: k.layers.Discretization([-0.5, 0.0, 0.7], output_mode="one_hot"),
        (VALUES[0],),
        {},
    ),
    "discretization_multi_hot": (
        lambda k: k.layers.Discretization([-0.5, 0.0, 0.7], output_mode="multi_hot"),
        (VALUES,),
        {},
    ),
    "discretization_count": (
        lambda k: k.layers.Discretization([-0.5, 0.0, 0.7], output_mode="count", dtype="float64"),
        (VALUES,),
        {},
    ),
    # degenerate factor ranges make the affine layers deterministic
    "translation_fixed": (lambda k: k.layers.RandomTranslation((0.2, 0.2), (-0.3, -0.3)), (IMG,), {}),
    "translation_fixed_constant": (
        lambda k: k.layers.RandomTranslation((-0.4, -0.4), (0.5, 0.5), fill_mode="constant", fill_value=9.0),
        (U8[0],),
        {},
    ),
    "rotation_fixed": (lambda k: k.layers.RandomRotation((0.1, 0.1)), (IMG,), {}),
    "rotation_fixed_wrap_nearest": (
        lambda k: k.layers.RandomRotation((-0.3, -0.3), fill_mode="wrap", interpolation="nearest"),
        (IMG[0],),
        {},
    ),
    "zoom_fixed": (lambda k: k.layers.RandomZoom((0.5, 0.5), (-0.4, -0.4), fill_mode="nearest"), (IMG,), {}),
    "zoom_fixed_same_factor": (lambda k: k.layers.RandomZoom((-0.25, -0.25)), (IMG,), {}),
}
# layers whose config is compared (the constructors Keras's defaults fill in)
CONFIGS = {
    "resizing": lambda k: k.layers.Resizing(3, 4, interpolation="nearest", pad_to_aspect_ratio=True, name="r"),
    "center_crop": lambda k: k.layers.CenterCrop(2, 3, name="c"),
    "random_flip": lambda k: k.layers.RandomFlip("horizontal", seed=3, name="f"),
    "random_crop": lambda k: k.layers.RandomCrop(2, 3, seed=5, name="rc"),
    "random_contrast": lambda k: k.layers.RandomContrast(0.3, name="ct"),
    "random_contrast_pair": lambda k: k.layers.RandomContrast([0.5, 0.2], value_range=(0, 1), seed=2, name="ct2"),
    "random_brightness": lambda k: k.layers.RandomBrightness(0.2, value_range=(255, 0), name="b"),
    "random_brightness_pair": lambda k: k.layers.RandomBrightness([-0.1, 0.3], seed=4, name="b2"),
    "random_translation": lambda k: k.layers.RandomTranslation(0.1, (-0.2, 0.3), seed=1, name="t"),
    "random_rotation": lambda k: k.layers.RandomRotation(0.2, fill_mode="constant", fill_value=1.0, name="rr"),
    "random_rotation_pair": lambda k: k.layers.RandomRotation((0.3, -0.1), interpolation="nearest", name="rr2"),
    "random_zoom": lambda k: k.layers.RandomZoom(0.2, name="z"),
    "random_zoom_pair": lambda k: k.layers.RandomZoom((-0.3, 0.2), 0.4, fill_mode="wrap", seed=9, name="z2"),
    "category_encoding": lambda k: k.layers.CategoryEncoding(4, output_mode="count", name="ce"),
    "discretization": lambda k: k.layers.Discretization([0.0, 1.0], output_mode="one_hot", name="d"),
    "discretization_bins": lambda k: k.layers.Discretization(num_bins=4, epsilon=0.1, name="d2"),
}


# ImageProjectiveTransformV3's transforms (the rows of the affine layers), checked directly
AFFINE_IMG = _R.uniform(size=(3, 5, 7, 2)).astype(np.float32)
AFFINE_T = np.array(
    [[1, 0, -2.3, 0, 1, 1.7, 0, 0], [0.8, -0.6, 3.1, 0.6, 0.8, -2.2, 0, 0], [2.5, 0.3, -9.0, -0.2, 3.0, -7.5, 0, 0]],
    np.float32,
)
AFFINE_MODES = [(m, i) for m in ("reflect", "wrap", "constant", "nearest") for i in ("bilinear", "nearest")]


def adapted(k, num_bins):
    layer = k.layers.Discretization(num_bins=num_bins)
    layer.adapt(SAMPLE)
    return layer.bin_boundaries


def _check(got, name):
    want = KERAS[name]
    assert got.dtype.name == want["dtype"]
    np.testing.assert_allclose(got.numpy(), np.asarray(want["value"]), rtol=1e-5, atol=1e-4)


@pytest.mark.parametrize("name", sorted(CASES))
def test_outputs_match_keras(name):
    make, inputs, kwargs = CASES[name]
    layer = make(tf.keras)
    _check(layer(*inputs, **kwargs), name)
    _check(tf.function(lambda *a: layer(*a, **kwargs))(*inputs), name)


@pytest.mark.parametrize("name", sorted(CONFIGS))
def test_configs_match_keras(name):
    config = CONFIGS[name](tf.keras).get_config()
    assert json.loads(json.dumps(config)) == KERAS["config_" + name]  # as saved: tuples become lists
    again = type(CONFIGS[name](tf.keras)).from_config(config)
    assert again.get_config() == config


@pytest.mark.parametrize("num_bins", [2, 5, 7])
def test_discretization_adapt_matches_keras(num_bins):
    np.testing.assert_allclose(adapted(tf.keras, num_bins), KERAS[f"adapt_{num_bins}"], rtol=1e-6)


def test_an_adapted_discretization_round_trips(tmp_path):
    layer = tf.keras.layers.Discretization(num_bins=4, output_mode="one_hot")
    layer.adapt(np.arange(20, dtype="float32"))
    again = tf.keras.layers.Discretization.from_config(layer.get_config())
    assert again.bin_boundaries == [4.0, 9.0, 14.0] and again.num_bins == 4  # TF 2.21 gives these
    pytest.importorskip("h5py")
    model = tf.keras.Sequential([tf.keras.Input((1,)), layer])
    model.save(tmp_path / "d.keras")
    x = np.array([[-1.0], [3.5], [4.0], [12.0], [30.0]], "float32")
    loaded = tf.keras.models.load_model(tmp_path / "d.keras")
    assert loaded(x).numpy().argmax(-1).tolist() == [0, 0, 1, 2, 3]  # TF 2.21 gives [0, 0, 1, 2, 3]


def test_random_crop_writes_a_seed_when_given_none():
    seed = tf.keras.layers.RandomCrop(2, 2).get_config()["seed"]
    assert isinstance(seed, int) and 1 <= seed <= 10**9


@pytest.mark.parametrize(
    "make",
    [
        lambda L: L.RandomFlip(seed=1),
        lambda L: L.RandomCrop(3, 4, seed=1),
        lambda L: L.RandomContrast(0.5, seed=1),
        lambda L: L.RandomBrightness(0.5, seed=1),
    ],
)
def test_random_layers_are_the_identity_at_inference(make):
    layer = make(tf.keras.layers)
    for x in (IMG, IMG[0]):
        np.testing.assert_array_equal(layer(x, training=False).numpy(), x)
        np.testing.assert_array_equal(tf.function(lambda a: layer(a, training=False))(x).numpy(), x)
    model = tf.keras.Sequential([tf.keras.Input((5, 6, 3)), make(tf.keras.layers)])
    np.testing.assert_array_equal(model.predict(IMG, verbose=0), IMG)


BATCH = _R.uniform(0, 255, size=(64, 4, 5, 3)).astype(np.float32)


@pytest.mark.parametrize("mode", ["horizontal", "vertical", "horizontal_and_vertical"])
def test_random_flip_flips_each_image_or_not(mode):
    want = {
        "horizontal": BATCH[:, :, ::-1],
        "vertical": BATCH[:, ::-1],
        "horizontal_and_vertical": BATCH[:, ::-1, ::-1],  # one coin for both axes, as Keras
    }[mode]
    layer = tf.keras.layers.RandomFlip(mode, seed=2)
    for out in (layer(BATCH), tf.function(lambda a: layer(a))(BATCH)):
        out = out.numpy()
        same = np.all(out == BATCH, axis=(1, 2, 3))
        flipped = np.all(out == want, axis=(1, 2, 3))
        assert np.all(same | flipped) and 16 < flipped.sum() < 48


def test_random_crop_takes_one_window_for_the_batch():
    layer = tf.keras.layers.RandomCrop(2, 3, seed=3)
    corners = set()
    for i in range(30):
        out = (layer(BATCH[:2]) if i % 2 else tf.function(lambda a: layer(a))(BATCH[:2])).numpy()
        hits = [(t, c) for t in range(3) for c in range(3) if np.array_equal(out, BATCH[:2, t : t + 2, c : c + 3])]
        assert len(hits) == 1
        corners.add(hits[0])
    assert len(corners) > 3  # 9 possible windows


def test_random_contrast_and_brightness_draw_one_factor_per_image():
    x = BATCH
    mean = x.mean(axis=(1, 2), keepdims=True)
    contrast = tf.keras.layers.RandomContrast((0.2, 0.4), value_range=(-1e9, 1e9), seed=1)(x).numpy()
    factors = (contrast - mean) / (x - mean)
    per_image = factors.reshape(64, -1)
    assert np.all(np.ptp(per_image, axis=1) < 1e-3)
    assert np.all((per_image[:, 0] >= 0.8 - 1e-5) & (per_image[:, 0] <= 1.4 + 1e-5))  # Keras's [1 - 0.2, 1 + 0.4]
    assert np.ptp(per_image[:, 0]) > 0.1
    clipped = tf.keras.layers.RandomContrast(0.9, seed=1)(x).numpy()
    assert clipped.min() >= 0 and clipped.max() <= 255
    brightness = tf.keras.layers.RandomBrightness((-0.1, 0.3), value_range=(-1000, 1000), seed=1)
    bright = tf.function(lambda a: brightness(a))  # (made outside: its SeedGenerator is a variable)
    deltas = (bright(x).numpy() - x).reshape(64, -1)
    assert np.all(np.ptp(deltas, axis=1) < 1e-3)
    assert np.all((deltas[:, 0] >= -200 - 1e-3) & (deltas[:, 0] <= 600 + 1e-3)) and np.ptp(deltas[:, 0]) > 100


def test_random_layers_in_a_compiled_model_fit():
    model = tf.keras.Sequential(
        [
            tf.keras.Input((5, 6, 3)),
            tf.keras.layers.RandomFlip(seed=1),
            tf.keras.layers.RandomBrightness(0.1, value_range=(0, 1), seed=2),
            tf.keras.layers.RandomContrast(0.1, value_range=(0, 1), seed=3),
            tf.keras.layers.CenterCrop(4, 4),
            tf.keras.layers.Flatten(),
            tf.keras.layers.Dense(1),
        ]
    )
    model.compile(optimizer="sgd", loss="mse")
    history = model.fit(IMG / 255.0, np.ones((2, 1), np.float32), epochs=2, verbose=0)
    assert np.all(np.isfinite(history.history["loss"]))


@pytest.mark.parametrize(
    "make, message",
    [
        (lambda L: L.RandomFlip("diagonal"), "unknown mode argument"),
        (lambda L: L.RandomContrast(1.5), "The `factor` argument should be a number"),
        (lambda L: L.RandomBrightness(0.2, value_range=(0, 1, 2)), "should be a list of two numbers"),
        (lambda L: L.Resizing(2, 2, fill_mode="reflect"), "Only `'constant'` is supported"),
        (lambda L: L.Resizing(2, 2, crop_to_aspect_ratio=True, pad_to_aspect_ratio=True), "Only one of"),
        (lambda L: L.Resizing(2, 2, interpolation="gaussian"), "interpolation"),
        (lambda L: L.CategoryEncoding(), "num_tokens must be set"),
        (lambda L: L.CategoryEncoding(3, output_mode="tf_idf"), "Unknown arg for output_mode"),
        (lambda L: L.CategoryEncoding(3, sparse=True), "sparse"),
        (lambda L: L.Discretization(), "You need to set either `num_bins` or `bin_boundaries`"),
        (lambda L: L.Discretization([0.0], num_bins=2), "should not be set"),
    ],
)
def test_constructor_errors(make, message):
    with pytest.raises(ValueError, match=message):
        make(tf.keras.layers)


def test_category_encoding_rejects_negative_ids_and_count_weights_elsewhere():
    with pytest.raises(tf.errors.InvalidArgumentError, match="non-negative"):
        tf.keras.layers.CategoryEncoding(4)(np.array([[0, -1]]))
    with pytest.raises(ValueError, match="count_weights"):
        tf.keras.layers.CategoryEncoding(4)(np.array([[0, 1]]), count_weights=np.ones((1, 2), np.float32))


@pytest.mark.parametrize("fill_mode, interpolation", AFFINE_MODES)
def test_affine_transform_matches_image_projective_transform_v3(fill_mode, interpolation):
    from tfunc.keras.layers.image_preprocessing import _affine_transform

    want = np.asarray(KERAS[f"affine_{fill_mode}_{interpolation}"])

    def run(x, t):
        return _affine_transform(x, t, interpolation, fill_mode, 0.5)

    for fn in (run, tf.function(run)):
        np.testing.assert_allclose(fn(tf.constant(AFFINE_IMG), tf.constant(AFFINE_T)).numpy(), want, atol=1e-6)


def test_affine_transform_gradient_is_the_adjoint():
    """The output is ``J x + c`` (c: the fill), so the gradient g of ``sum(out * w)`` must satisfy
    ``g . v = S(v) - S(0)`` for any v. (TensorFlow's own gradient of ImageProjectiveTransformV3
    applies the inverse transform instead, an approximation; tfunc's is exact.)"""
    from tfunc.keras.layers.image_preprocessing import _affine_transform

    r = np.random.RandomState(1)
    weights, v = r.uniform(-1, 1, (2,) + AFFINE_IMG.shape)

    for fill_mode in ("reflect", "constant"):

        def total(x, fill_mode=fill_mode):
            return tf.reduce_sum(_affine_transform(x, tf.constant(AFFINE_T), "bilinear", fill_mode, 0.5) * weights)

        x = tf.constant(AFFINE_IMG.astype(np.float64))
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = total(x)
        g = tape.gradient(y, x).numpy()
        s_v, s_0 = total(tf.constant(v)).numpy(), total(tf.zeros_like(x)).numpy()
        np.testing.assert_allclose(np.sum(g * v), s_v - s_0, rtol=1e-10)


@pytest.mark.parametrize(
    "make",
    [
        lambda L: L.RandomTranslation(0.3, 0.3, seed=1),
        lambda L: L.RandomRotation(0.3, seed=1),
        lambda L: L.RandomZoom(0.3, seed=1),
    ],
)
def test_affine_layers_identity_at_inference_and_random_in_training(make):
    layer = make(tf.keras.layers)
    np.testing.assert_array_equal(layer(U8, training=False).numpy(), U8.astype(np.float32))
    out = tf.function(lambda a: layer(a))(BATCH).numpy()
    assert out.shape == BATCH.shape and out.dtype == np.float32
    changed = ~np.all(np.isclose(out, BATCH), axis=(1, 2, 3))
    assert changed.sum() > 48  # a zero move has probability ~0
    # reflect keeps the values within the input's range
    assert out.min() >= BATCH.min() - 1e-3 and out.max() <= BATCH.max() + 1e-3


def test_affine_layers_in_fit():
    model = tf.keras.Sequential(
        [
            tf.keras.Input((5, 6, 3)),
            tf.keras.layers.RandomTranslation(0.1, 0.1, seed=1),
            tf.keras.layers.RandomRotation(0.05, seed=2),
            tf.keras.layers.RandomZoom(0.1, seed=3),
            tf.keras.layers.Flatten(),
            tf.keras.layers.Dense(1),
        ]
    )
    model.compile(optimizer="sgd", loss="mse")
    history = model.fit(IMG / 255.0, np.ones((2, 1), np.float32), epochs=2, verbose=0)
    assert np.all(np.isfinite(history.history["loss"]))


@pytest.mark.parametrize(
    "make, error, message",
    [
        (lambda L: L.RandomRotation(0.2, fill_mode="mirror"), NotImplementedError, "Unknown `fill_mode`"),
        (lambda L: L.RandomZoom(0.2, interpolation="bicubic"), NotImplementedError, "Unknown `interpolation`"),
        (lambda L: L.RandomZoom(-1.0), ValueError, "The `factor` argument should be"),
        (lambda L: L.RandomTranslation(1.5, 0.1), ValueError, "The `factor` argument should be"),
        (lambda L: L.RandomRotation((0.1, 0.2, 0.3)), ValueError, "The `factor` argument should be"),
    ],
)
def test_affine_constructor_errors(make, error, message):
    with pytest.raises(error, match=message):
        make(tf.keras.layers)


def test_seeded_translation_and_zoom_draw_height_and_width_independently_in_a_function():
    # two ops with one seed draw the same numbers inside a function: height and width moved together
    layer = tf.keras.layers.RandomTranslation(0.3, 0.3, seed=1, fill_mode="constant")
    x = np.zeros((64, 9, 9, 1), np.float32)
    x[:, 4, 4, 0] = 1.0
    y = tf.function(lambda v: layer(v, training=True))(x).numpy()
    moves = [np.subtract(np.unravel_index(np.argmax(img[..., 0]), (9, 9)), 4) for img in y]
    assert sum(dy == dx for dy, dx in moves) < 32
    zoom = tf.keras.layers.RandomZoom((-0.5, 0.5), (-0.5, 0.5), seed=2)
    t = tf.function(lambda: zoom._transforms(tf.constant([64]), 9, 9))().numpy()
    assert not np.allclose(t[:, 0], t[:, 4])  # x and y zoom factors
