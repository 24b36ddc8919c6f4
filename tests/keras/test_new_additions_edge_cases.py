"""Edge cases of recent additions, against TensorFlow 2.21 / Keras 3.15 (values below made in
the peer venv, or analytic), eagerly and in a tf.function: keras.ops.image's affine and
perspective transforms of integer images, integer convolutions and patches, ssim and
convolutions with windows larger than the image, fold with no block, vocabulary files with an
empty line, and vectorized_map returning None."""

import numpy as np
import pytest

import tfunc as tf
from tfunc import keras

ops = keras.ops


def both(fn, *args):
    """``fn(*args)`` eagerly and in a tf.function, as NumPy arrays (equal in dtype)."""
    eager, traced = fn(*args), tf.function(fn)(*args)
    assert eager.dtype == traced.dtype
    return eager.numpy(), traced.numpy()


def raises_both(error, match, fn, *args):
    with pytest.raises(error, match=match):
        fn(*args)
    with pytest.raises(error, match=match):
        tf.function(fn)(*args)


# --- affine_transform / perspective_transform of integer images -----------------------------------

RAMP = (np.arange(16).reshape(1, 4, 4, 1) * 10).astype("uint8")
SHIFT = np.array([[1, 0, 0.5, 0, 1, 0.25, 0, 0]], "float32")  # read at (x + 0.5, y + 0.25)
# TensorFlow's ImageProjectiveTransformV3: bilinear in float32, the result truncated to uint8
SHIFTED = [[15, 25, 35, 20], [55, 65, 75, 40], [95, 105, 115, 60], [93, 101, 108, 56]]


def test_affine_transform_bilinear_integer_images_interpolate_in_float():
    for dtype in ("uint8", "int32", "int64"):
        for out in both(lambda x: ops.image.affine_transform(x, SHIFT), RAMP.astype(dtype)):
            assert out.dtype == dtype
            np.testing.assert_array_equal(out[0, :, :, 0], SHIFTED)


def test_affine_transform_integer_results_truncate_toward_zero():
    # negative int32 values: -15.5 -> -15, 4.5 -> 4, 41.25 -> 41 (TensorFlow's, fill -1.5 -> -1)
    x = RAMP.astype("int32") - 70
    expected = {
        0: [[-55, -45, -35, -15], [-15, -5, 5, 5], [25, 35, 45, 25], [41, 48, 56, 30]],
        -1.5: [[-55, -45, -35, -15], [-15, -5, 5, 4], [25, 35, 45, 24], [41, 48, 56, 29]],
    }
    for fill, want in expected.items():
        for out in both(lambda v, fill=fill: ops.image.affine_transform(v, SHIFT, fill_value=fill), x):
            np.testing.assert_array_equal(out[0, :, :, 0], want)


def test_affine_transform_fractional_fill_value_on_integer_images():
    # TensorFlow casts fill_value to the image dtype first (1.7 -> 1), then interpolates
    for out in both(lambda x: ops.image.affine_transform(x, SHIFT, fill_value=0.5), RAMP):
        np.testing.assert_array_equal(out[0, :, :, 0], SHIFTED)
    for out in both(lambda x: ops.image.affine_transform(x, SHIFT, fill_value=1.7), RAMP):
        np.testing.assert_array_equal(out[0, 3, :, 0], [94, 101, 109, 56])
    for out in both(lambda x: ops.image.affine_transform(x, SHIFT, "nearest", fill_value=1.7), RAMP):
        np.testing.assert_array_equal(out[0, :, 3, 0], [1, 1, 1, 1])


def test_perspective_transform_integer_images():
    start = np.array([[0, 0], [3, 0], [0, 3], [3, 3]], "float32")
    end = np.array([[0.5, 0], [3, 0.5], [0, 3], [3, 3]], "float32")
    keras_values = [[2, 4, 9, 8], [32, 47, 51, 57], [73, 90, 97, 106], [120, 128, 138, 149]]
    for out in both(lambda x: ops.image.perspective_transform(x, start, end), RAMP):
        assert out.dtype == np.uint8
        np.testing.assert_array_equal(out[0, :, :, 0], keras_values)


# --- integer convolutions and patches ----------------------------------------------------------------

XC = (np.arange(2 * 6 * 5 * 3).reshape(2, 6, 5, 3) * 13 % 17 - 8).astype("int32")
KC = (np.arange(2 * 3 * 3 * 4).reshape(2, 3, 3, 4) % 7 - 3).astype("int32")


def test_conv_of_int32_stays_int32():
    expected = sum(
        np.einsum("nhwc,co->nhwo", XC[:, a : a + 5, b : b + 3], KC[a, b]) for a in range(2) for b in range(3)
    )
    for out in both(lambda x: ops.conv(x, KC), XC):
        assert out.dtype == np.int32
        np.testing.assert_array_equal(out, expected)
    for out in both(lambda x: ops.conv(x, KC[0]), XC[0]):  # 1-D (TensorFlow's Conv2D too)
        assert out.dtype == np.int32
        np.testing.assert_array_equal(
            out, sum(np.einsum("nhwc,co->nhwo", XC[:1, :, b : b + 3], KC[0, b]) for b in range(3))[0]
        )


def test_conv_transpose_of_int32_stays_int32():
    x = (np.arange(50).reshape(1, 5, 5, 2) * 7 % 11 - 5).astype("int32")
    k = (np.arange(24).reshape(2, 2, 3, 2) % 5 - 2).astype("int32")  # (h, w, out, in)
    expected = np.einsum("ijc,aboc->iajbo", x[0], k).reshape(1, 10, 10, 3)  # stride 2: disjoint blocks
    for out in both(lambda v: ops.conv_transpose(v, k, strides=2), x):
        assert out.dtype == np.int32
        np.testing.assert_array_equal(out, expected)


