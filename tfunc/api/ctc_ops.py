"""``tf.nn`` CTC functions: ``ctc_loss`` and ``ctc_beam_search_decoder`` (registered ops of
:mod:`tfunc.ops.ctc`, the loss's gradient in :mod:`tfunc.autodiff.ctc_grad`), and
``collapse_repeated``, ``ctc_unique_labels`` and ``ctc_greedy_decoder``, composed of other ops
as TensorFlow composes them.

tfunc has no SparseTensor: ``ctc_loss`` takes dense padded labels only, and the decoders
return dense, ``-1``-padded label rows where TensorFlow returns SparseTensors.
"""

from __future__ import annotations

from ..core import dtypes as D
from ..eager.convert import convert_to_tensor
from ..eager.dispatch import call
from ..ops.ctc import ctc_beam_search_decoder_op, ctc_loss_op
from . import math_ops as m
from .array_composites import sequence_mask
from .array_ops import concat, expand_dims, gather, shape, transpose
from .creation_ops import range as tf_range
from .reduction_ops import argmax, cumsum, reduce_max, reduce_sum
from .sort_ops import argsort


def _dense(arg, value, fn):
    """``value`` as a tensor; a SparseTensor-like value (tfunc has none) is refused clearly."""
    if hasattr(value, "indices") and hasattr(value, "dense_shape"):
        raise TypeError(f"{fn}: {arg} must be a dense tensor; tfunc has no SparseTensor (pass padded dense labels).")
    return convert_to_tensor(value)


def ctc_loss(
    labels, logits, label_length, logit_length, logits_time_major=True, unique=None, blank_index=None, name=None
):
    """The CTC loss (negative log-probability) per sequence, shape ``[batch]``, as TensorFlow's
    dense ``ctc_loss``: ``labels`` [batch, max_label_length] padded, ``logits`` [frames, batch,
    classes] (``[batch, frames, classes]`` if not ``logits_time_major``), ``blank_index`` 0 by
    default (negative counts from the last class).  ``unique`` (from ``ctc_unique_labels``)
    only selects a faster TPU path in TensorFlow; the result is the same, so it is accepted
    and not needed.  Labels must be dense: tfunc has no SparseTensor."""
    labels = _dense("labels", labels, "ctc_loss")
    logits = convert_to_tensor(logits)
    if label_length is None:
        raise ValueError("ctc_loss: label_length is required with dense labels (tfunc has no SparseTensor).")
    label_length, logit_length = convert_to_tensor(label_length), convert_to_tensor(logit_length)
    if not logits_time_major:
        logits = transpose(logits, [1, 0, 2])
    blank = 0 if blank_index is None else int(blank_index)
    classes = logits.shape[2] if logits.shape.rank == 3 else None
    if classes is not None and not -classes <= blank < classes:
        raise ValueError(f"ctc_loss: blank_index {blank_index} is out of range for {classes} classes.")
    if blank < 0 and classes is not None:
        blank += classes
    return call(ctc_loss_op, (logits, labels, label_length, logit_length), {"blank_index": blank})


def collapse_repeated(labels, seq_length, name=None):
    """``(collapsed, new_length)``: each row's first ``seq_length`` labels with runs of equal
    labels merged into one, left-aligned and padded with 0 to the longest new length."""
    labels, seq_length = convert_to_tensor(labels), convert_to_tensor(seq_length)
    # A label is kept when it differs from the one before it and lies within its sequence.
    first = m.equal(labels[:, :1], labels[:, :1])  # all True: a row's first label is always kept
    differs = concat([first, m.not_equal(labels[:, 1:], labels[:, :-1])], axis=1)
    keep = m.logical_and(differs, sequence_mask(seq_length, maxlen=shape(labels)[1]))
    return _compact(labels, keep, 0), m.cast(reduce_sum(m.cast(keep, D.int32), axis=1), seq_length.dtype)


def _compact(values, keep, fill, trim=True):
    """The kept entries of each row of ``values`` [batch, n], left-aligned and padded with
    ``fill``; with ``trim``, cut to the most entries any row keeps."""
    n = shape(values)[1]
    position = tf_range(n)
    # a stable sort on (dropped, position) moves each row's kept entries to its front, in order
    order = argsort(m.where(keep, position, position + n), axis=1, stable=True)
    count = reduce_sum(m.cast(keep, D.int32), axis=1)
    front = m.less(position, expand_dims(count, 1))
    out = m.where(front, gather(values, order, batch_dims=1, axis=1), m.cast(fill, values.dtype))
    if not trim:
        return out
    return out[:, : reduce_max(count) if values.shape[0] != 0 else 0]


