"""Object-detection op definitions: ``non_max_suppression``, TensorFlow's greedy selection of
boxes (NonMaxSuppressionV3/V4/V5 and NonMaxSuppressionWithOverlaps in one op), and
``combined_non_max_suppression`` (CombinedNonMaxSuppression: per class, then per batch).

The selection is sequential and its length depends on the data, so the kernels run on the
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


def _scalar(name, spec, op="non_max_suppression"):
    if spec.shape is not None and spec.shape != ():
        raise InvalidArgumentError(f"{op}: {name} must be a scalar, not {format_shape(spec.shape)}.")


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


def _corners(boxes):
    """The boxes' low and high corners (given in any order) and areas, in float32."""
    b = boxes.astype(np.float32, copy=False)
    lo, hi = np.minimum(b[:, :2], b[:, 2:]), np.maximum(b[:, :2], b[:, 2:])
    return lo, hi, (hi[:, 0] - lo[:, 0]) * (hi[:, 1] - lo[:, 1])


def _iou(boxes, i, others, corners=None):
    """IoU of box ``i`` with the boxes ``others`` (indices), in float32 as TensorFlow's kernels:
    corners in any order, 0 where a box has no area.  ``corners``: ``_corners(boxes)``, when the
    caller computed them once for many calls."""
    lo, hi, area = _corners(boxes) if corners is None else corners
    ext = np.maximum(np.minimum(hi[i], hi[others]) - np.maximum(lo[i], lo[others]), np.float32(0))
    inter = ext[:, 0] * ext[:, 1]
    with np.errstate(divide="ignore", invalid="ignore"):
        iou = inter / (area[i] + area[others] - inter)
    return np.where((area[i] <= 0) | (area[others] <= 0), np.float32(0), iou)


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


# --- combined_non_max_suppression ------------------------------------------------------------

_COMBINED = "combined_non_max_suppression"


def _check_combined_shapes(boxes, scores):
    """CombinedNonMaxSuppression's checks: boxes ``[batch, anchors, q, 4]`` with q 1 or the
    number of classes, scores ``[batch, anchors, classes]`` (``None`` sizes pass)."""
    if boxes is not None and len(boxes) != 4:
        raise InvalidArgumentError(f"{_COMBINED}: boxes must be 4-D, got shape {format_shape(boxes)}.")
    if scores is not None and len(scores) != 3:
        raise InvalidArgumentError(f"{_COMBINED}: scores must be 3-D, got shape {format_shape(scores)}.")
    if boxes is None or scores is None:
        return
    for axis, message in ((0, "boxes and scores must have same batch size"), (1, "scores has incompatible shape")):
        if None not in (boxes[axis], scores[axis]) and boxes[axis] != scores[axis]:
            raise InvalidArgumentError(f"{_COMBINED}: {message} ({format_shape(boxes)} and {format_shape(scores)}).")
    if boxes[3] not in (None, 4):
        raise InvalidArgumentError(f"{_COMBINED}: boxes must have 4 columns, got shape {format_shape(boxes)}.")
    if None not in (boxes[2], scores[2]) and boxes[2] not in (1, scores[2]):
        raise InvalidArgumentError(f"{_COMBINED}: third dimension of boxes must be either 1 or num classes.")


def _combined_infer(specs, attrs):
    boxes, scores, per_class, total, iou, score_threshold = specs
    check_dtype(_COMBINED, boxes, {D.float32}, "boxes")
    check_dtype(_COMBINED, scores, {D.float32}, "scores")
    for name, s, dt in (
        ("max_output_size_per_class", per_class, D.int32),
        ("max_total_size", total, D.int32),
        ("iou_threshold", iou, D.float32),
        ("score_threshold", score_threshold, D.float32),
    ):
        check_dtype(_COMBINED, s, {dt}, name)
        _scalar(name, s, _COMBINED)
    _check_combined_shapes(boxes.shape, scores.shape)
    batch = None if boxes.shape is None else boxes.shape[0]
    if batch is None and scores.shape is not None:
        batch = scores.shape[0]
    f32 = D.float32
    return Spec((batch, None, 4), f32), Spec((batch, None), f32), Spec((batch, None), f32), Spec((batch,), D.int32)


def _sift_up(heap, hole, top, item, less):
    parent = (hole - 1) // 2
    while hole > top and less(heap[parent], item):
        heap[hole], hole, parent = heap[parent], parent, (parent - 1) // 2
    heap[hole] = item


def _sift_down(heap, hole, n, item, less):
    """libstdc++'s __adjust_heap: the hole goes down to a leaf along the larger children (the
    left one on a tie), then ``item`` goes up from there."""
    top = child = hole
    while child < (n - 1) // 2:
        child = 2 * child + 2
        if less(heap[child], heap[child - 1]):
            child -= 1
        heap[hole], hole = heap[child], child
    if n % 2 == 0 and child == (n - 2) // 2:
        child = 2 * child + 2
        heap[hole], hole = heap[child - 1], child - 1
    _sift_up(heap, hole, top, item, less)


