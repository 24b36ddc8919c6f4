"""tf.random arguments as TensorFlow takes them (eagerly and in functions): half-precision
ranges, broadcast parameters, full integer ranges, run-time shapes and bounds, and the
inputs TensorFlow rejects."""

import numpy as np
import pytest

import tfunc as tf
from tfunc.api import random_ops


@pytest.fixture(autouse=True)
def _keep_global_seed():
    seed = random_ops.get_global_seed()
    yield
    random_ops.set_seed(seed)


def _both(fn):
    """``fn()`` eagerly and in a function."""
    return fn(), tf.function(fn)()


# --- [minval, maxval) for the half types -------------------------------------------------------


@pytest.mark.parametrize("dtype, bits", [(tf.bfloat16, 7), (tf.float16, 10)])
def test_half_uniforms_are_mantissa_draws_below_maxval(dtype, bits):
    """TensorFlow draws the mantissa bits of the type: k * 2**-bits, never 1 (a float32 draw
    rounded to the type hit 1 about once in 500 for bfloat16)."""
    n = 100_000
    draws = [
        *_both(lambda: tf.random.uniform([n], dtype=dtype)),
        *_both(lambda: tf.random.stateless_uniform([n], seed=[1, 2], dtype=dtype)),
        tf.random.Generator.from_seed(1).uniform([n], dtype=dtype),
    ]
    for d in draws:
        assert d.dtype is dtype
        v = d.numpy().astype(np.float64)
        assert v.min() >= 0.0 and v.max() < 1.0
        k = v * 2**bits
        np.testing.assert_array_equal(k, np.round(k))  # on the grid of the type's [1, 2) mantissas
        assert len(np.unique(k)) == 2**bits  # every mantissa occurs
    shifted = tf.random.uniform([n], minval=-1.0, maxval=0.0, dtype=dtype).numpy().astype(np.float64)
    assert shifted.min() >= -1.0 and shifted.max() < 0.0


# --- parameters TensorFlow broadcasts ------------------------------------------------------------


def test_list_and_vector_parameters_broadcast_against_the_draw():
    g = tf.random.Generator.from_seed(1)
    for got in _both(lambda: tf.random.normal([3, 2], mean=[0.0, 100.0], stddev=0.0)):
        np.testing.assert_array_equal(got.numpy(), [[0.0, 100.0]] * 3)
    for got in _both(lambda: tf.random.truncated_normal([3, 2], mean=[1.0, -1.0], stddev=0.0)):
        np.testing.assert_array_equal(got.numpy(), [[1.0, -1.0]] * 3)
    for got in _both(lambda: tf.random.stateless_normal([2], seed=[1, 2], mean=[0.0, 1.0], stddev=0.0)):
        np.testing.assert_array_equal(got.numpy(), [0.0, 1.0])
    np.testing.assert_array_equal(g.normal([2], mean=tf.constant([0.0, 1.0]), stddev=0.0).numpy(), [0.0, 1.0])
    for got in _both(lambda: tf.random.uniform([1000, 2], minval=[0.0, 10.0], maxval=[1.0, 11.0])):
        v = got.numpy()
        assert got.shape == (1000, 2) and (v[:, 0] >= 0).all() and (v[:, 0] < 1).all()
        assert (v[:, 1] >= 10).all() and (v[:, 1] < 11).all()
    v = g.uniform([500, 2], minval=[0.0, 5.0], maxval=[1.0, 6.0]).numpy()
    assert (v[:, 1] >= 5).all() and (v[:, 1] < 6).all()
    # TensorFlow: the shapes broadcast, [2] and mean [[0], [1]] give [2, 2]
    assert tf.random.normal([2], mean=[[0.0], [1.0]]).shape == (2, 2)


# --- integer ranges --------------------------------------------------------------------------


@pytest.mark.parametrize("dtype", [tf.int32, tf.int64, tf.uint32, tf.uint64])
def test_integer_full_range_with_no_bounds(dtype):
    info = np.iinfo(dtype.as_numpy_dtype)
    g = tf.random.Generator.from_seed(3)
    draws = [
        *_both(lambda: tf.random.stateless_uniform([4000], seed=[1, 2], minval=None, maxval=None, dtype=dtype)),
        g.uniform([4000], minval=None, maxval=None, dtype=dtype),
    ]
    for d in draws:
        v = d.numpy()
        assert d.dtype is dtype
        # 4000 uniform draws over the whole range reach its outer eighths (fail rate ~ 1e-230)
        span = float(info.max) - float(info.min)
        assert float(v.min()) < float(info.min) + span / 8 and float(v.max()) > float(info.max) - span / 8


