"""CTC (connectionist temporal classification) op definitions: ``ctc_loss`` (dense, padded
labels) and ``ctc_loss_grad``, its gradient with respect to the logits.

Both run TensorFlow's dense algorithm (``ctc_loss_dense``: Sim et al., 2017) in log space,
vectorized over the batch and the alignment states, one step per frame.  TensorFlow's state
machine has a start state before the first label, floors "impossible" initial and final
states at ``log(1e-307)`` rather than ``-inf`` (so an infeasible alignment gets a large finite
loss and a finite gradient, not inf and NaN), and normalizes the posteriors per frame; both
ops keep all three so their values match TensorFlow's, infeasible sequences included.

States, for labels ``l1..lL`` (padding included, as TensorFlow): ``START, blank, l1, blank,
l2, ..., lL, blank`` (``2L + 2``).  A state is entered from itself, from the one before it,
and (a label) from two before when that is START or a different label.  The loss is split
from its gradient (TensorFlow's kernel yields both at once) so that the loss alone is cheap
and its gradient rule is a plain op call (training runs the backward recursion once more);
the gradient op is not differentiable, as TensorFlow's fused CTC gradient.  Both compute in
float64 whatever the logits' dtype (see ``_forward_backward``).

``ctc_beam_search_decoder`` runs TensorFlow's prefix beam search on the host, one sequence
at a time (a search tree: inherently sequential), with dense ``-1``-padded outputs.
"""

from __future__ import annotations

import numpy as np

from ..core import dtypes as D
from ..core.errors import InvalidArgumentError
from ..core.shapes import format_shape
from ..core.specs import Spec
from . import sampling as S
from .infer import FLOATS, INTS, check_dtype
from .registry import OpDef, register

# TensorFlow's log(0) for initial and final states: float32(log(1e-307)).
_LOG_0 = float(np.float32(np.log(1e-307)))
# -inf as a finite number: log-sum-exp over it needs no inf - inf guards.
_NEG = -1e30


def _infer(name, grad):
    def infer(specs, attrs):
        logits, labels, label_length, logit_length = specs
        check_dtype(name, logits, FLOATS, "logits")
        for spec, arg in ((labels, "labels"), (label_length, "label_length"), (logit_length, "logit_length")):
            check_dtype(name, spec, INTS, arg)
        if logits.shape is not None and len(logits.shape) != 3:
            raise InvalidArgumentError(f"{name}: logits must be rank 3, got shape {format_shape(logits.shape)}.")
        if labels.shape is not None and len(labels.shape) != 2:
            raise InvalidArgumentError(f"{name}: labels must be rank 2, got shape {format_shape(labels.shape)}.")
        if grad:
            return (Spec(logits.shape, logits.dtype),)
        batch = None if logits.shape is None else logits.shape[1]
        if batch is None and labels.shape is not None:
            batch = labels.shape[0]
        return (Spec((batch,), logits.dtype),)

    return infer


def _lse(xp, *terms):
    m = terms[0]
    for t in terms[1:]:
        m = xp.maximum(m, t)
    total = xp.exp(terms[0] - m)
    for t in terms[1:]:
        total += xp.exp(t - m)
    return m + xp.log(total)


def _shift(xp, a, k):
    """``a`` moved k states right along the last axis, ``_NEG`` entering (predecessors)."""
    out = xp.full_like(a, _NEG)
    out[..., k:] = a[..., :-k]
    return out


def _unshift(xp, a, k):
    """``a`` moved k states left along the last axis, ``_NEG`` entering (successors)."""
    out = xp.full_like(a, _NEG)
    out[..., :-k] = a[..., k:]
    return out


