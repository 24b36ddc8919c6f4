"""tfunc.keras.constraints, the layers' ``*_constraint`` arguments and the optimizers applying
them, against Keras 3.15.

``fixtures/constraints_values.json`` holds what Keras 3.15 (TensorFlow backend) computed and wrote
(``fixtures/make_constraints_values.py``): each constraint on random weights, the configs of layers
built with constraints, a constrained model's weights after ``fit`` with three SGD configurations,
and that model saved as a ``.keras`` archive. The other direction (tfunc's archive loaded by Keras)
is the generator's ``--verify DIR``, on the files this test writes where ``TFUNC_ARCHIVE_DIR`` says.
"""

import base64
import json
import os
import zipfile

import numpy as np
import pytest

import tfunc as tf
from tfunc import keras
from tfunc.keras import constraints, layers

from .test_model_saving import _plain

FIXTURES = os.path.join(os.path.dirname(__file__), "fixtures")
with open(os.path.join(FIXTURES, "constraints_values.json")) as _f:
    KERAS = json.load(_f)
TRAINING = KERAS["training"]
X, Y = np.array(TRAINING["x"], np.float32), np.array(TRAINING["y"], np.float32)
WEIGHTS = [np.array(w, np.float32) for w in TRAINING["weights"]]


def _id(case):
    identifier = case["identifier"]
    return identifier if isinstance(identifier, str) else f"{identifier['class_name']}-{identifier['config']}"


# --- the constraints ----------------------------------------------------------------------------


@pytest.mark.parametrize("in_function", [False, True])
@pytest.mark.parametrize("case", KERAS["values"], ids=_id)
def test_constraints_compute_what_keras_computes(case, in_function):
    constraint = constraints.get(case["identifier"])
    fn = tf.function(constraint.__call__) if in_function else constraint
    got = fn(tf.constant(np.array(case["w"], np.float32)))
    np.testing.assert_allclose(got.numpy(), np.array(case["expected"], np.float32), rtol=1e-6, atol=1e-7)
    assert constraint.get_config() == case["get_config"]
    assert constraints.serialize(constraint) == case["serialized"]
    rebuilt = constraints.deserialize(case["serialized"])
    assert type(rebuilt) is type(constraint) and rebuilt.get_config() == constraint.get_config()


def test_names_aliases_and_identifiers_are_keras():
    assert constraints.max_norm is constraints.MaxNorm and constraints.non_neg is constraints.NonNeg
    assert constraints.min_max_norm is constraints.MinMaxNorm and constraints.unit_norm is constraints.UnitNorm
    assert keras.constraints is constraints
    assert constraints.get(None) is None
    for name, cls in [
        ("max_norm", constraints.MaxNorm),
        ("MinMaxNorm", constraints.MinMaxNorm),
        ("non_neg", constraints.NonNeg),
    ]:
        assert type(constraints.get(name)) is cls
    assert type(constraints.get(constraints.UnitNorm)) is constraints.UnitNorm  # a class: its defaults
    fn = lambda w: w  # noqa: E731 - any callable is kept as it is
    assert constraints.get(fn) is fn
    assert type(constraints.deserialize("unit_norm")) is constraints.UnitNorm
    for bad in ("nope", 3):
        with pytest.raises(ValueError, match="Could not interpret constraint identifier"):
            constraints.get(bad)

    @keras.saving.register_keras_serializable(package="test_constraints")
    class Clip(constraints.Constraint):
        def __init__(self, limit=1.0):
            self.limit = limit

        def __call__(self, w):
            return tf.clip_by_value(w, -self.limit, self.limit)

        def get_config(self):
            return {"limit": self.limit}

    config = constraints.serialize(Clip(0.5))
    assert config["registered_name"] == "test_constraints>Clip"
    assert constraints.get(config).limit == 0.5