def test_integer_bounds_known_only_at_run_time():
    f = tf.function(lambda lo, hi: tf.random.uniform([2000], minval=lo, maxval=hi, dtype=tf.int32))
    v = f(tf.constant(-3), tf.constant(4)).numpy()
    assert v.dtype == np.int32 and set(v.tolist()) == set(range(-3, 4))
    s = tf.function(lambda hi: tf.random.stateless_uniform([500], seed=[1, 2], maxval=hi, dtype=tf.int64))
    assert set(s(tf.constant(3, tf.int64)).numpy().tolist()) == {0, 1, 2}
    g = tf.random.Generator.from_seed(2)
    gv = tf.function(lambda hi: g.uniform([500], maxval=hi, dtype=tf.int64))(tf.constant(5, tf.int64)).numpy()
    assert set(gv.tolist()) == set(range(5))
    with pytest.raises(tf.errors.InvalidArgumentError, match="minval < maxval"):
        f(tf.constant(4), tf.constant(4))
    with pytest.raises(tf.errors.InvalidArgumentError, match="minval < maxval"):
        tf.random.uniform([2], minval=5, maxval=5, dtype=tf.int32)


def test_generator_from_a_negative_or_huge_seed():
    for seed in (-3, 2**70):
        a = tf.random.Generator.from_seed(seed).normal([3]).numpy()
        np.testing.assert_array_equal(tf.random.Generator.from_seed(seed).normal([3]).numpy(), a)
    assert not np.array_equal(
        tf.random.Generator.from_seed(2**70).normal([3]).numpy(), tf.random.Generator.from_seed(0).normal([3]).numpy()
    )


# --- shapes and sample counts known only at run time ---------------------------------------


def test_shapes_known_only_at_run_time():
    g = tf.random.Generator.from_seed(4)

    @tf.function(input_signature=[tf.TensorSpec([2], tf.int32)])
    def draw(s):
        return [
            tf.random.uniform(s),
            tf.random.uniform(s, maxval=7, dtype=tf.int64),
            tf.random.normal(s, mean=[1.0, 2.0, 3.0]),
            tf.random.truncated_normal(s),
            tf.random.stateless_uniform(s, seed=[1, 2]),
            tf.random.stateless_normal(s, seed=[1, 2]),
            g.normal(s),
            g.uniform(s),
        ]

    for out in draw(tf.constant([2, 3])):
        assert out.shape == (2, 3)
    assert [out.shape for out in draw.get_concrete_function().structured_outputs][0].as_list() == [None, None]
    with pytest.raises(tf.errors.InvalidArgumentError, match=">= 0"):
        draw(tf.constant([2, -1]))
    # dropout of a tensor whose batch size only the run knows
    drop = tf.function(lambda x: tf.nn.dropout(x, 0.5), input_signature=[tf.TensorSpec([None, 3])])
    assert set(np.unique(drop(tf.ones([4, 3])).numpy()).tolist()) <= {0.0, 2.0}


def test_categorical_sample_count_known_only_at_run_time():
    f = tf.function(lambda k: tf.random.categorical([[0.0, -np.inf]], k))
    out = f(tf.constant(3))
    assert out.shape == (1, 3) and out.dtype is tf.int64 and out.numpy().tolist() == [[0, 0, 0]]
    assert f.get_concrete_function(tf.TensorSpec([], tf.int32)).structured_outputs.shape.as_list() == [1, None]
    assert tf.random.categorical([[0.0, 0.0]], tf.constant(2)).shape == (1, 2)
    with pytest.raises(tf.errors.InvalidArgumentError, match="non-negative"):
        f(tf.constant(-1))
    with pytest.raises(tf.errors.InvalidArgumentError, match="non-negative"):
        tf.random.categorical([[0.0, 0.0]], -1)


def test_shuffle_of_a_scalar_returns_it():
    for got in _both(lambda: tf.random.shuffle(tf.constant(3))):
        assert got.shape == () and int(got) == 3
    assert int(tf.random.shuffle(5)) == 5


# --- what TensorFlow rejects -------------------------------------------------------------------


