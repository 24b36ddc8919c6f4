"""tf.image's non-maximum suppressions and crop_and_resize: TensorFlow 2.21's values (literals)
and its kernel's formulas in NumPy, eagerly and inside tf.function, with static shapes, errors
and gradients."""

import numpy as np
import pytest

import tfunc as tf

BOXES = np.array(
    [[0, 0, 1, 1], [0, 0.1, 1, 1.1], [0, -0.1, 1, 0.9], [0, 10, 1, 11], [0, 10.1, 1, 11.1], [0, 100, 1, 101]],
    np.float32,
)
SCORES = np.array([0.9, 0.75, 0.6, 0.95, 0.5, 0.3], np.float32)


def eager_and_traced(fn, *args):
    return [fn(*args), tf.function(fn)(*args)]


def test_non_max_suppression_tf_values():
    # TensorFlow 2.21
    cases = [
        (lambda b, s: tf.image.non_max_suppression(b, s, 3, 0.5), [3, 0, 5]),
        (lambda b, s: tf.image.non_max_suppression(b, s, 10, 0.5, 0.4), [3, 0]),
        (lambda b, s: tf.image.non_max_suppression(b, s * 0 + 0.5, 10, 0.5), [0, 3, 5]),  # ties: lower index
        # the corners in the other order
        (lambda b, s: tf.image.non_max_suppression(tf.gather(b, [2, 3, 0, 1], axis=1), s, 3, 0.5), [3, 0, 5]),
    ]
    for fn, want in cases:
        for got in eager_and_traced(fn, BOXES, SCORES):
            np.testing.assert_array_equal(got, want)
            assert got.dtype == np.int32
    for dt in (np.float16, np.float64):  # a float64 NumPy value is converted to the op's float32, as TF
        np.testing.assert_array_equal(tf.image.non_max_suppression(BOXES.astype(dt), SCORES.astype(dt), 3), [3, 0, 5])
    with pytest.raises(tf.errors.InvalidArgumentError, match="float16 or float32"):  # a float64 tensor is not
        tf.image.non_max_suppression(tf.constant(BOXES, tf.float64), tf.constant(SCORES, tf.float64), 3)


def test_non_max_suppression_iou_threshold_is_inclusive():
    boxes = np.array([[0, 0, 1, 1], [0, 0.5, 1, 1.5]], np.float32)  # IoU 1/3 exactly in float32
    scores = np.array([0.9, 0.8], np.float32)
    iou = np.float32(0.5) / np.float32(1.5)
    np.testing.assert_array_equal(tf.image.non_max_suppression(boxes, scores, 2, iou), [0, 1])
    np.testing.assert_array_equal(tf.image.non_max_suppression(boxes, scores, 2, np.nextafter(iou, 0)), [0])


def test_non_max_suppression_padded_with_scores_and_overlaps_tf_values():
    for idx, n in eager_and_traced(
        lambda b, s: tf.image.non_max_suppression_padded(b, s, 5, 0.5, pad_to_max_output_size=True), BOXES, SCORES
    ):
        np.testing.assert_array_equal(idx, [3, 0, 5, 0, 0])  # TensorFlow 2.21
        assert int(n) == 3
    idx, n = tf.image.non_max_suppression_padded(BOXES, SCORES, 5, 0.5)
    np.testing.assert_array_equal(idx, [3, 0, 5])
    assert int(n) == 3
    for idx, sc in eager_and_traced(
        lambda b, s: tf.image.non_max_suppression_with_scores(b, s, 10, 0.5, soft_nms_sigma=0.5), BOXES, SCORES
    ):
        np.testing.assert_array_equal(idx, [3, 0, 1, 5, 4, 2])  # TensorFlow 2.21 (Soft-NMS)
        np.testing.assert_allclose(sc, [0.95, 0.9, 0.38400355, 0.3, 0.2560026, 0.19697244], rtol=1e-6)
    idx, sc = tf.image.non_max_suppression_with_scores(BOXES, SCORES, 10, 1.0, 0.3, soft_nms_sigma=0.5)
    np.testing.assert_array_equal(idx, [3, 0, 1])
    np.testing.assert_allclose(sc, [0.95, 0.9, 0.38400355], rtol=1e-6)
    idx, sc = tf.image.non_max_suppression_with_scores(BOXES, SCORES, 10, 0.5)
    np.testing.assert_array_equal(idx, [3, 0, 5])
    np.testing.assert_array_equal(sc, SCORES[[3, 0, 5]])
    overlaps = np.array([[1, 0.7, 0.2], [0.7, 1, 0.6], [0.2, 0.6, 1]], np.float32)
    scores = np.array([0.9, 0.8, 0.7], np.float32)
    for got in eager_and_traced(lambda o, s: tf.image.non_max_suppression_overlaps(o, s, 3, 0.5), overlaps, scores):
        np.testing.assert_array_equal(got, [0, 2])
    np.testing.assert_array_equal(tf.image.non_max_suppression_overlaps(overlaps, scores, 3, 1.5, 0.75), [0, 1])