def test_variables_carry_a_constraint_as_in_tensorflow():
    assert tf.Variable(1.0).constraint is None
    fn = lambda w: tf.maximum(w, 0.0)  # noqa: E731
    assert tf.Variable([1.0], constraint=fn).constraint is fn
    with pytest.raises(ValueError, match="`constraint` must be None or a callable"):
        tf.Variable(1.0, constraint=3)
    layer = layers.Layer()
    w = layer.add_weight(shape=(2,), constraint="non_neg")
    assert type(w.constraint) is constraints.NonNeg
    assert layer.add_weight(shape=(2,)).constraint is None


# --- layers ----------------------------------------------------------------------------------------


def _build(case):
    layer = getattr(layers, case["class_name"])(**case["kwargs"])
    if case["class_name"] == "MultiHeadAttention":
        layer.build(*case["shapes"])
    else:
        layer.build(tuple(case["shapes"][0]))
    return layer


@pytest.mark.parametrize("case", KERAS["layers"], ids=lambda c: c["class_name"])
def test_layers_take_constraints_as_keras_does(case):
    layer = _build(case)
    names = [None if w.constraint is None else type(w.constraint).__name__ for w in layer.weights]
    assert names == case["constraints"]
    config = _plain(layer.get_config())
    config.pop("name")
    keras_config = _plain(case["config"])
    keras_config.pop("name")
    assert config == keras_config
    rebuilt = type(layer).from_config(case["config"])  # Keras's config rebuilds the same layer
    assert _plain(rebuilt.get_config()) == _plain(case["config"])


# --- training --------------------------------------------------------------------------------------


def _model():
    C = constraints
    return keras.Sequential(
        [
            keras.Input((4, 4, 1)),
            layers.Conv2D(
                2, 2, kernel_constraint=C.MaxNorm(0.5, axis=[0, 1, 2]), bias_constraint=C.NonNeg(), name="conv"
            ),
            layers.Flatten(),
            layers.Dense(
                3, kernel_constraint=C.UnitNorm(), bias_constraint=C.MinMaxNorm(0.1, 0.3, rate=0.5), name="dense"
            ),
        ]
    )


