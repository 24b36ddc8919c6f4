"""Recurrent layers as Keras 3.15 has them: dropout and recurrent_dropout (Keras's
``DropoutRNNCell``: masks drawn once per sequence, only in training), stacked cells
(``RNN([cell, ...])``, ``StackedRNNCells``) and ``stateful=True``.

Expected values are analytic (dropout of a linear cell on ones, a stack equal to the layers it
chains, a stateful layer equal to one run over the whole sequence) or Keras's own (configs and
weights-file paths recorded from Keras 3.15)."""

import json

import numpy as np
import pytest

import tfunc as tf
from tfunc import keras
from tfunc.keras import layers

RNG = np.random.default_rng(7)
X = RNG.normal(size=(3, 5, 4)).astype("float32")

DROPOUT_LAYERS = [
    ("SimpleRNN", {}),
    ("LSTM", {}),
    ("LSTM", {"implementation": 1}),
    ("GRU", {}),
    ("GRU", {"reset_after": False}),
]


def _pair(name, kwargs, **dropout):
    """A layer with dropout and the same layer without, sharing weights."""
    plain = getattr(layers, name)(6, return_sequences=True, **kwargs)
    dropped = getattr(layers, name)(6, return_sequences=True, **kwargs, **dropout)
    plain(X)
    dropped(X)
    dropped.set_weights(plain.get_weights())
    return plain, dropped


@pytest.mark.parametrize("name,kwargs", DROPOUT_LAYERS)
def test_dropout_outside_training_is_the_layer_without_dropout(name, kwargs):
    plain, dropped = _pair(name, kwargs, dropout=0.4, recurrent_dropout=0.3, seed=2)
    expected = plain(X).numpy()
    np.testing.assert_array_equal(dropped(X).numpy(), expected)
    np.testing.assert_array_equal(dropped(X, training=False).numpy(), expected)
    np.testing.assert_array_equal(tf.function(lambda x: dropped(x, training=False))(X).numpy(), expected)
    trained = dropped(X, training=True).numpy()
    assert np.isfinite(trained).all() and np.abs(trained - expected).max() > 1e-3
    traced = tf.function(lambda x: dropped(x, training=True))
    first, second = traced(X).numpy(), traced(X).numpy()
    assert np.abs(first - expected).max() > 1e-3 and np.abs(first - second).max() > 1e-3  # new masks each call


def _linear_rnn(**kwargs):
    return layers.SimpleRNN(
        4,
        activation=None,
        use_bias=False,
        return_sequences=True,
        kernel_initializer="identity",
        recurrent_initializer="zeros",
        **kwargs,
    )


@pytest.mark.parametrize("traced", [False, True])
def test_an_input_mask_is_drawn_once_per_sequence(traced):
    # h_t = (x_t * mask) @ I: with ones in, each output is the mask, 0 or 1 / (1 - 0.5)
    layer = _linear_rnn(dropout=0.5, seed=11)
    ones = np.ones((4000, 3, 4), "float32")
    layer(ones[:1])  # built before tracing: one trace, whose seeded stream goes on from call to call
    run = tf.function(lambda x: layer(x, training=True)) if traced else (lambda x: layer(x, training=True))
    out = run(ones).numpy()
    assert set(np.unique(out)) <= {0.0, 2.0}
    np.testing.assert_array_equal(out[:, 1:], out[:, :1].repeat(2, axis=1))  # the same mask at every step
    assert abs((out == 0).mean() - 0.5) < 0.02
    assert np.abs(run(ones).numpy() - out).max() == 2.0  # a new mask on the next call