def test_non_max_suppression_random_against_greedy_formula():
    rng = np.random.default_rng(7)
    corner = rng.uniform(0, 5, (40, 2))
    boxes = np.concatenate([corner, corner + rng.uniform(0.5, 3, (40, 2))], 1).astype(np.float32)
    scores = rng.uniform(0, 1, 40).astype(np.float32)
    lo, hi = boxes[:, :2], boxes[:, 2:]
    area = np.prod(hi - lo, axis=1)
    inter = np.prod(np.clip(np.minimum(hi[:, None], hi[None]) - np.maximum(lo[:, None], lo[None]), 0, None), axis=2)
    iou = inter / (area[:, None] + area[None] - inter)
    keep = []
    for i in np.argsort(-scores, kind="stable"):
        if scores[i] > 0.2 and all(iou[i, j] <= 0.4 for j in keep):
            keep.append(i)
    for got in eager_and_traced(lambda b, s: tf.image.non_max_suppression(b, s, 12, 0.4, 0.2), boxes, scores):
        np.testing.assert_array_equal(got, keep[:12])


def test_non_max_suppression_shapes_in_function_and_empty():
    shapes = {}

    @tf.function(input_signature=[tf.TensorSpec([None, 4], tf.float32), tf.TensorSpec([None], tf.float32)])
    def f(b, s):
        i = tf.image.non_max_suppression(b, s, 3)
        p, n = tf.image.non_max_suppression_padded(b, s, 3, pad_to_max_output_size=True)
        q, sc = tf.image.non_max_suppression_with_scores(b, s, 3)
        shapes.update(i=i.shape.as_list(), p=p.shape.as_list(), n=n.shape.as_list(), q=q.shape.as_list())
        shapes["sc"] = sc.shape.as_list()
        return i, p

    i, p = f(BOXES, SCORES)
    np.testing.assert_array_equal(i, [3, 0, 5])
    # TensorFlow 2.21: (None,) (3,) () (None,) (None,)
    assert shapes == {"i": [None], "p": [3], "n": [], "q": [None], "sc": [None]}
    got = tf.image.non_max_suppression(np.zeros((0, 4), np.float32), np.zeros(0, np.float32), 3)
    assert got.shape == (0,) and got.dtype == tf.int32


def test_non_max_suppression_errors():
    # TensorFlow 2.21: InvalidArgumentError for each
    bad = [
        lambda: tf.image.non_max_suppression(BOXES, SCORES, 3, 1.5),  # iou_threshold must be in [0, 1]
        lambda: tf.image.non_max_suppression(BOXES, SCORES, -1),  # output size must be non-negative
        lambda: tf.image.non_max_suppression(BOXES[:, :3], SCORES, 3),  # boxes must have 4 columns
        lambda: tf.image.non_max_suppression(BOXES, SCORES[:3], 3),  # scores has incompatible shape
        lambda: tf.image.non_max_suppression_with_scores(BOXES, SCORES, 3, soft_nms_sigma=-1.0),
    ]
    for fn in bad:
        with pytest.raises(tf.errors.InvalidArgumentError):
            fn()
    with pytest.raises(ValueError):  # TensorFlow: pad_to_max_output_size must be True for batched input
        tf.image.non_max_suppression_padded(tf.constant(BOXES[None]), tf.constant(SCORES[None]), 3)


