"""tfunc.keras layers: shapes and values against NumPy computed from each layer's own weights."""

import numpy as np
import pytest
from numpy.lib.stride_tricks import sliding_window_view

import tfunc as tf
import tfunc.keras as keras
from tfunc.keras import layers


def np_sigmoid(x):
    return 1.0 / (1.0 + np.exp(-x))


# --- base Layer ------------------------------------------------------------------------------


class Scale(layers.Layer):
    def build(self, input_shape):
        self.built_with = input_shape
        self.w = self.add_weight(name="w", shape=(input_shape[-1],), initializer="ones")
        self.frozen = self.add_weight(name="frozen", shape=(), initializer="zeros", trainable=False)

    def call(self, inputs):
        return inputs * self.w + self.frozen


def test_build_runs_once_on_first_call_with_the_input_shape():
    layer = Scale()
    assert not layer.built and layer.weights == []
    out = layer(tf.ones([2, 3]))
    assert layer.built and layer.built_with == tf.TensorShape([2, 3])
    np.testing.assert_array_equal(out.numpy(), np.ones((2, 3), np.float32))
    first = layer.w
    layer(tf.ones([5, 3]))
    assert layer.w is first and len(layer.weights) == 2


def test_add_weight_tracks_weights_names_and_trainability():
    layer = Scale(name="scale")
    layer(tf.ones([1, 4]))
    # Keras 3: a weight's name is the name given, its path the layer's scope and that name
    assert [w.name for w in layer.trainable_weights] == ["w"]
    assert [w.name for w in layer.non_trainable_weights] == ["frozen"]
    assert [w.path for w in layer.weights] == ["scale/w", "scale/frozen"]
    assert layer.trainable_variables == layer.trainable_weights and layer.variables == layer.weights
    layer.trainable = False
    assert layer.trainable_weights == [] and len(layer.non_trainable_weights) == 2


def test_add_weight_initializers_by_name_and_callable():
    class L(layers.Layer):
        def build(self, input_shape):
            self.a = self.add_weight(name="a", shape=(2, 3), initializer="zeros")
            self.b = self.add_weight(name="b", shape=(2,), initializer="ones")
            self.c = self.add_weight(name="c", shape=(2, 2), initializer=lambda shape, dtype=None: tf.fill(shape, 7.0))
            self.d = self.add_weight(name="d", shape=(30, 40))  # glorot_uniform by default

    layer = L()
    layer(tf.ones([1, 1]))
    np.testing.assert_array_equal(layer.a.numpy(), np.zeros((2, 3)))
    np.testing.assert_array_equal(layer.b.numpy(), np.ones(2))
    np.testing.assert_array_equal(layer.c.numpy(), np.full((2, 2), 7.0))
    d = layer.d.numpy()
    assert d.dtype == np.float32 and np.abs(d).max() <= np.sqrt(6 / 70) and d.std() > 0.1
    with pytest.raises(ValueError, match="Unknown initializer"):
        layer.add_weight(name="e", shape=(1,), initializer="no_such_init")


def test_automatic_names_are_unique_and_snake_case():
    keras.backend.clear_session()
    assert [layers.Dense(1).name for _ in range(3)] == ["dense", "dense_1", "dense_2"]
    assert layers.Conv2D(1, 1).name == "conv2d" and layers.LSTMCell(1).name == "lstm_cell"
    with pytest.raises(TypeError, match="Keyword argument not understood"):
        layers.Dense(2, no_such_argument=1)


def test_sublayers_are_tracked_in_assignment_order():
    class Block(layers.Layer):
        def __init__(self):
            super().__init__()
            self.second = layers.Dense(2, name="zz_first")
            self.first = layers.Dense(3, name="aa_second")

        def call(self, x):
            return self.first(self.second(x))

    b = Block()
    b(tf.ones([1, 4]))
    prefix = b.name  # Keras 3: sublayers called in the block's call are under its path
    assert [w.path for w in b.trainable_weights] == [
        f"{prefix}/zz_first/kernel",
        f"{prefix}/zz_first/bias",
        f"{prefix}/aa_second/kernel",
        f"{prefix}/aa_second/bias",
    ]
    b.trainable = False
    assert b.trainable_weights == [] and not b.first.trainable