@pytest.mark.parametrize("traced", [False, True])
def test_a_recurrent_mask_is_drawn_once_per_sequence(traced):
    # h_t = (h_{t-1} * mask) @ I from h_0 = 1: after 3 steps mask**3, 0 or 8 (half each), were the
    # mask drawn again at each step, 8 would be 1 in 8
    layer = layers.SimpleRNN(
        4,
        activation=None,
        use_bias=False,
        kernel_initializer="zeros",
        recurrent_initializer="identity",
        recurrent_dropout=0.5,
    )
    x, h0 = np.ones((4000, 3, 4), "float32"), np.ones((4000, 4), "float32")
    call = lambda x, h: layer(x, initial_state=[h], training=True)  # noqa: E731
    out = (tf.function(call) if traced else call)(x, h0).numpy()
    assert set(np.unique(out)) <= {0.0, 8.0}
    assert abs((out == 8).mean() - 0.5) < 0.02


def test_simple_rnn_drops_everything_at_rate_one_and_lstm_gru_nothing():
    plain, dropped = _pair("SimpleRNN", {}, dropout=1.0)  # as if the inputs were zeros
    np.testing.assert_allclose(dropped(X, training=True).numpy(), plain(np.zeros_like(X)).numpy(), atol=1e-7)
    for name in ("LSTM", "GRU"):  # Keras 3.15 applies no mask at a rate of 1
        plain, dropped = _pair(name, {}, dropout=1.0, recurrent_dropout=1.0)
        np.testing.assert_array_equal(dropped(X, training=True).numpy(), plain(X).numpy())
    clipped = layers.LSTM(2, dropout=1.5, recurrent_dropout=-1)  # rates clipped to [0, 1], as Keras
    assert (clipped.dropout, clipped.recurrent_dropout) == (1.0, 0.0)
    assert (clipped.get_config()["dropout"], clipped.cell.get_config()["recurrent_dropout"]) == (1.0, 0.0)
    # Keras 3.15 writes the seed of LSTM and GRU layers and of the cells, not of SimpleRNN layers
    assert layers.LSTM(2, seed=5).get_config()["seed"] == 5 and "seed" not in layers.SimpleRNN(2, seed=5).get_config()
    assert layers.SimpleRNN(2, seed=5).cell.get_config()["seed"] == 5


@pytest.mark.parametrize(
    "cell,count",
    [
        (layers.LSTMCell(3, dropout=0.3), (1, None)),
        (layers.LSTMCell(3, dropout=0.3, recurrent_dropout=0.2), (4, 4)),
        (layers.LSTMCell(3, dropout=0.3, implementation=1), (4, None)),
        (layers.GRUCell(3, dropout=0.3, recurrent_dropout=0.2, seed=5), (3, 3)),
        (layers.SimpleRNNCell(3, recurrent_dropout=0.2), (None, 1)),
    ],
)
def test_masks_per_gate_with_implementation_one(cell, count):
    # Keras: recurrent dropout makes an LSTM or GRU cell use implementation 1, one mask per gate
    cell.build((None, 4))

    def masks():
        w = cell.step_weights(200, True)
        return w["input_masks"], w["recurrent_masks"]

    for got in (masks(), tf.function(masks)()):
        for group, n, rate in zip(got, count, (cell.dropout, cell.recurrent_dropout)):
            if n is None:
                assert group is None
                continue
            values = np.stack([m.numpy() for m in group])
            assert len(group) == n and set(np.unique(values)) <= {0.0, np.float32(1 / (1 - rate))}
            assert all(np.any(values[0] != v) for v in values[1:])  # each gate its own mask, a seed too
    assert cell.step_weights(200, False)["input_masks"] is None


def test_dropout_gradients_flow():
    layer = layers.LSTM(5, dropout=0.3, recurrent_dropout=0.3)
    layer(X)
    with tf.GradientTape() as tape:
        loss = tf.reduce_sum(layer(X, training=True) ** 2)
    grads = tape.gradient(loss, layer.trainable_weights)
    assert all(g is not None and np.isfinite(g.numpy()).all() and np.abs(g.numpy()).max() > 0 for g in grads)


