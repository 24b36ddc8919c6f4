"""A fused CPU kernel writes a step into the buffer of a value read for the last time by that
step (``backend/numpy/fusion.py``: ``_emit_chain``). A step computed in several passes must read
all its inputs before its first write lands on one of them."""

import numpy as np
import pytest

import tfunc as tf
from tfunc.backend.numpy.fusion import BLOCK_MIN


@pytest.mark.parametrize("n", [3, BLOCK_MIN + 5])
@pytest.mark.parametrize("dtype", [np.float32, np.int32])
def test_clip_whose_lower_bound_is_computed_in_the_same_kernel(n, dtype):
    rng = np.random.default_rng(0)
    x = (rng.standard_normal(n) * 10).astype(dtype)
    x[0] = -5  # the lower bound decides here
    y = (np.abs(rng.standard_normal(n)) * 3 + 1).astype(dtype)
    hi = np.full(n, 4, dtype)
    assert (y - 1 > np.minimum(x, hi)).any()

    @tf.function
    def lower_from_input(x, y, hi):
        return tf.clip_by_value(x, y - 1, hi)

    @tf.function
    def symmetric(x, c):
        c2 = tf.abs(c)
        return tf.clip_by_value(x, -c2, c2), c2

    np.testing.assert_array_equal(
        lower_from_input(x, y, hi).numpy(), np.maximum(np.minimum(x, hi), y - 1)
    )  # lo wins where lo > hi
    out, bound = symmetric(x, y)
    np.testing.assert_array_equal(out.numpy(), np.clip(x, -np.abs(y), np.abs(y)))
    np.testing.assert_array_equal(bound.numpy(), np.abs(y))


def test_clip_with_crossed_bounds_takes_the_lower_one_as_tensorflow():
    @tf.function
    def f(x, lo):
        return tf.clip_by_value(x, lo * 1.0, tf.constant(0.0))

    np.testing.assert_array_equal(f(tf.constant([-5.0, 5.0]), tf.constant([1.0, 1.0])).numpy(), [1.0, 1.0])