# --- Dense --------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "activation, ref",
    [(None, lambda z: z), ("relu", lambda z: np.maximum(z, 0)), ("tanh", np.tanh), ("sigmoid", np_sigmoid)],
)
def test_dense_matches_numpy(backend, rng, activation, ref):
    layer = layers.Dense(5, activation=activation)
    x = rng.standard_normal((4, 3)).astype(np.float32)
    y = layer(tf.constant(x))
    k, b = layer.get_weights()
    assert k.shape == (3, 5) and b.shape == (5,)
    layer.set_weights([k, rng.standard_normal(5).astype(np.float32)])
    k, b = layer.get_weights()
    y = layer(tf.constant(x))
    assert y.shape == (4, 5) and y.dtype is tf.float32
    np.testing.assert_allclose(y.numpy(), ref(x @ k + b), rtol=1e-5, atol=1e-6)


def test_dense_on_rank3_inputs_contracts_the_last_axis(rng):
    layer = layers.Dense(2, bias_initializer="ones")
    x = rng.standard_normal((2, 3, 4)).astype(np.float32)
    y = layer(x)  # NumPy input is converted
    k, b = layer.get_weights()
    assert y.shape == (2, 3, 2)
    np.testing.assert_allclose(y.numpy(), np.einsum("btd,du->btu", x, k) + b, rtol=1e-5, atol=1e-6)
    assert layer.compute_output_shape((None, 3, 4)) == tf.TensorShape([None, 3, 2])


def test_dense_casts_float64_inputs_and_rejects_rank1():
    layer = layers.Dense(2, use_bias=False)
    y = layer(np.ones((1, 3)))  # float64 NumPy input: cast to the layer's float32
    assert y.dtype is tf.float32 and len(layer.weights) == 1
    with pytest.raises(ValueError, match="min_ndim=2"):
        layers.Dense(2)(tf.ones([3]))


# --- Conv2D -------------------------------------------------------------------------------------