def test_fit_trains_with_dropout_and_evaluate_does_not():
    # outputs x * mask with ones in: (mask - 1)**2 is 1 for either mask value, 0 without dropout
    model = keras.Sequential([keras.Input((3, 4)), _linear_rnn(dropout=0.5)])
    model.compile(optimizer=keras.optimizers.SGD(0.0), loss="mse")
    x, y = np.ones((8, 3, 4), "float32"), np.ones((8, 3, 4), "float32")
    history = model.fit(x, y, batch_size=4, epochs=2, verbose=0)
    np.testing.assert_allclose(history.history["loss"], [1.0, 1.0])
    assert model.evaluate(x, y, verbose=0) == 0.0


def test_bidirectional_with_dropout():
    plain = layers.Bidirectional(layers.GRU(3, return_sequences=True))
    dropped = layers.Bidirectional(layers.GRU(3, return_sequences=True, dropout=0.3, recurrent_dropout=0.3))
    plain(X)
    dropped(X)
    dropped.set_weights(plain.get_weights())
    expected = plain(X).numpy()
    np.testing.assert_array_equal(dropped(X).numpy(), expected)
    np.testing.assert_array_equal(tf.function(lambda x: dropped(x, training=False))(X).numpy(), expected)
    assert np.abs(tf.function(lambda x: dropped(x, training=True))(X).numpy() - expected).max() > 1e-3
    assert dropped.get_config()["layer"]["config"]["recurrent_dropout"] == 0.3


# --- stacked cells ----------------------------------------------------------------------------


def _stack_and_layers():
    """RNN([LSTMCell(5), GRUCell(3)]) and the LSTM and GRU layers it chains, with its weights."""
    stack = layers.RNN([layers.LSTMCell(5), layers.GRUCell(3)], return_sequences=True, return_state=True)
    lstm = layers.LSTM(5, return_sequences=True, return_state=True)
    gru = layers.GRU(3, return_sequences=True, return_state=True)
    stack(X)
    lstm(X)
    gru(np.zeros((3, 5, 5), "float32"))
    lstm.set_weights(stack.get_weights()[:3])
    gru.set_weights(stack.get_weights()[3:])
    return stack, lstm, gru


def test_a_stack_of_cells_is_the_layers_it_chains():
    stack, lstm, gru = _stack_and_layers()
    seq, h1, c1 = lstm(X)
    expected_out, h2 = gru(seq)
    unknown_time = tf.function(lambda x: stack(x), input_signature=[tf.TensorSpec([None, None, 4], tf.float32)])
    for out, (lstm_states, gru_states) in (
        ((o := stack(X))[0], o[1:]),
        ((o := tf.function(lambda x: stack(x))(X))[0], o[1:]),
        ((o := unknown_time(X))[0], o[1:]),  # a graph while-loop
    ):
        np.testing.assert_allclose(out.numpy(), expected_out.numpy(), rtol=1e-5, atol=1e-6)
        # Keras's state structure: one list per cell
        assert isinstance(lstm_states, list) and len(lstm_states) == 2 and isinstance(gru_states, list)
        for got, want in zip([*lstm_states, *gru_states], [h1, c1, h2]):
            np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-5, atol=1e-6)
    state = [[np.ones((3, 5), "float32"), np.zeros((3, 5), "float32")], [np.ones((3, 3), "float32")]]
    seq, *_ = lstm(X, initial_state=state[0])
    np.testing.assert_allclose(
        stack(X, initial_state=state)[0].numpy(), gru(seq, initial_state=state[1])[0].numpy(), rtol=1e-5, atol=1e-6
    )
    assert stack.compute_mask(X, None) == [None, None, None]


def test_stacked_rnn_cells_as_a_cell():
    cells = layers.StackedRNNCells([layers.SimpleRNNCell(4), layers.LSTMCell(2)])
    assert cells.state_size == [4, [2, 2]] and cells.output_size == 2
    layer = layers.RNN(cells)
    out = layer(X)
    assert out.shape == (3, 2) and [w.shape for w in layer.weights] == [(4, 4), (4, 4), (4,), (4, 8), (2, 8), (8,)]
    x0 = tf.constant(X[:, 0])
    out, (h1, (h2, c2)) = cells(x0, [tf.zeros((3, 4)), [tf.zeros((3, 2)), tf.zeros((3, 2))]])
    np.testing.assert_allclose(out.numpy(), layers.RNN(cells)(X[:, :1]).numpy(), rtol=1e-6)
    np.testing.assert_array_equal(out.numpy(), h2.numpy())
    assert [len(s) if isinstance(s, list) else 1 for s in cells.get_initial_state(batch_size=3)] == [1, 2]


