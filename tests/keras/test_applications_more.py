"""``tfunc.keras.applications``' MobileNetV3, EfficientNet and EfficientNetV2 are the models Keras
3.15 builds: the same model names, layers, weights (paths, shapes, order, and ``.weights.h5``
datasets), layer configs and graph, and with the same weights the same outputs, eagerly, inside a
``tf.function`` and through two ``fit`` steps.

The reference (``fixtures/applications_more_reference.{json,npz}``) was written by Keras 3.15 with
``fixtures/make_applications_more_reference.py``, whose cases, digests and weight draws the tests
reuse (its ``--verify`` mode loads each side's weights files into the other).
"""

import json
import os

import h5py
import numpy as np
import pytest

import tfunc as tf
from tfunc import keras
from tfunc.keras import applications
from tfunc.keras import initializers as kinit

from .fixtures import make_applications_more_reference as ref
from .fixtures import make_applications_reference as base

FIXTURES = os.path.join(os.path.dirname(__file__), "fixtures")
with open(os.path.join(FIXTURES, "applications_more_reference.json")) as _f:
    REFERENCE = json.load(_f)
OUTPUTS = np.load(os.path.join(FIXTURES, "applications_more_reference.npz"))
CASES = REFERENCE["cases"]


def _build(builder, **kwargs):
    keras.backend.clear_session()  # automatic layer names restart, as in the reference
    if "input_shape" in kwargs:
        kwargs["input_shape"] = tuple(kwargs["input_shape"])
    return getattr(applications, builder)(weights=None, **kwargs)


def _fill(model, seed):
    model.set_weights(ref.fill_weights([(base.weight_path(w), tuple(w.shape)) for w in model.weights], seed))


def _close(actual, expected):
    actual = np.asarray(actual)
    assert actual.shape == expected.shape
    np.testing.assert_allclose(actual, expected, rtol=1e-4, atol=1e-4 * np.abs(expected).max())


@pytest.fixture
def cheap_initial_weights(monkeypatch):
    """Zeros for the random initial weights: drawing the tens of millions of (truncated normal)
    initial weights of the large models would take most of the test's time, and the structure
    checked does not depend on them (the initializers' configs are unchanged)."""
    monkeypatch.setattr(kinit._Random, "_normal", lambda self, shape, dtype, *a, **k: tf.zeros(shape, dtype))
    monkeypatch.setattr(kinit._Random, "_uniform", lambda self, shape, dtype, *a, **k: tf.zeros(shape, dtype))


@pytest.mark.parametrize("case", [pytest.param(c, id=c["id"]) for c in CASES])
def test_architecture_is_the_one_keras_builds(case, cheap_initial_weights, tmp_path):
    model = _build(case["builder"], **case["kwargs"])
    assert model.name == case["name"]
    assert list(model.output.shape) == case["output_shape"]
    assert model.count_params() == case["params"]
    assert base.digest(base.layer_lines(model)) == case["layers"]
    assert base.digest(base.graph_lines(model.get_config())) == case["graph"]
    assert base.digest(base.weight_lines(model)) == case["weights"]
    if case["values"]:  # (writing the large models' files takes long; their weights are checked above)
        path = str(tmp_path / "m.weights.h5")
        model.save_weights(path)
        assert base.digest(ref.h5_lines(path)) == case["h5"]


VALUE_CASES = [c for c in CASES if c["values"]]


@pytest.mark.parametrize("case", VALUE_CASES, ids=[c["id"] for c in VALUE_CASES])
def test_outputs_with_the_same_weights_are_keras_ones(case):
    model = _build(case["builder"], **case["kwargs"])
    _fill(model, case["seed"])
    x = ref.inputs(case["kwargs"], case["seed"])
    expected = OUTPUTS[case["id"]]
    _close(model(x, training=False), expected)
    _close(tf.function(lambda t: model(t, training=False))(tf.constant(x)), expected)


