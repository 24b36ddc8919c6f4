"""Layers, activations and utilities that TensorFlow tutorials use, checked against Keras 3.15:
``Normalization`` and ``Rescaling``, ``SimpleRNN``/``SimpleRNNCell``, ``RNN`` over a user's cell,
``Bidirectional``, the activations Keras 3 has by name, ``timeseries_dataset_from_array`` and
``tf.initializers``.

The numbers in ``KERAS`` (at the end) were computed by Keras 3.15 with the TensorFlow backend, running
the same constructions on the same inputs with the same weights (``_fill``); the weights-file layouts
are those of the files Keras wrote for the same architectures, and the configs Keras's ``get_config()``.
"""

import numpy as np
import pytest

import tfunc as tf
from tfunc import keras
from tfunc.keras import layers as L
from tfunc.keras.serialization import KERAS_ONLY_DEFAULTS

h5py = pytest.importorskip("h5py")

rng = np.random.RandomState(0)
X = rng.rand(8, 5, 3).astype("float32")
Y = rng.rand(8, 1).astype("float32")
X2 = (rng.rand(8, 3) * [1, 10, 100]).astype("float32")
TOL = dict(rtol=1e-5, atol=2e-6)


def _fill(model):
    """Deterministic trainable weights (the same formula fed Keras)."""
    for i, w in enumerate(model.trainable_weights):
        n = int(np.prod(w.shape))
        w.assign((0.5 * np.sin(0.37 * np.arange(n) + i)).reshape(tuple(w.shape)).astype("float32"))


class MinimalRNNCell(L.Layer):
    """The user cell of Keras's RNN docstring (with tanh): a layer with ``state_size`` and
    ``call(inputs, states) -> (output, new_states)``."""

    def __init__(self, units, **kwargs):
        super().__init__(**kwargs)
        self.units = units
        self.state_size = units

    def build(self, input_shape):
        self.kernel = self.add_weight(shape=(input_shape[-1], self.units), initializer="zeros", name="kernel")
        self.recurrent_kernel = self.add_weight(
            shape=(self.units, self.units), initializer="zeros", name="recurrent_kernel"
        )

    def call(self, inputs, states):
        out = tf.tanh(tf.matmul(inputs, self.kernel) + tf.matmul(states[0], self.recurrent_kernel))
        return out, [out]


def _model(name):
    if name == "srnn":
        return keras.Sequential(
            [
                keras.Input((5, 3)),
                L.SimpleRNN(4, return_sequences=True),
                L.RNN(L.SimpleRNNCell(2), go_backwards=True),
                L.Dense(1),
            ]
        ), X
    if name == "bi":
        return keras.Sequential(
            [
                keras.Input((5, 3)),
                L.Bidirectional(L.LSTM(3, return_sequences=True)),
                L.Bidirectional(L.GRU(2), merge_mode="sum"),
                L.Dense(1),
            ]
        ), X
    if name == "bi_func":
        inp = keras.Input((5, 3))
        out, *states = L.Bidirectional(L.SimpleRNN(2, return_sequences=True, return_state=True), merge_mode="ave")(inp)
        h = L.Bidirectional(L.LSTM(2), merge_mode="mul", backward_layer=L.LSTM(2, go_backwards=True))(out)
        return keras.Model(inp, L.Dense(1)(L.Concatenate()([h, *states]))), X
    if name == "custom":
        return keras.Sequential(
            [
                keras.Input((5, 3)),
                L.RNN(MinimalRNNCell(3), return_sequences=True),
                L.RNN(MinimalRNNCell(2)),
                L.Dense(1),
            ]
        ), X
    norm = L.Normalization()
    norm.adapt(X2)
    return keras.Sequential([keras.Input((3,)), norm, L.Rescaling(0.5, offset=0.25), L.Dense(1)]), X2


def _layout(path):
    out = []
    with h5py.File(path, "r") as f:
        f.visititems(lambda name, obj: out.append((name, list(obj.shape))) if isinstance(obj, h5py.Dataset) else None)
    return out


MODELS = ["srnn", "bi", "bi_func", "custom", "norm"]


# --- whole models: outputs, weights files, training ------------------------------------------------


@pytest.mark.parametrize("name", MODELS)
def test_models_compute_as_keras_eagerly_and_in_functions(name):
    model, x = _model(name)
    _fill(model)
    expected = np.array(KERAS["models"][name]["before"])
    np.testing.assert_allclose(model(x).numpy(), expected, **TOL)
    np.testing.assert_allclose(tf.function(lambda t: model(t))(x).numpy(), expected, **TOL)


@pytest.mark.parametrize("name", MODELS)
def test_weights_files_have_keras_layout_and_round_trip(name, tmp_path):
    model, x = _model(name)
    _fill(model)
    path = str(tmp_path / f"{name}.weights.h5")
    model.save_weights(path)
    assert _layout(path) == [(p, list(s)) for p, s in KERAS["models"][name]["layout"]]
    fresh, _ = _model(name)
    fresh.load_weights(path)
    np.testing.assert_allclose(fresh(x).numpy(), np.array(KERAS["models"][name]["before"]), **TOL)