def ctc_unique_labels(labels, name=None):
    """``(y, idx)`` per row of ``labels`` [batch, n]: the distinct labels in order of first
    appearance padded with 0 to ``n`` (int64), and each label's position among them (int32),
    as TensorFlow's ``tf.unique`` mapped over the rows (computed here for all rows at once)."""
    labels = convert_to_tensor(labels)
    same = m.equal(expand_dims(labels, 2), expand_dims(labels, 1))  # [batch, j, k]: labels j and k equal
    first_of = m.cast(argmax(m.cast(same, D.int32), axis=2), D.int32)  # where label j first appears
    is_first = m.equal(first_of, tf_range(shape(labels)[1]))
    rank = cumsum(m.cast(is_first, D.int32), axis=1) - 1  # at a first appearance: its unique index
    idx = gather(rank, first_of, batch_dims=1, axis=1)
    return _compact(m.cast(labels, D.int64), is_first, 0, trim=False), idx


def ctc_greedy_decoder(inputs, sequence_length, merge_repeated=True, blank_index=None):
    """Best-path decoding of ``inputs`` [frames, batch, classes]: the most likely class per
    frame within each sequence, repeats merged (with ``merge_repeated``: equal classes in
    consecutive frames) and blanks dropped; ``blank_index`` defaults to the last class.

    Returns ``([decoded], neg_sum_logits)``.  TensorFlow's ``decoded[0]`` is a SparseTensor;
    tfunc has none, so ``decoded[0]`` here is its dense form, ``tf.sparse.to_dense(decoded[0],
    default_value=-1)`` in TensorFlow: int64 [batch, longest decoding], padded with -1.
    ``neg_sum_logits`` [batch, 1] is minus the sum of each frame's largest logit."""
    x, seq_len = convert_to_tensor(inputs), convert_to_tensor(sequence_length)
    classes = x.shape[2] if x.shape.rank == 3 else None
    blank = -1 if blank_index is None else int(blank_index)
    if blank < 0:
        if classes is None:
            raise ValueError("ctc_greedy_decoder: a negative blank_index needs a known number of classes.")
        blank += classes
    best = argmax(x, axis=2)  # [T, B] int64
    in_seq = transpose(sequence_mask(seq_len, maxlen=shape(x)[0]))
    keep = m.logical_and(in_seq, m.not_equal(best, m.cast(blank, D.int64)))
    if merge_repeated:  # a class equal to the previous frame's (blank or not) is not emitted again
        first = m.equal(best[:1], best[:1])
        keep = m.logical_and(keep, concat([first, m.not_equal(best[1:], best[:-1])], axis=0))
    neg_sum = -reduce_sum(m.where(in_seq, reduce_max(x, axis=2), m.cast(0, x.dtype)), axis=0)
    decoded = _compact(transpose(best), transpose(keep), -1)
    return [decoded], expand_dims(neg_sum, 1)


def ctc_beam_search_decoder(inputs, sequence_length, beam_width=100, top_paths=1):
    """Beam search decoding of ``inputs`` [frames, batch, classes] (logits, blank the last
    class), TensorFlow's algorithm: the ``top_paths`` most likely label sequences per batch
    entry (repeats not merged) and their log-probabilities [batch, top_paths].

    Returns ``(decoded, log_probabilities)``.  TensorFlow's ``decoded[j]`` is a SparseTensor;
    tfunc has none, so ``decoded[j]`` here is its dense form, ``tf.sparse.to_dense(decoded[j],
    default_value=-1)`` in TensorFlow: int64 [batch, longest decoding of path j], padded
    with -1.  Not differentiable (as TensorFlow's)."""
    x, seq_len = convert_to_tensor(inputs), convert_to_tensor(sequence_length)
    beam_width, top_paths = int(beam_width), int(top_paths)
    if beam_width < 1 or not 0 <= top_paths <= beam_width:
        raise ValueError(f"ctc_beam_search_decoder: need 0 <= top_paths ({top_paths}) <= beam_width ({beam_width}).")
    outs = call(ctc_beam_search_decoder_op, (x, seq_len), {"beam_width": beam_width, "top_paths": top_paths})
    return list(outs[:-1]), outs[-1]
