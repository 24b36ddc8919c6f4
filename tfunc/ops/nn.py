"""Neural-network op definitions: ``matmul``, ``conv2d`` (NHWC input, HWIO filter) and
its two gradient ops, ``bias_add``, softmax, log-softmax and the sparse softmax
cross-entropy loss.

Matmul runs on BLAS (NumPy) or cuBLAS (CuPy); convolution on the GEMM-based
kernels of :mod:`tfunc.ops.conv` (backends add their own).
"""

from __future__ import annotations

import numpy as np

from ..core import dtypes as D
from ..core.errors import IncompatibleShapesError, InvalidArgumentError
from ..core.shapes import broadcast_shapes, format_shape
from ..core.specs import Spec
from . import conv
from . import sampling as S
from .conv import geometry
from .infer import COMPLEX, FLOATS, INTS, check_dtype, same_dtype
from .registry import OpDef, register
from .widening import half_in_float32

_MM_DTYPES = FLOATS | COMPLEX | {D.int32, D.int64}


# --- matmul ----------------------------------------------------------------


def _matmul_infer(specs, attrs):
    a, b = specs
    dt = same_dtype("matmul", specs, ("a", "b"))
    check_dtype("matmul", a, _MM_DTYPES, "a")
    if a.shape is None or b.shape is None:
        return (Spec(None, dt),)
    if len(a.shape) < 2 or len(b.shape) < 2:
        raise InvalidArgumentError(
            f"matmul: inputs must be at least rank 2, got shapes {format_shape(a.shape)} and {format_shape(b.shape)}."
        )
    m, ka = (a.shape[-1], a.shape[-2]) if attrs["transpose_a"] else (a.shape[-2], a.shape[-1])
    kb, n = (b.shape[-1], b.shape[-2]) if attrs["transpose_b"] else (b.shape[-2], b.shape[-1])
    if ka is not None and kb is not None and ka != kb:
        raise IncompatibleShapesError(
            f"Matrix size-incompatible in 'matmul': In[0]: {format_shape(a.shape)}, In[1]: "
            f"{format_shape(b.shape)} (transpose_a={attrs['transpose_a']}, "
            f"transpose_b={attrs['transpose_b']})."
        )
    batch = broadcast_shapes(a.shape[:-2], b.shape[:-2], "matmul")
    return (Spec(batch + (m, n), dt),)


def _matmul_impl(xp, a, b, transpose_a=False, transpose_b=False, out=None):
    if transpose_a:
        a = xp.swapaxes(a, -1, -2)
    if transpose_b:
        b = xp.swapaxes(b, -1, -2)
    r = xp.matmul(a, b, out=out)
    if r.dtype != a.dtype:  # ml_dtypes' bfloat16 matmul returns float32
        return r.astype(a.dtype)
    return r


def _matmul_ref(a, b, transpose_a=False, transpose_b=False):
    if transpose_a:
        a = np.swapaxes(a, -1, -2)
    if transpose_b:
        b = np.swapaxes(b, -1, -2)
    wide = np.complex128 if a.dtype.kind == "c" else np.float64
    return np.matmul(a.astype(wide), b.astype(wide)).astype(a.dtype)


def _matmul_samples(rng):
    out = []
    for dt in (D.float32, D.float64, D.int32, D.complex64):
        for sa, sb, ta, tb in [
            ((3, 4), (4, 5), False, False),
            ((4, 3), (4, 5), True, False),
            ((3, 4), (5, 4), False, True),
            ((4, 3), (5, 4), True, True),
            ((2, 3, 4), (4, 2), False, False),
            ((2, 1, 3, 4), (5, 4, 2), False, False),
            ((0, 4), (4, 3), False, False),
            ((3, 0), (0, 2), False, False),
        ]:
            out.append(
                S.Sample(
                    (S.draw(rng, sa, dt, "small"), S.draw(rng, sb, dt, "small")), {"transpose_a": ta, "transpose_b": tb}
                )
            )
    out.append(
        S.Sample(
            (S.draw(rng, (4, 6), D.float32)[:, ::2], S.draw(rng, (3, 2), D.float32)),
            {"transpose_a": False, "transpose_b": False},
            "strided",
        )
    )
    return out