@pytest.fixture
def fit_model():
    """The recorded MobileNetV3Small, in float64 as Keras ran it (float32 training gradients
    depend on round-off, see test_applications.py)."""
    keras.mixed_precision.set_global_policy(REFERENCE["fit"]["dtype"])
    try:
        model = _build("MobileNetV3Small", **ref.FIT_KWARGS)
    finally:
        keras.mixed_precision.set_global_policy("float32")
    _fill(model, REFERENCE["fit"]["seed"])
    return model, ref.inputs(ref.FIT_KWARGS, REFERENCE["fit"]["seed"], batch=8)


def test_training_mode_loss_is_keras_one(fit_model):
    model, x = fit_model
    y = ref.FIT_LABELS[:4]
    loss = keras.losses.sparse_categorical_crossentropy(y, model(x[:4], training=True))
    np.testing.assert_allclose(tf.reduce_mean(loss).numpy(), REFERENCE["fit"]["first_loss"], rtol=1e-6)
    traced = tf.function(
        lambda t: tf.reduce_mean(keras.losses.sparse_categorical_crossentropy(y, model(t, training=True)))
    )
    np.testing.assert_allclose(traced(tf.constant(x[:4])).numpy(), REFERENCE["fit"]["first_loss"], rtol=1e-6)


def test_fit_steps_follow_keras(fit_model):
    fit = REFERENCE["fit"]
    model, x = fit_model
    model.compile(optimizer=keras.optimizers.SGD(0.01), loss="sparse_categorical_crossentropy")
    history = model.fit(x, ref.FIT_LABELS, batch_size=4, epochs=1, shuffle=False, verbose=0)
    np.testing.assert_allclose(history.history["loss"], fit["loss"], rtol=1e-6)
    _close(model(x, training=False), OUTPUTS["fit_after"])


@pytest.mark.parametrize(
    ("builder", "kwargs"),
    [
        ("MobileNetV3Small", {"include_top": False, "input_shape": (32, 32, 3), "alpha": 0.75}),
        ("EfficientNetB0", {"include_top": False, "input_shape": (32, 32, 3)}),
        ("EfficientNetV2B0", {"include_top": False, "input_shape": (32, 32, 3)}),
    ],
)
def test_weights_files_load_into_the_builder(builder, kwargs, tmp_path):
    model = _build(builder, **kwargs)
    _fill(model, 7)
    path = str(tmp_path / "m.weights.h5")
    model.save_weights(path)
    keras.backend.clear_session()
    loaded = getattr(applications, builder)(weights=path, **kwargs)
    x = ref.inputs(kwargs, 7)
    np.testing.assert_array_equal(loaded(x).numpy(), model(x).numpy())
    with h5py.File(path, "r") as f:  # EfficientNet's Normalization statistics are in the file
        assert ("layers/normalization/vars/0" in f) == (builder == "EfficientNetB0")


def test_input_tensor_and_shapes():
    keras.backend.clear_session()
    own = keras.Input((40, 48, 3))
    # MobileNetV3 takes any size: its classifier is convolutional, and no Input shape is imposed.
    model = applications.MobileNetV3Small(weights=None, input_tensor=own)
    assert model.inputs[0] is own and list(model.output.shape) == [None, 1000]
    free = applications.MobileNetV3Large(weights=None, minimalistic=True, classes=2)
    assert list(free.inputs[0].shape) == [None, None, None, 3]
    x = np.random.default_rng(0).uniform(0, 255, (1, 35, 47, 3)).astype("float32")
    assert free(x).shape == (1, 2)
    # EfficientNets take the pretrained size by default with their classifier.
    assert list(applications.EfficientNetV2B0(weights=None).inputs[0].shape) == [None, 224, 224, 3]
    raw = keras.Input((32, 32, 3))
    effnet = applications.EfficientNetB0(weights=None, include_top=False, input_tensor=raw, pooling="avg")
    assert effnet.inputs[0] is raw and list(effnet.output.shape) == [None, 1280]