def test_stacked_dropout_outside_training_is_the_stack_without_dropout():
    plain = layers.RNN([layers.GRUCell(3), layers.LSTMCell(2)])
    dropped = layers.RNN([layers.GRUCell(3, dropout=0.5, recurrent_dropout=0.5), layers.LSTMCell(2, dropout=0.5)])
    plain(X)
    dropped(X)
    dropped.set_weights(plain.get_weights())
    np.testing.assert_array_equal(dropped(X, training=False).numpy(), plain(X).numpy())
    assert np.abs(tf.function(lambda x: dropped(x, training=True))(X).numpy() - plain(X).numpy()).max() > 1e-3


# Keras 3.15: keras.layers.RNN([keras.layers.LSTMCell(4), keras.layers.GRUCell(2)]).cell.get_config()
# after a call on (2, 5, 3) inputs (build_config and the cells' GlorotUniform axes left out)
KERAS_STACK_CONFIG = json.loads(
    """{"name": "stacked_rnn_cells", "trainable": true, "dtype": {"module": "keras", "class_name": "DTypePolicy",
    "config": {"name": "float32"}, "registered_name": null}, "cells": [{"module": "keras.layers", "class_name":
    "LSTMCell", "config": {"name": "lstm_cell", "trainable": true, "dtype": {"module": "keras", "class_name":
    "DTypePolicy", "config": {"name": "float32"}, "registered_name": null}, "units": 4, "activation": "tanh",
    "recurrent_activation": "sigmoid", "use_bias": true, "unit_forget_bias": true, "kernel_initializer": {"module":
    "keras.initializers", "class_name": "GlorotUniform", "config": {"seed": null}, "registered_name": null},
    "recurrent_initializer": {"module": "keras.initializers", "class_name": "Orthogonal", "config": {"seed": null,
    "gain": 1.0}, "registered_name": null}, "bias_initializer": {"module": "keras.initializers", "class_name":
    "Zeros", "config": {}, "registered_name": null}, "kernel_regularizer": null, "recurrent_regularizer": null,
    "bias_regularizer": null, "kernel_constraint": null, "recurrent_constraint": null, "bias_constraint": null,
    "dropout": 0.0, "recurrent_dropout": 0.0, "seed": null}, "registered_name": null}, {"module": "keras.layers",
    "class_name": "GRUCell", "config": {"name": "gru_cell", "trainable": true, "dtype": {"module": "keras",
    "class_name": "DTypePolicy", "config": {"name": "float32"}, "registered_name": null}, "units": 2, "activation":
    "tanh", "recurrent_activation": "sigmoid", "use_bias": true, "kernel_initializer": {"module":
    "keras.initializers", "class_name": "GlorotUniform", "config": {"seed": null}, "registered_name": null},
    "recurrent_initializer": {"module": "keras.initializers", "class_name": "Orthogonal", "config": {"seed": null,
    "gain": 1.0}, "registered_name": null}, "bias_initializer": {"module": "keras.initializers", "class_name":
    "Zeros", "config": {}, "registered_name": null}, "kernel_regularizer": null, "recurrent_regularizer": null,
    "bias_regularizer": null, "kernel_constraint": null, "recurrent_constraint": null, "bias_constraint": null,
    "dropout": 0.0, "recurrent_dropout": 0.0, "reset_after": true, "seed": null}, "registered_name": null}]}"""
)


def _without_axes(config):
    skip = ("input_axes", "output_axes", "build_config")
    if isinstance(config, dict):
        return {k: _without_axes(v) for k, v in config.items() if k not in skip}
    if isinstance(config, list):
        return [_without_axes(v) for v in config]
    return config