matmul_op = register(
    OpDef(
        name="matmul",
        epilogue_producer=True,
        kind="matmul",
        infer=_matmul_infer,
        impl=_matmul_impl,
        accepts_out=True,
        ref=_matmul_ref,
        samples=_matmul_samples,
    )
)


# --- conv2d ----------------------------------------------------------------


def _conv_infer(specs, attrs):
    x, f = specs
    dt = same_dtype("conv2d", specs, ("input", "filters"))
    check_dtype("conv2d", x, FLOATS, "input")
    if x.shape is None or f.shape is None:
        return (Spec((None,) * 4, dt),)
    g = geometry(x.shape, f.shape, attrs["strides"], attrs["padding"], attrs["dilations"])
    return (Spec((g.n, g.oh, g.ow, g.oc), dt),)


def _conv_impl(xp, x, f, strides, padding, dilations):
    return conv.conv2d(xp, x, f, strides, padding, dilations)


def _conv_ref(x, f, strides, padding, dilations):
    """Direct summation in float64: the oracle for every conv kernel."""
    g = geometry(x.shape, f.shape, strides, padding, dilations)
    xp_ = np.pad(x.astype(np.float64), ((0, 0), (g.pad_top, g.pad_bottom), (g.pad_left, g.pad_right), (0, 0)))
    out = np.zeros((g.n, g.oh, g.ow, g.oc))
    for i in range(g.kh):
        for j in range(g.kw):
            patch = xp_[
                :,
                i * g.dh : i * g.dh + (g.oh - 1) * g.sh + 1 : g.sh,
                j * g.dw : j * g.dw + (g.ow - 1) * g.sw + 1 : g.sw,
                :,
            ]
            out += patch @ f[i, j].astype(np.float64)
    return out.astype(x.dtype)


def _conv_samples(rng):
    out = []
    cases = [
        ((1, 5, 5, 2), (3, 3, 2, 3), (1, 1), "VALID", (1, 1)),
        ((2, 6, 7, 3), (3, 2, 3, 4), (2, 2), "SAME", (1, 1)),
        ((1, 7, 7, 2), (3, 3, 2, 2), (1, 1), "SAME", (2, 2)),
        ((1, 8, 6, 1), (2, 3, 1, 2), (3, 2), "VALID", (1, 1)),
        ((2, 4, 4, 3), (1, 1, 3, 5), (1, 1), "VALID", (1, 1)),
        ((1, 5, 5, 2), (3, 3, 2, 2), (1, 1), ((1, 0), (2, 1)), (1, 1)),
        ((1, 2, 2, 2), (3, 3, 2, 2), (1, 1), "VALID", (1, 1)),
    ]
    for dt in (D.float32, D.float64):
        for xs, fs, st, pad, dl in cases:
            out.append(
                S.Sample((S.draw(rng, xs, dt), S.draw(rng, fs, dt)), {"strides": st, "padding": pad, "dilations": dl})
            )
    return out


conv2d_op = register(
    OpDef(
        name="conv2d",
        epilogue_producer=True,
        kind="conv",
        infer=_conv_infer,
        impl=_conv_impl,
        ref=_conv_ref,
        samples=_conv_samples,
    )
)


def _bpi_infer(specs, attrs):
    dy, f, x = specs
    same_dtype("conv2d_backprop_input", (dy, f), ("out_backprop", "filter"))
    return (Spec(x.shape, dy.dtype),)


def _bpi_impl(xp, dy, f, x, strides, padding, dilations):
    return conv.conv2d_backprop_input(xp, dy, f, xp.shape(x), strides, padding, dilations)


def _bpf_infer(specs, attrs):
    x, dy, f = specs
    same_dtype("conv2d_backprop_filter", (x, dy), ("input", "out_backprop"))
    return (Spec(f.shape, dy.dtype),)


def _bpf_impl(xp, x, dy, f, strides, padding, dilations):
    return conv.conv2d_backprop_filter(xp, x, dy, xp.shape(f), strides, padding, dilations)


