"""Seeded stochastic layers draw as Keras 3.15's: each holds a ``keras.random.SeedGenerator(seed)``,
so two layers with one seed draw alike, the values are Keras's, and a layer draws anew at each
call of a ``tf.function`` or a ``tf.data`` map (the generator's state is a variable).

Expected values: TF 2.21 / Keras 3.15 on the same inputs."""

import numpy as np
import pytest

import tfunc as tf

keras = tf.keras
L = keras.layers
ONES = np.ones((2, 8), np.float32)


def _first(x, n=8):
    return np.asarray(x).ravel()[:n]


def test_dropout_same_seed_same_mask_as_keras():
    d = L.Dropout(0.5, seed=3)
    # TF 2.21 gives [0,2,2,2,0,0,0,0] then [0,2,0,2,2,0,2,0] (the generator advances)
    np.testing.assert_array_equal(_first(d(ONES, training=True)), [0, 2, 2, 2, 0, 0, 0, 0])
    np.testing.assert_array_equal(_first(d(ONES, training=True)), [0, 2, 0, 2, 2, 0, 2, 0])
    again = L.Dropout(0.5, seed=3)(ONES, training=True)
    np.testing.assert_array_equal(_first(again), [0, 2, 2, 2, 0, 0, 0, 0])


@pytest.mark.parametrize(
    "layer, expected",
    [
        # TF 2.21 gives these first 8 values for each layer on ones((2, 8))
        (
            lambda: L.GaussianNoise(0.5, seed=3),
            [0.66421, 1.83803, 0.52788, 1.30397, 1.62639, 1.67623, 1.22419, 1.79691],
        ),
        (
            lambda: L.GaussianDropout(0.5, seed=3),
            [0.32842, 2.67605, 0.05575, 1.60794, 2.25279, 2.35245, 1.44838, 2.59383],
        ),
        (
            lambda: L.AlphaDropout(0.5, seed=3),
            [-0.77919, 1.6656, 1.6656, 1.6656, -0.77919, -0.77919, -0.77919, -0.77919],
        ),
    ],
)
def test_noise_layers_draw_keras_values(layer, expected):
    np.testing.assert_allclose(_first(layer()(ONES, training=True)), expected, atol=1e-4)


def test_spatial_dropout_and_noise_shape_draw_keras_values():
    # TF 2.21 gives [0,2,2,2] per step (one draw per sample and channel) and, for
    # noise_shape=(None, 1), the first row dropped whole and the second kept
    out = L.SpatialDropout1D(0.5, seed=3)(np.ones((2, 3, 4), np.float32), training=True)
    np.testing.assert_array_equal(np.asarray(out)[0], [[0, 2, 2, 2]] * 3)
    out = L.Dropout(0.5, noise_shape=(None, 1), seed=3)(ONES, training=True)
    np.testing.assert_array_equal(np.asarray(out), [[0] * 8, [2] * 8])


def test_dropout_in_function_draws_anew_each_call():
    d = L.Dropout(0.5, seed=4)
    f = tf.function(lambda z: d(z, training=True))
    # TF 2.21 gives [2,2,0,2,2,0,2,0] then [0,0,2,2,0,0,0,0]
    np.testing.assert_array_equal(_first(f(ONES)), [2, 2, 0, 2, 2, 0, 2, 0])
    np.testing.assert_array_equal(_first(f(ONES)), [0, 0, 2, 2, 0, 0, 0, 0])


def test_dropout_and_noise_in_dataset_map_change_every_epoch():
    d = L.Dropout(0.5, seed=5)
    g = L.GaussianNoise(0.3, seed=5)
    data = tf.data.Dataset.from_tensor_slices(np.ones((4, 8), np.float32)).batch(2)
    dropped = data.map(lambda z: d(z, training=True))
    noisy = data.map(lambda z: g(z, training=True))
    # TF 2.21 gives [0,2,2,0,2,0,0,2] in the first epoch (later epochs depend on its prefetching)
    first = next(iter(dropped))
    np.testing.assert_array_equal(_first(first), [0, 2, 2, 0, 2, 0, 0, 2])
    assert not np.array_equal(first, next(iter(dropped)))
    assert not np.array_equal(next(iter(noisy)), next(iter(noisy)))


def test_attention_dropout_draws_keras_values():
    q = np.arange(24, dtype=np.float32).reshape(2, 3, 4) / 24
    out = L.Attention(dropout=0.5, seed=2)([q, q], training=True)
    # TF 2.21 gives these
    np.testing.assert_allclose(
        _first(out), [0.34259, 0.42592, 0.50926, 0.59259, 0.2569, 0.31267, 0.36844, 0.42421], atol=1e-4
    )
    mha = L.MultiHeadAttention(2, 3, dropout=0.5, seed=2, kernel_initializer="ones")
    np.testing.assert_allclose(_first(mha(q, q, training=True), 5), [6.2593] * 4 + [8.02082], rtol=1e-5)


def _rnn_inputs():
    return np.arange(30, dtype=np.float32).reshape(2, 5, 3) / 30


def test_rnn_dropout_masks_are_keras_draws():
    x = _rnn_inputs()
    ones = {"kernel_initializer": "ones", "recurrent_initializer": "ones"}
    lstm = L.LSTM(2, dropout=0.4, recurrent_dropout=0.3, seed=3, **ones)
    # TF 2.21 gives [0.92377, 0.92377, 0.98834, 0.98834]; then, after a call outside training
    # (Keras draws the masks at every call), [0.79646, 0.79646, 0.99696, 0.99696]
    np.testing.assert_allclose(_first(lstm(x, training=True)), [0.92377, 0.92377, 0.98834, 0.98834], atol=1e-4)
    lstm(x)
    np.testing.assert_allclose(_first(lstm(x, training=True)), [0.79646, 0.79646, 0.99696, 0.99696], atol=1e-4)
    gru = L.GRU(2, dropout=0.4, seed=3, **ones)
    # TF 2.21 gives [0.48473, 0.48473, 0.51589, 0.51589] and [0.99722, 0.99722, 1, 1]
    np.testing.assert_allclose(_first(gru(x, training=True)), [0.48473, 0.48473, 0.51589, 0.51589], atol=1e-4)
    rnn = L.SimpleRNN(2, recurrent_dropout=0.5, seed=3, **ones)
    np.testing.assert_allclose(_first(rnn(x, training=True)), [0.99722, 0.99722, 1.0, 1.0], atol=1e-4)


def test_fit_with_seeded_dropout_matches_keras_losses():
    model = keras.Sequential(
        [
            keras.Input((4,)),
            L.Dense(3, kernel_initializer="ones"),
            L.Dropout(0.5, seed=7),
            L.Dense(1, kernel_initializer="ones"),
        ]
    )
    model.compile(keras.optimizers.SGD(0.001), "mse")
    x, y = np.ones((8, 4), np.float32), np.zeros((8, 1), np.float32)
    history = model.fit(x, y, batch_size=4, epochs=3, shuffle=False, verbose=0)
    # TF 2.21 gives [199.757, 80.3435, 40.9245]
    np.testing.assert_allclose(history.history["loss"], [199.757, 80.3435, 40.9245], rtol=1e-4)


def test_a_seed_generator_hands_out_each_seed_once_across_threads():
    import threading

    g = keras.random.SeedGenerator(1)
    seen = []

    def work():
        for _ in range(300):
            seen.append(tuple(g.next().numpy().tolist()))

    threads = [threading.Thread(target=work) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(set(seen)) == len(seen) == 1200  # PyDataset's worker threads draw from layers' generators
