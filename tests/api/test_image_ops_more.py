"""tf.image beyond resize: values against TensorFlow 2.21, eagerly and inside tf.function; gradients
of the composites; the random functions' invariants.

The values are in image_tf_values.py, written by tests/api/fixtures/make_image_values.py
(run it with TensorFlow 2.21 installed, from the repository root)."""

import re

import numpy as np
import pytest

import tfunc as tf

from .image_tf_values import EXPECTED

_R = np.random.RandomState(0)
F4 = _R.uniform(size=(2, 5, 6, 3)).astype(np.float32)  # a batch of RGB images in [0, 1]
F3 = F4[0]
U4 = _R.randint(0, 256, size=(2, 5, 6, 3)).astype(np.uint8)
U3 = U4[1]
G4 = _R.uniform(size=(2, 13, 12, 2)).astype(np.float32)  # large enough for ssim's 11x11 window
G4B = np.clip(G4 + _R.normal(scale=0.1, size=G4.shape), 0, 1).astype(np.float32)
GREY = np.array([[[0.5, 0.5, 0.5], [0.0, 0.0, 0.0], [1.0, 0.0, 0.0]]], np.float32)  # grey, black, red
HSV = np.stack([_R.uniform(size=(4, 5)), _R.uniform(size=(4, 5)), _R.uniform(size=(4, 5))], -1).astype(np.float32)
I16 = _R.randint(-30000, 30000, size=(1, 2, 3, 1)).astype(np.int16)
F64 = _R.uniform(-0.2, 1.2, size=(1, 2, 3, 1))