@pytest.mark.parametrize("dtype", [tf.int8, tf.uint8, tf.int16, tf.uint32, tf.bool])
def test_uniform_rejects_dtypes_tensorflow_rejects(dtype):
    with pytest.raises(ValueError, match="dtype"):
        tf.random.uniform([2], maxval=5, dtype=dtype)


def test_bad_bounds_shapes_and_seeds_raise_tensorflows_errors():
    with pytest.raises(TypeError):  # TensorFlow: Cannot convert 5.5 to EagerTensor of dtype int32
        tf.random.uniform([2], maxval=5.5, dtype=tf.int32)
    with pytest.raises(TypeError):
        tf.random.uniform([2], minval=1.5, maxval=5, dtype=tf.int32)
    with pytest.raises(ValueError, match="maxval"):
        tf.random.uniform([2], dtype=tf.int32)
    with pytest.raises(tf.errors.InvalidArgumentError, match="0-D"):
        tf.random.uniform([2], maxval=[3, 4], dtype=tf.int32)
    for shape in ([2.0], [np.float32(2.0)], tf.constant([2.0])):
        with pytest.raises(tf.errors.InvalidArgumentError):
            tf.random.uniform(shape)
    with pytest.raises(tf.errors.InvalidArgumentError):
        tf.random.normal([2.0])
    with pytest.raises(tf.errors.InvalidArgumentError):
        tf.random.stateless_uniform([2.0], seed=[1, 2])
    for seed in (tf.constant([1, 2], tf.uint8), tf.constant([1, 2], tf.int16), [1.0, 2.0]):
        with pytest.raises(tf.errors.InvalidArgumentError, match="seed"):
            tf.random.stateless_uniform([2], seed=seed)
    # NumPy seeds of any integer width are taken, as TensorFlow does
    np.testing.assert_array_equal(
        tf.random.stateless_normal([2], seed=np.array([1, 2], np.uint8)).numpy(),
        tf.random.stateless_normal([2], seed=[1, 2]).numpy(),
    )
    with pytest.raises(TypeError):  # TensorFlow: Cannot convert 2.0 to EagerTensor of dtype int32
        tf.random.categorical([[0.0, 0.0]], 2.0)
    with pytest.raises(ValueError, match="unsigned"):
        tf.random.stateless_uniform([2], seed=[1, 2], minval=0, maxval=5, dtype=tf.uint32)
    with pytest.raises(ValueError, match="both"):
        tf.random.stateless_uniform([2], seed=[1, 2], dtype=tf.int32)
    with pytest.raises(ValueError, match="dtype"):
        tf.random.stateless_uniform([2], seed=[1, 2], maxval=5, dtype=tf.int8)
    g = tf.random.Generator.from_seed(1)
    with pytest.raises(tf.errors.InvalidArgumentError):
        g.uniform([2], maxval=5, dtype=tf.int8)
    with pytest.raises(tf.errors.NotFoundError):
        g.uniform([2], maxval=5, dtype=tf.uint32)


def test_run_time_int64_bounds_span_the_whole_range():
    f = tf.function(
        lambda lo, hi: tf.random.uniform([4000], lo, hi, dtype=tf.int64, seed=3),
        input_signature=[tf.TensorSpec([], tf.int64)] * 2,
    )
    r = f(tf.constant(-(2**62), tf.int64), tf.constant(2**62, tf.int64)).numpy()
    assert r.min() >= -(2**62) and r.max() < 2**62  # hi - lo overflowed an int64
    wide = f(tf.constant(-(2**63), tf.int64), tf.constant(2**63 - 1, tf.int64)).numpy()
    assert 0.4 < (wide > 0).mean() < 0.6
    top = f(tf.constant(0, tf.int64), tf.constant(3 * 2**61, tf.int64)).numpy()
    assert top.max() > 2**62  # values were drawn below 2**62 only
    small = f(tf.constant(-2, tf.int64), tf.constant(3, tf.int64)).numpy()
    assert set(small.tolist()) == {-2, -1, 0, 1, 2}


def test_stateful_uniform_refuses_a_missing_minval_and_a_scalar_shape():
    with pytest.raises(ValueError, match="minval"):
        tf.random.uniform([3], minval=None, maxval=10, dtype=tf.int32)
    with pytest.raises(tf.errors.InvalidArgumentError, match="vector"):
        tf.random.uniform(3)