@pytest.mark.parametrize("name", MODELS)
def test_fit_matches_keras(name):
    model, x = _model(name)
    _fill(model)
    model.compile(optimizer=keras.optimizers.SGD(0.1), loss="mse")
    history = model.fit(x, Y, batch_size=4, epochs=3, shuffle=False, verbose=0)
    np.testing.assert_allclose(history.history["loss"], KERAS["models"][name]["loss"], rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(model.predict(x, verbose=0), np.array(KERAS["models"][name]["after"]), **TOL)


@pytest.mark.parametrize("name", ["srnn", "bi", "norm"])
def test_keras_archives_round_trip(name, tmp_path):
    model, x = _model(name)
    _fill(model)
    path = str(tmp_path / f"{name}.keras")
    model.save(path)
    again = keras.models.load_model(path)
    assert [type(layer).__name__ for layer in again.layers] == [type(layer).__name__ for layer in model.layers]
    np.testing.assert_allclose(again(x).numpy(), np.array(KERAS["models"][name]["before"]), **TOL)


# --- recurrent layers --------------------------------------------------------------------------------


def test_rnn_over_a_user_cell_runs_sequences_of_run_time_length():
    layer = L.RNN(MinimalRNNCell(3), return_sequences=True, return_state=True)
    layer(X)
    _fill(layer)
    eager = [t.numpy() for t in layer(X)]

    @tf.function(input_signature=[tf.TensorSpec([None, None, 3], tf.float32)])
    def run(x):
        return layer(x)  # a graph while-loop that calls the cell at each step

    for got, want in zip(run(X), eager):
        np.testing.assert_allclose(got.numpy(), want, **TOL)
    # the recurrence itself, written out
    h = np.zeros((8, 3), "float32")
    kernel, recurrent = (w.numpy() for w in layer.weights)
    for t in range(5):
        h = np.tanh(X[:, t] @ kernel + h @ recurrent)
    np.testing.assert_allclose(eager[1], h, **TOL)


def test_rnn_refuses_what_is_not_a_cell():
    with pytest.raises(ValueError, match="state_size"):
        L.RNN(L.Dense(2))


def test_simple_rnn_cell_is_one_step():
    cell = L.SimpleRNNCell(2)
    x, h = X[:, 0], np.full((8, 2), 0.5, "float32")
    out, new = cell(x, [h])
    kernel, recurrent, bias = (w.numpy() for w in cell.weights)
    np.testing.assert_allclose(out.numpy(), np.tanh(x @ kernel + bias + h @ recurrent), **TOL)
    assert isinstance(new, list) and new[0] is out
    out2, new2 = cell(x, h)  # a bare state tensor gives a bare new state, as in Keras
    assert not isinstance(new2, list)


@pytest.mark.parametrize("mode", ["concat", "sum", "mul", "ave", None])
@pytest.mark.parametrize("sequences", [False, True])
def test_bidirectional_merge_modes_and_states(mode, sequences):
    inp = keras.Input((5, 3))
    outs = L.Bidirectional(L.SimpleRNN(2, return_sequences=sequences, return_state=True), merge_mode=mode)(inp)
    model = keras.Model(inp, outs)
    _fill(model)
    expected = KERAS["merges"][f"{mode}-{sequences}"]
    for fn in (model, tf.function(lambda t: model(t))):
        got = fn(X[:2])
        assert len(got) == len(expected)
        for g, e in zip(got, expected):
            np.testing.assert_allclose(g.numpy(), np.array(e), **TOL)


def test_bidirectional_copies_the_layer_and_checks_its_arguments():
    lstm = L.LSTM(2, name="enc")
    bi = L.Bidirectional(lstm)
    assert bi.forward_layer is not lstm and bi.forward_layer.name == "forward_enc"
    assert bi.backward_layer.name == "backward_enc" and bi.backward_layer.go_backwards
    with pytest.raises(ValueError, match="Invalid merge mode"):
        L.Bidirectional(L.LSTM(2), merge_mode="max")
    with pytest.raises(ValueError, match="go_backwards"):
        L.Bidirectional(L.LSTM(2), backward_layer=L.LSTM(2))
    with pytest.raises(ValueError, match="return_sequences"):
        L.Bidirectional(L.LSTM(2), backward_layer=L.LSTM(2, go_backwards=True, return_sequences=True))


def _plain(config):
    """A config with tuples as lists, without the arguments Keras writes at values that mean
    "unused" (``seed=None``, ``zero_output_for_mask=False``)."""

    def strip(c):
        if isinstance(c, dict):
            return {
                k: strip(v)
                for k, v in c.items()
                if k != "shared_object_id" and not (k in KERAS_ONLY_DEFAULTS and v == KERAS_ONLY_DEFAULTS[k])
            }
        if isinstance(c, (list, tuple)):
            return [strip(v) for v in c]
        return c

    return strip(config)


def _configs():
    return {
        "rnn": L.RNN(L.SimpleRNNCell(2, name="cell"), go_backwards=True, name="rnn"),
        "bidirectional": L.Bidirectional(L.LSTM(2, name="lstm"), merge_mode="sum", name="bi"),
        "bidirectional_backward": L.Bidirectional(
            L.GRU(2, name="f"), backward_layer=L.GRU(2, go_backwards=True, name="b"), merge_mode=None, name="bi2"
        ),
    }


@pytest.mark.parametrize("key", ["rnn", "bidirectional", "bidirectional_backward"])
def test_wrapper_configs_are_keras_and_rebuild(key):
    layer = _configs()[key]
    keras_config = KERAS["configs"][key]
    assert _plain(layer.get_config()) == _plain(keras_config)
    again = type(layer).from_config(keras_config)
    assert _plain(again.get_config()) == _plain(keras_config)
    x = X[:2]
    layer(x), again(x)
    again.set_weights(layer.get_weights())
    for a, b in zip(tf.nest.flatten(layer(x)), tf.nest.flatten(again(x))):
        np.testing.assert_allclose(a.numpy(), b.numpy(), **TOL)


def test_bidirectional_loads_keras_configs_of_sequence_layers():
    """Keras writes zero_output_for_mask=True into a Bidirectional's layers that return sequences."""
    config = L.Bidirectional(L.LSTM(2, return_sequences=True)).get_config()
    for key in ("layer", "backward_layer"):
        config[key]["config"]["zero_output_for_mask"] = True
    layer = L.Bidirectional.from_config(config)
    assert layer(X).shape == (8, 5, 4)


# --- preprocessing -----------------------------------------------------------------------------------

XN = np.arange(24, dtype="float32").reshape(4, 3, 2) ** 1.5


def _normalizations():
    def adapted(layer, data):
        layer.adapt(data)
        return layer

    return {
        "axis_none": (adapted(L.Normalization(axis=None), XN), XN[:1]),
        "axis_12_tensor": (adapted(L.Normalization(axis=(1, 2)), tf.constant(XN)), XN[:1]),
        "dataset": (adapted(L.Normalization(), tf.data.Dataset.from_tensor_slices(XN).batch(3)), XN[:1]),
        "invert": (adapted(L.Normalization(invert=True), XN.reshape(-1, 2)), np.array([[1.0, -1.0]], "float32")),
        "given": (L.Normalization(axis=(1, 2), mean=[1.0, 2.0], variance=[4.0, 9.0]), XN[:1]),
        "zero_variance": (
            adapted(L.Normalization(), np.array([[1.0, 5.0], [1.0, 7.0]], "float32")),
            np.array([[2.0, 6.0]], "float32"),
        ),
    }


@pytest.mark.parametrize("key", ["axis_none", "axis_12_tensor", "dataset", "invert", "given", "zero_variance"])
def test_normalization_matches_keras(key):
    layer, x = _normalizations()[key]
    expected = np.array(KERAS["normalization"][key])
    np.testing.assert_allclose(layer(x).numpy(), expected, **TOL)
    np.testing.assert_allclose(tf.function(lambda t: layer(t))(x).numpy(), expected, **TOL)


def test_normalization_adapts_an_unbatched_dataset_and_keeps_keras_weights():
    layer = L.Normalization()
    layer.adapt(tf.data.Dataset.from_tensor_slices(XN.reshape(-1, 2)))  # 1-D elements: batched by 128
    np.testing.assert_allclose(layer.mean.numpy(), np.array(KERAS["normalization"]["unbatched"]), **TOL)
    assert [w.name.split("/")[-1].split(":")[0] for w in layer.weights] == ["mean", "variance", "count"]
    assert layer.trainable_weights == [] and layer.weights[2].dtype == tf.int64
    assert layer.weights[2].numpy() == 0  # Keras creates the count and never updates it
    np.testing.assert_allclose(layer.weights[0].numpy(), XN.reshape(-1, 2).mean(axis=0), rtol=1e-6)
    np.testing.assert_allclose(layer.weights[1].numpy(), XN.reshape(-1, 2).var(axis=0), rtol=1e-5)


def test_normalization_sees_a_new_adapt_inside_a_function():
    layer = L.Normalization()
    layer.adapt(np.array([[0.0], [2.0]], "float32"))
    fn = tf.function(lambda t: layer(t))
    np.testing.assert_allclose(fn(np.array([[3.0]], "float32")).numpy(), [[2.0]])
    layer.adapt(np.array([[0.0], [4.0]], "float32"))
    np.testing.assert_allclose(fn(np.array([[3.0]], "float32")).numpy(), [[0.5]])


def test_normalization_argument_errors():
    with pytest.raises(ValueError, match="both `mean` and `variance`"):
        L.Normalization(mean=1.0)
    with pytest.raises(ValueError, match="same shape"):
        L.Normalization(mean=[1.0, 2.0], variance=1.0)


def test_rescaling_turns_integer_images_into_floats():
    layer = L.Rescaling(1 / 127.5, offset=-1)
    x = np.array([[0, 128, 255]], "uint8")
    for fn in (layer, tf.function(lambda t: layer(t))):
        out = fn(x)
        assert out.dtype == tf.float32
        np.testing.assert_allclose(out.numpy(), np.array(KERAS["rescaling_uint8"]), **TOL)


def test_rescaling_config_writes_numpy_scales_as_keras():
    layer = L.Rescaling(np.array([1.0, 2.0]), offset=0.5)
    config = layer.get_config()
    assert config["scale"] == {"class_name": "__numpy__", "config": {"value": [1.0, 2.0], "dtype": "float64"}}
    again = L.Rescaling.from_config(config)
    np.testing.assert_allclose(again(np.ones((1, 2), "float32")).numpy(), [[1.5, 2.5]])


# --- activations -------------------------------------------------------------------------------------

XA = np.linspace(-5, 5, 11).astype("float32")


@pytest.mark.parametrize(
    "name",
    ["hard_sigmoid", "hard_silu", "hard_swish", "relu6", "gelu", "selu", "softsign", "leaky_relu", "mish", "silu"],
)
def test_activations_match_keras(name):
    fn = keras.activations.get(name)
    expected = np.array(KERAS["activations"][name])
    np.testing.assert_allclose(fn(XA).numpy(), expected, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(tf.function(fn)(XA).numpy(), expected, rtol=1e-5, atol=1e-6)
    assert L.Dense(2, activation=name).activation is fn  # layers take them by name


def test_gelu_approximate_and_log_softmax_match_keras():
    gelu = keras.activations.gelu
    np.testing.assert_allclose(gelu(XA, approximate=True).numpy(), KERAS["activations"]["gelu_approximate"], atol=1e-6)
    out = tf.function(keras.activations.log_softmax)(XA.reshape(1, 11))
    np.testing.assert_allclose(out.numpy(), KERAS["activations"]["log_softmax"], rtol=1e-5, atol=1e-6)


def test_hard_sigmoid_is_keras_3s_relu6_form():
    x = np.array([-4.0, -3.0, 0.0, 1.5, 3.0, 4.0], "float32")
    np.testing.assert_allclose(keras.activations.hard_sigmoid(x).numpy(), np.clip(x + 3, 0, 6) / 6)
    assert keras.activations.serialize(keras.activations.swish) == "silu"  # Keras 3's name for it
    assert keras.activations.get("hard_swish") is keras.activations.hard_silu


# --- utilities ---------------------------------------------------------------------------------------


def test_timeseries_windows_and_targets():
    data = np.arange(100, dtype="float64").reshape(50, 2)
    targets = np.arange(50)
    ds = keras.utils.timeseries_dataset_from_array(
        data, targets, sequence_length=4, sequence_stride=3, sampling_rate=2, batch_size=4, start_index=3, end_index=40
    )
    batches = list(ds.as_numpy_iterator())
    windows = np.concatenate([b[0] for b in batches])
    got_targets = np.concatenate([b[1] for b in batches])
    # window i: rows 3 + 3i, 3 + 3i + 2, ... (4 of them), all before row 40
    starts = np.arange(0, 40 - 3 - 3 * 2, 3)
    np.testing.assert_array_equal(windows, np.stack([data[3 + s : 3 + s + 8 : 2] for s in starts]))
    np.testing.assert_array_equal(got_targets, targets[3 + starts])
    assert [len(b[0]) for b in batches] == [4, 4, 3]
    assert windows.dtype == np.float64


def test_timeseries_unbatched_shuffled_and_without_targets():
    data = np.arange(20, dtype="float32")
    plain = list(keras.utils.timeseries_dataset_from_array(data, None, sequence_length=5, batch_size=None))
    assert len(plain) == 16 and plain[0].numpy().tolist() == [0, 1, 2, 3, 4]
    shuffled = keras.utils.timeseries_dataset_from_array(
        data, None, sequence_length=5, batch_size=3, shuffle=True, seed=1
    )
    firsts = sorted(int(w[0]) for b in shuffled.as_numpy_iterator() for w in b)
    assert firsts == list(range(16))
    with pytest.raises(ValueError, match="sampling_rate"):
        keras.utils.timeseries_dataset_from_array(data, None, sequence_length=2, sampling_rate=0)


def test_timeseries_feeds_fit():
    data = np.sin(np.arange(40, dtype="float32") / 3.0)[:, None]
    ds = keras.utils.timeseries_dataset_from_array(data[:-5], data[5:], sequence_length=5, batch_size=8)
    model = keras.Sequential([keras.Input((5, 1)), L.SimpleRNN(3), L.Dense(1)])
    model.compile(optimizer="adam", loss="mse")
    history = model.fit(ds, epochs=2, verbose=0)
    assert len(history.history["loss"]) == 2 and np.isfinite(history.history["loss"]).all()


def test_tf_initializers_is_keras_initializers():
    assert tf.initializers is keras.initializers
    assert isinstance(tf.initializers.GlorotUniform(), keras.initializers.Initializer)


# Keras 3.15's numbers (TensorFlow backend), computed with the models, inputs and weights above
# (rounded to 6 decimals).
KERAS = {
    "activations": {
        "gelu": [-1e-06, -0.000127, -0.00405, -0.0455, -0.158655, 0.0, 0.841345, 1.9545, 2.99595, 3.999873, 4.999999],
        "gelu_approximate": [
            -0.0,
            -7e-05,
            -0.003637,
            -0.045402,
            -0.158808,
            0.0,
            0.841192,
            1.954598,
            2.996363,
            3.99993,
            5.0,
        ],
        "hard_sigmoid": [0.0, 0.0, 0.0, 0.166667, 0.333333, 0.5, 0.666667, 0.833333, 1.0, 1.0, 1.0],
        "hard_silu": [-0.0, -0.0, -0.0, -0.333333, -0.333333, 0.0, 0.666667, 1.666667, 3.0, 4.0, 5.0],
        "hard_swish": [-0.0, -0.0, -0.0, -0.333333, -0.333333, 0.0, 0.666667, 1.666667, 3.0, 4.0, 5.0],
        "leaky_relu": [-1.0, -0.8, -0.6, -0.4, -0.2, 0.0, 1.0, 2.0, 3.0, 4.0, 5.0],
        "log_softmax": [
            [
                -10.458658,
                -9.458658,
                -8.458658,
                -7.458658,
                -6.458658,
                -5.458658,
                -4.458658,
                -3.458658,
                -2.458658,
                -1.458658,
                -0.458658,
            ]
        ],
        "mish": [
            -0.033576,
            -0.072592,
            -0.145647,
            -0.252501,
            -0.303401,
            0.0,
            0.865098,
            1.943959,
            2.986535,
            3.997412,
            4.999552,
        ],
        "relu6": [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 1.0, 2.0, 3.0, 4.0, 5.0],
        "selu": [
            -1.746253,
            -1.725899,
            -1.670569,
            -1.520167,
            -1.111331,
            0.0,
            1.050701,
            2.101402,
            3.152103,
            4.202804,
            5.253505,
        ],
        "silu": [
            -0.033464,
            -0.071945,
            -0.142278,
            -0.238406,
            -0.268941,
            0.0,
            0.731059,
            1.761594,
            2.857722,
            3.928055,
            4.966536,
        ],
        "softsign": [-0.833333, -0.8, -0.75, -0.666667, -0.5, 0.0, 0.5, 0.666667, 0.75, 0.8, 0.833333],
    },
    "configs": {
        "bidirectional": {
            "backward_layer": {
                "class_name": "LSTM",
                "config": {
                    "activation": "tanh",
                    "activity_regularizer": None,
                    "bias_constraint": None,
                    "bias_initializer": {
                        "class_name": "Zeros",
                        "config": {},
                        "module": "keras.initializers",
                        "registered_name": None,
                    },
                    "bias_regularizer": None,
                    "dropout": 0.0,
                    "dtype": {
                        "class_name": "DTypePolicy",
                        "config": {"name": "float32"},
                        "module": "keras",
                        "registered_name": None,
                    },
                    "go_backwards": True,
                    "kernel_constraint": None,
                    "kernel_initializer": {
                        "class_name": "GlorotUniform",
                        "config": {"input_axes": None, "output_axes": None, "seed": None},
                        "module": "keras.initializers",
                        "registered_name": None,
                    },
                    "kernel_regularizer": None,
                    "name": "backward_lstm",
                    "recurrent_activation": "sigmoid",
                    "recurrent_constraint": None,
                    "recurrent_dropout": 0.0,
                    "recurrent_initializer": {
                        "class_name": "Orthogonal",
                        "config": {"gain": 1.0, "seed": None},
                        "module": "keras.initializers",
                        "registered_name": None,
                    },
                    "recurrent_regularizer": None,
                    "return_sequences": False,
                    "return_state": False,
                    "seed": None,
                    "stateful": False,
                    "trainable": True,
                    "unit_forget_bias": True,
                    "units": 2,
                    "unroll": False,
                    "use_bias": True,
                    "zero_output_for_mask": False,
                },
                "module": "keras.layers",
                "registered_name": None,
            },
            "dtype": {
                "class_name": "DTypePolicy",
                "config": {"name": "float32"},
                "module": "keras",
                "registered_name": None,
            },
            "layer": {
                "class_name": "LSTM",
                "config": {
                    "activation": "tanh",
                    "activity_regularizer": None,
                    "bias_constraint": None,
                    "bias_initializer": {
                        "class_name": "Zeros",
                        "config": {},
                        "module": "keras.initializers",
                        "registered_name": None,
                    },
                    "bias_regularizer": None,
                    "dropout": 0.0,
                    "dtype": {
                        "class_name": "DTypePolicy",
                        "config": {"name": "float32"},
                        "module": "keras",
                        "registered_name": None,
                    },
                    "go_backwards": False,
                    "kernel_constraint": None,
                    "kernel_initializer": {
                        "class_name": "GlorotUniform",
                        "config": {"input_axes": None, "output_axes": None, "seed": None},
                        "module": "keras.initializers",
                        "registered_name": None,
                    },
                    "kernel_regularizer": None,
                    "name": "forward_lstm",
                    "recurrent_activation": "sigmoid",
                    "recurrent_constraint": None,
                    "recurrent_dropout": 0.0,
                    "recurrent_initializer": {
                        "class_name": "Orthogonal",
                        "config": {"gain": 1.0, "seed": None},
                        "module": "keras.initializers",
                        "registered_name": None,
                    },
                    "recurrent_regularizer": None,
                    "return_sequences": False,
                    "return_state": False,
                    "seed": None,
                    "stateful": False,
                    "trainable": True,
                    "unit_forget_bias": True,
                    "units": 2,
                    "unroll": False,
                    "use_bias": True,
                    "zero_output_for_mask": False,
                },
                "module": "keras.layers",
                "registered_name": None,
            },
            "merge_mode": "sum",
            "name": "bi",
            "trainable": True,
        },
        "bidirectional_backward": {
            "backward_layer": {
                "class_name": "GRU",
                "config": {
                    "activation": "tanh",
                    "activity_regularizer": None,
                    "bias_constraint": None,
                    "bias_initializer": {
                        "class_name": "Zeros",
                        "config": {},
                        "module": "keras.initializers",
                        "registered_name": None,
                    },
                    "bias_regularizer": None,
                    "dropout": 0.0,
                    "dtype": {
                        "class_name": "DTypePolicy",
                        "config": {"name": "float32"},
                        "module": "keras",
                        "registered_name": None,
                    },
                    "go_backwards": True,
                    "kernel_constraint": None,
                    "kernel_initializer": {
                        "class_name": "GlorotUniform",
                        "config": {"input_axes": None, "output_axes": None, "seed": None},
                        "module": "keras.initializers",
                        "registered_name": None,
                    },
                    "kernel_regularizer": None,
                    "name": "b",
                    "recurrent_activation": "sigmoid",
                    "recurrent_constraint": None,
                    "recurrent_dropout": 0.0,
                    "recurrent_initializer": {
                        "class_name": "Orthogonal",
                        "config": {"gain": 1.0, "seed": None},
                        "module": "keras.initializers",
                        "registered_name": None,
                    },
                    "recurrent_regularizer": None,
                    "reset_after": True,
                    "return_sequences": False,
                    "return_state": False,
                    "seed": None,
                    "stateful": False,
                    "trainable": True,
                    "units": 2,
                    "unroll": False,
                    "use_bias": True,
                    "zero_output_for_mask": False,
                },
                "module": "keras.layers",
                "registered_name": None,
            },
            "dtype": {
                "class_name": "DTypePolicy",
                "config": {"name": "float32"},
                "module": "keras",
                "registered_name": None,
            },
            "layer": {
                "class_name": "GRU",
                "config": {
                    "activation": "tanh",
                    "activity_regularizer": None,
                    "bias_constraint": None,
                    "bias_initializer": {
                        "class_name": "Zeros",
                        "config": {},
                        "module": "keras.initializers",
                        "registered_name": None,
                    },
                    "bias_regularizer": None,
                    "dropout": 0.0,
                    "dtype": {
                        "class_name": "DTypePolicy",
                        "config": {"name": "float32"},
                        "module": "keras",
                        "registered_name": None,
                    },
                    "go_backwards": False,
                    "kernel_constraint": None,
                    "kernel_initializer": {
                        "class_name": "GlorotUniform",
                        "config": {"input_axes": None, "output_axes": None, "seed": None},
                        "module": "keras.initializers",
                        "registered_name": None,
                    },
                    "kernel_regularizer": None,
                    "name": "forward_f",
                    "recurrent_activation": "sigmoid",
                    "recurrent_constraint": None,
                    "recurrent_dropout": 0.0,
                    "recurrent_initializer": {
                        "class_name": "Orthogonal",
                        "config": {"gain": 1.0, "seed": None},
                        "module": "keras.initializers",
                        "registered_name": None,
                    },
                    "recurrent_regularizer": None,
                    "reset_after": True,
                    "return_sequences": False,
                    "return_state": False,
                    "seed": None,
                    "stateful": False,
                    "trainable": True,
                    "units": 2,
                    "unroll": False,
                    "use_bias": True,
                    "zero_output_for_mask": False,
                },
                "module": "keras.layers",
                "registered_name": None,
            },
            "merge_mode": None,
            "name": "bi2",
            "trainable": True,
        },
        "rnn": {
            "cell": {
                "class_name": "SimpleRNNCell",
                "config": {
                    "activation": "tanh",
                    "bias_constraint": None,
                    "bias_initializer": {
                        "class_name": "Zeros",
                        "config": {},
                        "module": "keras.initializers",
                        "registered_name": None,
                    },
                    "bias_regularizer": None,
                    "dropout": 0.0,
                    "dtype": {
                        "class_name": "DTypePolicy",
                        "config": {"name": "float32"},
                        "module": "keras",
                        "registered_name": None,
                    },
                    "kernel_constraint": None,
                    "kernel_initializer": {
                        "class_name": "GlorotUniform",
                        "config": {"input_axes": None, "output_axes": None, "seed": None},
                        "module": "keras.initializers",
                        "registered_name": None,
                    },
                    "kernel_regularizer": None,
                    "name": "cell",
                    "recurrent_constraint": None,
                    "recurrent_dropout": 0.0,
                    "recurrent_initializer": {
                        "class_name": "Orthogonal",
                        "config": {"gain": 1.0, "seed": None},
                        "module": "keras.initializers",
                        "registered_name": None,
                    },
                    "recurrent_regularizer": None,
                    "seed": None,
                    "trainable": True,
                    "units": 2,
                    "use_bias": True,
                },
                "module": "keras.layers",
                "registered_name": None,
            },
            "dtype": {
                "class_name": "DTypePolicy",
                "config": {"name": "float32"},
                "module": "keras",
                "registered_name": None,
            },
            "go_backwards": True,
            "name": "rnn",
            "return_sequences": False,
            "return_state": False,
            "stateful": False,
            "trainable": True,
            "unroll": False,
            "zero_output_for_mask": False,
        },
    },
    "merges": {
        "None-False": [
            [[0.93227, 0.944513], [0.932927, 0.94691]],
            [[-0.609046, -0.670557], [-0.392963, -0.323995]],
            [[0.93227, 0.944513], [0.932927, 0.94691]],
            [[-0.609046, -0.670557], [-0.392963, -0.323995]],
        ],
        "None-True": [
            [
                [
                    [0.759871, 0.78485],
                    [0.925436, 0.929728],
                    [0.96943, 0.972835],
                    [0.9538, 0.957845],
                    [0.93227, 0.944513],
                ],
                [
                    [0.70444, 0.649039],
                    [0.95189, 0.962066],
                    [0.953915, 0.960639],
                    [0.924127, 0.922426],
                    [0.932927, 0.94691],
                ],
            ],
            [
                [
                    [-0.609046, -0.670557],
                    [-0.237326, -0.276611],
                    [-0.691241, -0.742492],
                    [-0.330769, -0.386455],
                    [-0.625903, -0.704691],
                ],
                [
                    [-0.392963, -0.323995],
                    [-0.47368, -0.579396],
                    [-0.684112, -0.744461],
                    [-0.114151, -0.105703],
                    [-0.641989, -0.727335],
                ],
            ],
            [[0.93227, 0.944513], [0.932927, 0.94691]],
            [[-0.609046, -0.670557], [-0.392963, -0.323995]],
        ],
        "ave-False": [
            [[0.161612, 0.136978], [0.269982, 0.311458]],
            [[0.93227, 0.944513], [0.932927, 0.94691]],
            [[-0.609046, -0.670557], [-0.392963, -0.323995]],
        ],
        "ave-True": [
            [
                [
                    [0.075413, 0.057146],
                    [0.344055, 0.326559],
                    [0.139095, 0.115171],
                    [0.311515, 0.285695],
                    [0.153184, 0.119911],
                ],
                [
                    [0.155739, 0.162522],
                    [0.239105, 0.191335],
                    [0.134901, 0.108089],
                    [0.404988, 0.408362],
                    [0.145469, 0.109788],
                ],
            ],
            [[0.93227, 0.944513], [0.932927, 0.94691]],
            [[-0.609046, -0.670557], [-0.392963, -0.323995]],
        ],
        "concat-False": [
            [[0.93227, 0.944513, -0.609046, -0.670557], [0.932927, 0.94691, -0.392963, -0.323995]],
            [[0.93227, 0.944513], [0.932927, 0.94691]],
            [[-0.609046, -0.670557], [-0.392963, -0.323995]],
        ],
        "concat-True": [
            [
                [
                    [0.759871, 0.78485, -0.609046, -0.670557],
                    [0.925436, 0.929728, -0.237326, -0.276611],
                    [0.96943, 0.972835, -0.691241, -0.742492],
                    [0.9538, 0.957845, -0.330769, -0.386455],
                    [0.93227, 0.944513, -0.625903, -0.704691],
                ],
                [
                    [0.70444, 0.649039, -0.392963, -0.323995],
                    [0.95189, 0.962066, -0.47368, -0.579396],
                    [0.953915, 0.960639, -0.684112, -0.744461],
                    [0.924127, 0.922426, -0.114151, -0.105703],
                    [0.932927, 0.94691, -0.641989, -0.727335],
                ],
            ],
            [[0.93227, 0.944513], [0.932927, 0.94691]],
            [[-0.609046, -0.670557], [-0.392963, -0.323995]],
        ],
        "mul-False": [
            [[-0.567795, -0.633349], [-0.366606, -0.306795]],
            [[0.93227, 0.944513], [0.932927, 0.94691]],
            [[-0.609046, -0.670557], [-0.392963, -0.323995]],
        ],
        "mul-True": [
            [
                [
                    [-0.462797, -0.526286],
                    [-0.21963, -0.257173],
                    [-0.67011, -0.722321],
                    [-0.315488, -0.370164],
                    [-0.58351, -0.66559],
                ],
                [
                    [-0.276819, -0.210285],
                    [-0.450892, -0.557417],
                    [-0.652585, -0.715158],
                    [-0.10549, -0.097503],
                    [-0.598929, -0.688721],
                ],
            ],
            [[0.93227, 0.944513], [0.932927, 0.94691]],
            [[-0.609046, -0.670557], [-0.392963, -0.323995]],
        ],
        "sum-False": [
            [[0.323224, 0.273956], [0.539964, 0.622915]],
            [[0.93227, 0.944513], [0.932927, 0.94691]],
            [[-0.609046, -0.670557], [-0.392963, -0.323995]],
        ],
        "sum-True": [
            [
                [
                    [0.150825, 0.114293],
                    [0.68811, 0.653117],
                    [0.278189, 0.230343],
                    [0.623031, 0.571391],
                    [0.306367, 0.239822],
                ],
                [
                    [0.311477, 0.325043],
                    [0.478209, 0.38267],
                    [0.269803, 0.216178],
                    [0.809976, 0.816723],
                    [0.290938, 0.219576],
                ],
            ],
            [[0.93227, 0.944513], [0.932927, 0.94691]],
            [[-0.609046, -0.670557], [-0.392963, -0.323995]],
        ],
    },
    "models": {
        "bi": {
            "after": [[0.440474], [0.440985], [0.43677], [0.43913], [0.440113], [0.437023], [0.436855], [0.438096]],
            "before": [[0.19777], [0.19751], [0.193136], [0.196138], [0.196395], [0.192965], [0.194482], [0.19524]],
            "layout": [
                ("layers/bidirectional/backward_layer/cell/vars/0", [3, 12]),
                ("layers/bidirectional/backward_layer/cell/vars/1", [3, 12]),
                ("layers/bidirectional/backward_layer/cell/vars/2", [12]),
                ("layers/bidirectional/forward_layer/cell/vars/0", [3, 12]),
                ("layers/bidirectional/forward_layer/cell/vars/1", [3, 12]),
                ("layers/bidirectional/forward_layer/cell/vars/2", [12]),
                ("layers/bidirectional_1/backward_layer/cell/vars/0", [6, 6]),
                ("layers/bidirectional_1/backward_layer/cell/vars/1", [2, 6]),
                ("layers/bidirectional_1/backward_layer/cell/vars/2", [2, 6]),
                ("layers/bidirectional_1/forward_layer/cell/vars/0", [6, 6]),
                ("layers/bidirectional_1/forward_layer/cell/vars/1", [2, 6]),
                ("layers/bidirectional_1/forward_layer/cell/vars/2", [2, 6]),
                ("layers/dense/vars/0", [2, 1]),
                ("layers/dense/vars/1", [1]),
            ],
            "loss": [0.167163, 0.112832, 0.09322],
        },
        "bi_func": {
            "after": [[0.329572], [0.523998], [0.292098], [0.590635], [0.389105], [0.460392], [0.37997], [0.463434]],
            "before": [[-0.027215], [0.2252], [-0.077239], [0.286764], [0.051119], [0.116854], [0.027533], [0.135473]],
            "layout": [
                ("layers/bidirectional/backward_layer/cell/vars/0", [3, 2]),
                ("layers/bidirectional/backward_layer/cell/vars/1", [2, 2]),
                ("layers/bidirectional/backward_layer/cell/vars/2", [2]),
                ("layers/bidirectional/forward_layer/cell/vars/0", [3, 2]),
                ("layers/bidirectional/forward_layer/cell/vars/1", [2, 2]),
                ("layers/bidirectional/forward_layer/cell/vars/2", [2]),
                ("layers/bidirectional_1/backward_layer/cell/vars/0", [2, 8]),
                ("layers/bidirectional_1/backward_layer/cell/vars/1", [2, 8]),
                ("layers/bidirectional_1/backward_layer/cell/vars/2", [8]),
                ("layers/bidirectional_1/forward_layer/cell/vars/0", [2, 8]),
                ("layers/bidirectional_1/forward_layer/cell/vars/1", [2, 8]),
                ("layers/bidirectional_1/forward_layer/cell/vars/2", [8]),
                ("layers/dense/vars/0", [6, 1]),
                ("layers/dense/vars/1", [1]),
            ],
            "loss": [0.262553, 0.142453, 0.13462],
        },
        "custom": {
            "after": [[0.326376], [0.329601], [0.282841], [0.330215], [0.332775], [0.260133], [0.337772], [0.326187]],
            "before": [
                [-0.629478],
                [-0.619406],
                [-0.636062],
                [-0.596488],
                [-0.633283],
                [-0.673516],
                [-0.625272],
                [-0.641782],
            ],
            "layout": [
                ("layers/dense/vars/0", [2, 1]),
                ("layers/dense/vars/1", [1]),
                ("layers/rnn/cell/vars/0", [3, 3]),
                ("layers/rnn/cell/vars/1", [3, 3]),
                ("layers/rnn_1/cell/vars/0", [3, 2]),
                ("layers/rnn_1/cell/vars/1", [2, 2]),
            ],
            "loss": [1.09841, 0.381276, 0.186287],
        },
        "norm": {
            "after": [[0.457793], [0.256133], [0.478552], [0.419741], [0.390026], [0.597494], [0.576696], [0.582437]],
            "before": [[0.522013], [0.160575], [0.577376], [0.458238], [0.369976], [0.773518], [0.820456], [0.719634]],
            "layout": [
                ("layers/dense/vars/0", [3, 1]),
                ("layers/dense/vars/1", [1]),
                ("layers/normalization/vars/0", [3]),
                ("layers/normalization/vars/1", [3]),
                ("layers/normalization/vars/2", []),
            ],
            "loss": [0.16807, 0.143965, 0.127796],
        },
        "srnn": {
            "after": [[0.50289], [0.390518], [0.504301], [0.53553], [0.44141], [0.461691], [0.482216], [0.501576]],
            "before": [[0.379048], [0.319178], [0.379443], [0.398847], [0.346313], [0.357601], [0.368526], [0.378727]],
            "layout": [
                ("layers/dense/vars/0", [2, 1]),
                ("layers/dense/vars/1", [1]),
                ("layers/rnn/cell/vars/0", [4, 2]),
                ("layers/rnn/cell/vars/1", [2, 2]),
                ("layers/rnn/cell/vars/2", [2]),
                ("layers/simple_rnn/cell/vars/0", [3, 4]),
                ("layers/simple_rnn/cell/vars/1", [4, 4]),
                ("layers/simple_rnn/cell/vars/2", [4]),
            ],
            "loss": [0.101196, 0.087387, 0.082759],
        },
    },
    "normalization": {
        "axis_12_tensor": [[[-1.141009, -1.17259], [-1.193667, -1.209544], [-1.222108, -1.232362]]],
        "axis_none": [[[-1.296104, -1.267047], [-1.213917, -1.145118], [-1.063646, -0.971234]]],
        "dataset": [[[-1.261299, -1.307629], [-1.176816, -1.188302], [-1.022345, -1.018129]]],
        "given": [[[-0.5, -0.333333], [0.914214, 1.065384], [3.5, 3.060113]]],
        "invert": [[75.706482, 11.817829]],
        "unbatched": [[42.227283, 46.983051]],
        "zero_variance": [[10000000.0, 0.0]],
    },
    "rescaling_uint8": [[-1.0, 0.003922, 1.0]],
}
