"""tfunc.keras initializers: Keras fans and limits, orthogonality, seeding."""

import numpy as np
import pytest

import tfunc as tf
import tfunc.keras as keras
from tfunc.keras import initializers, layers


@pytest.mark.parametrize(
    "shape, fan_in, fan_out", [((), 1, 1), ((7,), 7, 7), ((30, 50), 30, 50), ((3, 5, 4, 8), 60, 120), ((2, 3, 4), 6, 8)]
)
def test_fans_follow_keras(shape, fan_in, fan_out):
    assert initializers.compute_fans(shape) == (fan_in, fan_out)


@pytest.mark.parametrize("shape", [(200, 300), (5, 5, 16, 32)])
def test_glorot_uniform_limit_and_variance(shape):
    tf.random.set_seed(0)
    w = initializers.GlorotUniform()(shape).numpy()
    fan_in, fan_out = initializers.compute_fans(shape)
    limit = np.sqrt(6.0 / (fan_in + fan_out))
    assert w.shape == shape and w.dtype == np.float32
    assert np.abs(w).max() <= limit and np.abs(w).max() > 0.98 * limit
    assert abs(w.mean()) < 0.02 * limit
    np.testing.assert_allclose(w.var(), limit**2 / 3, rtol=0.05)


def test_conv_layer_kernel_uses_conv_fans():
    tf.random.set_seed(1)
    layer = layers.Conv2D(32, 5)
    layer(tf.zeros([1, 8, 8, 16]))
    limit = np.sqrt(6.0 / (5 * 5 * 16 + 5 * 5 * 32))
    k = layer.kernel.numpy()
    assert np.abs(k).max() <= limit and np.abs(k).max() > 0.98 * limit


@pytest.mark.parametrize("shape", [(6, 4), (4, 6), (3, 3, 4, 8), (5, 5)])
def test_orthogonal_is_orthogonal(shape):
    tf.random.set_seed(2)
    w = initializers.Orthogonal(gain=2.0)(shape).numpy().astype(np.float64)
    assert w.shape == shape
    m = w.reshape(-1, shape[-1])
    if m.shape[0] >= m.shape[1]:
        np.testing.assert_allclose(m.T @ m, 4.0 * np.eye(m.shape[1]), atol=1e-5)
    else:
        np.testing.assert_allclose(m @ m.T, 4.0 * np.eye(m.shape[0]), atol=1e-5)
    with pytest.raises(ValueError, match="at least two-dimensional"):
        initializers.Orthogonal()((3,))


def test_random_normal_and_uniform_statistics():
    tf.random.set_seed(3)
    n = initializers.RandomNormal(mean=1.0, stddev=0.5)((100, 100)).numpy()
    assert abs(n.mean() - 1.0) < 0.02 and abs(n.std() - 0.5) < 0.02
    u = initializers.RandomUniform(minval=-2.0, maxval=3.0)((100, 100), dtype=tf.float64).numpy()
    assert u.dtype == np.float64 and u.min() >= -2.0 and u.max() < 3.0 and abs(u.mean() - 0.5) < 0.05
    t = initializers.TruncatedNormal(stddev=1.0)((100, 100)).numpy()
    assert np.abs(t).max() <= 2.0
    assert np.abs(initializers.get("random_normal")((1000,)).numpy()).std() < 0.1  # Keras default stddev 0.05


def test_constant_initializers_and_lookup():
    np.testing.assert_array_equal(initializers.get("zeros")((2, 3)).numpy(), np.zeros((2, 3)))
    np.testing.assert_array_equal(initializers.Ones()((2,), dtype=tf.int32).numpy(), np.ones(2, np.int32))
    np.testing.assert_array_equal(initializers.Constant(3.5)((2, 2)).numpy(), np.full((2, 2), 3.5))
    assert isinstance(initializers.get("GlorotUniform"), initializers.GlorotUniform)
    assert isinstance(initializers.get("orthogonal"), initializers.Orthogonal)
    assert isinstance(
        initializers.get({"class_name": "RandomUniform", "config": {"maxval": 2.0}}), initializers.RandomUniform
    )
    with pytest.raises(ValueError, match="Unknown initializer"):
        initializers.get("bogus")
    with pytest.raises(ValueError, match="floating point"):
        initializers.GlorotUniform()((2, 2), dtype=tf.int32)


def _fresh_weights():
    model = keras.Sequential([layers.Dense(4, input_shape=(3,)), layers.Dense(2)])
    cell = layers.LSTMCell(3)
    cell(tf.zeros([1, 2]), cell.get_initial_state(batch_size=1))
    return model.get_weights() + cell.get_weights()


def test_set_seed_makes_weights_reproducible():
    tf.random.set_seed(1234)
    a = _fresh_weights()
    tf.random.set_seed(1234)
    b = _fresh_weights()
    c = _fresh_weights()  # the sequence continues: new values
    for x, y in zip(a, b):
        np.testing.assert_array_equal(x, y)
    assert not np.array_equal(a[0], c[0]) and not np.array_equal(a[5], c[5])  # index 5: the orthogonal recurrent kernel
    tf.random.set_seed(99)
    assert not np.array_equal(_fresh_weights()[0], a[0])


def test_seeded_initializer_repeats_its_values():
    init = initializers.GlorotUniform(seed=7)
    a, b = init((4, 5)).numpy(), init((4, 5)).numpy()
    np.testing.assert_array_equal(a, b)
    tf.random.set_seed(10)
    np.testing.assert_array_equal(initializers.GlorotUniform(seed=7)((4, 5)).numpy(), a)
    assert not np.array_equal(initializers.GlorotUniform(seed=8)((4, 5)).numpy(), a)
    q1 = initializers.Orthogonal(seed=3)((4, 4)).numpy()
    np.testing.assert_array_equal(q1, initializers.Orthogonal(seed=3)((4, 4)).numpy())


def test_identity_and_keras_short_names():
    init = initializers.get({"class_name": "Identity", "config": {"gain": 2.0}})
    np.testing.assert_array_equal(init((2, 3)).numpy(), 2.0 * np.eye(2, 3))
    np.testing.assert_array_equal(initializers.get("identity")((3, 3)).numpy(), np.eye(3))
    with pytest.raises(ValueError, match="only be used for 2D matrices"):
        initializers.Identity()((2, 3, 4))
    assert type(initializers.get("uniform")) is initializers.RandomUniform
    assert type(initializers.get("normal")) is initializers.RandomNormal
    assert type(initializers.get("zero")) is initializers.Zeros and type(initializers.get("one")) is initializers.Ones
    assert initializers.get("IdentityInitializer").gain == 1.0
    assert type(initializers.get("OrthogonalInitializer")) is initializers.Orthogonal