def test_stacked_cells_config_is_keras_s_and_loads():
    cells = layers.StackedRNNCells.from_config(KERAS_STACK_CONFIG)
    assert [type(c).__name__ for c in cells.cells] == ["LSTMCell", "GRUCell"]
    layers.RNN(cells)(X)
    config = json.loads(json.dumps(_without_axes(cells.get_config())))
    assert config == KERAS_STACK_CONFIG
    rnn = layers.RNN([layers.LSTMCell(4), layers.GRUCell(2)])
    config = rnn.get_config()
    assert config["cell"]["class_name"] == "StackedRNNCells"
    again = layers.RNN.from_config(config)
    assert [type(c).__name__ for c in again.cell.cells] == ["LSTMCell", "GRUCell"]


def _h5_paths(path):
    import h5py

    found = []
    with h5py.File(path) as f:
        f.visititems(lambda name, obj: found.append((name, obj.shape)) if isinstance(obj, h5py.Dataset) else None)
    return found


# Keras 3.15's .weights.h5 datasets for _interop_model built with keras
KERAS_H5_PATHS = [
    ("layers/bidirectional/backward_layer/cell/vars/0", (2, 3)),
    ("layers/bidirectional/backward_layer/cell/vars/1", (3, 3)),
    ("layers/bidirectional/backward_layer/cell/vars/2", (3,)),
    ("layers/bidirectional/forward_layer/cell/vars/0", (2, 3)),
    ("layers/bidirectional/forward_layer/cell/vars/1", (3, 3)),
    ("layers/bidirectional/forward_layer/cell/vars/2", (3,)),
    ("layers/rnn/cell/cells/gru_cell/vars/0", (4, 6)),
    ("layers/rnn/cell/cells/gru_cell/vars/1", (2, 6)),
    ("layers/rnn/cell/cells/gru_cell/vars/2", (2, 6)),
    ("layers/rnn/cell/cells/lstm_cell/vars/0", (3, 16)),
    ("layers/rnn/cell/cells/lstm_cell/vars/1", (4, 16)),
    ("layers/rnn/cell/cells/lstm_cell/vars/2", (16,)),
    ("layers/rnn_1/cell/cells/simple_rnn_cell/vars/0", (6, 2)),
    ("layers/rnn_1/cell/cells/simple_rnn_cell/vars/1", (2, 2)),
    ("layers/rnn_1/cell/cells/simple_rnn_cell/vars/2", (2,)),
    ("layers/rnn_1/cell/cells/simple_rnn_cell_1/vars/0", (2, 3)),
    ("layers/rnn_1/cell/cells/simple_rnn_cell_1/vars/1", (3, 3)),
    ("layers/rnn_1/cell/cells/simple_rnn_cell_1/vars/2", (3,)),
]


def _interop_model(k):
    inp = k.layers.Input((6, 3), batch_size=2)
    y = k.layers.RNN(
        [k.layers.LSTMCell(4, dropout=0.2, recurrent_dropout=0.1, seed=3), k.layers.GRUCell(2, dropout=0.1)],
        return_sequences=True,
    )(inp)
    y = k.layers.Bidirectional(k.layers.SimpleRNN(3, dropout=0.2, stateful=True, return_sequences=True))(y)
    y = k.layers.RNN(k.layers.StackedRNNCells([k.layers.SimpleRNNCell(2), k.layers.SimpleRNNCell(3)]))(y)
    return k.Model(inp, y)


def test_weights_files_and_archives_hold_keras_s_layout(tmp_path):
    pytest.importorskip("h5py")
    layers.reset_layer_names()
    model = _interop_model(keras)
    x = RNG.normal(size=(2, 6, 3)).astype("float32")
    model.save_weights(str(tmp_path / "m.weights.h5"))
    assert _h5_paths(tmp_path / "m.weights.h5") == KERAS_H5_PATHS
    model.save(str(tmp_path / "m.keras"))
    loaded = keras.models.load_model(str(tmp_path / "m.keras"))
    for m in (model, loaded):
        m.layers[2].reset_state()
    np.testing.assert_allclose(loaded(x).numpy(), model(x).numpy(), rtol=1e-6)