# name -> (function of the module (tfunc or tensorflow) and the inputs, inputs)
CASES = {
    "flip_left_right_3d": (lambda tf, x: tf.image.flip_left_right(x), (F3,)),
    "flip_left_right_4d_uint8": (lambda tf, x: tf.image.flip_left_right(x), (U4,)),
    "flip_up_down_4d": (lambda tf, x: tf.image.flip_up_down(x), (F4,)),
    "flip_up_down_3d_uint8": (lambda tf, x: tf.image.flip_up_down(x), (U3,)),
    "rot90_1": (lambda tf, x: tf.image.rot90(x), (F3,)),
    "rot90_2_4d": (lambda tf, x: tf.image.rot90(x, k=2), (F4,)),
    "rot90_3_4d": (lambda tf, x: tf.image.rot90(x, k=3), (U4,)),
    "rot90_minus1": (lambda tf, x: tf.image.rot90(x, k=-1), (F3,)),
    "transpose_3d": (lambda tf, x: tf.image.transpose(x), (F3,)),
    "transpose_4d": (lambda tf, x: tf.image.transpose(x), (U4,)),
    "central_crop_half": (lambda tf, x: tf.image.central_crop(x, 0.5), (F4,)),
    "central_crop_3d": (lambda tf, x: tf.image.central_crop(x, 0.7), (U3,)),
    "crop_to_bounding_box": (lambda tf, x: tf.image.crop_to_bounding_box(x, 1, 2, 3, 4), (F4,)),
    "crop_to_bounding_box_3d": (lambda tf, x: tf.image.crop_to_bounding_box(x, 0, 1, 5, 2), (U3,)),
    "pad_to_bounding_box": (lambda tf, x: tf.image.pad_to_bounding_box(x, 1, 2, 7, 9), (F4,)),
    "pad_to_bounding_box_3d": (lambda tf, x: tf.image.pad_to_bounding_box(x, 0, 1, 6, 7), (U3,)),
    "resize_with_crop_or_pad_grow": (lambda tf, x: tf.image.resize_with_crop_or_pad(x, 8, 9), (F4,)),
    "resize_with_crop_or_pad_shrink": (lambda tf, x: tf.image.resize_with_crop_or_pad(x, 2, 3), (F4,)),
    "resize_with_crop_or_pad_mixed": (lambda tf, x: tf.image.resize_with_crop_or_pad(x, 8, 3), (U3,)),
    "resize_with_pad": (lambda tf, x: tf.image.resize_with_pad(x, 7, 4), (F4,)),
    "resize_with_pad_nearest": (lambda tf, x: tf.image.resize_with_pad(x, 4, 9, method="nearest"), (U3,)),
    "adjust_brightness": (lambda tf, x: tf.image.adjust_brightness(x, 0.3), (F4,)),
    "adjust_brightness_uint8": (lambda tf, x: tf.image.adjust_brightness(x, 0.3), (U4,)),
    "adjust_brightness_uint8_down": (lambda tf, x: tf.image.adjust_brightness(x, -0.25), (U3,)),
    "adjust_gamma": (lambda tf, x: tf.image.adjust_gamma(x, 2.2, 0.9), (F4,)),
    "adjust_gamma_uint8": (lambda tf, x: tf.image.adjust_gamma(x, 0.5, 1.2), (U4,)),
    "adjust_saturation": (lambda tf, x: tf.image.adjust_saturation(x, 1.7), (F4,)),
    "adjust_saturation_down": (lambda tf, x: tf.image.adjust_saturation(x, 0.3), (F3,)),
    "adjust_saturation_uint8": (lambda tf, x: tf.image.adjust_saturation(x, 2.0), (U4,)),
    "adjust_hue": (lambda tf, x: tf.image.adjust_hue(x, 0.2), (F4,)),
    "adjust_hue_negative": (lambda tf, x: tf.image.adjust_hue(x, -0.7), (F3,)),
    "adjust_hue_uint8": (lambda tf, x: tf.image.adjust_hue(x, 0.45), (U4,)),
    "rgb_to_grayscale": (lambda tf, x: tf.image.rgb_to_grayscale(x), (F4,)),
    "rgb_to_grayscale_uint8": (lambda tf, x: tf.image.rgb_to_grayscale(x), (U3,)),
    "grayscale_to_rgb": (lambda tf, x: tf.image.grayscale_to_rgb(x[..., :1]), (F4,)),
    "rgb_to_hsv": (lambda tf, x: tf.image.rgb_to_hsv(x), (F4,)),
    "rgb_to_hsv_grey": (lambda tf, x: tf.image.rgb_to_hsv(x), (GREY,)),
    "hsv_to_rgb": (lambda tf, x: tf.image.hsv_to_rgb(x), (HSV,)),
    "rgb_to_yuv": (lambda tf, x: tf.image.rgb_to_yuv(x), (F4,)),
    "yuv_to_rgb": (lambda tf, x: tf.image.yuv_to_rgb(x), (F3,)),
    "rgb_to_yiq": (lambda tf, x: tf.image.rgb_to_yiq(x), (F3,)),
    "yiq_to_rgb": (lambda tf, x: tf.image.yiq_to_rgb(x), (F4,)),
    "per_image_standardization": (lambda tf, x: tf.image.per_image_standardization(x), (F4,)),
    "per_image_standardization_uint8": (lambda tf, x: tf.image.per_image_standardization(x), (U3,)),
    "convert_uint8_to_float": (lambda tf, x: tf.image.convert_image_dtype(x, tf.float32), (U4,)),
    "convert_uint8_to_int32": (lambda tf, x: tf.image.convert_image_dtype(x, tf.int32), (U3,)),
    "convert_int16_to_uint8": (lambda tf, x: tf.image.convert_image_dtype(x, tf.uint8), (I16,)),
    "convert_int16_to_uint8_saturate": (
        lambda tf, x: tf.image.convert_image_dtype(x, tf.uint8, saturate=True),
        (I16,),
    ),
    "convert_float_to_uint8": (lambda tf, x: tf.image.convert_image_dtype(x, tf.uint8), (F4,)),
    "convert_float64_to_uint8_saturate": (
        lambda tf, x: tf.image.convert_image_dtype(x, tf.uint8, saturate=True),
        (F64,),
    ),
    "convert_float_to_float16": (lambda tf, x: tf.image.convert_image_dtype(x, tf.float16), (F3,)),
    "total_variation_3d": (lambda tf, x: tf.image.total_variation(x), (F3,)),
    "total_variation_4d": (lambda tf, x: tf.image.total_variation(x), (F4,)),
    "psnr": (lambda tf, a, b: tf.image.psnr(a, b, 1.0), (G4, G4B)),
    "psnr_uint8": (lambda tf, a, b: tf.image.psnr(a, b, 255), (U4, U4[::-1])),
    "ssim": (lambda tf, a, b: tf.image.ssim(a, b, 1.0), (G4, G4B)),
    "ssim_3d_small_filter": (
        lambda tf, a, b: tf.image.ssim(a[0], b[0], 1.0, filter_size=5, filter_sigma=0.8),
        (G4, G4B),
    ),
    "ssim_index_map": (
        lambda tf, a, b: tf.image.ssim(a, b, 2.0, filter_size=7, k1=0.02, return_index_map=True),
        (G4, G4B),
    ),
    "image_gradients_dy": (lambda tf, x: tf.image.image_gradients(x)[0], (F4,)),
    "image_gradients_dx": (lambda tf, x: tf.image.image_gradients(x)[1], (F4,)),
    "sobel_edges": (lambda tf, x: tf.image.sobel_edges(x), (F4,)),
    "extract_patches_valid": (
        lambda tf, x: tf.image.extract_patches(x, [1, 2, 3, 1], [1, 2, 1, 1], [1, 1, 1, 1], "VALID"),
        (F4,),
    ),
    "extract_patches_same_rates": (
        lambda tf, x: tf.image.extract_patches(x, [1, 2, 2, 1], [1, 3, 2, 1], [1, 2, 2, 1], "SAME"),
        (F4,),
    ),
    "extract_patches_uint8_same": (
        lambda tf, x: tf.image.extract_patches(x, [1, 3, 3, 1], [1, 1, 1, 1], [1, 1, 1, 1], "SAME"),
        (U4,),
    ),
}