def _check_weights(model, run):
    for got, expected in zip(model.get_weights(), run["after"]):
        np.testing.assert_allclose(got, np.array(expected, np.float32), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("run", TRAINING["runs"], ids=lambda r: "-".join(sorted(r["optimizer"])))
def test_fit_applies_the_constraints_as_keras_does(run):
    model = _model()
    model.set_weights(WEIGHTS)
    model.compile(optimizer=keras.optimizers.SGD(**run["optimizer"]), loss="mse")
    model.fit(X, Y, batch_size=4, epochs=1, shuffle=False, verbose=0)
    _check_weights(model, run)


@pytest.mark.parametrize("in_function", [False, True])
@pytest.mark.parametrize("run", TRAINING["runs"], ids=lambda r: "-".join(sorted(r["optimizer"])))
def test_apply_gradients_applies_the_constraints_in_a_custom_loop(run, in_function):
    model = _model()
    model.set_weights(WEIGHTS)
    optimizer = keras.optimizers.SGD(**run["optimizer"])
    loss_fn = keras.losses.MeanSquaredError()

    def step(x, y):
        with tf.GradientTape() as tape:
            loss = loss_fn(y, model(x, training=True))
        grads = tape.gradient(loss, model.trainable_variables)
        optimizer.apply_gradients(zip(grads, model.trainable_variables))

    if in_function:
        step = tf.function(step)
    for i in range(0, len(X), 4):
        step(tf.constant(X[i : i + 4]), tf.constant(Y[i : i + 4]))
    optimizer.finalize_variable_values(model.trainable_variables)  # as fit ends (use_ema: the averages)
    _check_weights(model, run)


def test_a_loss_scale_optimizer_applies_the_constraints_of_its_inner_optimizer():
    run = TRAINING["runs"][0]  # plain SGD: power-of-two loss scaling changes no value
    model = _model()
    model.set_weights(WEIGHTS)
    model.compile(optimizer=keras.optimizers.LossScaleOptimizer(keras.optimizers.SGD(**run["optimizer"])), loss="mse")
    model.fit(X, Y, batch_size=4, epochs=1, shuffle=False, verbose=0)
    _check_weights(model, run)


@pytest.mark.filterwarnings("ignore:Gradients do not exist")
@pytest.mark.parametrize("in_function", [False, True])
def test_constraints_apply_at_every_call_to_the_variables_given_a_gradient(in_function):
    # Keras 3.15: after each apply (an accumulating one too), to the variables with a gradient only
    a = tf.Variable([-1.0, 2.0], constraint=constraints.NonNeg())
    b = tf.Variable([-1.0, 2.0], constraint=constraints.NonNeg())
    optimizer = keras.optimizers.SGD(0.1, gradient_accumulation_steps=2)

    def step():
        optimizer.apply_gradients([(tf.constant([1.0, 1.0]), a), (None, b)])

    if in_function:
        step = tf.function(step)
    step()
    np.testing.assert_array_equal(a.numpy(), [0.0, 2.0])  # accumulated only, then projected
    np.testing.assert_array_equal(b.numpy(), [-1.0, 2.0])
    step()
    np.testing.assert_allclose(a.numpy(), [0.0, 1.9], rtol=1e-6)
    a.assign([-3.0, 1.0])
    step()
    np.testing.assert_array_equal(a.numpy(), [0.0, 1.0])


def test_a_constraint_set_after_the_optimizer_was_built_is_applied():
    # Keras reads ``variable.constraint`` at every apply, not when it builds
    v = tf.Variable([-1.0, 2.0])
    optimizer = keras.optimizers.SGD(0.1)
    optimizer.apply_gradients([(tf.constant([1.0, 1.0]), v)])
    np.testing.assert_allclose(v.numpy(), [-1.1, 1.9], rtol=1e-6)
    v.constraint = constraints.NonNeg()
    optimizer.apply_gradients([(tf.constant([1.0, 1.0]), v)])
    np.testing.assert_allclose(v.numpy(), [0.0, 1.8], rtol=1e-6)


# --- archives --------------------------------------------------------------------------------------


def _constraint_configs(model):
    return [
        (w.name, None if w.constraint is None else constraints.serialize(w.constraint))
        for layer in model.layers
        for w in layer.weights
    ]


def test_an_archive_saved_by_keras_loads_with_its_constraints(tmp_path):
    path = tmp_path / "keras_constraints.keras"
    path.write_bytes(base64.b64decode(KERAS["archive"]["keras"]))
    model = keras.models.load_model(path)
    np.testing.assert_allclose(model(X[:4]).numpy(), np.array(KERAS["archive"]["outputs"]), rtol=1e-5, atol=1e-6)
    assert _constraint_configs(model) == _constraint_configs(_model())
    model.compile(optimizer=keras.optimizers.SGD(**TRAINING["runs"][0]["optimizer"]), loss="mse")
    model.fit(X, Y, batch_size=4, epochs=1, shuffle=False, verbose=0)  # trains on as Keras does
    _check_weights(model, TRAINING["runs"][0])


def test_an_archive_written_here_holds_what_keras_writes(tmp_path):
    directory = os.environ.get("TFUNC_ARCHIVE_DIR") or str(tmp_path)  # for make_constraints_values --verify
    model = _model()
    model.set_weights(WEIGHTS)
    path = os.path.join(directory, "constraints.keras")
    model.save(path)
    np.savez(os.path.join(directory, "constraints.npz"), x=X[:4], y=model(X[:4]).numpy())
    with zipfile.ZipFile(path) as archive:
        config = json.loads(archive.read("config.json"))
    keras_path = tmp_path / "keras_constraints.keras"
    keras_path.write_bytes(base64.b64decode(KERAS["archive"]["keras"]))
    with zipfile.ZipFile(keras_path) as archive:
        keras_config = json.loads(archive.read("config.json"))

    def layer_configs(c):
        return [(lc["class_name"], {k: v for k, v in _plain(lc["config"]).items() if k != "name"}) for lc in c]

    assert layer_configs(config["config"]["layers"]) == layer_configs(keras_config["config"]["layers"])
    loaded = keras.models.load_model(path)
    assert _constraint_configs(loaded) == _constraint_configs(model)
