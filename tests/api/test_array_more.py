"""Top-level array breadth: unique_with_counts, histogram_fixed_width(_bins), eagerly and inside
tf.function.  Expected values are TensorFlow 2.21's (printed by its own functions)."""

import numpy as np
import pytest

import tfunc as tf


def _both(fn, *args):
    out = []
    for f in (fn, tf.function(fn)):
        r = f(*args)
        out.append(tuple(t.numpy() for t in r) if isinstance(r, tuple) else r.numpy())
    return out


def test_unique_with_counts():
    x = tf.constant([1, 1, 2, 4, 4, 4, 7, 8, 8])
    for y, idx, count in _both(tf.unique_with_counts, x):
        np.testing.assert_array_equal(y, [1, 2, 4, 7, 8])
        np.testing.assert_array_equal(idx, [0, 0, 1, 2, 2, 2, 3, 4, 4])
        np.testing.assert_array_equal(count, [2, 1, 3, 1, 2])
        assert count.dtype == np.int32
    r = tf.unique_with_counts(tf.constant([1, 1]), out_idx=tf.int64)
    assert r.count.dtype == tf.int64 and r.idx.dtype == tf.int64


def test_histogram_fixed_width_and_bins():
    v = tf.constant([-1.0, 0.0, 1.5, 2.0, 5.0, 15.0])
    for b in _both(lambda v: tf.histogram_fixed_width_bins(v, [0.0, 5.0], nbins=5), v):
        np.testing.assert_array_equal(b, [0, 0, 1, 2, 4, 4])
        assert b.dtype == np.int32
    for h in _both(lambda v: tf.histogram_fixed_width(v, [0.0, 5.0], nbins=5), v):
        np.testing.assert_array_equal(h, [2, 1, 1, 0, 2])
    assert tf.histogram_fixed_width(v, [0.0, 5.0], nbins=5, dtype=tf.int64).dtype == tf.int64
    np.testing.assert_array_equal(tf.histogram_fixed_width(tf.constant([1, 2, 7]), [0, 10], nbins=5), [1, 1, 0, 1, 0])
    np.testing.assert_array_equal(tf.histogram_fixed_width(tf.zeros([0]), [0.0, 3.0], nbins=3), [0, 0, 0])
    with pytest.raises(tf.errors.InvalidArgumentError):  # as TensorFlow's
        tf.histogram_fixed_width_bins(tf.constant([1, 2, 7]), [0, 10], nbins=5)
