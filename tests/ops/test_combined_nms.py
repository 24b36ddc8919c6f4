"""tf.image.combined_non_max_suppression against TensorFlow 2.21's values (recorded with
tests/ops/fixtures/make_combined_nms_cases.py): tied scores in TensorFlow's order (its CPU kernel's
std::priority_queue and std::sort), q=1 and q=classes boxes, batches, padding, clipping, the
static shapes of its shape function and its errors."""

import numpy as np
import pytest

import tfunc as tf


def _data(b, n, q, c, levels, shift=0.0):
    """Deterministic boxes (some outside [0, 1], corners in any order) and scores with many
    ties (``levels`` values)."""
    boxes = (((np.arange(b * n * q * 4) * 7919) % 97) / 80 - 0.1).astype(np.float32).reshape(b, n, q, 4)
    i = np.arange(b * n * c)
    scores = (((i * i * 31 + 7 * i + 3 * (i // (n * c))) % levels) / levels + shift).astype(np.float32)
    return boxes, scores.reshape(b, n, c)


# (data, (max_output_size_per_class, max_total_size, iou, score_threshold, pad_per_class,
# clip_boxes), TensorFlow's picks per batch as (anchor, class), in output order)
TIES = [
    (
        (2, 12, 1, 3, 4),
        (8, 20, 0.5, float("-inf"), False, True),
        [
            [(6, 0), (8, 2), (4, 2), (1, 2), (5, 2), (0, 2), (8, 1), (7, 1), (4, 1), (3, 1), (11, 1), (0, 1),
             (7, 0), (10, 0), (3, 0), (2, 0), (4, 0), (5, 0), (6, 1), (5, 1)],
            [(5, 0), (7, 2), (10, 2), (3, 2), (6, 2), (2, 2), (9, 1), (5, 1), (6, 1), (2, 1), (1, 1), (8, 0),
             (4, 0), (1, 0), (0, 0), (3, 0), (2, 0), (4, 1), (7, 1), (8, 1)],
        ],
    ),
    ((2, 12, 3, 3, 3), (5, 30, 0.3, 0.2, True, False), [[(0, 1), (2, 1), (10, 1)], [(0, 1), (2, 1), (10, 1)]]),
    ((1, 14, 1, 2, 5), (9, 7, 0.6, float("-inf"), False, True),
     [[(12, 0), (9, 1), (4, 1), (7, 0), (2, 0), (6, 0), (13, 0)]]),
]  # fmt: skip


def _expected(boxes, scores, args, picks):
    per_class, total, _, _, pad, clip = args
    b, _, q, c = boxes.shape[0], None, boxes.shape[2], scores.shape[2]
    width = min(total, per_class * c) if pad else total
    out_boxes, out_scores = np.zeros((b, width, 4), np.float32), np.zeros((b, width), np.float32)
    out_classes, valid = np.zeros((b, width), np.float32), np.array([len(p) for p in picks], np.int32)
    for i, row in enumerate(picks):
        for k, (anchor, cls) in enumerate(row):
            box = boxes[i, anchor, cls if q > 1 else 0]
            out_boxes[i, k] = np.clip(box, 0, 1) if clip else box
            out_scores[i, k], out_classes[i, k] = scores[i, anchor, cls], cls
    return out_boxes, out_scores, out_classes, valid


@pytest.mark.parametrize("traced", [False, True])
@pytest.mark.parametrize("case", range(len(TIES)))
def test_ties_in_tensorflows_order(case, traced):
    dims, args, picks = TIES[case]
    boxes, scores = _data(*dims)

    def run(b, s):
        return tf.image.combined_non_max_suppression(b, s, *args)

    out = (tf.function(run) if traced else run)(tf.constant(boxes), tf.constant(scores))
    assert out.nmsed_boxes.dtype == tf.float32 and out.valid_detections.dtype == tf.int32
    for got, want in zip(out, _expected(boxes, scores, args, picks)):
        np.testing.assert_array_equal(got.numpy(), want)


@pytest.mark.parametrize("traced", [False, True])
def test_unused_slots_sort_before_scores_below_minus_one(traced):
    """TensorFlow's kernel fills unused per-class slots with score -1, class -1 and a zero box:
    with scores below -1 (and the default threshold) they are output first."""
    boxes, scores = _data(1, 6, 1, 2, 3, shift=-3.0)

    def run(b, s):
        return tf.image.combined_non_max_suppression(b, s, 4, 8, 0.0)

    out = (tf.function(run) if traced else run)(boxes, scores)
    np.testing.assert_array_equal(out.nmsed_scores.numpy(), [[-1, -1, -1, -1, 0, 0, 0, 0]])
    np.testing.assert_array_equal(out.nmsed_classes.numpy(), [[-1, -1, -1, -1, 0, 0, 0, 0]])
    np.testing.assert_array_equal(out.nmsed_boxes.numpy(), np.zeros((1, 8, 4)))
    np.testing.assert_array_equal(out.valid_detections.numpy(), [4])


def test_distinct_scores_textbook_selection():
    """Distinct scores: greedy NMS per class (best first, dropped above the IoU threshold),
    then the best picks of all classes."""
    boxes = np.array([[[[0, 0, 1, 1]], [[0, 0, 0.9, 1]], [[0, 0.5, 1, 1.5]], [[2, 2, 3, 3]]]], np.float32)
    scores = np.array([[[0.9, 0.1], [0.8, 0.7], [0.6, 0.3], [0.5, 0.95]]], np.float32)
    out = tf.image.combined_non_max_suppression(boxes, scores, 3, 4, 0.5, clip_boxes=False)
    # class 0: 0 (0.9), 1 overlaps 0 by 0.9 -> dropped, 2 (IoU 1/3), 3; class 1: 3, 1, 2 (IoU 0.29 with 1), 0 dropped
    np.testing.assert_array_equal(out.nmsed_scores.numpy(), np.float32([[0.95, 0.9, 0.7, 0.6]]))
    np.testing.assert_array_equal(out.nmsed_classes.numpy(), [[1, 0, 1, 0]])
    np.testing.assert_array_equal(out.nmsed_boxes.numpy()[0], boxes[0, [3, 0, 1, 2], 0])
    np.testing.assert_array_equal(out.valid_detections.numpy(), [4])


def test_static_shapes_as_tensorflows_shape_function():
    boxes, scores = _data(2, 5, 1, 3, 4)
    shapes = {}

    @tf.function
    def known(b, s):
        padded = tf.image.combined_non_max_suppression(b, s, 3, 5, pad_per_class=True)
        shapes["pad"] = [t.shape.as_list() for t in padded]
        shapes["pad_cut"] = tf.image.combined_non_max_suppression(b, s, 1, 5, pad_per_class=True)[1].shape.as_list()
        return tf.image.combined_non_max_suppression(b, s, 3, 5)

    out = known(boxes, scores)
    assert [t.shape.as_list() for t in out] == [[2, 5, 4], [2, 5], [2, 5], [2]]
    assert shapes["pad"] == [[2, 5, 4], [2, 5], [2, 5], [2]] and shapes["pad_cut"] == [2, 3]

    @tf.function(input_signature=[tf.TensorSpec(None, tf.float32)] * 2 + [tf.TensorSpec([], tf.int32)])
    def unknown(b, s, k):
        shapes["no_pad"] = tf.image.combined_non_max_suppression(b, s, k, 5)[0].shape.as_list()
        shapes["pad_k"] = tf.image.combined_non_max_suppression(b, s, k, 5, pad_per_class=True)[0].shape.as_list()
        return tf.image.combined_non_max_suppression(b, s, 3, 5, pad_per_class=True)

    out = unknown(boxes, scores, 2)
    assert shapes["no_pad"] == [None, 5, 4] and shapes["pad_k"] == [None, None, 4]
    assert out[0].shape == (2, 5, 4)


def test_empty_inputs_and_float64_arrays():
    out = tf.image.combined_non_max_suppression(np.zeros((2, 0, 1, 4), np.float32), np.zeros((2, 0, 3)), 2, 4)
    assert out.nmsed_boxes.shape == (2, 4, 4) and out.valid_detections.numpy().tolist() == [0, 0]
    boxes, scores = _data(1, 5, 1, 2, 3)
    a = tf.image.combined_non_max_suppression(boxes.astype(np.float64), scores.astype(np.float64), 2, 4)
    b = tf.image.combined_non_max_suppression(boxes, scores, 2, 4)
    assert a.nmsed_scores.dtype == tf.float32
    np.testing.assert_array_equal(a.nmsed_boxes.numpy(), b.nmsed_boxes.numpy())


@pytest.mark.parametrize(
    "change, message",
    [
        ({"boxes": np.zeros((3, 5, 1, 4), np.float32)}, "same batch size"),
        ({"boxes": np.zeros((2, 4, 1, 4), np.float32)}, "scores has incompatible shape"),
        ({"boxes": np.zeros((2, 5, 2, 4), np.float32)}, "either 1 or num classes"),
        ({"boxes": np.zeros((2, 5, 1, 3), np.float32)}, "4 columns"),
        ({"max_output_size_per_class": 0}, "max_size_per_class must be positive"),
        ({"max_total_size": 0}, "max_total_size must be > 0"),
        ({"iou_threshold": 1.5}, r"iou_threshold must be in \[0, 1\]"),
        ({"max_total_size": 2**31}, "int64"),  # past int32: TensorFlow refuses the int64 tensor
        ({"boxes": tf.zeros((2, 5, 1, 4), tf.float16), "scores": tf.zeros((2, 5, 3), tf.float16)}, "float16"),
    ],
)
@pytest.mark.parametrize("traced", [False, True])
def test_errors(change, message, traced):
    args = {
        "boxes": np.zeros((2, 5, 1, 4), np.float32),
        "scores": np.zeros((2, 5, 3), np.float32),
        "max_output_size_per_class": 2,
        "max_total_size": 4,
    }
    args.update(change)

    def run():
        return tf.image.combined_non_max_suppression(**args)

    with pytest.raises(tf.errors.InvalidArgumentError, match=message):
        (tf.function(run) if traced else run)()


def test_not_differentiable():
    boxes = tf.constant(_data(1, 5, 1, 2, 3)[0])
    with tf.GradientTape() as tape:
        tape.watch(boxes)
        out = tf.image.combined_non_max_suppression(boxes, _data(1, 5, 1, 2, 3)[1], 2, 4)
    with pytest.raises(LookupError, match="CombinedNonMaxSuppression"):
        tape.gradient(out.nmsed_boxes, boxes)
