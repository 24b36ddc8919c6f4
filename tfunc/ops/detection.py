"""Object-detection op definitions: ``non_max_suppression``, TensorFlow's greedy selection of
boxes (NonMaxSuppressionV3/V4/V5 and NonMaxSuppressionWithOverlaps in one op).

The selection is sequential and its length depends on the data, so the kernel runs on the
host (``host_sync``) and the outputs have a run-time length, as ``unique``'s do.
"""

from __future__ import annotations

import heapq

import numpy as np

from ..core import dtypes as D
from ..core.errors import InvalidArgumentError
from ..core.shapes import format_shape
from ..core.specs import Spec
from . import sampling as S
from .infer import check_dtype
from .registry import OpDef, register

NMS_FLOATS = frozenset({D.float16, D.float32})  # TF 2.21 refuses double


def _scalar(name, spec):
    if spec.shape is not None and spec.shape != ():
        raise InvalidArgumentError(f"non_max_suppression: {name} must be a scalar, not {format_shape(spec.shape)}.")


def _check_shapes(boxes, scores, overlaps):
    """TensorFlow's kernel checks (``None`` sizes pass: the kernel checks them again)."""
    what = "overlaps" if overlaps else "boxes"
    if boxes is not None and len(boxes) != 2:
        raise InvalidArgumentError(f"non_max_suppression: {what} must be 2-D, got shape {format_shape(boxes)}.")
    if boxes is not None and None not in boxes and boxes[1] != (boxes[0] if overlaps else 4):
        raise InvalidArgumentError(
            f"non_max_suppression: {'overlaps must be square' if overlaps else 'boxes must have 4 columns'}, "
            f"got shape {format_shape(boxes)}."
        )
    if scores is not None and len(scores) != 1:
        raise InvalidArgumentError(f"non_max_suppression: scores must be 1-D, got shape {format_shape(scores)}.")
    if boxes is not None and scores is not None and None not in (boxes[0], scores[0]) and boxes[0] != scores[0]:
        raise InvalidArgumentError(
            f"non_max_suppression: scores has incompatible shape (Dimensions must be equal, but are {boxes[0]} "
            f"and {scores[0]})."
        )


def _nms_infer(specs, attrs):
    boxes, scores, size, iou, score_threshold, sigma = specs
    check_dtype("non_max_suppression", boxes, NMS_FLOATS, "overlaps" if attrs["overlaps"] else "boxes")
    check_dtype("non_max_suppression", scores, {boxes.dtype}, "scores")
    check_dtype("non_max_suppression", size, {D.int32}, "max_output_size")
    for name, s in (("max_output_size", size), ("iou_threshold", iou), ("score_threshold", score_threshold)):
        _scalar(name, s)
    _scalar("soft_nms_sigma", sigma)
    _check_shapes(boxes.shape, scores.shape, attrs["overlaps"])
    return Spec((None,), D.int32), Spec((None,), scores.dtype), Spec((), D.int32)


def _iou(boxes, i, others):
    """IoU of box ``i`` with the boxes ``others`` (indices), in float32 as TensorFlow's kernel:
    corners in any order, 0 where a box has no area."""
    b = boxes.astype(np.float32, copy=False)
    lo, hi = np.minimum(b[:, :2], b[:, 2:]), np.maximum(b[:, :2], b[:, 2:])
    area_i = (hi[i, 0] - lo[i, 0]) * (hi[i, 1] - lo[i, 1])
    area = (hi[others, 0] - lo[others, 0]) * (hi[others, 1] - lo[others, 1])
    ext = np.maximum(np.minimum(hi[i], hi[others]) - np.maximum(lo[i], lo[others]), np.float32(0))
    inter = ext[:, 0] * ext[:, 1]
    with np.errstate(divide="ignore", invalid="ignore"):
        iou = inter / (area_i + area - inter)
    return np.where((area_i <= 0) | (area <= 0), np.float32(0), iou)


def _nms_impl(xp, boxes, scores, max_output_size, iou_threshold, score_threshold, soft_nms_sigma, **attrs):
    host = [a.get() if hasattr(a, "get") else np.asarray(a) for a in (boxes, scores)]
    out = nms_host(*host, max_output_size, iou_threshold, score_threshold, soft_nms_sigma, **attrs)
    return tuple(xp.asarray(a) for a in out) if xp is not np else out


