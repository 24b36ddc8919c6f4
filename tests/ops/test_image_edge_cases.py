"""Edge cases of tf.image against TensorFlow 2.21 (values below made in the peer venv, or
analytic), eagerly and in a tf.function: resize of images with no channel, combined NMS of
NumPy float16 boxes, extract_patches with windows larger than the image."""

import numpy as np
import pytest

import tfunc as tf

METHODS = ["bilinear", "nearest", "bicubic", "area", "lanczos3", "lanczos5", "gaussian", "mitchellcubic"]


@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize("antialias", [False, True])
def test_resize_of_images_with_no_channel_raises(method, antialias):
    def resize(x, size=(2, 2)):
        return tf.image.resize(x, size, method, antialias=antialias)

    # TensorFlow checks the channels first: an empty batch or image raises the same
    for shape in [(1, 4, 4, 0), (4, 4, 0), (0, 4, 4, 0), (1, 0, 4, 0)]:
        x = np.zeros(shape, "float32")
        for fn in (resize, tf.function(resize), lambda x: resize(x, (4, 4))):
            with pytest.raises(tf.errors.InvalidArgumentError, match="image must have at least one channel"):
                fn(x)
    unknown = tf.function(resize, input_signature=[tf.TensorSpec([None, None, None, None])])
    with pytest.raises(tf.errors.InvalidArgumentError, match="image must have at least one channel"):
        unknown(np.zeros((1, 4, 4, 0), "float32"))


BOXES = [[[[0, 0, 1, 1]], [[0, 0, 0.9, 0.9]], [[0.5, 0.5, 1.3, 1.2]]]]
SCORES = [[[0.9], [0.8], [0.7]]]
# TensorFlow 2.21 on the float16 arrays: float32 outputs, the scores rounded through float16
NMSED = (
    [[[0, 0, 1, 1], [0.5, 0.5, 1, 1], [0, 0, 0, 0]]],
    [[0.89990234375, 0.7001953125, 0.0]],
    [[0.0, 0.0, 0.0]],
    [2],
)


def test_combined_nms_converts_numpy_float16_to_float32():
    b, s = np.array(BOXES, "float16"), np.array(SCORES, "float16")

    def nms():
        return tf.image.combined_non_max_suppression(b, s, 2, 3, 0.4)

    for out in (nms(), tf.function(nms)()):
        assert [t.dtype for t in out] == [tf.float32, tf.float32, tf.float32, tf.int32]
        for got, want in zip(out, NMSED):
            np.testing.assert_array_equal(got.numpy(), want)
    # tensors are not converted: the op takes float32 only, as TensorFlow's
    for fn in (tf.image.combined_non_max_suppression, tf.function(tf.image.combined_non_max_suppression)):
        with pytest.raises(tf.errors.InvalidArgumentError, match="float16"):
            fn(tf.constant(b), tf.constant(s), 2, 3)


def test_extract_patches_window_larger_than_the_image():
    x = np.arange(2 * 8 * 7 * 3, dtype="float32").reshape(2, 8, 7, 3)

    def patches(v, k, s, r):
        return tf.image.extract_patches(v, [1, k, k, 1], [1, s, s, 1], [1, r, r, 1], "VALID")

    # TensorFlow's output size (7 - 9 + 1) / 1 = -1: refused
    for fn in (patches, tf.function(patches)):
        with pytest.raises(ValueError, match=r"negative: -1 \[input_size: 7, effective_filter_size: 9, stride: 1\]"):
            fn(x, 5, 1, 2)
    # (7 - 9 + 2) / 2 = 0 and (8 - 9 + 2) / 2 = 0 (truncated): no patch, not an error
    for fn in (patches, tf.function(patches)):
        assert fn(x, 5, 2, 2).shape == (2, 0, 0, 75)