def _forward_backward(xp, logits, labels, label_length, logit_length, blank_index, grad):
    """TensorFlow's dense CTC on time-major ``logits`` [T, B, C]: the loss [B], or with
    ``grad`` d loss / d logits [T, B, C] (zero past each sequence's logit length)."""
    t_max, batch, classes = logits.shape
    out_dtype = logits.dtype
    # In float64: unnormalized log-space sums reach hundreds (the log(1e-307) floor), where
    # float32 would lose 1e-5 of each posterior; TensorFlow's float32 loses as much.
    logits = logits.astype(np.float64)
    dt = logits.dtype
    if blank_index < 0:
        blank_index += classes
    # TensorFlow moves the blank class to index 0 and shifts the labels below it up by one.
    if blank_index != 0:
        logits = xp.concatenate(
            [logits[:, :, blank_index : blank_index + 1], logits[:, :, :blank_index], logits[:, :, blank_index + 1 :]],
            axis=2,
        )
        labels = xp.where(labels < blank_index, labels + 1, labels)
    labels = labels.astype(np.int64)
    n_labels = labels.shape[1]
    n_states = 2 * n_labels + 2
    z = logits - (xp.max(logits, axis=2, keepdims=True) if logits.size else 0)
    log_probs = z - xp.log(xp.sum(xp.exp(z), axis=2, keepdims=True))
    # Emissions [T, B, S]: START emits nothing, blanks class 0, a label its class (a label
    # outside [0, C) "emits" log 1, as TensorFlow's one_hot of it is all zeros).
    valid = (labels >= 0) & (labels < classes)
    picked = xp.take_along_axis(log_probs, xp.broadcast_to(xp.where(valid, labels, 0), (t_max,) + labels.shape), axis=2)
    picked = xp.where(valid[None], picked, dt.type(0))
    emit = xp.empty((t_max, batch, n_states), dt)
    emit[:, :, 0] = _NEG
    emit[:, :, 1::2] = log_probs[:, :, :1]
    emit[:, :, 2::2] = picked
    # A label is entered from two states back when that is START or a different label.
    skip = xp.zeros((batch, n_states), bool)
    skip[:, 2:3] = True
    skip[:, 4::2] = labels[:, 1:] != labels[:, :-1]
    skip_next = xp.zeros_like(skip)  # the state two ahead is entered by a skip
    skip_next[:, :-2] = skip[:, 2:]
    # Initial log-probabilities before frame 0 (START), final ones after each sequence's last
    # frame (label state L_b and the blank after it; START and blank 0 when L_b = 0).
    init = xp.full((batch, n_states), _LOG_0, dt)
    init[:, 0] = 0
    lab_len = label_length.astype(np.int64)
    in_range = (lab_len >= 0) & (lab_len <= n_labels)
    states = xp.arange(n_states)
    final_state = (states[None] // 2 == lab_len[:, None]) & in_range[:, None]
    final = xp.where(final_state, dt.type(0), dt.type(_LOG_0))
    seq_len = xp.clip(logit_length.astype(np.int64), 0, t_max)
    neg = dt.type(_NEG)

    def step_back(m):  # log-sum over each state's successors of (beta + emission)
        return _lse(xp, m, _unshift(xp, m, 1), xp.where(skip_next, _unshift(xp, m, 2), neg))

    # Backward: beta[t] sums the paths after frame t; beta is ``final`` at a sequence's last frame.
    beta = xp.empty((t_max, batch, n_states), dt)
    cur = final
    for t in range(t_max - 1, -1, -1):
        if t < t_max - 1:
            cur = step_back(beta[t + 1] + emit[t + 1])
        cur = xp.where((t >= seq_len - 1)[:, None], final, cur)
        beta[t] = cur
    before = step_back(beta[0] + emit[0]) if t_max else final
    loss = -xp.where(seq_len == 0, final[:, 0], before[:, 0])
    if n_labels == 0:  # TensorFlow's start->label-1 and label-0->blank transitions coincide and add up
        loss = xp.where(seq_len > 0, loss - dt.type(np.log(2.0)), loss)
    if not grad:
        return loss.astype(out_dtype)
    # Forward and the per-frame state posteriors, normalized per frame as TensorFlow.
    alpha = init
    post = xp.empty_like(beta)
    for t in range(t_max):
        alpha = _lse(xp, alpha, _shift(xp, alpha, 1), xp.where(skip, _shift(xp, alpha, 2), neg)) + emit[t]
        post[t] = alpha + beta[t]
    post = xp.exp(post - _lse_axis(xp, post))
    # Posterior mass per class: blanks to class 0, label state i to its class (START to none).
    occupancy = xp.zeros((t_max, batch, classes), dt)
    occupancy[:, :, 0] = xp.sum(post[:, :, 1::2], axis=2)
    rows = (xp.arange(t_max)[:, None, None] * batch + xp.arange(batch)[None, :, None]) * classes
    flat = (rows + xp.where(valid, labels, 0)[None]).reshape(-1)
    mass = xp.where(valid[None] & (labels[None] > 0), post[:, :, 2::2], dt.type(0)).reshape(-1)
    occupancy += xp.bincount(flat, weights=mass, minlength=occupancy.size).reshape(occupancy.shape).astype(dt)
    g = xp.exp(log_probs) - occupancy
    g *= (xp.arange(t_max)[:, None] < seq_len[None, :])[:, :, None]
    if blank_index != 0:  # back to the caller's class order
        g = xp.concatenate([g[:, :, 1 : blank_index + 1], g[:, :, :1], g[:, :, blank_index + 1 :]], axis=2)
    return g.astype(out_dtype)


def _lse_axis(xp, a):
    m = xp.max(a, axis=2, keepdims=True) if a.size else a
    return m + xp.log(xp.sum(xp.exp(a - m), axis=2, keepdims=True))


def _impl(grad):
    def impl(xp, logits, labels, label_length, logit_length, blank_index=0):
        return _forward_backward(xp, logits, labels, label_length, logit_length, blank_index, grad)

    return impl


def _ref(grad):
    """TensorFlow's formulation, one sequence at a time in float64: its transition matrix
    (start state, labels, blanks after them) and an unnormalized forward-backward."""

    def ref(logits, labels, label_length, logit_length, blank_index=0):
        t_max, batch, classes = logits.shape
        blank = blank_index % classes if classes else 0
        x = logits.astype(np.float64)
        x = np.concatenate([x[:, :, blank : blank + 1], x[:, :, :blank], x[:, :, blank + 1 :]], axis=2)
        lab = np.where(labels < blank, labels + 1, labels).astype(np.int64)
        lp = x - np.log(np.sum(np.exp(x - x.max(2, keepdims=True)), 2, keepdims=True)) - x.max(2, keepdims=True)
        n = lab.shape[1]
        loss, grads = np.zeros(batch), np.zeros((t_max, batch, classes))
        for b in range(batch):
            # TensorFlow's states: 0..n labels (0 = start), n+1..2n+1 the blank after each.
            ns = 2 * (n + 1)
            trans = np.eye(ns)
            trans[1, 0] += 1  # summed as TensorFlow's scatter_nd (twice when n = 0)
            for i in range(n + 1):
                trans[n + 1 + i, i] += 1  # label i -> blank after it
                if i >= 1:
                    trans[i, n + i] = 1  # blank before label i -> label i
                if i >= 2 and lab[b, i - 1] != lab[b, i - 2]:
                    trans[i, i - 1] = 1
            emit = np.zeros((t_max, ns))
            emit[:, 0] = 0.0
            for i in range(1, n + 1):
                c = lab[b, i - 1]
                emit[:, i] = np.exp(lp[:, b, c]) if 0 <= c < classes else 1.0
            emit[:, n + 1 :] = np.exp(lp[:, b, :1])
            init = np.full(ns, np.exp(_LOG_0))
            init[0] = 1
            final = np.full(ns, np.exp(_LOG_0))
            if 0 <= label_length[b] <= n:
                final[label_length[b]] = final[n + 1 + label_length[b]] = 1
            tb = int(np.clip(logit_length[b], 0, t_max))
            alphas, a = [], init
            for t in range(tb):
                a = (trans @ a) * emit[t]
                alphas.append(a)
            betas, bt = [None] * tb, final
            for t in range(tb - 1, -1, -1):
                betas[t] = bt
                bt = trans.T @ (bt * emit[t])
            loss[b] = -np.log(bt[0])
            for t in range(tb):
                p = alphas[t] * betas[t]
                p /= p.sum()
                grads[t, b] = np.exp(lp[t, b])
                grads[t, b, 0] -= p[n + 1 :].sum()
                for i in range(1, n + 1):
                    if 1 <= lab[b, i - 1] < classes:
                        grads[t, b, lab[b, i - 1]] -= p[i]
        grads = np.concatenate([grads[:, :, 1 : blank + 1], grads[:, :, :1], grads[:, :, blank + 1 :]], axis=2)
        return (grads if grad else loss).astype(logits.dtype)

    return ref


def _samples(infeasible):
    def samples(rng):
        out = []
        for dt in (D.float32, D.float64):
            for t, b, c, n, blank in [
                (6, 3, 4, 2, 0),
                (7, 2, 5, 3, -1),
                (5, 3, 3, 2, 1),
                (3, 2, 4, 0, 0),
                (5, 0, 3, 2, 0),
            ]:
                labels = rng.integers(1, c, size=(b, n)).astype(np.int32)
                if blank != 0:  # classes other than the blank: 1..c-1 moved down below it
                    labels = np.where(labels - 1 < blank % c, labels - 1, labels)
                # at least 2n + 1 frames: every alignment is feasible (n = 0: none at all too)
                logit_length = rng.integers(2 * n + 1 if n else 0, t + 1, size=b).astype(np.int32)
                out.append(
                    S.Sample(
                        (
                            S.draw(rng, (t, b, c), dt),
                            labels,
                            rng.integers(0, n + 1, size=b).astype(np.int32),
                            logit_length,
                        ),
                        {"blank_index": blank},
                        f"T={t} B={b} C={c} L={n} blank={blank}",
                    )
                )
        if infeasible:
            # Labels longer than the frames allow, repeated labels, no frames: TensorFlow's floored
            # loss (its gradient is then not the derivative of that loss: the gradient op only).
            out.append(
                S.Sample(
                    (
                        S.draw(rng, (2, 2, 3), D.float64),
                        np.array([[1, 1, 2], [2, 2, 0]], np.int64),
                        np.array([3, 2], np.int64),
                        np.array([2, 0], np.int64),
                    ),
                    {"blank_index": 0},
                    "infeasible",
                )
            )
        return out

    return samples


ctc_loss_op = register(
    OpDef(
        name="ctc_loss",
        kind="nn",
        infer=_infer("ctc_loss", grad=False),
        impl=_impl(grad=False),
        ref=_ref(grad=False),
        samples=_samples(infeasible=False),
        tf_name="CTCLoss",
    )
)

ctc_loss_grad_op = register(
    OpDef(
        name="ctc_loss_grad",
        kind="nn",
        infer=_infer("ctc_loss_grad", grad=True),
        impl=_impl(grad=True),
        ref=_ref(grad=True),
        samples=_samples(infeasible=True),
    )
)


# --- beam search decoding ---------------------------------------------------------------------


def _log_sum(a, b):
    """TensorFlow's LogSumExp of two log-probabilities (-inf is log 0)."""
    if a == -np.inf:
        return b
    if b == -np.inf:
        return a
    return a + np.log1p(np.exp(b - a)) if a > b else b + np.log1p(np.exp(a - b))


class _Beam:
    """A prefix in the beam search tree; ``newp``/``oldp``: log-probabilities [blank, label, total]
    of the prefix ending in a blank, in its last label, and either."""

    __slots__ = ("parent", "label", "children", "newp", "oldp")

    def __init__(self, parent, label, dt):
        self.parent, self.label, self.children = parent, label, {}
        self.newp = [dt.type(-np.inf)] * 3
        self.oldp = list(self.newp)

    def labels(self):
        out, node = [], self
        while node.parent is not None:
            out.append(node.label)
            node = node.parent
        return out[::-1]


def _beam_search(frames, beam_width, top_paths):
    """TensorFlow's CTCBeamSearchDecoder (``ctc_beam_search.h``, default scorer, no label
    selection) on one sequence's logits [T, C], blank the last class: the ``top_paths`` best
    label sequences (merge_repeated=False) and their log-probabilities.  A search over a tree
    of prefixes, one frame at a time, as the C++ kernel (the same order of visits, evictions
    and float arithmetic), so ties resolve alike."""
    dt = frames.dtype
    neg = dt.type(-np.inf)
    classes = frames.shape[1]
    root = _Beam(None, -1, dt)
    root.newp = [dt.type(0), neg, dt.type(0)]  # the empty prefix, certain, ending in no label
    leaves = [root]  # a top-N of capacity beam_width by total: pushing past it drops the lowest

    def bottom():
        return min(leaves, key=lambda e: e.newp[2])

    def candidate(total):
        return total > neg and (len(leaves) < beam_width or total > bottom().newp[2])

    for row in frames:
        m = row.max()
        norm = m + np.log(np.sum(np.exp(row - m)))
        branches = sorted(leaves, key=lambda e: e.newp[2], reverse=True)
        leaves.clear()
        for b in branches:
            b.oldp = list(b.newp)
        for b in branches:
            label = b.newp[1]
            if b.parent is not None:
                parent = b.parent
                if parent.newp[2] != neg:  # the parent is in the beam: it extends to b
                    label = _log_sum(label, parent.oldp[0] if b.label == parent.label else parent.oldp[2])
                label = label + row[b.label] - norm
            blank = b.oldp[2] + row[classes - 1] - norm
            b.newp = [blank, label, _log_sum(blank, label)]
            leaves.append(b)
        for b in branches:
            if not candidate(b.oldp[2]):
                continue
            for c_label in range(classes - 1):
                c = b.children.get(c_label)
                if c is None:
                    c = b.children[c_label] = _Beam(b, c_label, dt)
                if c.newp[2] != neg:  # in the beam already: extended above
                    continue
                previous = b.oldp[0] if c_label == b.label else b.oldp[2]
                p = row[c_label] - norm + previous
                c.newp = [neg, p, p]
                if candidate(p):
                    if len(leaves) == beam_width:  # the lowest leaf leaves the beam
                        dropped = bottom()
                        dropped.newp = [neg, neg, neg]
                        leaves.remove(dropped)
                    leaves.append(c)
                else:
                    c.newp = [neg, neg, neg]
                    c.oldp = [neg, neg, neg]
    if top_paths > len(leaves):
        raise InvalidArgumentError("Less leaves in the beam search than requested.")
    best = sorted(leaves, key=lambda e: e.newp[2], reverse=True)[:top_paths]
    return [e.labels() for e in best], [e.newp[2] for e in best]


def _beam_infer(specs, attrs):
    x, seq_len = specs
    check_dtype("ctc_beam_search_decoder", x, FLOATS, "inputs")
    check_dtype("ctc_beam_search_decoder", seq_len, {D.int32}, "sequence_length")
    batch = None if x.shape is None else x.shape[1]
    return (
        *[Spec((batch, None), D.int64) for _ in range(attrs["top_paths"])],
        Spec((batch, attrs["top_paths"]), x.dtype),
    )


def _beam_impl(xp, x, seq_len, beam_width, top_paths):
    """Dense decodings (int64 [batch, longest], padded with -1), one per path, then the
    log-probabilities [batch, top_paths]: each sequence searched on the host."""
    host_x = x.get() if hasattr(x, "get") else x
    lengths = seq_len.get() if hasattr(seq_len, "get") else seq_len
    t_max, batch, _ = host_x.shape
    if top_paths > beam_width:
        raise InvalidArgumentError("requested more paths than the beam width.")
    paths, log_probs = [], np.zeros((batch, top_paths), host_x.dtype)
    for b in range(batch):
        if not 0 <= lengths[b] <= t_max:
            raise InvalidArgumentError(f"sequence_length({b}) = {lengths[b]} is outside [0, {t_max}].")
        best, scores = _beam_search(host_x[: lengths[b], b], beam_width, top_paths)
        paths.append(best)
        log_probs[b] = scores
    outs = []
    for j in range(top_paths):
        width = max((len(p[j]) for p in paths), default=0)
        dense = np.full((batch, width), -1, np.int64)
        for b, p in enumerate(paths):
            dense[b, : len(p[j])] = p[j]
        outs.append(xp.asarray(dense))
    return (*outs, xp.asarray(log_probs))


def _beam_ref(x, seq_len, beam_width, top_paths):
    return _beam_impl(np, x, seq_len, beam_width, top_paths)


ctc_beam_search_decoder_op = register(
    OpDef(
        name="ctc_beam_search_decoder",
        kind="other",
        num_outputs=-1,
        infer=_beam_infer,
        impl=_beam_impl,
        ref=_beam_ref,
        host_sync=True,
        samples=lambda rng: [
            S.Sample(
                (np.log(rng.dirichlet(np.ones(4), size=(5, 3))).astype(np.float32), np.array([5, 3, 0], np.int32)),
                {"beam_width": 4, "top_paths": 1},
            ),
            S.Sample(
                (S.draw(rng, (6, 2, 5), D.float64), np.array([6, 4], np.int32)), {"beam_width": 6, "top_paths": 3}
            ),
            S.Sample((np.zeros((3, 0, 4), np.float32), np.zeros((0,), np.int32)), {"beam_width": 2, "top_paths": 2}),
        ],
        tf_name="CTCBeamSearchDecoder",
    )
)