# --- stateful -------------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["SimpleRNN", "LSTM", "GRU"])
def test_stateful_calls_continue_the_sequence(name):
    stateful = getattr(layers, name)(4, stateful=True, return_sequences=True)
    whole = getattr(layers, name)(4, return_sequences=True)
    stateful(X[:, :2])
    whole(X)
    whole.set_weights(stateful.get_weights())
    stateful.reset_state()
    expected = whole(X).numpy()
    got = np.concatenate([stateful(X[:, :2]).numpy(), stateful(X[:, 2:]).numpy()], axis=1)
    np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-6)
    stateful.reset_states()
    traced = tf.function(lambda x: stateful(x))
    got = np.concatenate([traced(X[:, :2]).numpy(), traced(X[:, 2:]).numpy()], axis=1)
    np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-6)
    assert len(stateful.weights) == 3 and all(not v.trainable for v in tf.nest.flatten(stateful.states))
    stateful.reset_state()
    assert all(not v.numpy().any() for v in tf.nest.flatten(stateful.states))


def test_stateful_needs_a_fixed_batch():
    with pytest.raises(ValueError, match="batch size must be static"):
        keras.Sequential([keras.Input((5, 4)), layers.GRU(2, stateful=True)])
    layer = layers.GRU(2, stateful=True)
    layer(X)
    with pytest.raises(ValueError, match="Expected batch size: 3"):
        layer(X[:2])
    assert layers.GRU(2).states is None


def test_stateful_states_persist_through_fit_epochs():
    # Keras 3.15 resets no state in fit (nor between epochs): only reset_state() does
    model = keras.Sequential([keras.Input((3, 2), batch_size=2), layers.SimpleRNN(2, stateful=True)])
    model.compile(optimizer=keras.optimizers.SGD(0.0), loss="mse")
    x, y = np.ones((4, 3, 2), "float32"), np.zeros((4, 2), "float32")
    rnn = model.layers[0]
    seen = []

    class Record(keras.callbacks.Callback):
        def on_epoch_begin(self, epoch, logs=None):
            seen.append(rnn.states[0].numpy().copy())

    model.fit(x, y, batch_size=2, epochs=2, shuffle=False, verbose=0, callbacks=[Record()])
    assert not seen[0].any() and seen[1].any()
    # the states after fit are those of 4 batches in a row: 12 steps of ones
    fresh = layers.SimpleRNN(2, return_sequences=False)
    fresh(np.ones((2, 12, 2), "float32"))
    fresh.set_weights(rnn.get_weights())
    np.testing.assert_allclose(rnn.states[0].numpy(), fresh(np.ones((2, 12, 2), "float32")).numpy(), rtol=1e-5)


def test_stateful_stack_and_bidirectional():
    stack = layers.RNN([layers.GRUCell(3), layers.LSTMCell(2)], stateful=True, return_state=True)
    out, gru_states, lstm_states = stack(X)
    assert [len(s) for s in stack.states] == [1, 2]
    np.testing.assert_array_equal(stack.states[1][0].numpy(), out.numpy())
    stack.reset_state()
    assert not any(v.numpy().any() for v in tf.nest.flatten(stack.states))
    bi = layers.Bidirectional(layers.LSTM(2, stateful=True))
    bi(X)
    assert len(bi.states) == 4 and bi.states[0].numpy().any()
    bi.reset_state()
    assert not any(v.numpy().any() for v in bi.states)
    with pytest.raises(AttributeError, match="must be stateful"):
        layers.Bidirectional(layers.LSTM(2)).reset_state()


# --- constraints -------------------------------------------------------------------------------------


