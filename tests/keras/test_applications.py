"""``tfunc.keras.applications`` builds Keras 3.15's architectures: the same model names, layers,
weights (paths, shapes, order), layer configs and graph, and with the same weights the same
outputs, eagerly, inside a ``tf.function`` and through two ``fit`` steps.

The reference (``fixtures/applications_reference.{json,npz}``) was written by Keras 3.15 with
``fixtures/make_applications_reference.py``, whose cases, digests and weight draws the tests
reuse.
"""

import json
import os

import numpy as np
import pytest

import tfunc as tf
from tfunc import keras
from tfunc.keras import applications
from tfunc.keras.applications import imagenet_utils

from .fixtures import make_applications_reference as ref

FIXTURES = os.path.join(os.path.dirname(__file__), "fixtures")
with open(os.path.join(FIXTURES, "applications_reference.json")) as _f:
    REFERENCE = json.load(_f)
OUTPUTS = np.load(os.path.join(FIXTURES, "applications_reference.npz"))
CASES = REFERENCE["cases"]


def _build(builder, **kwargs):
    keras.backend.clear_session()  # automatic layer names restart, as in the reference
    if "input_shape" in kwargs:
        kwargs["input_shape"] = tuple(kwargs["input_shape"])
    return getattr(applications, builder)(weights=None, **kwargs)


def _fill(model, seed):
    model.set_weights(ref.fill_weights([(ref.weight_path(w), tuple(w.shape)) for w in model.weights], seed))


def _close(actual, expected):
    actual = np.asarray(actual)
    assert actual.shape == expected.shape
    np.testing.assert_allclose(actual, expected, rtol=1e-4, atol=1e-4 * np.abs(expected).max())


ARCHITECTURE_CASES = [pytest.param(c, id=c["id"]) for c in CASES]


@pytest.mark.parametrize("case", ARCHITECTURE_CASES)
def test_architecture_is_the_one_keras_builds(case):
    model = _build(case["builder"], **case["kwargs"])
    assert model.name == case["name"]
    assert list(model.output.shape) == case["output_shape"]
    assert model.count_params() == case["params"]
    assert ref.digest(ref.layer_lines(model)) == case["layers"]
    assert ref.digest(ref.graph_lines(model.get_config())) == case["graph"]
    assert ref.digest(ref.weight_lines(model)) == case["weights"]


VALUE_CASES = [c for c in CASES if c["values"]]


@pytest.mark.parametrize("case", VALUE_CASES, ids=[c["id"] for c in VALUE_CASES])
def test_outputs_with_the_same_weights_are_keras_ones(case):
    model = _build(case["builder"], **case["kwargs"])
    _fill(model, case["seed"])
    x = ref.inputs(case["kwargs"].get("input_shape", ref.S32)[0], case["seed"])
    expected = OUTPUTS[case["id"]]
    _close(model(x, training=False), expected)
    _close(tf.function(lambda t: model(t, training=False))(tf.constant(x)), expected)


@pytest.fixture
def fit_model():
    """The recorded MobileNetV2, in float64 as Keras ran it (in float32 its training gradients
    depend on round-off: a ReLU6 input a few ulps from 0 flips its mask)."""
    keras.mixed_precision.set_global_policy(REFERENCE["fit"]["dtype"])
    try:
        model = _build("MobileNetV2", **ref.FIT_KWARGS)
    finally:
        keras.mixed_precision.set_global_policy("float32")
    _fill(model, REFERENCE["fit"]["seed"])
    return model, ref.inputs(64, REFERENCE["fit"]["seed"], batch=8)


def test_training_mode_loss_is_keras_one(fit_model):
    model, x = fit_model
    y = ref.FIT_LABELS[:4]
    loss = keras.losses.sparse_categorical_crossentropy(y, model(x[:4], training=True))
    np.testing.assert_allclose(tf.reduce_mean(loss).numpy(), REFERENCE["fit"]["first_loss"], rtol=1e-4)
    traced = tf.function(
        lambda t: tf.reduce_mean(keras.losses.sparse_categorical_crossentropy(y, model(t, training=True)))
    )
    np.testing.assert_allclose(traced(tf.constant(x[:4])).numpy(), REFERENCE["fit"]["first_loss"], rtol=1e-4)


def test_fit_steps_follow_keras(fit_model):
    fit = REFERENCE["fit"]
    model, x = fit_model
    model.compile(optimizer=keras.optimizers.SGD(0.002), loss="sparse_categorical_crossentropy")
    history = model.fit(x, ref.FIT_LABELS, batch_size=4, epochs=1, shuffle=False, verbose=0)
    np.testing.assert_allclose(history.history["loss"], fit["loss"], rtol=1e-6)
    _close(model(x, training=False), OUTPUTS["fit_after"])


def test_weights_files_load_into_the_builder(tmp_path):
    model = _build("MobileNetV2", include_top=False, input_shape=(32, 32, 3), alpha=0.35)
    _fill(model, 7)
    path = str(tmp_path / "m.weights.h5")
    model.save_weights(path)
    keras.backend.clear_session()
    loaded = applications.MobileNetV2(include_top=False, input_shape=(32, 32, 3), alpha=0.35, weights=path)
    x = ref.inputs(32, 7)
    np.testing.assert_array_equal(loaded(x).numpy(), model(x).numpy())


