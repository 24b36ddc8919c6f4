"""x * 1 and x + 0 are x only when the constant cannot broadcast x to a larger shape: with an
unknown rank, equal static specs do not say so."""

import numpy as np

import tfunc as tf


def test_multiplying_by_ones_that_broadcast_keeps_their_shape():
    f = tf.function(lambda x: x * tf.ones([2, 1]), input_signature=[tf.TensorSpec(None)])
    assert f(tf.ones([3])).shape == (2, 3)
    g = tf.function(lambda x: tf.zeros([2, 0]) + x, input_signature=[tf.TensorSpec(None)])
    assert g(tf.ones([1])).shape == (2, 0)
    h = tf.function(lambda x: x * 1.0, input_signature=[tf.TensorSpec(None)])
    assert np.array_equal(h(tf.ones([2, 3])).numpy(), np.ones([2, 3]))
