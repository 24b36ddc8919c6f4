"""tf.image.resize against TensorFlow's documented example and its sampling rules."""

import numpy as np
import pytest

import tfunc as tf


def _diagonal():
    image = tf.constant(np.eye(5, dtype=np.int32))
    return image[tf.newaxis, ..., tf.newaxis]


def test_bilinear_resize_as_documented():
    out = tf.image.resize(_diagonal(), [3, 5])
    assert out.dtype is tf.float32 and out.shape == (1, 3, 5, 1)
    np.testing.assert_allclose(
        out[0, ..., 0].numpy(),
        [[0.6666667, 0.3333333, 0.0, 0.0, 0.0], [0.0, 0.0, 1.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.3333335, 0.6666665]],
        rtol=1e-6,
        atol=1e-6,
    )
    kept = tf.image.resize(_diagonal(), [3, 5], preserve_aspect_ratio=True)
    assert kept.shape == (1, 3, 3, 1)


def test_nearest_keeps_dtype_and_picks_half_pixel_neighbours():
    x = tf.constant([[1, 2, 3]], tf.uint8)[..., tf.newaxis]  # 3-D image [h, w, c]
    up = tf.image.resize(x, [1, 6], method="nearest")
    assert up.dtype is tf.uint8 and up.shape == (1, 6, 1)
    assert up[0, :, 0].numpy().tolist() == [1, 1, 2, 2, 3, 3]
    down = tf.image.resize(
        tf.reshape(tf.range(1, 7), [1, 1, 6, 1]), [1, 4], method=tf.image.ResizeMethod.NEAREST_NEIGHBOR
    )
    assert down[0, 0, :, 0].numpy().tolist() == [1, 3, 4, 6]  # floor((o + 0.5) * 1.5)


def test_resize_gradient_and_function():
    x = tf.random.normal([2, 4, 5, 3], seed=2)

    @tf.function
    def f(x):
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = tf.reduce_sum(tf.image.resize(x, [7, 3]))
        return tape.gradient(y, x)

    g = f(x).numpy()
    # every output row and column distributes weights summing to one: the total is the count
    np.testing.assert_allclose(g.sum(), 2 * 7 * 3 * 3, rtol=1e-5)


def test_resize_rejects_unsupported_options():
    with pytest.raises(ValueError, match="not implemented: cubic"):
        tf.image.resize(tf.ones([1, 2, 2, 1]), [4, 4], method="cubic")
    with pytest.raises(ValueError, match="3 or 4 dimensions"):
        tf.image.resize(tf.ones([2, 2]), [4, 4])