def test_integer_convolutions_keras_refuses():
    u8 = XC.astype("uint8")
    for fn, x in (
        (lambda v: ops.conv(v, KC.astype("uint8")), u8),
        (lambda v: ops.conv(v, KC.astype("int64")), XC.astype("int64")),
        (lambda v: ops.conv(v, KC[None]), XC[:, None]),  # Conv3D: no int32 kernel
        (lambda v: ops.depthwise_conv(v, KC[:, :, :, :1]), XC),  # DepthwiseConv2dNative: floats
        (lambda v: ops.separable_conv(v, KC[:, :, :, :1], KC[:1, :1, :, :2]), XC),
        (lambda v: ops.conv_transpose(v, KC.astype("uint8")), u8),
        (lambda v: ops.image.extract_patches(v, 2), u8),
    ):
        raises_both(tf.errors.InvalidArgumentError, "Value for attr 'T'", fn, x)
    raises_both(TypeError, "int32 kernel", lambda v: ops.conv(v, KC.astype("float32")), XC)


def test_extract_patches_of_int32_stays_int32():
    x = np.arange(48).reshape(1, 4, 4, 3).astype("int32")
    expected = x.reshape(1, 2, 2, 2, 2, 3).transpose(0, 1, 3, 2, 4, 5).reshape(1, 2, 2, 12)
    for out in both(lambda v: ops.image.extract_patches(v, 2), x):
        assert out.dtype == np.int32
        np.testing.assert_array_equal(out, expected)


# --- windows larger than the image ----------------------------------------------------------------


def test_ssim_of_images_smaller_than_the_filter_raises():
    a = np.random.default_rng(0).random((1, 8, 8, 1)).astype("float32")
    raises_both(tf.errors.InvalidArgumentError, "output size would be negative: -2", lambda u: ops.image.ssim(u, u), a)
    # one pixel short of the filter: Keras's own check of an empty convolution output
    b = np.ones((1, 10, 10, 1), "float32")
    raises_both(ValueError, "resulted in an empty output", lambda u: ops.image.ssim(u, u), b)


def test_conv_window_larger_than_the_input_raises():
    x, k = np.ones((1, 8, 8, 1), "float32"), np.ones((10, 10, 1, 1), "float32")
    raises_both(ValueError, r"negative: -1 \[input_size: 8, effective_filter_size: 10", lambda v: ops.conv(v, k), x)
    # stride 2: TensorFlow's (8 - 11 + 2) / 2 truncates to 0, an empty output, not a negative one
    raises_both(ValueError, "empty output", lambda v: ops.conv(v, k[:1, :1].repeat(11, 0).repeat(11, 1), 2), x)


def test_fold_with_no_block_is_zeros():
    blocks = np.zeros((2, 16, 0), "float32")  # unfold of (2, 1, 3, 3) images with a 4x4 kernel
    for out in both(lambda v: ops.fold(v, (3, 3), 4), blocks):
        np.testing.assert_array_equal(out, np.zeros((2, 1, 3, 3)))
    for out in both(lambda v: ops.fold(v, (3, 10), 4), blocks):
        np.testing.assert_array_equal(out, np.zeros((2, 1, 3, 10)))
    unknown = tf.function(lambda v: ops.fold(v, (3, 10), 4), input_signature=[tf.TensorSpec([None, 16, None])])
    np.testing.assert_array_equal(unknown(blocks).numpy(), np.zeros((2, 1, 3, 10)))
    with pytest.raises(ValueError, match="number of blocks"):  # a negative count: Keras's reshape fails too
        ops.fold(np.zeros((1, 36, 0), "float32"), (3, 3), 6)


# --- vocabulary files -------------------------------------------------------------------------------


@pytest.mark.parametrize("cls", ["StringLookup", "TextVectorization", "IntegerLookup"])
def test_vocabulary_file_with_an_empty_line_raises(tmp_path, cls):
    layer = getattr(keras.layers, cls)
    words = ("3", "5", "7") if cls == "IntegerLookup" else ("cat", "the", "zz")
    path = tmp_path / "vocab.txt"
    # TensorFlow's message gives the file offset just past the empty line
    for text, position in ((f"{words[0]}\n{words[1]}\n\n{words[2]}\n", 3 + 2 * len(words[0])), ("\nx\n", 1)):
        path.write_text(text)
        with pytest.raises(tf.errors.InvalidArgumentError, match=f"empty line found at position {position}"):
            layer(vocabulary=str(path))
    path.write_bytes(f"{words[0]}\r\n{words[1]}\r\n".encode())  # "\r\n" ends a line too
    x = tf.constant([int(w) for w in words] if cls == "IntegerLookup" else list(words))
    expected = [[2], [3], [1]] if cls == "TextVectorization" else [1, 2, 0]
    for out in both(layer(vocabulary=str(path)), x):
        np.testing.assert_array_equal(out, expected)
    path.write_text("")
    with pytest.raises(tf.errors.OutOfRangeError):
        layer(vocabulary=str(path))


# --- vectorized_map ----------------------------------------------------------------------------------


@pytest.mark.parametrize("batch", [2, 0])
def test_vectorized_map_keeps_none_outputs(batch):
    x = np.ones((batch, 3), "float32")
    for run in (lambda f: tf.vectorized_map(f, x), lambda f: tf.function(lambda: tf.vectorized_map(f, x))()):
        assert run(lambda e: None) is None
        assert run(lambda e: [None]) == [None]
        doubled, none = run(lambda e: (e * 2, None))
        assert none is None and doubled.shape == (batch, 3)
        out = run(lambda e: {"a": e, "b": (None, e + 1)})
        assert out["b"][0] is None
        np.testing.assert_array_equal(out["b"][1].numpy(), x + 1)
