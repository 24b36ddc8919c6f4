"""random.categorical, random.shuffle, stateless draws and random.Generator."""

import numpy as np
import pytest

import tfunc as tf
from tfunc.api import random_ops


@pytest.fixture(autouse=True)
def _keep_global_seed():
    """These tests set the global seed; other tests see it as it was."""
    seed = random_ops.get_global_seed()
    yield
    random_ops.set_seed(seed)


def test_categorical_follows_the_softmax_of_the_logits():
    tf.random.set_seed(3)
    logits = tf.math.log([[0.1, 0.9], [0.7, 0.3]])
    samples = tf.random.categorical(logits, 20000)
    assert samples.shape == (2, 20000) and samples.dtype is tf.int64
    freq = samples.numpy().mean(axis=1)  # the frequency of class 1
    np.testing.assert_allclose(freq, [0.9, 0.3], atol=0.02)
    never = tf.random.categorical(tf.constant([[0.0, -np.inf, 0.0]]), 1000, dtype=tf.int32)
    assert never.dtype is tf.int32 and 1 not in never.numpy()


def test_shuffle_permutes_the_first_axis_and_repeats_under_a_seed():
    x = tf.reshape(tf.range(20), [10, 2])
    tf.random.set_seed(5)
    a = tf.random.shuffle(x, seed=1).numpy()
    tf.random.set_seed(5)
    b = tf.random.shuffle(x, seed=1).numpy()
    np.testing.assert_array_equal(a, b)
    assert sorted(a[:, 0].tolist()) == list(range(0, 20, 2)) and (a[:, 1] == a[:, 0] + 1).all()
    assert a[:, 0].tolist() != list(range(0, 20, 2))


def test_stateless_draws_depend_on_the_seed_alone():
    a = tf.random.stateless_uniform([4, 3], seed=[1, 2])
    b = tf.function(lambda s: tf.random.stateless_uniform([4, 3], seed=s))(tf.constant([1, 2]))
    np.testing.assert_array_equal(a.numpy(), b.numpy())
    c = tf.random.stateless_uniform([4, 3], seed=[1, 3])
    assert not np.array_equal(a.numpy(), c.numpy())
    ints = tf.random.stateless_uniform([1000], seed=[4, 4], minval=-2, maxval=3, dtype=tf.int32).numpy()
    assert ints.min() == -2 and ints.max() == 2
    normal = tf.random.stateless_normal([20000], seed=[9, 9], mean=1.0, stddev=2.0).numpy()
    assert abs(normal.mean() - 1.0) < 0.05 and abs(normal.std() - 2.0) < 0.05
    with pytest.raises(tf.errors.InvalidArgumentError, match="shape \\[2\\]"):  # as TensorFlow
        tf.random.stateless_normal([2], seed=[1, 2, 3])


def test_generator_state_advances_through_eager_calls_and_functions():
    g = tf.random.Generator.from_seed(1234)
    f = tf.function(lambda: g.normal([3]))
    seq = [g.normal([3]).numpy(), f().numpy(), f().numpy(), g.normal([3]).numpy()]
    ref = tf.random.Generator.from_seed(1234)
    expected = [ref.normal([3]).numpy() for _ in range(4)]
    for got, want in zip(seq, expected):
        np.testing.assert_array_equal(got, want)
    assert not np.array_equal(seq[1], seq[2])
    g.reset_from_seed(1234)
    np.testing.assert_array_equal(f().numpy(), expected[0])


def test_generator_uniform_split_and_seeds():
    g = tf.random.Generator.from_seed(7)
    u = g.uniform([1000], minval=2.0, maxval=3.0).numpy()
    assert u.min() >= 2.0 and u.max() < 3.0
    i = g.uniform([1000], minval=0, maxval=4, dtype=tf.int64).numpy()
    assert set(i.tolist()) == {0, 1, 2, 3}
    a, b = g.split(2)
    assert not np.array_equal(a.normal([4]).numpy(), b.normal([4]).numpy())
    seeds = g.make_seeds(3)
    assert seeds.shape == (2, 3) and seeds.dtype is tf.int64
    stateless = tf.random.stateless_normal([2], seed=seeds[:, 0])
    assert stateless.shape == (2,)
    assert isinstance(tf.random.get_global_generator(), tf.random.Generator)
    with pytest.raises(ValueError, match="maxval"):
        g.uniform([2], dtype=tf.int32)


def test_stateless_truncated_normal_and_categorical_depend_on_the_seed_alone():
    a = tf.random.stateless_truncated_normal([2000], seed=[1, 2], mean=1.0, stddev=2.0)
    traced = tf.function(lambda s: tf.random.stateless_truncated_normal([2000], seed=s, mean=1.0, stddev=2.0))
    np.testing.assert_array_equal(traced(tf.constant([1, 2])).numpy(), a.numpy())
    assert not np.array_equal(tf.random.stateless_truncated_normal([2000], seed=[1, 3]).numpy(), a.numpy())
    z = (a.numpy() - 1.0) / 2.0
    assert np.abs(z).max() <= 2.0 and abs(z.std() - 0.8796) < 0.03  # a normal truncated at 2 sigma
    logits = tf.math.log([[0.1, 0.9], [0.5, 0.5]])
    c = tf.random.stateless_categorical(logits, 4000, seed=[3, 4])
    assert c.shape == (2, 4000) and c.dtype == tf.int64
    np.testing.assert_array_equal(tf.random.stateless_categorical(logits, 4000, seed=[3, 4]).numpy(), c.numpy())
    frequencies = c.numpy().mean(axis=1)
    assert abs(frequencies[0] - 0.9) < 0.03 and abs(frequencies[1] - 0.5) < 0.03
    with pytest.raises(tf.errors.InvalidArgumentError, match="int32 or int64"):
        tf.random.stateless_categorical(logits, 2, seed=[1, 2], dtype=tf.float32)