def _queue_order(keys, items):
    """``items`` in the order a C++ ``std::priority_queue`` (libstdc++, keyed by ``keys``)
    pushed them in order pops them: best key first, equal keys in the order the heap leaves
    them, which TensorFlow's outputs show.  Distinct keys have one order (NumPy's sort)."""
    k = keys[items]
    if np.unique(k).size == k.size:
        yield from items[np.argsort(-k, kind="stable")].tolist()
        return
    key = dict(zip(items.tolist(), k.tolist()))

    def less(a, b):
        return key[a] < key[b]

    heap: list = []
    for i in items.tolist():  # push_heap
        heap.append(i)
        _sift_up(heap, len(heap) - 1, 0, i, less)
    while heap:  # pop_heap
        best, last = heap[0], heap.pop()
        if heap:
            _sift_down(heap, 0, len(heap), last, less)
        yield best


def _std_sort(items, less):
    """libstdc++'s ``std::sort`` (introsort: median-of-three quicksort down to 16 elements,
    heapsort past the depth limit, then insertion sort) on the list ``items``, so that equal
    elements end in the order TensorFlow's kernel leaves them."""

    def introsort(lo, hi, depth):
        while hi - lo > 16:
            if depth == 0:  # __partial_sort: make_heap, then sort_heap
                part, n = items[lo:hi], hi - lo
                for p in range((n - 2) // 2, -1, -1):
                    _sift_down(part, p, n, part[p], less)
                for end in range(n - 1, 0, -1):
                    v, part[end] = part[end], part[0]
                    _sift_down(part, 0, end, v, less)
                items[lo:hi] = part
                return
            depth -= 1
            a, b, c = lo + 1, lo + (hi - lo) // 2, hi - 1  # the median of three to the front
            if less(items[a], items[b]):
                m = b if less(items[b], items[c]) else c if less(items[a], items[c]) else a
            else:
                m = a if less(items[a], items[c]) else c if less(items[b], items[c]) else b
            items[lo], items[m] = items[m], items[lo]
            first, last = lo + 1, hi  # __unguarded_partition around items[lo]
            while True:
                while less(items[first], items[lo]):
                    first += 1
                last -= 1
                while less(items[lo], items[last]):
                    last -= 1
                if first >= last:
                    break
                items[first], items[last] = items[last], items[first]
                first += 1
            introsort(first, hi, depth)
            hi = first

    n = len(items)
    introsort(0, n, 2 * (n.bit_length() - 1) if n else 0)
    for i in range(1, n):  # __final_insertion_sort (its unguarded steps end where these do)
        v, j = items[i], i
        while j > 0 and less(v, items[j - 1]):
            items[j], j = items[j - 1], j - 1
        items[j] = v


def _sort_order(keys, used):
    """The positions of ``keys`` after TensorFlow's ``std::sort`` by descending key.  Unused
    slots (key -1) are alike, so only ties among used ones (or with -1) need libstdc++'s order."""
    k = keys[used]
    if np.unique(k).size == k.size and not (k == -1).any():
        return np.argsort(-keys, kind="stable")
    flat = keys.tolist()
    order = list(range(len(flat)))
    _std_sort(order, lambda a, b: flat[a] > flat[b])
    return np.array(order, np.int64)


def combined_nms_host(boxes, scores, max_per_class, max_total, iou_threshold, score_threshold, pad_per_class, clip):
    """TensorFlow's CombinedNonMaxSuppression CPU kernel on NumPy arrays.  Per batch and class,
    the boxes scoring above ``score_threshold`` come off a priority queue best first, and each
    is kept unless its IoU with one already kept exceeds ``iou_threshold``, up to
    ``min(max_per_class, anchors)`` of them.  Per batch, the kept ones of all classes (in
    slots of that size per class; unused slots hold score -1 and class -1) are sorted by
    score and the first ``min(kept, width)`` are output, their boxes clipped to [0, 1] with
    ``clip``, the rest zeros; width is ``max_total``, or with ``pad_per_class``
    ``min(max_total, max_per_class * classes)``."""
    _check_combined_shapes(boxes.shape, scores.shape)
    per_class_max, total = int(max_per_class), int(max_total)
    threshold, floor = np.float32(iou_threshold), np.float32(score_threshold)
    if per_class_max <= 0:
        raise InvalidArgumentError(f"{_COMBINED}: max_size_per_class must be positive")
    if total <= 0:
        raise InvalidArgumentError(f"{_COMBINED}: max_total_size must be > 0")
    if not 0 <= threshold <= 1:
        raise InvalidArgumentError(f"{_COMBINED}: iou_threshold must be in [0, 1]")
    batch, n, q, _ = boxes.shape
    classes = scores.shape[2]
    per_class = min(per_class_max, n)
    width = min(total, per_class_max * classes) if pad_per_class else total
    out_boxes = np.zeros((batch, width, 4), np.float32)
    out_scores, out_classes = np.zeros((batch, width), np.float32), np.zeros((batch, width), np.float32)
    valid = np.zeros(batch, np.int32)
    for b in range(batch):
        slot_scores = np.full((classes, per_class), -1, np.float32)
        slot_classes = np.full((classes, per_class), -1, np.float32)
        slot_boxes = np.zeros((classes, per_class, 4), np.float32)
        used = np.zeros((classes, per_class), bool)
        for c in range(classes):
            class_boxes, class_scores = boxes[b, :, c if q > 1 else 0], scores[b, :, c]
            corners = _corners(class_boxes)
            kept: list = []
            for i in _queue_order(class_scores, np.flatnonzero(class_scores > floor)):
                if len(kept) == per_class:
                    break
                if not (kept and (_iou(class_boxes, i, np.array(kept), corners) > threshold).any()):
                    kept.append(i)
            k = len(kept)
            slot_scores[c, :k], slot_classes[c, :k] = class_scores[kept], c
            slot_boxes[c, :k], used[c, :k] = class_boxes[kept], True
        order = _sort_order(slot_scores.ravel(), used.ravel())
        count = valid[b] = min(int(used.sum()), width)
        top = order[:count]
        picked = slot_boxes.reshape(-1, 4)[top]
        out_boxes[b, :count] = np.clip(picked, 0, 1) if clip else picked
        out_scores[b, :count], out_classes[b, :count] = slot_scores.ravel()[top], slot_classes.ravel()[top]
    return out_boxes, out_scores, out_classes, valid


def _combined_impl(xp, boxes, scores, *scalars, pad_per_class, clip_boxes):
    host = [a.get() if hasattr(a, "get") else np.asarray(a) for a in (boxes, scores, *scalars)]
    out = combined_nms_host(*host, pad_per_class, clip_boxes)
    return tuple(xp.asarray(a) for a in out) if xp is not np else out


def _combined_ref(boxes, scores, max_per_class, max_total, iou, score_threshold, pad_per_class, clip_boxes):
    """Textbook form for distinct scores: per batch and class, greedy NMS over the boxes sorted
    by score; then all classes' picks sorted by score, cut to the output width.  Tied scores
    (TensorFlow's heap and introsort orders) are checked against TensorFlow's values in
    tests/ops/test_combined_nms.py."""
    batch, _, q, _ = boxes.shape
    classes = scores.shape[2]
    width = min(int(max_total), int(max_per_class) * classes) if pad_per_class else int(max_total)
    outs = [np.zeros((batch, width, 4), np.float32)] + [np.zeros((batch, width), np.float32) for _ in "sc"]
    valid = np.zeros(batch, np.int32)
    for b in range(batch):
        picks = []
        for c in range(classes):
            bx, sc = boxes[b, :, c if q > 1 else 0], scores[b, :, c]
            keep: list = []
            for i in sorted((i for i in range(len(sc)) if sc[i] > score_threshold), key=lambda i: -sc[i]):
                if len(keep) < int(max_per_class) and all(v <= iou for v in _iou(bx, i, np.array(keep, int))):
                    keep.append(i)
            picks += [(sc[i], c, bx[i]) for i in keep]
        picks = sorted(picks, key=lambda p: -p[0])[:width]
        valid[b] = len(picks)
        for j, (s, c, box) in enumerate(picks):
            outs[0][b, j], outs[1][b, j], outs[2][b, j] = np.clip(box, 0, 1) if clip_boxes else box, s, c
    return (*outs, valid)


def _combined_samples(rng):
    out = []
    for q, pad, clip, size, total, thr in ((1, False, True, 3, 5, -np.inf), (4, True, False, 2, 20, 0.3)):
        boxes = rng.uniform(-0.2, 1.2, (2, 9, q, 4)).astype(np.float32)
        scores = rng.permutation(2 * 9 * 4).reshape(2, 9, 4).astype(np.float32) / 72  # distinct
        scalars = (np.int32(size), np.int32(total), np.float32(0.4), np.float32(thr))
        out.append(S.Sample((boxes, scores) + scalars, {"pad_per_class": pad, "clip_boxes": clip}))
    empty = (np.zeros((2, 0, 1, 4), np.float32), np.zeros((2, 0, 3), np.float32))
    scalars = (np.int32(2), np.int32(4), np.float32(0.5), np.float32(-np.inf))
    out.append(S.Sample(empty + scalars, {"pad_per_class": False, "clip_boxes": True}, "no anchors"))
    return out


combined_non_max_suppression_op = register(
    OpDef(
        name=_COMBINED,
        kind="other",
        infer=_combined_infer,
        impl=_combined_impl,
        num_outputs=4,
        ref=_combined_ref,
        samples=_combined_samples,
        host_sync=True,  # the selection is sequential
        tf_name="CombinedNonMaxSuppression",
    )
)