# --- crop_and_resize -------------------------------------------------------------------------------


def _crop_ref(image, boxes, ind, size, method, extrapolation):
    """TensorFlow's CropAndResize kernel, one sample at a time (positions in float32)."""
    f32 = np.float32
    _, h, w, _ = image.shape
    out = np.zeros((len(boxes), *size, image.shape[3]), np.float32)
    img = image.astype(np.float32)

    def positions(lo, hi, n, extent):
        if n > 1:
            step = (hi - lo) * f32(extent - 1) / f32(n - 1)
            return [lo * f32(extent - 1) + f32(i) * step for i in range(n)]
        return [f32(0.5 * (lo + hi) * (extent - 1))]

    for k, (y1, x1, y2, x2) in enumerate(boxes):
        for a, y in enumerate(positions(y1, y2, size[0], h)):
            for c, x in enumerate(positions(x1, x2, size[1], w)):
                if not (0 <= y <= h - 1 and 0 <= x <= w - 1):
                    out[k, a, c] = extrapolation
                elif method == "nearest":
                    out[k, a, c] = img[ind[k], int(np.floor(y + f32(0.5))), int(np.floor(x + f32(0.5)))]
                else:
                    t, b, le, r = int(np.floor(y)), int(np.ceil(y)), int(np.floor(x)), int(np.ceil(x))
                    yl, xl = y - f32(t), x - f32(le)
                    top = img[ind[k], t, le] + (img[ind[k], t, r] - img[ind[k], t, le]) * xl
                    bottom = img[ind[k], b, le] + (img[ind[k], b, r] - img[ind[k], b, le]) * xl
                    out[k, a, c] = top + (bottom - top) * yl
    return out


CROP_BOXES = np.array(
    [[0.1, 0.2, 0.8, 0.9], [0.9, 0.8, 0.1, 0.05], [-0.3, -0.2, 0.5, 1.4], [0.25, 0.5, 0.25, 0.5], [0, 0, 1, 1]],
    np.float32,
)


@pytest.mark.parametrize("method", ["bilinear", "nearest"])
@pytest.mark.parametrize("size", [(3, 4), (1, 1), (4, 1)])
def test_crop_and_resize_against_kernel_formula(method, size):
    image = np.random.default_rng(5).normal(size=(2, 5, 7, 3)).astype(np.float32)
    ind = np.array([0, 1, 1, 0, 1], np.int32)
    want = _crop_ref(image, CROP_BOXES, ind, size, method, -1.5)
    for got in eager_and_traced(
        lambda i, b, n: tf.image.crop_and_resize(i, b, n, size, method=method, extrapolation_value=-1.5),
        image,
        CROP_BOXES,
        ind,
    ):
        np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-6)
        assert got.dtype == np.float32


def test_crop_and_resize_integer_images_and_static_shape():
    image = np.arange(2 * 5 * 7 * 3).reshape(2, 5, 7, 3)
    ind = np.array([0, 1, 1, 0, 1], np.int32)
    for dt in (np.uint8, np.int32, np.float16):
        got = tf.image.crop_and_resize(image.astype(dt), CROP_BOXES, ind, (3, 3))
        np.testing.assert_allclose(got, _crop_ref(image.astype(dt), CROP_BOXES, ind, (3, 3), "bilinear", 0), rtol=1e-6)
    shapes = []

    @tf.function(
        input_signature=[
            tf.TensorSpec([None, None, None, 3], tf.float32),
            tf.TensorSpec([None, 4], tf.float32),
            tf.TensorSpec([None], tf.int32),
        ]
    )
    def f(i, b, n):
        out = tf.image.crop_and_resize(i, b, n, [3, 4])
        shapes.append(out.shape.as_list())
        return out

    f(image.astype(np.float32), CROP_BOXES, ind)
    assert shapes == [[None, 3, 4, 3]]  # TensorFlow 2.21