def _bpi_ref(dy, f, x, strides, padding, dilations):
    """Adjoint of the reference conv by direct scatter, in float64."""
    g = geometry(x.shape, f.shape, strides, padding, dilations)
    dxp = np.zeros((g.n, g.h + g.pad_top + g.pad_bottom, g.w + g.pad_left + g.pad_right, g.c))
    for i in range(g.kh):
        for j in range(g.kw):
            dxp[
                :,
                i * g.dh : i * g.dh + (g.oh - 1) * g.sh + 1 : g.sh,
                j * g.dw : j * g.dw + (g.ow - 1) * g.sw + 1 : g.sw,
                :,
            ] += dy.astype(np.float64) @ f[i, j].T
    return dxp[:, g.pad_top : g.pad_top + g.h, g.pad_left : g.pad_left + g.w, :].astype(dy.dtype)


def _bpf_ref(x, dy, f, strides, padding, dilations):
    g = geometry(x.shape, f.shape, strides, padding, dilations)
    xp_ = np.pad(x.astype(np.float64), ((0, 0), (g.pad_top, g.pad_bottom), (g.pad_left, g.pad_right), (0, 0)))
    df = np.zeros(f.shape)
    for i in range(g.kh):
        for j in range(g.kw):
            patch = xp_[
                :,
                i * g.dh : i * g.dh + (g.oh - 1) * g.sh + 1 : g.sh,
                j * g.dw : j * g.dw + (g.ow - 1) * g.sw + 1 : g.sw,
                :,
            ]
            df[i, j] = np.einsum("nhwc,nhwo->co", patch, dy.astype(np.float64))
    return df.astype(x.dtype)


def _bp_samples(which):
    def samples(rng):
        out = []
        for s in _conv_samples(rng):
            x, f = s.inputs
            dy = _conv_ref(x, f, **s.attrs)
            dy = S.draw(rng, dy.shape, D.as_dtype(x.dtype))
            out.append(S.Sample((dy, f, x) if which == "input" else (x, dy, f), s.attrs))
        return out

    return samples


conv2d_backprop_input_op = register(
    OpDef(
        name="conv2d_backprop_input",
        kind="conv",
        infer=_bpi_infer,
        impl=_bpi_impl,
        ref=_bpi_ref,
        samples=_bp_samples("input"),
    )
)
conv2d_backprop_filter_op = register(
    OpDef(
        name="conv2d_backprop_filter",
        kind="conv",
        infer=_bpf_infer,
        impl=_bpf_impl,
        ref=_bpf_ref,
        samples=_bp_samples("filter"),
    )
)


# --- bias_add --------------------------------------------------------------------


def _bias_infer(specs, attrs):
    v, b = specs
    dt = same_dtype("bias_add", specs, ("value", "bias"))
    if b.shape is not None and len(b.shape) != 1:
        raise InvalidArgumentError(f"bias_add: bias must be 1-D, got shape {format_shape(b.shape)}.")
    if v.shape is not None:
        if len(v.shape) < 1:
            raise InvalidArgumentError("bias_add: value must be at least rank 1.")
        if b.shape is not None and None not in (v.shape[-1], b.shape[0]) and v.shape[-1] != b.shape[0]:
            raise IncompatibleShapesError(
                f"bias_add: bias of size {b.shape[0]} does not match the last dimension of value "
                f"{format_shape(v.shape)}."
            )
    return (Spec(v.shape, dt),)


bias_add_op = register(
    OpDef(
        name="bias_add",
        kind="elementwise",
        infer=_bias_infer,
        ufunc="add",
        cuda_expr="out0 = in0 + in1",
        ref=np.add,
        samples=lambda rng: [
            S.Sample((S.draw(rng, sh, dt), S.draw(rng, sh[-1:], dt)))
            for dt in (D.float32, D.float64)
            for sh in [(5,), (3, 4), (2, 3, 4), (0, 3)]
        ],
    )
)


# --- softmax family ------------------------------------------------------------------


@half_in_float32
def _softmax_impl(xp, x, axis):
    m = xp.max(x, axis=axis, keepdims=True) if x.size else x.dtype.type(0)
    e = xp.subtract(x, m)
    xp.exp(e, out=e)
    e /= xp.sum(e, axis=axis, keepdims=True, dtype=x.dtype)
    return e