@pytest.mark.parametrize(
    ("builder", "kwargs", "message"),
    [
        ("MobileNetV3Small", {"weights": "imagenet"}, "does not download"),
        ("EfficientNetB0", {"weights": "imagenet"}, "does not download"),
        ("EfficientNetV2S", {"weights": "no/such/file.h5"}, "The `weights` argument should be either"),
        ("MobileNetV3Large", {"weights": None, "input_shape": (31, 64, 3)}, "Input size must be at least 32x32"),
        ("EfficientNetB1", {"weights": None, "input_shape": (16, 16, 3)}, "Input size must be at least 32x32"),
        ("EfficientNetV2B0", {"weights": None, "input_shape": (None, None, 3)}, "specify a static `input_shape`"),
        (
            "MobileNetV3Small",
            {"weights": None, "input_shape": (64, 64, 3), "input_tensor": keras.Input((32, 32, 3))},
            "input_shape[1] must equal input_tensor.shape[2]",
        ),
        (
            "MobileNetV3Small",
            {"weights": None, "input_shape": (64, 64, 3), "input_tensor": np.zeros((1, 64, 64, 3))},
            "is not a keras tensor",
        ),
        ("EfficientNetV2S", {"weights": None, "name": "mine"}, "default `blocks_args` are those of the model"),
    ],
)
def test_invalid_arguments_raise(builder, kwargs, message):
    with pytest.raises(ValueError, match=message.replace("[", r"\[").replace("]", r"\]")):
        getattr(applications, builder)(**kwargs)


def test_classifier_activation_is_checked_only_with_pretrained_weights(tmp_path):
    kwargs = {"input_shape": (32, 32, 3), "classes": 3, "classifier_activation": "relu"}
    model = applications.MobileNetV3Small(weights=None, minimalistic=True, **kwargs)
    path = str(tmp_path / "m.weights.h5")
    model.save_weights(path)
    with pytest.raises(ValueError, match="Only `None` and `softmax` activations are allowed"):
        applications.MobileNetV3Small(weights=path, minimalistic=True, **kwargs)


@pytest.mark.parametrize("module", [applications.mobilenet_v3, applications.efficientnet, applications.efficientnet_v2])
def test_preprocess_input_is_the_identity_and_decode_predictions_is_imagenets(module, monkeypatch):
    images = np.random.default_rng(3).uniform(0, 255, (2, 4, 5, 3)).astype("float32")
    assert module.preprocess_input(images) is images
    t = tf.constant(images)
    assert module.preprocess_input(t, data_format="channels_first") is t
    np.testing.assert_array_equal(tf.function(module.preprocess_input)(t).numpy(), images)
    preds = np.zeros((1, 1000), "float32")
    preds[0, [3, 7]] = [0.2, 0.5]
    with pytest.raises(ValueError, match="does not download"):
        module.decode_predictions(preds)
    monkeypatch.setattr(
        applications.imagenet_utils, "CLASS_INDEX", {str(i): [f"n{i:08d}", f"class{i}"] for i in range(1000)}
    )
    assert module.decode_predictions(preds, top=1) == [[("n00000007", "class7", np.float32(0.5))]]


def test_module_exports_are_keras_ones():
    assert applications.mobilenet_v3.__all__ == ["preprocess_input", "decode_predictions"]
    assert sorted(applications.efficientnet.__all__) == sorted(
        [f"EfficientNetB{i}" for i in range(8)] + ["preprocess_input", "decode_predictions"]
    )
    assert sorted(applications.efficientnet_v2.__all__) == sorted(
        [f"EfficientNetV2{m}" for m in ("B0", "B1", "B2", "B3", "S", "M", "L")]
        + ["preprocess_input", "decode_predictions"]
    )
    assert applications.EfficientNetB5.__name__ == "EfficientNetB5"
