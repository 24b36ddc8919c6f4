"""tf.random.stateless_gamma / stateless_poisson / stateless_binomial: TensorFlow 2.21's shapes
(the shape ends with the parameters' broadcast shape), dtypes, edge values and errors; the same
seed gives the same values eagerly and in a tf.function; moments on 1e5 draws against the
analytic ones (tfunc's streams are not TensorFlow's bits)."""

import numpy as np
import pytest

import tfunc as tf

NAN = float("nan")


def test_moments_match_the_distributions():
    g = tf.random.stateless_gamma([100_000, 2], [1, 2], alpha=[2.0, 5.0], beta=[1.0, 2.0]).numpy()
    np.testing.assert_allclose(g.mean(0), [2.0, 2.5], rtol=0.03)  # alpha / beta
    np.testing.assert_allclose(g.var(0), [2.0, 1.25], rtol=0.05)  # alpha / beta**2
    p = tf.random.stateless_poisson([100_000, 2], [3, 4], lam=[3.0, 7.0]).numpy()
    np.testing.assert_allclose(p.mean(0), [3.0, 7.0], rtol=0.02)
    np.testing.assert_allclose(p.var(0), [3.0, 7.0], rtol=0.05)
    b = tf.random.stateless_binomial([100_000, 2], [5, 6], counts=[10.0, 20.0], probs=[0.3, 0.9]).numpy()
    np.testing.assert_allclose(b.mean(0), [3.0, 18.0], rtol=0.02)
    np.testing.assert_allclose(b.var(0), [2.1, 1.8], rtol=0.05)


@pytest.mark.parametrize(
    "draw",
    [
        lambda s: tf.random.stateless_gamma([4, 3], s, alpha=[0.5, 2.0, 7.0]),
        lambda s: tf.random.stateless_poisson([4, 3], s, lam=[0.5, 2.0, 7.0]),
        lambda s: tf.random.stateless_binomial([4, 3], s, counts=8.0, probs=[0.1, 0.5, 0.9]),
    ],
)
def test_the_seed_alone_fixes_the_values_eagerly_and_in_a_function(draw):
    first = draw([1, 2]).numpy()
    np.testing.assert_array_equal(draw(np.array([1, 2], np.int64)).numpy(), first)
    traced = tf.function(draw)
    np.testing.assert_array_equal(traced(tf.constant([1, 2])).numpy(), first)
    np.testing.assert_array_equal(traced(tf.constant([1, 2])).numpy(), first)
    assert not np.array_equal(traced(tf.constant([1, 3])).numpy(), first)


def test_a_shape_known_only_at_run_time():
    alpha = [0.5, 2.0, 7.0]
    dyn = tf.function(
        lambda n: tf.random.stateless_gamma(tf.stack([n, 3]), [1, 2], alpha=alpha),
        input_signature=[tf.TensorSpec([], tf.int32)],
    )
    expected = tf.random.stateless_gamma([4, 3], [1, 2], alpha=alpha).numpy()
    np.testing.assert_array_equal(dyn(tf.constant(4)).numpy(), expected)
    with pytest.raises(tf.errors.InvalidArgumentError):  # [4, 2] does not end with [3]
        tf.function(lambda s: tf.random.stateless_poisson(s, [1, 2], lam=alpha))(tf.constant([4, 2]))