@half_in_float32
def _log_softmax_impl(xp, x, axis):
    m = xp.max(x, axis=axis, keepdims=True) if x.size else x.dtype.type(0)
    z = xp.subtract(x, m)
    z -= xp.log(xp.sum(xp.exp(z), axis=axis, keepdims=True, dtype=x.dtype))
    return z


def _softmax_ref(x, axis):
    x64 = x.astype(np.float64)
    e = np.exp(x64 - x64.max(axis=axis, keepdims=True))
    return (e / e.sum(axis=axis, keepdims=True)).astype(x.dtype)


def _log_softmax_ref(x, axis):
    x64 = x.astype(np.float64)
    z = x64 - x64.max(axis=axis, keepdims=True)
    return (z - np.log(np.exp(z).sum(axis=axis, keepdims=True))).astype(x.dtype)


def _softmax_samples(rng):
    return [
        S.Sample((S.draw(rng, sh, dt),), {"axis": ax})
        for dt in (D.float32, D.float64)
        for sh, ax in [((5,), 0), ((3, 4), 1), ((3, 4), 0), ((2, 3, 4), 2), ((0, 3), 1)]
    ]


def _axis_infer_for(name):
    def infer(specs, attrs):
        s = specs[0]
        check_dtype(name, s, FLOATS, "logits")
        if s.rank == 0:
            raise InvalidArgumentError(f"{name}: logits must have rank >= 1.")
        return (Spec(s.shape, s.dtype),)

    return infer


softmax_op = register(
    OpDef(
        name="softmax",
        kind="nn",
        infer=_axis_infer_for("softmax"),
        impl=_softmax_impl,
        ref=_softmax_ref,
        samples=_softmax_samples,
    )
)
log_softmax_op = register(
    OpDef(
        name="log_softmax",
        kind="nn",
        infer=_axis_infer_for("log_softmax"),
        impl=_log_softmax_impl,
        ref=_log_softmax_ref,
        samples=_softmax_samples,
    )
)


# --- losses --------------------------------------------------------------------------


def _sce_infer(specs, attrs):
    labels, logits = specs
    check_dtype("sparse_softmax_cross_entropy_with_logits", labels, INTS, "labels")
    check_dtype("sparse_softmax_cross_entropy_with_logits", logits, FLOATS, "logits")
    if labels.shape is not None and logits.shape is not None:
        if len(logits.shape) != len(labels.shape) + 1 or any(
            a is not None and b is not None and a != b for a, b in zip(labels.shape, logits.shape[:-1])
        ):
            raise IncompatibleShapesError(
                f"sparse_softmax_cross_entropy_with_logits: labels shape {format_shape(labels.shape)} must "
                f"equal logits shape {format_shape(logits.shape)} without its last dimension."
            )
    return Spec(labels.shape, logits.dtype), Spec(logits.shape, logits.dtype)


def _sce_impl(xp, labels, logits):
    """(loss, backprop): as TensorFlow's kernel, the forward pass also yields
    d loss / d logits = softmax(logits) - one_hot(labels), so the gradient costs one multiply.
    loss = log(sum(exp(z))) - z[label] with z = logits - max(logits)."""
    c = logits.shape[-1]
    if labels.size:
        lo, hi = int(labels.min()), int(labels.max())
        if lo < 0 or hi >= c:
            raise InvalidArgumentError(
                f"Received a label value of {lo if lo < 0 else hi} which is outside the valid range of [0, {c})."
            )
    z = xp.subtract(logits, xp.max(logits, axis=-1, keepdims=True) if logits.size else logits.dtype.type(0))
    rows = z.reshape(-1, c)
    pick = (xp.arange(rows.shape[0]), labels.reshape(-1))
    picked = rows[pick].reshape(labels.shape)
    xp.exp(z, out=z)
    total = xp.sum(z, axis=-1, dtype=z.dtype)
    z /= total[..., None]  # z is now softmax(logits)
    rows[pick] -= 1
    return xp.log(total) - picked, z