@pytest.mark.parametrize("layer", [layers.SimpleRNN, layers.LSTM, layers.GRU])
def test_recurrent_layers_write_and_apply_their_constraints(layer):
    rnn = layer(
        3, kernel_constraint="non_neg", recurrent_constraint=keras.constraints.MaxNorm(0.5), bias_constraint=None
    )
    config = rnn.get_config()
    assert config["kernel_constraint"] == {  # as Keras 3.15 writes it
        "module": "keras.constraints",
        "class_name": "NonNeg",
        "config": {},
        "registered_name": None,
    }
    assert config["recurrent_constraint"]["config"] == {"max_value": 0.5, "axis": 0}
    assert config["bias_constraint"] is None
    model = keras.Sequential([keras.Input((4, 2)), rnn, layers.Dense(1)])
    model.compile(keras.optimizers.SGD(0.5), "mse")
    rng = np.random.default_rng(0)
    x, y = rng.standard_normal((8, 4, 2)).astype("float32"), rng.standard_normal((8, 1)).astype("float32")
    model.fit(x, y, epochs=2, verbose=0)
    cell = rnn.cell
    assert cell.kernel.numpy().min() >= 0.0  # NonNeg: negative entries set to 0
    column_norms = np.sqrt((cell.recurrent_kernel.numpy() ** 2).sum(axis=0))
    assert column_norms.max() <= 0.5 + 1e-6  # MaxNorm over axis 0
    again = layer.from_config(config)
    assert isinstance(again.cell.kernel_constraint, keras.constraints.NonNeg)


# --- functional outputs of a stack with return_state ------------------------------------------------

# Keras 3.15 shapes an RNN's call on KerasTensors from the cell's state_size (compute_output_shape):
# a stacked cell with an int state_size (GRU, SimpleRNN) gives one tensor, a list state_size (LSTM)
# a list; a direct call keeps each cell's list. Shapes recorded from Keras 3.15 for inputs (2, 5, 4).
STACK_OUTPUTS = [
    (lambda: [layers.GRUCell(3), layers.GRUCell(2)], {}, ((2, 2), (2, 3), (2, 2)), ((2, 2), [(2, 3)], [(2, 2)])),
    (
        lambda: [layers.SimpleRNNCell(3), layers.SimpleRNNCell(2)],
        {"stateful": True},
        ((2, 2), (2, 3), (2, 2)),
        ((2, 2), [(2, 3)], [(2, 2)]),
    ),
    (
        lambda: [layers.LSTMCell(3), layers.GRUCell(2)],
        {"return_sequences": True},
        ((2, 5, 2), [(2, 3), (2, 3)], (2, 2)),
        ((2, 5, 2), [(2, 3), (2, 3)], [(2, 2)]),
    ),
    (lambda: [layers.GRUCell(3)], {}, ((2, 3), (2, 3)), ((2, 3), [(2, 3)])),
]


@pytest.mark.parametrize("cells,kwargs,model_shapes,layer_shapes", STACK_OUTPUTS)
def test_stacked_return_state_outputs_in_a_functional_model(cells, kwargs, model_shapes, layer_shapes):
    def shapes(r):
        return tf.nest.map_structure(lambda t: tuple(t.shape), r)

    x = np.random.default_rng(3).normal(size=(2, 5, 4)).astype("float32")
    inp = keras.Input((5, 4), batch_size=2)
    rnn = layers.RNN(cells(), return_state=True, **kwargs)
    symbolic = rnn(inp)
    assert shapes(symbolic) == model_shapes
    model = keras.Model(inp, symbolic)
    for out in (model(x), tf.function(model)(x), model.predict(x, verbose=0)):
        assert shapes(out) == model_shapes
    if kwargs.get("stateful"):
        rnn.reset_state()
    direct = rnn(x)  # the same layer called directly: each cell's states as it returns them
    assert shapes(direct) == layer_shapes
    if kwargs.get("stateful"):
        rnn.reset_state()
    for a, b in zip(tf.nest.flatten(model(x)), tf.nest.flatten(direct)):
        np.testing.assert_allclose(np.asarray(a), b.numpy(), rtol=1e-6)