def nms_host(boxes, scores, max_output_size, iou_threshold, score_threshold, soft_nms_sigma, overlaps, pad):
    """TensorFlow's DoNonMaxSuppressionOp on NumPy arrays: candidates above ``score_threshold``
    taken best first (equal scores: the lower index first); each is compared with the boxes
    selected since it was last looked at, newest first.  Hard NMS drops it at the first overlap
    above ``iou_threshold``; soft NMS (``soft_nms_sigma > 0``) scales its score by
    ``exp(-0.5 * iou**2 / sigma)`` and puts it back in the queue while it stays above the score
    threshold.  Returns the selected indices, their (soft) scores and how many there are
    (``pad`` fills both to ``max_output_size`` with zeros)."""
    _check_shapes(boxes.shape, scores.shape, overlaps)
    t = scores.dtype.type
    size = int(max_output_size)
    if size < 0:
        raise InvalidArgumentError("non_max_suppression: output size must be non-negative")
    threshold, floor, sigma = (t(float(v)) for v in (iou_threshold, score_threshold, soft_nms_sigma))
    if not overlaps and not 0 <= threshold <= 1:
        raise InvalidArgumentError("non_max_suppression: iou_threshold must be in [0, 1]")
    if sigma < 0:
        raise InvalidArgumentError("non_max_suppression: soft_nms_sigma must be non-negative")
    soft = bool(sigma > 0)
    scale = t(-0.5) / sigma if soft else t(0)
    queue = [(-s, i, 0) for i, s in enumerate(scores.tolist()) if t(s) > floor]
    heapq.heapify(queue)
    selected: list = []
    kept: list = []
    while len(selected) < size and queue:
        neg, i, begin = heapq.heappop(queue)
        original = score = t(-neg)
        others = selected[begin:]
        sims = boxes[i, others].astype(np.float32) if overlaps else _iou(boxes, i, np.array(others, np.int64))
        hard = False
        for sim in sims[::-1].astype(t):
            weight = np.exp(scale * sim * sim)
            score = score * (weight if soft or sim <= threshold else t(0))
            if not soft and sim > threshold:
                hard = True
                break
            if score <= floor:
                break
        if hard:
            continue
        if score == original:
            selected.append(i)
            kept.append(score)
        elif score > floor:
            heapq.heappush(queue, (-score, i, len(selected)))
    count = len(selected)
    if pad:
        selected += [0] * (size - count)
        kept += [0] * (size - count)
    return np.array(selected, np.int32), np.array(kept, scores.dtype), np.array(count, np.int32)


def _nms_ref(boxes, scores, size, iou, score_threshold, sigma, overlaps, pad):
    """Hard NMS, textbook form (sort by score, then index; keep a box when its overlap with every
    kept box is at most the threshold); soft-NMS samples are checked against TensorFlow's values
    in tests/api/test_image_detection.py."""
    order = sorted((i for i in range(len(scores)) if scores[i] > score_threshold), key=lambda i: (-scores[i], i))
    keep: list = []
    for i in order:
        if len(keep) == int(size):
            break
        sims = boxes[i, keep] if overlaps else _iou(boxes, i, np.array(keep, np.int64))
        if all(s <= iou for s in sims.tolist()):
            keep.append(i)
    n = len(keep)
    fill = [0] * (int(size) - n) if pad else []
    return np.array(keep + fill, np.int32), np.array([scores[i] for i in keep] + fill, scores.dtype), np.int32(n)


def _nms_samples(rng):
    out = []
    for dt in (D.float32, D.float16):
        centre = rng.uniform(0, 4, (12, 2))
        boxes = np.concatenate([centre, centre + rng.uniform(0.5, 2, (12, 2))], axis=1)
        boxes[::3] = boxes[::3][:, [2, 3, 0, 1]]  # corners in the other order
        scores = np.round(rng.uniform(0, 1, 12), 1)  # equal scores: the lower index first
        args = (boxes.astype(dt._np), scores.astype(dt._np))
        for size, iou, thr, pad in ((5, 0.5, -np.inf, False), (20, 0.3, 0.2, False), (8, 0.6, 0.4, True)):
            scalars = (np.int32(size), np.asarray(iou, dt._np), np.asarray(thr, dt._np), np.asarray(0, dt._np))
            out.append(S.Sample(args + scalars, {"overlaps": False, "pad": pad}))
    overlaps = rng.uniform(0, 1, (6, 6)).astype(np.float32)
    scalars = (np.int32(4), np.float32(0.5), np.float32(-np.inf), np.float32(0))
    overlap_scores = rng.uniform(0, 1, 6).astype(np.float32)
    out.append(S.Sample((overlaps, overlap_scores) + scalars, {"overlaps": True, "pad": False}))
    empty = (np.zeros((0, 4), np.float32), np.zeros((0,), np.float32), np.int32(3))
    out.append(S.Sample(empty + scalars[1:], {"overlaps": False, "pad": False}, "empty"))
    return out


non_max_suppression_op = register(
    OpDef(
        name="non_max_suppression",
        kind="other",
        infer=_nms_infer,
        impl=_nms_impl,
        num_outputs=3,
        ref=_nms_ref,
        samples=_nms_samples,
        host_sync=True,  # the selection is sequential and sizes the output
        tf_name="NonMaxSuppressionV5",
    )
)