def test_shapes_and_dtypes_are_tensorflows():
    assert tf.random.stateless_gamma([2, 3], [1, 2], alpha=[1.0, 2.0, 3.0], beta=[[1.0], [2.0]]).shape == (2, 3)
    for dt in (tf.float16, tf.float64):
        assert tf.random.stateless_gamma([2], [1, 2], alpha=1.0, dtype=dt).dtype == dt
    assert tf.random.stateless_poisson([2], [1, 2], lam=1.0).dtype == tf.int32  # TF's default
    for dt in (tf.float16, tf.float64, tf.int64):
        assert tf.random.stateless_poisson([2], [1, 2], lam=1.0, dtype=dt).dtype == dt
    assert tf.random.stateless_poisson([2], [1, 2], lam=tf.constant([1, 2], tf.int64), dtype=tf.float32).shape == (2,)
    assert tf.random.stateless_binomial([2, 3], [1, 2], counts=[10, 5, 3], probs=0.5).dtype == tf.int32
    for dt in (tf.float16, tf.float32, tf.float64, tf.int64):
        assert tf.random.stateless_binomial([2], [1, 2], counts=3.0, probs=0.5, output_dtype=dt).dtype == dt
    # the shape must end with the parameters' broadcast shape (TF: InvalidArgumentError)
    with pytest.raises(tf.errors.InvalidArgumentError):
        tf.random.stateless_gamma([3], [1, 2], alpha=[1.0, 2.0])
    with pytest.raises(tf.errors.InvalidArgumentError):
        tf.random.stateless_gamma([3, 2], [1, 2], alpha=[[1.0], [2.0]])
    with pytest.raises(tf.errors.InvalidArgumentError):
        tf.random.stateless_poisson([3, 2], [1, 2], lam=[1.0, 2.0, 3.0])
    with pytest.raises(tf.errors.InvalidArgumentError):
        tf.random.stateless_binomial([2, 3], [1, 2], counts=[10.0, 5.0], probs=0.5)
    # dtypes TF has no kernel for, and bad seeds
    with pytest.raises((tf.errors.InvalidArgumentError, TypeError)):
        tf.random.stateless_gamma([2], [1, 2], alpha=1.0, dtype=tf.bfloat16)
    with pytest.raises((tf.errors.InvalidArgumentError, TypeError)):
        tf.random.stateless_poisson([2], [1, 2], lam=1.0, dtype=tf.uint8)
    with pytest.raises((tf.errors.InvalidArgumentError, TypeError)):  # int counts and probs: TF NotFoundError
        tf.random.stateless_binomial([2], [1, 2], counts=tf.constant([1, 2]), probs=tf.constant([1, 0]))
    with pytest.raises(ValueError):  # alpha of another dtype than dtype
        tf.random.stateless_gamma([2], [1, 2], alpha=tf.constant(1.0, tf.float64))
    with pytest.raises(tf.errors.InvalidArgumentError):
        tf.random.stateless_gamma([2], [1, 2, 3], alpha=1.0)


def test_edge_values_are_tensorflows():
    tiny = np.finfo(np.float32).tiny
    g = tf.random.stateless_gamma([4], [1, 2], alpha=[0.0, -1.0, NAN, 1e-3]).numpy()
    assert g[0] == tiny and np.isnan(g[1]) and np.isnan(g[2]) and g[3] >= tiny  # TF: [tiny, nan, nan, tiny]
    p = tf.random.stateless_poisson([2], [1, 2], lam=[0.0, -1.0], dtype=tf.float32).numpy()
    np.testing.assert_array_equal(p, [0.0, 0.0])
    b = tf.random.stateless_binomial(
        [5], [1, 2], counts=[10.0, -5.0, 10.0, 10.0, 10.0], probs=[0.5, 0.5, -0.1, 1.5, NAN], output_dtype=tf.float32
    ).numpy()
    np.testing.assert_array_equal(b[1:4], [0.0, 0.0, 10.0])  # TF: [., 0, 0, 10, nan]
    assert np.isnan(b[4]) and 0 <= b[0] <= 10


def test_gradients():
    beta = tf.constant([2.0, 3.0])
    with tf.GradientTape() as tape:
        tape.watch(beta)
        y = tf.random.stateless_gamma([5, 2], [1, 2], alpha=1.0, beta=beta)
    # y = sample / beta: dy/dbeta = -sample / beta**2 = -y / beta
    np.testing.assert_allclose(tape.gradient(y, beta).numpy(), (-y / beta).numpy().sum(0), rtol=1e-5)
    alpha = tf.constant([2.0, 3.0])
    with tf.GradientTape() as tape:
        tape.watch(alpha)
        y = tf.random.stateless_gamma([5, 2], [1, 2], alpha=alpha)
    with pytest.raises(LookupError):  # no implicit reparameterization yet, as random.gamma
        tape.gradient(y, alpha)