def _sce_ref(labels, logits):
    lsm = _log_softmax_ref(logits.astype(np.float64), -1)
    loss = -np.take_along_axis(lsm, labels[..., None].astype(np.int64), axis=-1)[..., 0]
    hot = labels[..., None] == np.arange(logits.shape[-1])
    return loss.astype(logits.dtype), (np.exp(lsm) - hot).astype(logits.dtype)


sparse_softmax_cross_entropy_op = register(
    OpDef(
        name="sparse_softmax_cross_entropy_with_logits",
        kind="nn",
        infer=_sce_infer,
        impl=_sce_impl,
        num_outputs=2,
        ref=_sce_ref,
        host_sync=True,  # label range
        samples=lambda rng: [
            S.Sample((rng.integers(0, 4, size=sh).astype(np.int32), S.draw(rng, sh + (4,), dt)))
            for dt in (D.float32, D.float64)
            for sh in [(5,), (2, 3), (0,)]
        ],
    )
)


def _dense_sce_infer(specs, attrs):
    logits, labels = specs
    dt = same_dtype("softmax_cross_entropy_with_logits", specs, ("logits", "labels"))
    check_dtype("softmax_cross_entropy_with_logits", logits, FLOATS, "logits")
    if logits.shape is not None and labels.shape is not None:
        if len(logits.shape) != len(labels.shape) or any(
            a is not None and b is not None and a != b for a, b in zip(logits.shape, labels.shape)
        ):
            raise IncompatibleShapesError(
                f"softmax_cross_entropy_with_logits: logits and labels must be same size: logits shape "
                f"{format_shape(logits.shape)}, labels shape {format_shape(labels.shape)}."
            )
    rank = logits.rank if logits.shape is not None else labels.rank
    if rank == 0:
        raise InvalidArgumentError("softmax_cross_entropy_with_logits: logits must have rank >= 1.")
    shape = logits.shape if logits.shape is not None else labels.shape
    return Spec(None if shape is None else shape[:-1], dt), Spec(shape, dt)


def _dense_sce_impl(xp, logits, labels):
    """(loss, backprop) along the last axis, as TensorFlow's kernel: with z = logits - max,
    loss = sum(labels * (log(sum(exp(z))) - z)) and backprop = softmax(logits) - labels, the
    gradient with respect to the logits whatever the labels sum to (half floats in float32)."""
    dt = logits.dtype
    if not logits.size:
        return xp.zeros(logits.shape[:-1], dt), xp.zeros(logits.shape, dt)
    wide = D.ACCUMULATE.get(dt, dt)
    z = logits.astype(wide)
    z -= xp.max(z, axis=-1, keepdims=True)
    z -= xp.log(xp.sum(xp.exp(z), axis=-1, keepdims=True))  # z is now log_softmax(logits)
    labels = labels.astype(wide)
    loss = -xp.sum(labels * z, axis=-1)
    xp.exp(z, out=z)
    z -= labels
    return loss.astype(dt, copy=False), z.astype(dt, copy=False)


def _dense_sce_ref(logits, labels):
    if not logits.size:
        return np.zeros(logits.shape[:-1], logits.dtype), np.zeros(logits.shape, logits.dtype)
    lsm = _log_softmax_ref(logits.astype(np.float64), -1)
    loss = -np.sum(labels * lsm, axis=-1)
    return loss.astype(logits.dtype), (np.exp(lsm) - labels).astype(logits.dtype)


def _distributions(p):
    """Rows summing to one: where they do not, the kernel's gradient is TensorFlow's
    softmax - labels, not the loss's derivative, and finite differences would not match it."""
    return (p / np.maximum(p.sum(axis=-1, keepdims=True), 1e-3)).astype(p.dtype)


softmax_cross_entropy_op = register(
    OpDef(
        name="softmax_cross_entropy_with_logits",
        kind="nn",
        infer=_dense_sce_infer,
        impl=_dense_sce_impl,
        num_outputs=2,
        ref=_dense_sce_ref,
        tf_name="SoftmaxCrossEntropyWithLogits",
        samples=lambda rng: [
            S.Sample((S.draw(rng, sh, dt), _distributions(S.draw(rng, sh, dt, "positive"))))
            for dt in (D.float32, D.float64)
            for sh in [(5,), (2, 3), (2, 3, 4), (0, 3), (2, 0)]
        ],
    )
)