# gradients of sum(output * weights) with respect to the first input: name -> (case name)
GRAD_CASES = [
    "rgb_to_hsv",
    "adjust_brightness",
    "adjust_gamma",
    "resize_with_pad",
    "resize_with_crop_or_pad_mixed_float",
    "per_image_standardization",
    "ssim",
    "psnr",
    "sobel_edges",
    "extract_patches_same_rates",
    "total_variation_4d",
    "rgb_to_yiq",
    "rot90_3_4d_float",
    "central_crop_half",
]
CASES["resize_with_crop_or_pad_mixed_float"] = (lambda tf, x: tf.image.resize_with_crop_or_pad(x, 8, 3), (F3,))
CASES["rot90_3_4d_float"] = (lambda tf, x: tf.image.rot90(x, k=3), (F4,))


def weighted_sum_gradient(tf, name):
    """The gradient of ``sum(out * w)`` (w fixed, from a seeded RandomState) for CASES[name]."""
    fn, inputs = CASES[name]
    x = tf.constant(inputs[0])
    rest = [tf.constant(a) for a in inputs[1:]]
    with tf.GradientTape() as tape:
        tape.watch(x)
        out = fn(tf, x, *rest)
        w = np.random.RandomState(1).uniform(-1, 1, size=out.shape).astype(np.float32)
        total = tf.reduce_sum(out * w)
    return tape.gradient(total, x)


