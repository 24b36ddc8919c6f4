"""Ops whose shape rules are checked while tracing must check them again at run time when the
dimensions were unknown then: a traced function must refuse what eager refuses."""

import numpy as np
import pytest

import tfunc as tf


def test_hashed_crossing_with_unknown_dims_refuses_a_mismatch_at_run_time():
    sig = [tf.TensorSpec([None], tf.string), tf.TensorSpec([None], tf.int64)]
    f = tf.function(lambda a, b: tf.keras.layers.HashedCrossing(10)((a, b)), input_signature=sig)
    a, b = tf.constant([b"a", b"b"]), tf.constant([1, 2], tf.int64)
    np.testing.assert_array_equal(f(a, b).numpy(), tf.keras.layers.HashedCrossing(10)((a, b)).numpy())
    with pytest.raises(tf.errors.InvalidArgumentError, match="one shape"):
        f(a, tf.constant([1], tf.int64))


def test_candidate_sampler_checks_num_true_at_run_time():
    true = tf.constant([[1, 2, 3]], tf.int64)
    kw = dict(num_true=2, num_sampled=3, unique=False, range_max=10, seed=1)
    with pytest.raises(tf.errors.InvalidArgumentError, match="num_true=2"):
        tf.random.log_uniform_candidate_sampler(true, **kw)
    f = tf.function(
        lambda t: tf.random.log_uniform_candidate_sampler(t, **kw),
        input_signature=[tf.TensorSpec([None, None], tf.int64)],
    )
    with pytest.raises(tf.errors.InvalidArgumentError, match="num_true=2"):
        f(true)