def test_input_tensor_with_predecessors_makes_them_the_model_inputs():
    keras.backend.clear_session()
    raw = keras.Input((32, 32, 3))
    scaled = keras.layers.Rescaling(1 / 127.5, offset=-1.0)(raw)
    model = applications.VGG16(weights=None, include_top=False, input_tensor=scaled, pooling="avg")
    assert model.inputs[0] is raw
    plain = applications.VGG16(weights=None, include_top=False, input_shape=(32, 32, 3), pooling="avg")
    plain.set_weights(model.get_weights())
    x = np.random.default_rng(0).uniform(0, 255, (1, 32, 32, 3)).astype("float32")
    np.testing.assert_allclose(model(x).numpy(), plain(x / 127.5 - 1.0).numpy(), rtol=1e-5, atol=1e-6)
    # A KerasTensor with no predecessors is used as the input itself (and names MobileNetV2).
    own = keras.Input((96, 96, 3))
    assert applications.MobileNetV2(weights=None, input_tensor=own).inputs[0] is own
    assert applications.MobileNetV2(weights=None, input_tensor=own).name == "mobilenetv2_1.00_96"


@pytest.mark.parametrize(
    ("builder", "kwargs", "message"),
    [
        ("VGG16", {"weights": "imagenet"}, "does not download"),
        ("ResNet50", {"weights": "no/such/file.h5"}, "The `weights` argument should be either"),
        ("VGG19", {"weights": None, "input_shape": (16, 16, 3)}, "Input size must be at least 32x32"),
        ("DenseNet121", {"weights": None, "input_shape": (32, 32)}, "must be a tuple of three integers"),
        ("ResNet50V2", {"weights": None, "input_shape": (None, None, 3)}, "specify a static `input_shape`"),
        ("MobileNet", {"weights": None, "input_tensor": np.zeros((1, 32, 32, 3))}, "must be a KerasTensor"),
        (
            "MobileNetV2",
            {"weights": None, "input_shape": (64, 64, 3), "input_tensor": keras.Input((32, 32, 3))},
            "input_tensor.shape[2] must equal input_shape[1]",
        ),
    ],
)
def test_invalid_arguments_raise_as_in_keras(builder, kwargs, message):
    with pytest.raises(ValueError, match=message.replace("[", r"\[").replace("]", r"\]").replace("`", "`")):
        getattr(applications, builder)(**kwargs)


def test_classifier_activation_is_checked_only_with_pretrained_weights(tmp_path):
    model = applications.ResNet50(weights=None, input_shape=(32, 32, 3), classes=3, classifier_activation="relu")
    path = str(tmp_path / "r.weights.h5")
    model.save_weights(path)
    with pytest.raises(ValueError, match="Only `None` and `softmax` activations are allowed"):
        applications.ResNet50(weights=path, input_shape=(32, 32, 3), classes=3, classifier_activation="relu")


# --- preprocess_input and decode_predictions -------------------------------------------------------

IMAGES = np.random.default_rng(3).uniform(0, 255, (2, 4, 5, 3)).astype("float32")
CAFFE = IMAGES[..., ::-1] - np.array([103.939, 116.779, 123.68], "float32")
TORCH = (IMAGES / 255.0 - np.array([0.485, 0.456, 0.406], "float32")) / np.array([0.229, 0.224, 0.225], "float32")
TF_MODE = IMAGES / 127.5 - 1.0


@pytest.mark.parametrize(
    ("module", "expected"),
    [
        (applications.vgg16, CAFFE),
        (applications.vgg19, CAFFE),
        (applications.resnet, CAFFE),
        (applications.resnet50, CAFFE),
        (applications.resnet_v2, TF_MODE),
        (applications.mobilenet, TF_MODE),
        (applications.mobilenet_v2, TF_MODE),
        (applications.densenet, TORCH),
    ],
)
def test_preprocess_input_modes(module, expected):
    tol = {"rtol": 1e-5, "atol": 1e-4}
    np.testing.assert_allclose(module.preprocess_input(IMAGES.copy()), expected, **tol)
    np.testing.assert_allclose(module.preprocess_input(tf.constant(IMAGES)).numpy(), expected, **tol)
    traced = tf.function(module.preprocess_input)(tf.constant(IMAGES))
    np.testing.assert_allclose(traced.numpy(), expected, **tol)
    first = np.moveaxis(IMAGES, -1, 1)  # channels_first, 4D and 3D
    out = module.preprocess_input(first.copy(), data_format="channels_first")
    np.testing.assert_allclose(out, np.moveaxis(expected, -1, 1), **tol)
    single = tf.constant(first[0])
    out = module.preprocess_input(single, data_format="channels_first").numpy()
    np.testing.assert_allclose(out, np.moveaxis(expected[0], -1, 0), **tol)


def test_preprocess_input_numpy_details():
    x = IMAGES.copy()
    assert imagenet_utils.preprocess_input(x, mode="torch") is x  # floats are preprocessed in place
    ints = IMAGES.astype("uint8")
    out = imagenet_utils.preprocess_input(ints, mode="tf")
    assert out.dtype == np.float32 and ints.dtype == np.uint8
    with pytest.raises(ValueError, match="Expected mode to be one of"):
        imagenet_utils.preprocess_input(x, mode="keras")
    with pytest.raises(ValueError, match="Expected data_format to be one of"):
        imagenet_utils.preprocess_input(x, data_format="NHWC")


def test_decode_predictions_needs_the_class_index(monkeypatch):
    with pytest.raises(ValueError, match=r"shape \(samples, 1000\)"):
        applications.vgg16.decode_predictions(np.zeros((2, 10)))
    preds = np.zeros((1, 1000), "float32")
    preds[0, [3, 7, 5]] = [0.2, 0.5, 0.3]
    with pytest.raises(ValueError, match="does not download"):
        applications.resnet.decode_predictions(preds)
    monkeypatch.setattr(imagenet_utils, "CLASS_INDEX", {str(i): [f"n{i:08d}", f"class{i}"] for i in range(1000)})
    decoded = applications.densenet.decode_predictions(tf.constant(preds), top=2)
    assert decoded == [[("n00000007", "class7", np.float32(0.5)), ("n00000005", "class5", np.float32(0.3))]]