@pytest.mark.parametrize("name", GRAD_CASES)
def test_gradients_match_tensorflow(name):
    want = np.asarray(EXPECTED["grad_" + name]["value"], np.float32)
    for got in (weighted_sum_gradient(tf, name), tf.function(lambda: weighted_sum_gradient(tf, name))()):
        np.testing.assert_allclose(got.numpy(), want, rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("name", sorted(CASES))
def test_values_match_tensorflow(name):
    fn, inputs = CASES[name]
    want = np.asarray(EXPECTED[name]["value"], dtype=EXPECTED[name]["dtype"])
    for got in (fn(tf, *inputs), tf.function(lambda *a: fn(tf, *a))(*inputs)):
        assert got.dtype.name == EXPECTED[name]["dtype"]
        got = got.numpy()
        assert got.shape == want.shape
        if want.dtype.kind == "f":
            np.testing.assert_allclose(got, want, rtol=2e-5, atol=2e-6)
        else:
            np.testing.assert_array_equal(got, want)


X3 = np.zeros((4, 5, 3), np.float32)


@pytest.mark.parametrize(
    "fn, error, message",
    [  # the errors and messages of TensorFlow 2.21
        (lambda: tf.image.flip_left_right(X3[0]), ValueError, "must be at least three-dimensional"),
        (lambda: tf.image.flip_up_down(X3[None, None]), ValueError, "must have either 3 or 4 dimensions"),
        (lambda: tf.image.crop_to_bounding_box(X3, 0, 3, 2, 3), ValueError, "width must be >= target + offset"),
        (lambda: tf.image.crop_to_bounding_box(X3, -1, 0, 2, 3), ValueError, "offset_height must be >= 0"),
        (lambda: tf.image.pad_to_bounding_box(X3, 0, 3, 4, 6), ValueError, "width must be <= target - offset"),
        (lambda: tf.image.central_crop(X3, 0.0), ValueError, "central_fraction must be within (0, 1]"),
        (lambda: tf.image.adjust_hue(X3, 2.0), ValueError, "delta must be in the interval [-1, 1]"),
        (lambda: tf.image.random_hue(X3, 0.6), ValueError, "max_delta must be <= 0.5"),
        (lambda: tf.image.random_contrast(X3, 0.5, 0.5), ValueError, "upper must be > lower"),
        (lambda: tf.image.random_saturation(X3, -0.5, 0.5), ValueError, "lower must be non-negative"),
        (lambda: tf.image.random_brightness(X3, -1.0), ValueError, "max_delta must be non-negative"),
        (lambda: tf.image.convert_image_dtype(X3, tf.string), AttributeError, "dtype must be either"),
        (lambda: tf.image.rgb_to_hsv(np.zeros((2, 2, 4), np.float32)), tf.errors.InvalidArgumentError, "3 channels"),
        (lambda: tf.image.grayscale_to_rgb(X3), ValueError, "Last dimension of a grayscale image should be size 1"),
        (lambda: tf.image.resize_with_crop_or_pad(X3, 0, 3), ValueError, "target_height must be > 0"),
        (lambda: tf.image.adjust_gamma(X3, -1.0), ValueError, "Gamma should be a non-negative real number"),
        (lambda: tf.image.image_gradients(X3), ValueError, "image_gradients expects a 4D tensor"),
        (lambda: tf.image.total_variation(X3[0]), ValueError, "'images' must be either 3 or 4-dimensional"),
        (lambda: tf.image.random_crop(X3, [5, 5, 3]), tf.errors.InvalidArgumentError, "Need value.shape >= size"),
        (lambda: tf.image.rot90(X3, 1.5), TypeError, "Cannot convert 1.5"),
    ],
)
def test_errors_as_tensorflow(fn, error, message):
    with pytest.raises(error, match=re.escape(message)):
        fn()


def test_rgb_to_hsv_gradient_is_finite_on_grey_and_black_pixels():
    x = tf.constant(GREY)
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = tf.reduce_sum(tf.image.rgb_to_hsv(x))
    assert np.all(np.isfinite(tape.gradient(y, x).numpy()))


# --- random functions: invariants and determinism -----------------------------------------------

BATCH = _R.uniform(size=(64, 3, 4, 3)).astype(np.float32)


@pytest.mark.parametrize("axis, name", [(2, "left_right"), (1, "up_down")])
def test_random_flips_flip_each_image_or_not(axis, name):
    flipped = np.flip(BATCH, axis)
    stateful = getattr(tf.image, f"random_flip_{name}")
    stateless = getattr(tf.image, f"stateless_random_flip_{name}")
    runs = [
        stateful(BATCH, seed=3),
        tf.function(lambda x: stateful(x, seed=3))(BATCH),
        stateless(BATCH, seed=[1, 2]),
        tf.function(lambda x: stateless(x, seed=[1, 2]))(BATCH),
    ]
    for out in runs:
        out = out.numpy()
        same = np.all(out == BATCH, axis=(1, 2, 3))
        mirrored = np.all(out == flipped, axis=(1, 2, 3))
        assert np.all(same | mirrored)
        assert 16 < mirrored.sum() < 48  # Binomial(64, 1/2): outside this is ~1e-4
    np.testing.assert_array_equal(runs[2].numpy(), runs[3].numpy())  # deterministic by seed
    one = stateless(BATCH[0], seed=[4, 5]).numpy()  # a 3-D image: all or nothing
    assert np.array_equal(one, BATCH[0]) or np.array_equal(one, np.flip(BATCH[0], axis - 1))


def test_stateless_random_brightness_deltas_are_uniform():
    x = np.full((2, 2, 3), 0.5, np.float32)
    deltas = np.array(
        [tf.image.stateless_random_brightness(x, 0.2, seed=[s, 0]).numpy()[0, 0, 0] - 0.5 for s in range(300)]
    )
    assert np.all(np.abs(deltas) <= 0.2 + 1e-6)
    assert abs(deltas.mean()) < 0.02 and abs(deltas.std() - 0.2 / np.sqrt(3)) < 0.015
    again = tf.function(lambda a: tf.image.stateless_random_brightness(a, 0.2, seed=[7, 0]))(x)
    np.testing.assert_array_equal(again.numpy(), tf.image.stateless_random_brightness(x, 0.2, seed=[7, 0]).numpy())
    out = tf.image.random_brightness(x, 0.2, seed=1).numpy() - x  # one delta for the whole image
    assert np.ptp(out) < 1e-6 and abs(out.flat[0]) <= 0.2


@pytest.mark.parametrize("stateless", [False, True])
def test_random_contrast_and_saturation_use_a_factor_in_range(stateless):
    x = F4[0]
    if stateless:
        contrast = tf.image.stateless_random_contrast(x, 0.3, 0.6, seed=[1, 1])
        saturation = tf.function(lambda a: tf.image.stateless_random_saturation(a, 0.3, 0.6, seed=[2, 1]))(x)
    else:
        contrast = tf.image.random_contrast(x, 0.3, 0.6, seed=5)
        saturation = tf.function(lambda a: tf.image.random_saturation(a, 0.3, 0.6, seed=5))(x)
    mean = x.mean(axis=(0, 1))
    factor = (contrast.numpy() - mean) / (x - mean)
    assert np.ptp(factor) < 1e-3 and 0.3 <= factor.mean() < 0.6
    hsv_in, hsv_out = tf.image.rgb_to_hsv(x).numpy(), tf.image.rgb_to_hsv(saturation).numpy()
    ratio = hsv_out[..., 1] / hsv_in[..., 1]
    assert np.ptp(ratio) < 1e-3 and 0.3 <= ratio.mean() < 0.6
    np.testing.assert_allclose(hsv_out[..., 2], hsv_in[..., 2], atol=1e-6)


def test_random_hue_rotates_every_hue_by_one_delta():
    x = F4[1]
    for out in (
        tf.image.random_hue(x, 0.3, seed=2),
        tf.function(lambda a: tf.image.stateless_random_hue(a, 0.3, seed=[3, 4]))(x),
    ):
        shift = (tf.image.rgb_to_hsv(out).numpy()[..., 0] - tf.image.rgb_to_hsv(x).numpy()[..., 0]) % 1.0
        shift = np.where(shift > 0.5, shift - 1.0, shift)
        assert np.ptp(shift) < 1e-4 and abs(shift.mean()) <= 0.3


@pytest.mark.parametrize("stateless", [False, True])
def test_random_crop_takes_a_window(stateless):
    x = np.arange(5 * 6 * 3, dtype=np.int32).reshape(5, 6, 3)
    if stateless:
        crop = lambda a, s: tf.image.stateless_random_crop(a, [2, 4, 3], seed=[s, 9])  # noqa: E731
    else:
        crop = lambda a, s: tf.image.random_crop(a, [2, 4, 3], seed=s)  # noqa: E731
    corners = set()
    for s in range(40):
        out = (crop(x, s) if s % 2 else tf.function(crop)(x, s)).numpy()
        top, left = divmod(int(out[0, 0, 0]) // 3, 6)
        np.testing.assert_array_equal(out, x[top : top + 2, left : left + 4])
        corners.add((top, left))
    assert len(corners) > 5  # 12 possible windows
    if stateless:
        np.testing.assert_array_equal(crop(x, 1).numpy(), tf.function(crop)(x, 1).numpy())