# TensorFlow 2.21 on a 1x3x4x1 image (x ** 1.5 of 0..11), boxes CROP_GRAD_BOXES, crop 2x2,
# extrapolation -1, loss sum(crop * CROP_GRAD_W): the crops and both gradients
CROP_GRAD_BOXES = np.array([[0.1, 0.2, 0.8, 0.9], [-0.2, 0.5, 0.6, 1.2]], np.float32)
CROP_GRAD_W = np.array([1.0, -2.0, 0.5, 3.0, -1.0, 2.0, 1.5, -0.5], np.float32).reshape(2, 2, 2, 1)
BOX_GRAD = [[-32.933296, 10.151733, 121.25225, 24.055397], [0.0, 16.820253, 49.118248, 0.0]]
CROP_TF = {
    "bilinear": (
        [[[2.4616408, 7.06332], [19.113861, 27.96421]], [[-1.0, -1.0], [16.21319, -1.0]]],
        [[0.32, 0.48000002, -0.48000032, -1.1199998], [0.16, 0.84, 0.8400001, 0.5599998], [0.12, 0.33, 0.69, 1.26]],
    ),
    "nearest": (
        [[[1.0, 5.1961527], [27.0, 36.482872]], [[-1.0, -1.0], [14.6969385, -1.0]]],
        [[0, 1, 0, -2], [0, 0, 1.5, 0], [0, 0.5, 0, 3]],
    ),
}


@pytest.mark.parametrize("method", ["bilinear", "nearest"])
def test_crop_and_resize_gradients_tf_values(method):
    image = (np.arange(12, dtype=np.float32) ** 1.5).reshape(1, 3, 4, 1)

    def run(x, b):
        with tf.GradientTape() as t:
            t.watch([x, b])
            out = tf.image.crop_and_resize(x, b, [0, 0], [2, 2], method=method, extrapolation_value=-1.0)
            loss = tf.reduce_sum(out * CROP_GRAD_W)
        return (out, *t.gradient(loss, [x, b]))

    crop, grad_image = CROP_TF[method]
    for out, gi, gb in eager_and_traced(run, tf.constant(image), tf.constant(CROP_GRAD_BOXES)):
        np.testing.assert_allclose(np.asarray(out)[..., 0], crop, rtol=1e-6)
        np.testing.assert_allclose(np.asarray(gi)[0, ..., 0], grad_image, rtol=1e-5, atol=1e-6)
        # the boxes' gradient is the bilinear one for both methods, as TensorFlow's
        np.testing.assert_allclose(gb, BOX_GRAD, rtol=1e-5, atol=1e-5)


def test_crop_and_resize_errors():
    image = np.zeros((2, 4, 4, 1), np.float32)
    boxes = np.array([[0, 0, 1, 1]], np.float32)
    with pytest.raises(tf.errors.InvalidArgumentError):  # TensorFlow: box_index outside [0, batch_size)
        tf.image.crop_and_resize(image, boxes, [2], (2, 2))
    with pytest.raises(tf.errors.InvalidArgumentError):  # crop dimensions must be positive
        tf.image.crop_and_resize(image, boxes, [0], (0, 2))
    with pytest.raises(tf.errors.InvalidArgumentError):  # boxes must have 4 columns
        tf.image.crop_and_resize(image, boxes[:, :3], [0], (2, 2))
    with pytest.raises(tf.errors.InvalidArgumentError):  # method: "bilinear" or "nearest"
        tf.image.crop_and_resize(image, boxes, [0], (2, 2), method="bicubic")
    with pytest.raises(tf.errors.InvalidArgumentError):
        tf.function(lambda n: tf.image.crop_and_resize(image, boxes, n, (2, 2)))(np.array([-1], np.int32))
