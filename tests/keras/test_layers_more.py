"""The layers training code uses beyond Dense/Conv2D: values against NumPy written from Keras's
definitions (and Keras's documented examples), weights laid out as Keras lays them, inside
``tfunc.function`` as eagerly, training versus inference."""

import numpy as np
import pytest

import tfunc as tf
from tfunc.keras import layers

RNG = np.random.default_rng(21)


def _np_sigmoid(x):
    return 1.0 / (1.0 + np.exp(-x))


# --- BatchNormalization ----------------------------------------------------------------------


def test_batch_normalization_training_updates_moving_statistics():
    x = RNG.normal(2.0, 3.0, size=(8, 5)).astype(np.float32)
    bn = layers.BatchNormalization(momentum=0.9, epsilon=1e-3)
    y = bn(x, training=True).numpy()
    assert [w.name for w in bn.weights] == ["gamma", "beta", "moving_mean", "moving_variance"]
    assert [w.path for w in bn.weights] == [f"{bn.name}/{w.name}" for w in bn.weights]
    assert len(bn.trainable_weights) == 2 and len(bn.non_trainable_weights) == 2
    np.testing.assert_allclose(y, (x - x.mean(0)) / np.sqrt(x.var(0) + 1e-3), rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(bn.moving_mean.numpy(), 0.1 * x.mean(0), rtol=1e-5)
    np.testing.assert_allclose(bn.moving_variance.numpy(), 0.9 + 0.1 * x.var(0), rtol=1e-5)
    inference = bn(x).numpy()  # training defaults to False: the moving statistics
    mm, mv = bn.moving_mean.numpy(), bn.moving_variance.numpy()
    np.testing.assert_allclose(inference, (x - mm) / np.sqrt(mv + 1e-3), rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(bn.moving_mean.numpy(), mm)  # inference leaves them alone


def test_batch_normalization_in_a_function_and_frozen():
    x = RNG.normal(size=(4, 3, 3, 2)).astype(np.float32)
    bn = layers.BatchNormalization(momentum=0.5)

    @tf.function
    def step(x, training):
        return bn(x, training=training)

    step(x, True)
    step(x, True)
    mean = x.mean(axis=(0, 1, 2))
    np.testing.assert_allclose(bn.moving_mean.numpy(), 0.75 * mean, rtol=1e-5)  # two updates
    flag = tf.function(lambda x, t: bn(x, training=t))
    before = bn.moving_mean.numpy()
    flag(x, tf.constant(False))
    np.testing.assert_allclose(bn.moving_mean.numpy(), before)
    flag(x, tf.constant(True))
    np.testing.assert_allclose(bn.moving_mean.numpy(), 0.5 * before + 0.5 * mean, rtol=1e-5)
    bn.trainable = False  # a frozen BatchNormalization runs in inference mode, as in Keras
    after = bn.moving_mean.numpy()
    bn(x, training=True)
    np.testing.assert_allclose(bn.moving_mean.numpy(), after)


def test_layer_normalization_as_documented():
    data = tf.constant(np.arange(10).reshape(5, 2) * 10, dtype=tf.float32)
    out = layers.LayerNormalization(axis=1)(data).numpy()
    np.testing.assert_allclose(out, np.tile([-0.99998, 0.99998], (5, 1)), atol=1e-5)
    x = RNG.normal(size=(2, 3, 4)).astype(np.float32)
    ln = layers.LayerNormalization(axis=[1, 2])
    got = ln(x).numpy()
    want = (x - x.mean((1, 2), keepdims=True)) / np.sqrt(x.var((1, 2), keepdims=True) + 1e-3)
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-5)
    assert ln.gamma.shape == (3, 4) and ln.beta.shape == (3, 4)
    with pytest.warns(UserWarning, match="rms_scaling=True`, which is deprecated"):
        rms_layer = layers.LayerNormalization(rms_scaling=True)
    # Keras 3.15's formula (its deprecated option scales by the variance, not the mean square)
    want = x / np.sqrt(x.var(-1, keepdims=True) + 1e-3)
    np.testing.assert_allclose(rms_layer(x).numpy(), want, rtol=1e-5)
    np.testing.assert_allclose(tf.function(rms_layer)(x).numpy(), want, rtol=1e-5)


# --- Embedding, Lambda, reshaping, merging, activations ---------------------------------------


def test_embedding_gathers_rows():
    emb = layers.Embedding(10, 4)
    ids = np.array([[1, 2, 9], [0, 0, 3]])
    out = emb(ids)
    assert out.shape == (2, 3, 4) and emb.embeddings.shape == (10, 4)
    np.testing.assert_array_equal(out.numpy(), emb.embeddings.numpy()[ids])
    assert np.abs(emb.embeddings.numpy()).max() <= 0.05  # Keras's 'uniform' initializer
    with pytest.raises(tf.errors.InvalidArgumentError):
        emb(np.array([[10]]))
    model = tf.keras.Sequential([layers.Embedding(1000, 64, input_length=10)])
    assert model.built and model(np.zeros((32, 10), np.int32)).shape == (32, 10, 64)


def test_lambda_reshape_permute_and_padding_as_documented():
    assert layers.Lambda(lambda x: x**2)(tf.constant([2.0, 3.0])).numpy().tolist() == [4.0, 9.0]
    assert layers.Lambda(lambda x, k: x * k, arguments={"k": 3.0})(tf.constant([1.0])).numpy().tolist() == [3.0]
    x = tf.ones([5, 12])
    assert layers.Reshape((3, 4))(x).shape == (5, 3, 4)
    assert layers.Reshape((-1, 2, 2))(x).shape == (5, 3, 2, 2)
    assert layers.Reshape((-1, 2, 2)).compute_output_shape((None, 12)).as_list() == [None, 3, 2, 2]
    assert layers.Permute((2, 1))(tf.ones([2, 10, 64])).shape == (2, 64, 10)
    x = np.arange(4).reshape((1, 1, 2, 2)).astype(np.float32)
    y = layers.ZeroPadding2D(padding=1)(x).numpy()
    assert y.shape == (1, 3, 4, 2)
    assert y.tolist() == [
        [
            [[0, 0], [0, 0], [0, 0], [0, 0]],
            [[0, 0], [0, 1], [2, 3], [0, 0]],
            [[0, 0], [0, 0], [0, 0], [0, 0]],
        ]
    ]
    assert layers.ZeroPadding2D(((1, 0), (2, 3))).compute_output_shape((None, 4, 4, 1)).as_list() == [None, 5, 9, 1]


def test_merging_layers_as_documented():
    x = np.arange(20).reshape(2, 2, 5).astype(np.float32)
    y = np.arange(20, 30).reshape(2, 1, 5).astype(np.float32)
    out = layers.Concatenate(axis=1)([x, y])
    np.testing.assert_array_equal(out.numpy(), np.concatenate([x, y], axis=1))
    a, b = RNG.normal(size=(3, 4)).astype(np.float32), RNG.normal(size=(3, 4)).astype(np.float32)
    np.testing.assert_allclose(layers.Add()([a, b]).numpy(), a + b)
    np.testing.assert_allclose(layers.Multiply()([a, b]).numpy(), a * b)
    np.testing.assert_allclose(layers.Subtract()([a, b]).numpy(), a - b)
    np.testing.assert_allclose(layers.Average()([a, b]).numpy(), (a + b) / 2)
    np.testing.assert_allclose(layers.Maximum()([a, b]).numpy(), np.maximum(a, b))
    np.testing.assert_allclose(layers.add([a, b, a]).numpy(), 2 * a + b, rtol=1e-6)
    with pytest.raises(ValueError, match="list of inputs"):
        layers.Add()(a)


def test_activation_layers_as_documented():
    x = tf.constant([-3.0, -1.0, 0.0, 2.0])
    assert layers.ReLU()(x).numpy().tolist() == [0.0, 0.0, 0.0, 2.0]
    assert layers.ReLU(max_value=1.0)(x).numpy().tolist() == [0.0, 0.0, 0.0, 1.0]
    assert layers.ReLU(negative_slope=1.0)(x).numpy().tolist() == [-3.0, -1.0, 0.0, 2.0]
    assert layers.ReLU(threshold=1.5)(x).numpy().tolist() == [0.0, 0.0, 0.0, 2.0]
    np.testing.assert_allclose(
        layers.Softmax()(np.asarray([[1.0, 2.0, 1.0]], np.float32)).numpy(), [[0.21194157, 0.5761169, 0.21194157]]
    )
    np.testing.assert_allclose(layers.LeakyReLU(negative_slope=0.5)(x).numpy(), [-1.5, -0.5, 0.0, 2.0])
    assert layers.Activation("relu")(x).numpy().tolist() == [0.0, 0.0, 0.0, 2.0]


# --- convolution variants ---------------------------------------------------------------------


def test_depthwise_conv2d_layer_matches_the_op():
    x = RNG.normal(size=(2, 6, 5, 3)).astype(np.float32)
    layer = layers.DepthwiseConv2D(3, depth_multiplier=2, padding="same", bias_initializer="ones")
    out = layer(x)
    assert layer.kernel.shape == (3, 3, 3, 2) and layer.bias.shape == (6,)
    want = tf.nn.depthwise_conv2d(x, layer.kernel, strides=[1, 1, 1, 1], padding="SAME").numpy() + 1.0
    np.testing.assert_allclose(out.numpy(), want, rtol=1e-5)
    assert layer.compute_output_shape((None, 6, 5, 3)).as_list() == [None, 6, 5, 6]


def test_conv2d_transpose_layer_as_documented():
    x = RNG.random((4, 10, 8, 16)).astype(np.float32)
    y = layers.Conv2DTranspose(32, 2, 2, activation="relu")(x)
    assert y.shape == (4, 20, 16, 32)
    layer = layers.Conv2DTranspose(5, 3, strides=2, padding="same", output_padding=1)
    assert layer(tf.ones([1, 4, 4, 2])).shape == (1, 8, 8, 5)
    assert layer.kernel.shape == (3, 3, 5, 2)
    valid = layers.Conv2DTranspose(3, (3, 2), padding="valid")
    assert valid(tf.ones([1, 4, 4, 2])).shape == valid.compute_output_shape((1, 4, 4, 2)).as_list() == [1, 6, 5, 3]


# --- recurrent layers ---------------------------------------------------------------------------


def _np_lstm(x, kernel, rec, bias, h=None, c=None, backwards=False):
    n, t, _ = x.shape
    u = rec.shape[0]
    h = np.zeros((n, u)) if h is None else h
    c = np.zeros((n, u)) if c is None else c
    outs = []
    steps = range(t - 1, -1, -1) if backwards else range(t)
    for s in steps:
        z = x[:, s] @ kernel + h @ rec + bias
        i, f, g, o = np.split(z, 4, axis=-1)
        c = _np_sigmoid(f) * c + _np_sigmoid(i) * np.tanh(g)
        h = _np_sigmoid(o) * np.tanh(c)
        outs.append(h)
    return np.stack(outs, 1), h, c


def _np_gru(x, kernel, rec, bias, reset_after=True):
    n, t, _ = x.shape
    u = rec.shape[0]
    h = np.zeros((n, u))
    outs = []
    for s in range(t):
        if reset_after:
            xz, xr, xh = np.split(x[:, s] @ kernel + bias[0], 3, axis=-1)
            rz, rr, rh = np.split(h @ rec + bias[1], 3, axis=-1)
            z, r = _np_sigmoid(xz + rz), _np_sigmoid(xr + rr)
            hh = np.tanh(xh + r * rh)
        else:
            xz, xr, xh = np.split(x[:, s] @ kernel + bias, 3, axis=-1)
            rz, rr = np.split(h @ rec[:, : 2 * u], 2, axis=-1)
            z, r = _np_sigmoid(xz + rz), _np_sigmoid(xr + rr)
            hh = np.tanh(xh + (r * h) @ rec[:, 2 * u :])
        h = z * h + (1 - z) * hh
        outs.append(h)
    return np.stack(outs, 1), h


def test_lstm_with_keras_laid_out_weights():
    x = RNG.normal(size=(3, 5, 4)).astype(np.float32)
    kernel = RNG.normal(size=(4, 8)).astype(np.float32) * 0.5
    rec = RNG.normal(size=(2, 8)).astype(np.float32) * 0.5
    bias = RNG.normal(size=(8,)).astype(np.float32)
    lstm = layers.LSTM(2, return_sequences=True, return_state=True)
    lstm(x)
    assert [tuple(w.shape) for w in lstm.get_weights()] == [(4, 8), (2, 8), (8,)]
    lstm.set_weights([kernel, rec, bias])
    seq, h, c = lstm(x)
    want_seq, want_h, want_c = _np_lstm(x, kernel, rec, bias)
    np.testing.assert_allclose(seq.numpy(), want_seq, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(h.numpy(), want_h, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(c.numpy(), want_c, rtol=1e-5, atol=1e-6)
    last = layers.LSTM(2, go_backwards=True)
    last(x)
    last.set_weights([kernel, rec, bias])
    np.testing.assert_allclose(last(x).numpy(), _np_lstm(x, kernel, rec, bias, backwards=True)[1], rtol=1e-5, atol=1e-6)
    h0, c0 = RNG.normal(size=(3, 2)).astype(np.float32), RNG.normal(size=(3, 2)).astype(np.float32)
    from_state = lstm(x, initial_state=[h0, c0])[0].numpy()
    np.testing.assert_allclose(from_state, _np_lstm(x, kernel, rec, bias, h0, c0)[0], rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("reset_after", [True, False])
def test_gru_with_keras_laid_out_weights(reset_after):
    x = RNG.normal(size=(2, 6, 3)).astype(np.float32)
    kernel = RNG.normal(size=(3, 12)).astype(np.float32) * 0.5
    rec = RNG.normal(size=(4, 12)).astype(np.float32) * 0.5
    bias = RNG.normal(size=(2, 12) if reset_after else (12,)).astype(np.float32)
    gru = layers.GRU(4, return_sequences=True, return_state=True, reset_after=reset_after)
    gru(x)
    assert [tuple(w.shape) for w in gru.get_weights()] == [(3, 12), (4, 12), bias.shape]
    gru.set_weights([kernel, rec, bias])
    seq, h = gru(x)
    want_seq, want_h = _np_gru(x, kernel, rec, bias, reset_after)
    np.testing.assert_allclose(seq.numpy(), want_seq, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(h.numpy(), want_h, rtol=1e-5, atol=1e-6)


def test_recurrent_layers_in_functions_with_static_and_run_time_lengths():
    x = RNG.normal(size=(2, 7, 3)).astype(np.float32)
    for layer in (layers.LSTM(4, return_sequences=True), layers.GRU(4, return_sequences=True), layers.GRU(4)):
        eager = layer(x).numpy()
        static = tf.function(lambda x, layer=layer: layer(x))(x).numpy()
        dynamic = tf.function(lambda x, layer=layer: layer(x), input_signature=[tf.TensorSpec([None, None, 3])])
        np.testing.assert_allclose(static, eager, rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(dynamic(x).numpy(), eager, rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(dynamic(x[:, :3]).numpy(), layer(x[:, :3]).numpy(), rtol=1e-5, atol=1e-6)


def test_recurrent_gradients_agree_eagerly_and_in_functions():
    x = tf.constant(RNG.normal(size=(2, 5, 3)).astype(np.float32))
    lstm = layers.LSTM(3)
    lstm(x)

    def grads(x):
        with tf.GradientTape() as tape:
            loss = tf.reduce_sum(lstm(x) ** 2)
        return tape.gradient(loss, lstm.trainable_weights)

    eager = grads(x)
    for fn in (tf.function(grads), tf.function(grads, input_signature=[tf.TensorSpec([None, None, 3])])):
        for got, want in zip(fn(x), eager):
            np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-4, atol=1e-6)


def test_sequential_honours_input_shape_through_the_new_layers():
    model = tf.keras.Sequential(
        [
            layers.Conv2D(4, 3, padding="same", input_shape=(8, 8, 2)),
            layers.BatchNormalization(),
            layers.ReLU(),
            layers.DepthwiseConv2D(3, padding="same"),
            layers.MaxPooling2D(),
            layers.ZeroPadding2D(1),
            layers.GlobalAveragePooling2D(),
            layers.Dense(6),
            layers.Reshape((2, 3)),
            layers.Permute((2, 1)),
            layers.LSTM(5),
            layers.Dropout(0.5),
            layers.Dense(2),
            layers.Softmax(),
        ]
    )
    assert model.built and all(layer.built for layer in model.layers)
    out = model(tf.ones([3, 8, 8, 2]), training=True)
    assert out.shape == (3, 2)
    model2 = tf.keras.Sequential([layers.InputLayer(shape=(4,)), layers.Dense(3)])
    assert model2.built and model2.layers[-1].kernel.shape == (4, 3)