def conv2d_ref(x, k, strides, padding, dilation):
    """NHWC x HWIO convolution without Python loops over pixels (sliding windows + einsum)."""
    kh, kw = k.shape[:2]
    (sh, sw), (dh, dw) = strides, dilation
    ekh, ekw = (kh - 1) * dh + 1, (kw - 1) * dw + 1
    if padding == "same":
        h, w = x.shape[1:3]
        oh, ow = -(-h // sh), -(-w // sw)
        ph = max((oh - 1) * sh + ekh - h, 0)
        pw = max((ow - 1) * sw + ekw - w, 0)
        x = np.pad(x, ((0, 0), (ph // 2, ph - ph // 2), (pw // 2, pw - pw // 2), (0, 0)))
    win = sliding_window_view(x, (ekh, ekw), axis=(1, 2))[:, ::sh, ::sw, :, ::dh, ::dw]
    return np.einsum("nhwcij,ijco->nhwo", win.astype(np.float64), k.astype(np.float64))


@pytest.mark.parametrize(
    "kwargs",
    [
        dict(),
        dict(strides=2),
        dict(padding="same"),
        dict(padding="same", strides=(2, 1)),
        dict(dilation_rate=2),
        dict(padding="same", dilation_rate=(2, 1), activation="relu"),
    ],
)
def test_conv2d_matches_numpy(backend, rng, kwargs):
    layer = layers.Conv2D(4, (3, 2), bias_initializer="random_normal", **kwargs)
    x = rng.standard_normal((2, 7, 6, 3)).astype(np.float32)
    y = layer(tf.constant(x))
    k, b = layer.get_weights()
    assert k.shape == (3, 2, 3, 4) and b.shape == (4,)
    ref = conv2d_ref(x, k, layer.strides, layer.padding, layer.dilation_rate) + b
    if kwargs.get("activation") == "relu":
        ref = np.maximum(ref, 0)
    assert y.shape == ref.shape
    assert layer.compute_output_shape((None, 7, 6, 3)) == tf.TensorShape([None, *ref.shape[1:]])
    np.testing.assert_allclose(y.numpy(), ref, rtol=1e-4, atol=1e-5)


def test_conv2d_default_arguments_as_in_the_guide():
    layer = tf.keras.layers.Conv2D(100, 3)
    y = layer(tf.zeros([1, 20, 20, 10]))
    assert y.shape == (1, 18, 18, 100)
    assert layer.kernel.shape == (3, 3, 10, 100) and layer.bias.shape == (100,)
    assert (layer.strides, layer.padding, layer.dilation_rate) == ((1, 1), "valid", (1, 1))


def test_conv2d_argument_errors():
    with pytest.raises(ValueError, match="padding"):
        layers.Conv2D(2, 3, padding="causal")
    with pytest.raises(ValueError, match="dilation_rate > 1"):
        layers.Conv2D(2, 3, strides=2, dilation_rate=2)
    with pytest.raises(ValueError, match="ndim=4"):
        layers.Conv2D(2, 3)(tf.ones([2, 5, 5]))


# --- LSTMCell ----------------------------------------------------------------------------------


def lstm_ref(x, h, c, kernel, recurrent, bias):
    z = x @ kernel + h @ recurrent + bias
    zi, zf, zc, zo = np.split(z, 4, axis=-1)
    i, f, o = np_sigmoid(zi), np_sigmoid(zf), np_sigmoid(zo)
    c_new = f * c + i * np.tanh(zc)
    return o * np.tanh(c_new), c_new


def test_lstm_cell_weights_follow_keras():
    cell = layers.LSTMCell(3)
    out, states = cell(tf.zeros([2, 5]), [tf.zeros([2, 3]), tf.zeros([2, 3])])
    kernel, recurrent, bias = cell.get_weights()
    assert kernel.shape == (5, 12) and recurrent.shape == (3, 12) and bias.shape == (12,)
    np.testing.assert_array_equal(bias, np.r_[np.zeros(3), np.ones(3), np.zeros(6)])  # unit_forget_bias
    np.testing.assert_allclose(recurrent @ recurrent.T, np.eye(3), atol=1e-5)  # orthogonal rows
    assert [w.name for w in cell.weights] == ["kernel", "recurrent_kernel", "bias"]
    assert [w.path for w in cell.weights] == [f"{cell.name}/{n}" for n in ("kernel", "recurrent_kernel", "bias")]
    no_forget = layers.LSTMCell(2, unit_forget_bias=False)
    no_forget(tf.zeros([1, 1]), no_forget.get_initial_state(batch_size=1))
    np.testing.assert_array_equal(no_forget.bias.numpy(), np.zeros(8))


def test_lstm_cell_matches_numpy_gate_math_over_steps(backend, rng):
    cell = layers.LSTMCell(4)
    xs = rng.standard_normal((3, 2, 5)).astype(np.float32)
    h = c = np.zeros((2, 4), np.float32)
    states = cell.get_initial_state(batch_size=2)
    cell(tf.constant(xs[0]), states)
    kernel, recurrent, bias = cell.get_weights()
    bias = bias + rng.standard_normal(16).astype(np.float32)  # make every gate's bias matter
    cell.set_weights([kernel, recurrent, bias])
    for x in xs:
        out, states = cell(tf.constant(x), states)
        h, c = lstm_ref(x, h, c, kernel, recurrent, bias)
        assert isinstance(states, list) and len(states) == 2
        np.testing.assert_allclose(out.numpy(), h, rtol=1e-5, atol=1e-5)
        np.testing.assert_allclose(states[0].numpy(), h, rtol=1e-5, atol=1e-5)
        np.testing.assert_allclose(states[1].numpy(), c, rtol=1e-5, atol=1e-5)


def test_lstm_cell_rejects_bad_states():
    cell = layers.LSTMCell(2)
    with pytest.raises(ValueError, match=r"states=\[h, c\]"):
        cell(tf.zeros([1, 3]), tf.zeros([1, 2]))


# --- Flatten, Activation, Dropout ------------------------------------------------------------


def test_flatten_keeps_the_batch_dimension(rng):
    x = rng.standard_normal((2, 3, 4, 5)).astype(np.float32)
    y = layers.Flatten()(x)
    assert y.shape == (2, 60)
    np.testing.assert_array_equal(y.numpy(), x.reshape(2, -1))
    y = layers.Flatten(data_format="channels_first")(x)
    np.testing.assert_array_equal(y.numpy(), np.transpose(x, (0, 2, 3, 1)).reshape(2, -1))
    assert layers.Flatten()(tf.ones([7])).shape == (7, 1)
    assert layers.Flatten().compute_output_shape((None, 3, 4)) == tf.TensorShape([None, 12])


def test_activation_layer_and_functions(rng):
    x = rng.standard_normal((3, 4)).astype(np.float32)
    np.testing.assert_allclose(layers.Activation("relu")(x).numpy(), np.maximum(x, 0))
    np.testing.assert_allclose(layers.Activation(keras.activations.tanh)(x).numpy(), np.tanh(x), rtol=1e-6)
    e = np.exp(x - x.max(-1, keepdims=True))
    np.testing.assert_allclose(
        keras.activations.softmax(tf.constant(x)).numpy(), e / e.sum(-1, keepdims=True), rtol=1e-5
    )
    np.testing.assert_allclose(keras.activations.sigmoid(x).numpy(), np_sigmoid(x), rtol=1e-5)
    assert keras.activations.linear(x) is x and keras.activations.get(None) is keras.activations.linear
    r = keras.activations.relu(tf.constant(x), alpha=0.1, max_value=0.5, threshold=0.2).numpy()
    np.testing.assert_allclose(r, np.where(x >= 0.5, 0.5, np.where(x > 0.2, x, 0.1 * (x - 0.2))), rtol=1e-5)
    np.testing.assert_allclose(
        keras.activations.relu(tf.constant(x), alpha=0.3).numpy(), np.where(x > 0, x, 0.3 * x), rtol=1e-6
    )
    with pytest.raises(ValueError, match="Unknown activation"):
        keras.activations.get("nope")
    np.testing.assert_allclose(  # Keras 3 takes 1-D inputs too
        keras.activations.softmax(tf.constant([1.0, 2.0])).numpy(), [1 / (1 + np.e), np.e / (1 + np.e)], rtol=1e-6
    )


def test_dropout_only_drops_when_training():
    tf.random.set_seed(5)
    x = tf.ones([200, 50])
    layer = layers.Dropout(0.3)
    np.testing.assert_array_equal(layer(x).numpy(), x.numpy())
    np.testing.assert_array_equal(layer(x, training=False).numpy(), x.numpy())
    y = layer(x, training=True).numpy()
    kept = y != 0
    np.testing.assert_allclose(y[kept], 1 / 0.7, rtol=1e-6)
    assert 0.25 < 1 - kept.mean() < 0.35
    y = layers.Dropout(0.5, noise_shape=(None, 1))(x, training=True).numpy()
    assert all(len(set(row)) == 1 for row in y)  # one decision per row
    per_row = layers.Dropout(0.5, noise_shape=(None, 1))
    run = tf.function(lambda t: per_row(t, training=True), input_signature=[tf.TensorSpec([None, 50])])
    y = run(x).numpy()  # the batch size is known only at run time
    assert y.shape == (200, 50) and all(len(set(row)) == 1 for row in y) and 0 < (y[:, 0] == 0).mean() < 1
    with pytest.raises(ValueError, match="between 0 and 1"):
        layers.Dropout(1.5)


def test_sequential_calls_layers_in_order_and_tracks_their_variables(rng):
    model = keras.Sequential(
        [layers.Dense(4, activation="relu", input_shape=(3,)), layers.Dropout(0.5), layers.Dense(2)]
    )
    assert model.built and len(model.trainable_variables) == 4  # built from input_shape
    x = rng.standard_normal((5, 3)).astype(np.float32)
    k1, b1, k2, b2 = model.get_weights()
    np.testing.assert_allclose(model(x).numpy(), np.maximum(x @ k1 + b1, 0) @ k2 + b2, rtol=1e-5, atol=1e-6)
    assert [v.shape for v in model.trainable_variables] == [(3, 4), (4,), (4, 2), (2,)]
    assert model.layers[0].trainable_variables[0] is model.trainable_variables[0]
    lazy = keras.Sequential()
    lazy.add(layers.Flatten())
    lazy.add(layers.Dense(2))
    assert lazy.trainable_variables == []
    assert lazy(tf.ones([2, 2, 3])).shape == (2, 2) and len(lazy.trainable_variables) == 2
    with pytest.raises(TypeError, match="instance of class Layer"):
        lazy.add(lambda x: x)


def test_layer_dtype_and_owned_optimizer():
    layer = layers.Dense(2, dtype="float64")
    y = layer(tf.ones([1, 3]))  # float32 inputs are cast to the layer's dtype
    assert y.dtype is tf.float64 and layer.kernel.dtype is tf.float64

    class Model(layers.Layer):
        def __init__(self):
            super().__init__()
            self.dense = layers.Dense(1)
            self.optimizer = keras.optimizers.Adam()

        def call(self, x):
            return self.dense(x)

    m = Model()
    m(tf.ones([1, 2]))
    m.optimizer.apply_gradients(zip([tf.ones([2, 1]), tf.ones([1])], m.trainable_weights))
    assert len(m.optimizer.variables) == 6  # TF 2.21: iteration, learning_rate, m and v of 2 weights
    assert len(m.weights) == 2 and m.non_trainable_weights == []  # optimizer state is not a weight


def test_relu_on_integers_stays_exact():
    from tfunc import keras

    x = tf.constant([16777217, -3, 2**31 - 1])
    for got in (keras.activations.relu(x), keras.layers.ReLU()(x), keras.activations.relu(x, threshold=1.0)):
        assert got.dtype == tf.int32 and got.numpy().tolist() == [16777217, 0, 2**31 - 1]  # not via float32
    assert keras.activations.relu(x, max_value=6).numpy().tolist() == [6, 0, 6]
    leaky = keras.activations.relu(tf.constant([14, -3]), alpha=0.5)
    assert leaky.dtype == tf.float32 and leaky.numpy().tolist() == [14.0, -1.5]  # as Keras


def test_add_weight_takes_shape_initializer_and_dtype_by_position_as_keras_3():
    layer = layers.Layer()
    w = layer.add_weight((2, 3), "ones", "float64", name="w")
    assert w.shape == (2, 3) and w.dtype == tf.float64 and float(tf.reduce_sum(w)) == 6.0
    with pytest.raises(ValueError, match="`name` must be passed as a keyword argument"):
        layer.add_weight("kernel", shape=(2,))
    with pytest.raises(ValueError, match="`shape` was passed both positionally and as a keyword"):
        layer.add_weight((2,), shape=(2,))
    with pytest.raises(TypeError, match="at most 3 positional arguments"):
        layer.add_weight((2,), "ones", "float32", True)


def test_rnn_over_a_user_cell_returns_its_last_output_for_run_time_lengths():
    class Cell(layers.Layer):  # its output (h + c) is not its first state
        def __init__(self, **kwargs):
            super().__init__(**kwargs)
            self.state_size = [1, 1]

        def call(self, inputs, states):
            h, c = states
            hn = inputs + h
            return hn + c, [hn, c + 1.0]

    rnn = layers.RNN(Cell())
    traced = tf.function(lambda z: rnn(z), input_signature=[tf.TensorSpec([None, None, 1])])
    for steps in (3, 4, 6):
        x = np.ones((2, steps, 1), "float32")  # after step t: h = t, c = t - 1, output 2t - 1
        np.testing.assert_array_equal(rnn(x).numpy(), np.full((2, 1), 2 * steps - 1))
        np.testing.assert_array_equal(traced(x).numpy(), np.full((2, 1), 2 * steps - 1))
